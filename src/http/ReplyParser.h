/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Http::ReplyParser: an incremental, strict parser of one HTTP/1.x
/// reply head (RFC 9112 sections 2, 4, 5 and 6).
///
/// Layout and ownership: as RequestParser, the parser never copies the head.
/// The server side reads the origin's bytes into its own block and calls
/// parse() with a view of every byte buffered since the start of this reply;
/// between calls it may only APPEND to that buffer. Every string_view the
/// parser returns (reason phrase, field names and values) points into the
/// caller's buffer and is valid while those bytes are. The store keeps the
/// head's bytes and this index of them; the body's first slice starts at
/// headSize() in the same block (doc/design.md "The path of a body byte").
///
///     buffer: [CRLF*][status-line CRLF][field-line CRLF]...[CRLF][body...]
///             |<--------------------- headSize() -------------------->|
///
/// Incremental: parse() remembers how far it has scanned (Http::HeadLines,
/// as RequestParser does), so feeding a head byte by byte costs O(size) in
/// total. The result depends only on the bytes, never on how they were
/// split between calls: a prefix of a valid head gives NeedMore, and an
/// invalid head gives the same error whole or byte by byte (the parser
/// looks at no byte past maxHeadSize).
///
/// Limits are checked before anything is stored: when the head does not end
/// within maxHeadSize bytes (squid.conf reply_header_max_size), the result
/// is Error with ReplyError::TooLarge. Every error is answered with 502.
///
/// Strictness (RFC 9112), and where we are lenient as real proxies are:
/// - status line `HTTP/DIGIT.DIGIT SP 3DIGIT SP reason`; the reason may be
///   empty and `HTTP/1.1 200` without the SP after the code is accepted
///   (section 4: a client SHOULD accept it); a code below 100 or of more
///   than three digits is an error; HTTP/2 and later are UnsupportedVersion.
///   Bytes that cannot start `HTTP/` fail at once, so an origin that speaks
///   something else does not hold the connection until the limit.
/// - empty lines before the status line are skipped, as for requests
///   (section 2.2), since some origins send a stray CRLF after a body.
/// - CRLF ends a line, a bare LF is tolerated, a bare CR is an error.
/// - obs-fold is rejected (502), not unfolded: section 5.2 lets a proxy do
///   either, but unfolding means writing into the read block or copying the
///   value, both against the parse-in-place design, and folding has been
///   deprecated since 2014 (RFC 7230), so the rare origin that folds gets a
///   clear error instead of a slow path that is never tested.
/// - whitespace between a field name and its colon and control bytes in a
///   value (but HTAB) are errors (section 5.1, RFC 9110 section 5.5).
/// - Content-Length must be digits; copies, in one field (`5, 5`) or in
///   several, must all be equal (section 6.3 item 5); a value above
///   INT64_MAX is an error, so a length always fits in off_t.
/// - Transfer-Encoding is read by Http::TransferCodings, as requests are: a
///   malformed list, or chunked twice or with parameters, is an error. A
///   list whose final coding is not chunked frames the body by the close
///   (section 6.3 item 3), so the connection is not reused; the forwarder
///   refuses any coding but chunked, as Squid 5.7 does (it cannot decode
///   them, and must not pass them on silently). With Content-Length too,
///   Transfer-Encoding wins and hadLengthAndTransferEncoding() tells the
///   forwarder to drop Content-Length (section 6.3 item 3).
///
/// Interim replies: parse() of a 1xx head returns Done with headSize() of
/// that interim head only. The caller drops (or forwards) those bytes,
/// calls reset() and parses again from the byte after it: a 1xx has no
/// body. 101 Switching Protocols is final for the connection and is the
/// caller's to handle.
///
/// One parser per origin connection; reset() before the next reply.

#pragma once

#include "http/HeadLines.h"
#include "http/RequestParser.h"
#include "http/TransferCodings.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace Http {

/// Why a reply head was rejected (the caller answers 502 either way).
enum class ReplyError {
    None,
    BadStatusLine,       ///< not `HTTP-version SP status-code [SP reason]`
    BadVersion,          ///< version is not HTTP/DIGIT.DIGIT, or is HTTP/0.x
    UnsupportedVersion,  ///< HTTP/2.0 and later in an HTTP/1 head
    BadStatusCode,       ///< not three digits, or below 100
    BareCr,              ///< a CR not followed by LF
    ObsFold,             ///< a field line starting with whitespace
    BadField,            ///< a field line without a colon, a bad name or value
    BadContentLength,    ///< Content-Length not digits, too big, or copies that differ
    BadTransferEncoding, ///< an empty or malformed coding list, chunked twice or with parameters
    TooLarge             ///< the head exceeds reply_header_max_size
};

/// Parses one reply head; see the file comment.
class ReplyParser {
public:
    /// How a reply body is delimited (RFC 9112 section 6.3).
    enum class Framing {
        None,    ///< no body: HEAD, 1xx, 204, 304, or 2xx to CONNECT (a tunnel follows)
        Length,  ///< exactly contentLength() bytes (possibly 0)
        Chunked, ///< chunked transfer coding; see ChunkedDecoder
        Close    ///< until the origin closes the connection
    };

    /// maxHeadSize: reply_header_max_size in bytes (at least 1)
    explicit ReplyParser(size_t maxHeadSize);

    /// Parses what is buffered so far (the same bytes as last time plus any
    /// appended). After Done or Error, further calls return the same result.
    ParseResult parse(std::string_view buffered);

    /// Forgets the current reply, to parse the next one (or the final reply
    /// after a 1xx).
    void reset();

    /// changes the limit for the next reply (after a reconfigure)
    void setMaxHeadSize(size_t bytes) { maxHeadSize_ = bytes ? bytes : 1; }
    /// the limit in force
    size_t maxHeadSize() const { return maxHeadSize_; }

    /// why the last parse() returned Error
    ReplyError error() const { return error_; }
    /// a short text for cache.log, e.g. "obs-fold in a field line"
    const char* errorText() const;

    /// bytes of the head (leading empty lines, status line, fields, final
    /// empty line), valid after Done
    size_t headSize() const { return headSize_; }

    /// the major digit of the version (valid after Done)
    int versionMajor() const { return versionMajor_; }
    /// the minor digit of the version (valid after Done)
    int versionMinor() const { return versionMinor_; }
    /// the status code, 100..999 (valid after Done)
    int statusCode() const { return statusCode_; }
    /// the reason phrase as sent, possibly empty (valid after Done)
    std::string_view reason() const { return reason_; }
    /// the header fields in the order sent (valid after Done)
    const std::vector<HeaderField>& fields() const { return fields_; }

    /// the value of the first field with this name (case-insensitive)
    std::optional<std::string_view> findField(std::string_view name) const;
    /// whether any Connection field lists this token (case-insensitive)
    bool hasConnectionToken(std::string_view token) const;
    /// whether the origin will close (or the framing forbids reuse):
    /// HTTP/1.1 unless `Connection: close`; HTTP/1.0 unless `keep-alive`;
    /// always for HTTP/1.0 with Transfer-Encoding (RFC 9112 section 6.1).
    /// A Close framing() ends the connection as well; that is the caller's.
    bool wantsClose() const;
    /// the length that frames the body: Content-Length, unless
    /// Transfer-Encoding overrides it (then nullopt). A forwarder writes
    /// this number rather than the value as sent, which may be `5, 5`.
    std::optional<uint64_t> contentLength() const;
    /// the Transfer-Encoding fields, as one list (valid after Done)
    const TransferCodings& transferCodings() const { return codings_; }
    /// whether both Content-Length and Transfer-Encoding were sent: the
    /// body is framed by Transfer-Encoding and every Content-Length field
    /// MUST be removed before forwarding (RFC 9112 section 6.3 item 3)
    bool hadLengthAndTransferEncoding() const { return codings_.isPresent() && contentLength_.has_value(); }
    /// how the body is delimited, given the request (valid after Done):
    /// none for HEAD, 1xx, 204, 304 and a 2xx to CONNECT; Chunked when the
    /// final coding is chunked; Close for any other Transfer-Encoding;
    /// Length with Content-Length; Close otherwise
    Framing framing(bool requestWasHead, bool requestWasConnect) const;

private:
    ParseResult fail(ReplyError e);
    ParseResult parseStatusLine(std::string_view line);
    ParseResult parseFieldLine(std::string_view line);
    bool parseContentLength(std::string_view value);

    size_t maxHeadSize_;
    ParseResult state_ = ParseResult::NeedMore;
    ReplyError error_ = ReplyError::None;

    HeadLines lines_{LineEnds::CrLfOrBareLf}; ///< a bare LF is tolerated (see the file comment)
    bool haveStatusLine_ = false;
    size_t headSize_ = 0;

    int versionMajor_ = 0;
    int versionMinor_ = 0;
    int statusCode_ = 0;
    std::string_view reason_;
    std::vector<HeaderField> fields_;
    std::optional<uint64_t> contentLength_; ///< as sent, even when Transfer-Encoding overrides it
    TransferCodings codings_;               ///< every Transfer-Encoding field, in order
};

} // namespace Http
