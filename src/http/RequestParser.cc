/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/RequestParser.h"
#include "http/FieldSyntax.h"

#include <algorithm>

using Http::IsDigit;
using Http::TrimOws;

namespace {

/// RFC 9112 request-target: no whitespace or control byte (RFC 3986 has no
/// raw bytes above 0x7f either, but clients send them and Squid takes them)
bool IsTargetChar(char c)
{
    const auto u = static_cast<unsigned char>(c);
    return u > 0x20 && u != 0x7f;
}

constexpr size_t MaxFirstWord = 64;

/// RFC 3986 unreserved, pct-encoded (its '%') and sub-delims: the bytes of a reg-name
bool IsRegNameChar(char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || Http::IsDigit(c))
        return true;
    return c != '\0' && std::string_view("-._~%!$&'()*+,;=").find(c) != std::string_view::npos;
}

/// RFC 9110 section 7.2: Host = uri-host [ ":" port ] (empty allowed)
bool IsValidHostValue(std::string_view v)
{
    size_t i = 0;
    if (!v.empty() && v.front() == '[') {
        const auto close = v.find(']');
        if (close == std::string_view::npos)
            return false;
        for (i = 1; i < close; ++i) {
            if (!IsRegNameChar(v[i]) && v[i] != ':')
                return false;
        }
        i = close + 1;
    } else {
        while (i < v.size() && v[i] != ':') {
            if (!IsRegNameChar(v[i]))
                return false;
            ++i;
        }
    }
    if (i == v.size())
        return true;
    if (v[i] != ':')
        return false;
    for (++i; i < v.size(); ++i) {
        if (!Http::IsDigit(v[i]))
            return false;
    }
    return true;
}

} // namespace

Http::RequestParser::RequestParser(size_t maxHeadSize) : maxHeadSize_(maxHeadSize ? maxHeadSize : 1) {}

void Http::RequestParser::reset()
{
    state_ = ParseResult::NeedMore;
    error_ = ParseError::None;
    lines_.reset();
    headSize_ = 0;
    haveRequestLine_ = false;
    methodToken_ = target_ = firstWord_ = {};
    method_ = Method::Other;
    versionMajor_ = versionMinor_ = 0;
    fields_.clear(); // keeps the capacity for the next request on this connection
    contentLength_.reset();
    codings_.reset();
    sawHost_ = false;
}

Http::ParseResult Http::RequestParser::fail(ParseError e)
{
    error_ = e;
    state_ = ParseResult::Error;
    return state_;
}

Http::StatusCode Http::RequestParser::errorStatus() const
{
    switch (error_) {
    case ParseError::None:
        return StatusCode::None;
    case ParseError::TooLarge:
        // RFC 9112 section 3: a request line longer than we parse is 414,
        // as Squid 5.7 answers it; a long field section is 431
        return haveRequestLine_ ? StatusCode::RequestHeaderFieldsTooLarge : StatusCode::UriTooLong;
    case ParseError::UnsupportedVersion:
        return StatusCode::HttpVersionNotSupported;
    case ParseError::UnsupportedTransferCoding:
        return StatusCode::NotImplemented;
    default:
        return StatusCode::BadRequest;
    }
}

const char* Http::RequestParser::errorText() const
{
    switch (error_) {
    case ParseError::None:
        return "no error";
    case ParseError::BadRequestLine:
        return "malformed request line";
    case ParseError::BadMethod:
        return "invalid method";
    case ParseError::BadTarget:
        return "invalid request-target";
    case ParseError::BadVersion:
        return "invalid HTTP version";
    case ParseError::UnsupportedVersion:
        return "unsupported HTTP version";
    case ParseError::BareCr:
        return "bare CR";
    case ParseError::BareLf:
        return "bare LF";
    case ParseError::ObsFold:
        return "obs-fold in a field line";
    case ParseError::BadField:
        return "malformed field line";
    case ParseError::BadContentLength:
        return "invalid Content-Length";
    case ParseError::LengthAndChunked:
        return "both Content-Length and Transfer-Encoding";
    case ParseError::BadTransferEncoding:
        return "invalid Transfer-Encoding, or chunked is not its final coding";
    case ParseError::TransferEncodingInHttp10:
        return "Transfer-Encoding in an HTTP/1.0 request";
    case ParseError::UnsupportedTransferCoding:
        return "a transfer coding other than chunked";
    case ParseError::BadHost:
        return "Host twice, or an invalid Host";
    case ParseError::TooLarge:
        return "request head too large";
    }
    return "unknown error";
}

Http::ParseResult Http::RequestParser::parse(std::string_view buf)
{
    if (state_ != ParseResult::NeedMore)
        return state_;

    if (!haveRequestLine_) {
        // the first word, for the log line of a head that never parses
        size_t start = 0;
        while (start < buf.size() && (buf[start] == '\r' || buf[start] == '\n'))
            ++start;
        size_t end = start;
        while (end < buf.size() && end - start < MaxFirstWord && IsTokenChar(buf[end]))
            ++end;
        firstWord_ = buf.substr(start, end - start);
    }

    // Bytes at or past the limit are never looked at, so the result is the
    // same however the bytes were split between calls (as for replies).
    const size_t limit = std::min(buf.size(), maxHeadSize_);
    for (;;) {
        std::string_view line;
        const auto end = lines_.next(buf, limit, line);
        if (end == LineEnd::BareCr || end == LineEnd::BareLf)
            return fail(end == LineEnd::BareCr ? ParseError::BareCr : ParseError::BareLf);
        if (end == LineEnd::NeedMore) {
            // everything buffered belongs to this unfinished head, and no
            // line can end within the limit any more
            if (buf.size() >= maxHeadSize_)
                return fail(ParseError::TooLarge);
            return ParseResult::NeedMore;
        }

        if (!haveRequestLine_) {
            if (line.empty())
                continue; // RFC 9112 section 2.2: ignore empty lines before the request line
            if (parseRequestLine(line) == ParseResult::Error)
                return state_;
            haveRequestLine_ = true;
            continue;
        }
        if (line.empty()) {
            // RFC 9112 section 6.3: a server MAY reject such a request, and a
            // proxy that forwards it invites request smuggling
            if (codings_.isPresent()) {
                if (contentLength_)
                    return fail(ParseError::LengthAndChunked);
                if (versionMajor_ == 1 && versionMinor_ == 0)
                    return fail(ParseError::TransferEncodingInHttp10);
                if (!codings_.isChunkedLast())
                    return fail(ParseError::BadTransferEncoding);
                if (codings_.hasOtherCodings())
                    return fail(ParseError::UnsupportedTransferCoding);
            }
            headSize_ = lines_.lineStart();
            state_ = ParseResult::Done;
            return state_;
        }
        if (parseFieldLine(line) == ParseResult::Error)
            return state_;
    }
}

Http::ParseResult Http::RequestParser::parseRequestLine(std::string_view line)
{
    const auto sp1 = line.find(' ');
    if (sp1 == std::string_view::npos || sp1 == 0)
        return fail(ParseError::BadRequestLine);
    const auto methodText = line.substr(0, sp1);
    const auto rest = line.substr(sp1 + 1);
    const auto sp2 = rest.find(' ');
    if (sp2 == std::string_view::npos || sp2 == 0)
        return fail(ParseError::BadRequestLine); // no version (HTTP/0.9) or two spaces
    const auto targetText = rest.substr(0, sp2);
    const auto versionText = rest.substr(sp2 + 1);

    for (const char c : methodText) {
        if (!IsTokenChar(c))
            return fail(ParseError::BadMethod);
    }
    for (const char c : targetText) {
        if (!IsTargetChar(c))
            return fail(ParseError::BadTarget);
    }
    // known before the version is judged, so a 505 can be logged with them
    methodToken_ = methodText;
    method_ = MethodFromToken(methodText);
    target_ = targetText;

    if (!versionText.starts_with("HTTP/"))
        return fail(ParseError::BadRequestLine);
    if (versionText.size() != 8 || !IsDigit(versionText[5]) || versionText[6] != '.' ||
        !IsDigit(versionText[7]))
        return fail(ParseError::BadVersion);
    versionMajor_ = versionText[5] - '0';
    versionMinor_ = versionText[7] - '0';
    if (versionMajor_ == 0)
        return fail(ParseError::BadVersion);
    if (versionMajor_ >= 2)
        return fail(ParseError::UnsupportedVersion);

    return ParseResult::NeedMore;
}

Http::ParseResult Http::RequestParser::parseFieldLine(std::string_view line)
{
    HeaderField field;
    if (const auto e = ParseFieldLine(line, field); e != FieldLineError::None)
        return fail(e == FieldLineError::ObsFold ? ParseError::ObsFold : ParseError::BadField);
    const auto [name, value] = field;

    if (EqualsIgnoreCase(name, "Content-Length")) {
        if (value.empty() || value.size() > 18)
            return fail(ParseError::BadContentLength);
        uint64_t n = 0;
        for (const char c : value) {
            if (!IsDigit(c))
                return fail(ParseError::BadContentLength);
            n = n * 10 + uint64_t(c - '0');
        }
        if (contentLength_ && *contentLength_ != n)
            return fail(ParseError::BadContentLength);
        contentLength_ = n;
    }
    if (EqualsIgnoreCase(name, "Transfer-Encoding") && !codings_.add(value))
        return fail(ParseError::BadTransferEncoding);
    if (EqualsIgnoreCase(name, "Host")) {
        // RFC 9110 section 7.2 and RFC 9112 section 3.2: which of two Host
        // values a hop uses is a desync (and a cache key) two hops may disagree on
        if (sawHost_ || !IsValidHostValue(value))
            return fail(ParseError::BadHost);
        sawHost_ = true;
    }

    if (fields_.capacity() == 0)
        fields_.reserve(16); // one allocation for a usual head (the connection drops it when idle)
    fields_.push_back(field);
    return ParseResult::NeedMore;
}

std::optional<std::string_view> Http::RequestParser::findField(std::string_view name) const
{
    return FieldsView(fields_).find(name);
}

bool Http::RequestParser::hasConnectionToken(std::string_view token) const
{
    for (const auto& f : fields_) {
        if (!EqualsIgnoreCase(f.name, "Connection") && !EqualsIgnoreCase(f.name, "Proxy-Connection"))
            continue;
        auto list = f.value;
        while (!list.empty()) {
            const auto comma = list.find(',');
            const auto item = TrimOws(list.substr(0, comma));
            if (EqualsIgnoreCase(item, token))
                return true;
            if (comma == std::string_view::npos)
                break;
            list.remove_prefix(comma + 1);
        }
    }
    return false;
}

bool Http::RequestParser::wantsClose() const
{
    if (hasConnectionToken("close"))
        return true;
    if (versionMajor_ == 1 && versionMinor_ == 0)
        return !hasConnectionToken("keep-alive");
    return false;
}

bool Http::RequestParser::hasBody() const
{
    return codings_.isPresent() || (contentLength_ && *contentLength_ > 0);
}
