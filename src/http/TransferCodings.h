/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Http::TransferCodings: the Transfer-Encoding fields of one message,
/// read as the one list they form (RFC 9112 section 6.1, RFC 9110 section
/// 5.6.1), for the request and the reply parser alike.
///
/// Every field's value is added in order: `gzip` then `chunked` is the list
/// `gzip, chunked`. Elements are case-insensitive tokens with optional
/// `;parameters`, OWS around commas, and empty elements ignored. add()
/// refuses what no reading can agree on, the desync vectors of the public
/// record: an element that is not a token (`\xa0chunked`, `chunked\xa0`,
/// `"chunked"`), `chunked` with parameters, `chunked` listed twice, and a
/// field with no coding at all. What a message with a valid list means is
/// the caller's (the request and the reply rules differ): isChunkedLast()
/// is the one framing cuttle can decode, and hasOtherCodings() says some
/// other coding was applied as well, which cuttle never removes or forwards
/// silently.
#pragma once

#include <string_view>

namespace Http {

/// See the file comment.
class TransferCodings {
public:
    /// adds one Transfer-Encoding field value; false when it is malformed
    /// (see the file comment), which makes the whole message's framing unknown
    bool add(std::string_view value);
    /// forgets every field, for the next message
    void reset() { *this = TransferCodings(); }

    /// whether a Transfer-Encoding field was added
    bool isPresent() const { return present_; }
    /// whether the final coding is chunked (without parameters)
    bool isChunkedLast() const { return chunkedLast_; }
    /// whether a coding other than chunked was listed
    bool hasOtherCodings() const { return others_; }
    /// whether the list is exactly `chunked`: the only one cuttle forwards
    bool isChunkedOnly() const { return chunkedLast_ && !others_; }

private:
    bool present_ = false;     ///< a field was added
    bool chunkedLast_ = false; ///< the last coding so far is chunked
    bool sawChunked_ = false;  ///< chunked was listed (a second time is an error)
    bool others_ = false;      ///< a coding other than chunked was listed
};

} // namespace Http
