/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Http::RequestParser: an incremental, strict parser of one HTTP/1.x
/// request head (RFC 9112 sections 2, 3 and 5).
///
/// Layout and ownership: the parser never copies the head. The caller reads
/// bytes into its own buffer (a pooled block) and calls parse() with a view
/// of every byte buffered since the start of this request; between calls the
/// caller may only APPEND to that buffer (the same bytes stay at the same
/// addresses, so a block must not be moved while a head is in progress).
/// Every string_view the parser returns (method, target, field names and
/// values) points into the caller's buffer and is valid while those bytes are.
///
///     buffer: [CRLF*][request-line CRLF][field-line CRLF]...[CRLF][body or next request...]
///             |<------------------ headSize() --------------------->|
///
/// Incremental: parse() remembers how far it has scanned (Http::HeadLines,
/// which finds the lines of reply heads too), so feeding a head byte by
/// byte costs O(size) in total, not O(size^2). A prefix of a valid
/// head always gives NeedMore; the same bytes in one piece give Done.
///
/// Limits are checked before anything is stored: when the head (leading
/// empty lines included) does not end within maxHeadSize bytes, the result
/// is Error with ParseError::TooLarge, which the caller answers with 431,
/// like Squid's request_header_max_size.
///
/// Strictness (RFC 9112): exactly one SP between the request-line parts; the
/// version is `HTTP/DIGIT.DIGIT` (2 and later: UnsupportedVersion -> 505);
/// CRLF and nothing else ends a line: a bare LF is an error although
/// section 2.2 lets a recipient take it as a line end, since a hop in front
/// of cuttle may not agree on where a field ends (Squid 5.7 takes it), and
/// a bare CR is an error; obs-fold is rejected (section 5.2 allows it,
/// Squid 5 accepts it); whitespace between a field name and its colon is
/// rejected (section 5.1, a MUST); a field value may hold no control
/// character but HTAB; Content-Length must be digits and all copies equal,
/// and may not come with Transfer-Encoding (section 6.3: a request
/// smuggling vector; Squid 5.7 frames such a request by Transfer-Encoding
/// instead). Transfer-Encoding is one list over all its fields
/// (Http::TransferCodings): a malformed list, a final coding other than
/// chunked, chunked twice, and any Transfer-Encoding in an HTTP/1.0
/// request (section 6.1: faulty framing) are 400, after which the
/// connection must close (section 6.3); a valid list with codings before
/// chunked (`gzip, chunked`) is 501, as Squid 5.7 answers it: cuttle
/// removes only the chunked framing it re-applies, so it forwards no other
/// coding and never drops one silently. Host (RFC 9112 section 3.2, RFC
/// 9110 section 7.2, both MUSTs): a request with two Host field lines, or
/// with a value that is not `uri-host [":" port]`, is 400 (Squid 5.7 takes
/// both); the value is only checked, since an absolute-form target decides
/// the authority (section 3.2.2). An HTTP/1.1 request without Host is still
/// taken (the RFC's 400 is not enforced yet).
///
/// One parser per connection; reset() before the next request.

#pragma once

#include "http/Fields.h"
#include "http/HeadLines.h"
#include "http/Method.h"
#include "http/StatusCode.h"
#include "http/TransferCodings.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace Http {

/// What one parse() call found.
enum class ParseResult {
    NeedMore, ///< the head is a valid prefix so far; read more and call again
    Done,     ///< a complete head; headSize() bytes belong to it
    Error     ///< malformed or too large; see error()
};

/// Why a head was rejected.
enum class ParseError {
    None,
    BadRequestLine,            ///< not `token SP target SP HTTP-version` (Squid: ERR_PROTOCOL_UNKNOWN)
    BadMethod,                 ///< method is not a token
    BadTarget,                 ///< empty target or a forbidden byte in it
    BadVersion,                ///< version is not HTTP/DIGIT.DIGIT
    UnsupportedVersion,        ///< HTTP/2.0 and later in an HTTP/1 head (505)
    BareCr,                    ///< a CR not followed by LF
    BareLf,                    ///< an LF not preceded by CR
    ObsFold,                   ///< a field line starting with whitespace
    BadField,                  ///< a field line without a colon, a bad name or value
    BadContentLength,          ///< Content-Length not digits, or copies that differ
    LengthAndChunked,          ///< both Content-Length and Transfer-Encoding (RFC 9112 section 6.3)
    BadTransferEncoding,       ///< a malformed Transfer-Encoding, or chunked is not its final coding
    TransferEncodingInHttp10,  ///< Transfer-Encoding in an HTTP/1.0 request (faulty framing)
    UnsupportedTransferCoding, ///< a coding before chunked, which cuttle cannot forward (501)
    BadHost,                   ///< Host twice, or a Host that is no uri-host[:port]
    TooLarge                   ///< the head exceeds the configured maximum (431)
};

/// Parses one request head; see the file comment.
class RequestParser {
public:
    /// maxHeadSize: request_header_max_size in bytes (at least 1)
    explicit RequestParser(size_t maxHeadSize);

    /// Parses what is buffered so far (the same bytes as last time plus any
    /// appended). After Done or Error, further calls return the same result.
    ParseResult parse(std::string_view buffered);

    /// Forgets the current request, to parse the next one.
    void reset();

    /// changes the limit for the next request (after a reconfigure)
    void setMaxHeadSize(size_t bytes) { maxHeadSize_ = bytes ? bytes : 1; }
    /// the limit in force
    size_t maxHeadSize() const { return maxHeadSize_; }

    /// why the last parse() returned Error
    ParseError error() const { return error_; }
    /// the status to answer an error with: 400, 414 (TooLarge within the
    /// request line), 431 (TooLarge in the fields), 501
    /// (UnsupportedTransferCoding) or 505
    StatusCode errorStatus() const;
    /// a short text for cache.log, e.g. "obs-fold in a field line"
    const char* errorText() const;

    /// bytes of the head (leading empty lines, request line, fields, final
    /// empty line), valid after Done
    size_t headSize() const { return headSize_; }

    /// the method token as sent (valid after Done, and after an UnsupportedVersion error)
    std::string_view methodToken() const { return methodToken_; }
    /// the method (valid after Done)
    Method method() const { return method_; }
    /// the request-target as sent (valid after Done, and after an UnsupportedVersion error)
    std::string_view target() const { return target_; }
    /// the major digit of the version (valid after Done)
    int versionMajor() const { return versionMajor_; }
    /// the minor digit of the version (valid after Done)
    int versionMinor() const { return versionMinor_; }
    /// the header fields in the order sent (valid after Done)
    const std::vector<HeaderField>& fields() const { return fields_; }

    /// the value of the first field with this name (case-insensitive)
    std::optional<std::string_view> findField(std::string_view name) const;
    /// whether any Connection (or Proxy-Connection) field lists this token
    bool hasConnectionToken(std::string_view token) const;
    /// whether the client wants the connection closed after this request:
    /// HTTP/1.1 unless `Connection: close`; HTTP/1.0 unless `keep-alive`
    bool wantsClose() const;
    /// the Content-Length value, when one was sent (valid after Done)
    std::optional<uint64_t> contentLength() const { return contentLength_; }
    /// whether the request has a body: Transfer-Encoding (always chunked
    /// after Done), or Content-Length > 0
    bool hasBody() const;

    /// What a log line can say about a rejected head: the token characters
    /// (tchar, at most 64) it starts with, even when nothing parsed, as
    /// Squid 5.7 logs "garbage" for `garbage\r\n`, "G" for `G\x01T ...` and
    /// "-" (empty here) for `\x01GET ...`. Never holds a control byte or a
    /// space, so it cannot break an access.log line. Points into the last
    /// buffer given to parse().
    std::string_view firstWord() const { return firstWord_; }

private:
    ParseResult fail(ParseError e);
    ParseResult parseRequestLine(std::string_view line);
    ParseResult parseFieldLine(std::string_view line);

    size_t maxHeadSize_;
    ParseResult state_ = ParseResult::NeedMore;
    ParseError error_ = ParseError::None;

    HeadLines lines_{LineEnds::CrLfOnly}; ///< a bare LF is an error (see the file comment)
    bool haveRequestLine_ = false;
    size_t headSize_ = 0;

    std::string_view methodToken_;
    std::string_view target_;
    std::string_view firstWord_;
    Method method_ = Method::Other;
    int versionMajor_ = 0;
    int versionMinor_ = 0;
    std::vector<HeaderField> fields_;
    std::optional<uint64_t> contentLength_;
    TransferCodings codings_; ///< every Transfer-Encoding field, in order
    bool sawHost_ = false;    ///< a Host field line was parsed
};

} // namespace Http
