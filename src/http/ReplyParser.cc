/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/ReplyParser.h"
#include "http/FieldSyntax.h"

#include <algorithm>
#include <limits>

using Http::ForEachListElement;
using Http::IsDigit;
using Http::IsFieldValueChar;
using Http::IsOws;

namespace {

constexpr std::string_view VersionPrefix = "HTTP/";

/// Whether the line at offset `from` of buf may still be a status line: its
/// bytes before `limit` and before any CR or LF begin as VersionPrefix
/// does. A status line that cannot start with HTTP/ fails at its first
/// wrong byte, so an origin speaking something else does not hold the
/// connection until the limit.
bool MayStartStatusLine(std::string_view buf, size_t from, size_t limit)
{
    for (size_t i = from; i < limit && i - from < VersionPrefix.size(); ++i) {
        const char c = buf[i];
        if (c == '\r' || c == '\n')
            return true; // the line ends first (or holds a bare CR): HeadLines says which
        if (c != VersionPrefix[i - from])
            return false;
    }
    return true;
}

/// a length must fit in off_t
constexpr uint64_t MaxContentLength = uint64_t(std::numeric_limits<int64_t>::max());

} // namespace

Http::ReplyParser::ReplyParser(size_t maxHeadSize) : maxHeadSize_(maxHeadSize ? maxHeadSize : 1) {}

void Http::ReplyParser::reset()
{
    state_ = ParseResult::NeedMore;
    error_ = ReplyError::None;
    lines_.reset();
    headSize_ = 0;
    haveStatusLine_ = false;
    versionMajor_ = versionMinor_ = statusCode_ = 0;
    reason_ = {};
    fields_.clear(); // keeps the capacity for the next reply on this connection
    contentLength_.reset();
    codings_.reset();
}

Http::ParseResult Http::ReplyParser::fail(ReplyError e)
{
    error_ = e;
    state_ = ParseResult::Error;
    return state_;
}

const char* Http::ReplyParser::errorText() const
{
    switch (error_) {
    case ReplyError::None:
        return "no error";
    case ReplyError::BadStatusLine:
        return "malformed status line";
    case ReplyError::BadVersion:
        return "invalid HTTP version";
    case ReplyError::UnsupportedVersion:
        return "unsupported HTTP version";
    case ReplyError::BadStatusCode:
        return "invalid status code";
    case ReplyError::BareCr:
        return "bare CR";
    case ReplyError::ObsFold:
        return "obs-fold in a field line";
    case ReplyError::BadField:
        return "malformed field line";
    case ReplyError::BadContentLength:
        return "invalid Content-Length";
    case ReplyError::BadTransferEncoding:
        return "invalid Transfer-Encoding";
    case ReplyError::TooLarge:
        return "reply head too large";
    }
    return "unknown error";
}

Http::ParseResult Http::ReplyParser::parse(std::string_view buf)
{
    if (state_ != ParseResult::NeedMore)
        return state_;

    // Bytes at or past the limit are never looked at, so the result is the
    // same however the bytes were split between calls.
    const size_t limit = std::min(buf.size(), maxHeadSize_);
    for (;;) {
        if (!haveStatusLine_ && !MayStartStatusLine(buf, lines_.lineStart(), limit))
            return fail(ReplyError::BadStatusLine);
        std::string_view line;
        const auto end = lines_.next(buf, limit, line);
        if (end == LineEnd::NeedMore)
            break;
        if (end != LineEnd::Found)
            return fail(ReplyError::BareCr); // LineEnds::CrLfOrBareLf: a bare LF ends a line

        if (!haveStatusLine_) {
            if (line.empty())
                continue; // a stray CRLF after the previous reply's body
            if (parseStatusLine(line) == ParseResult::Error)
                return state_;
            haveStatusLine_ = true;
            continue;
        }
        if (line.empty()) {
            headSize_ = lines_.lineStart();
            state_ = ParseResult::Done;
            return state_;
        }
        if (parseFieldLine(line) == ParseResult::Error)
            return state_;
    }

    // everything buffered belongs to this unfinished head, and no line
    // can end within the limit any more
    if (buf.size() >= maxHeadSize_)
        return fail(ReplyError::TooLarge);
    return ParseResult::NeedMore;
}

Http::ParseResult Http::ReplyParser::parseStatusLine(std::string_view line)
{
    // HTTP-version = "HTTP/" DIGIT "." DIGIT (RFC 9112 section 2.3)
    if (!line.starts_with(VersionPrefix))
        return fail(ReplyError::BadStatusLine);
    const auto sp = line.find(' ');
    const auto version = line.substr(0, sp);
    if (version.size() != 8 || !IsDigit(version[5]) || version[6] != '.' || !IsDigit(version[7]))
        return fail(ReplyError::BadVersion);
    versionMajor_ = version[5] - '0';
    versionMinor_ = version[7] - '0';
    if (versionMajor_ == 0)
        return fail(ReplyError::BadVersion);
    if (versionMajor_ >= 2)
        return fail(ReplyError::UnsupportedVersion);
    if (sp == std::string_view::npos)
        return fail(ReplyError::BadStatusLine);

    // status-code = 3DIGIT; section 4 says 100..599 are defined, but a
    // client must accept any three digits and treat them by class
    const auto rest = line.substr(sp + 1);
    size_t digits = 0;
    while (digits < rest.size() && IsDigit(rest[digits]))
        ++digits;
    if (digits == 0 && (rest.empty() || IsOws(rest.front())))
        return fail(ReplyError::BadStatusLine); // two spaces, or no code
    if (digits != 3)
        return fail(ReplyError::BadStatusCode);
    statusCode_ = (rest[0] - '0') * 100 + (rest[1] - '0') * 10 + (rest[2] - '0');
    if (statusCode_ < 100)
        return fail(ReplyError::BadStatusCode);

    // [SP reason-phrase]; section 4 asks clients to accept a missing SP too
    if (rest.size() > 3) {
        if (rest[3] != ' ')
            return fail(ReplyError::BadStatusLine);
        const auto reason = rest.substr(4);
        for (const char c : reason) {
            if (!IsFieldValueChar(c))
                return fail(ReplyError::BadStatusLine);
        }
        reason_ = reason;
    }
    return ParseResult::NeedMore;
}

Http::ParseResult Http::ReplyParser::parseFieldLine(std::string_view line)
{
    HeaderField field;
    if (const auto e = ParseFieldLine(line, field); e != FieldLineError::None)
        return fail(e == FieldLineError::ObsFold ? ReplyError::ObsFold : ReplyError::BadField);
    const auto [name, value] = field;

    if (EqualsIgnoreCase(name, "Content-Length") && !parseContentLength(value))
        return fail(ReplyError::BadContentLength);
    if (EqualsIgnoreCase(name, "Transfer-Encoding") && !codings_.add(value))
        return fail(ReplyError::BadTransferEncoding);

    if (fields_.capacity() == 0)
        fields_.reserve(16); // one allocation for a usual head (a forwarder's parser lives one reply)
    fields_.push_back(field);
    return ParseResult::NeedMore;
}

/// RFC 9110 section 8.6: `Content-Length: 42, 42` may be taken as 42; any
/// other list, and copies that differ, are errors (RFC 9112 section 6.3)
bool Http::ReplyParser::parseContentLength(std::string_view value)
{
    return ForEachListElement(value, [this](std::string_view item) {
        if (item.empty())
            return false;
        uint64_t n = 0;
        for (const char c : item) {
            if (!IsDigit(c))
                return false;
            const auto d = uint64_t(c - '0');
            if (n > (MaxContentLength - d) / 10)
                return false;
            n = n * 10 + d;
        }
        if (contentLength_ && *contentLength_ != n)
            return false;
        contentLength_ = n;
        return true;
    });
}

std::optional<std::string_view> Http::ReplyParser::findField(std::string_view name) const
{
    return FieldsView(fields_).find(name);
}

bool Http::ReplyParser::hasConnectionToken(std::string_view token) const
{
    for (const auto& f : fields_) {
        if (!EqualsIgnoreCase(f.name, "Connection"))
            continue;
        const bool listed = !ForEachListElement(f.value, [token](std::string_view item) {
            return !EqualsIgnoreCase(item, token); // false stops: found
        });
        if (listed)
            return true;
    }
    return false;
}

bool Http::ReplyParser::wantsClose() const
{
    if (hasConnectionToken("close"))
        return true;
    if (versionMajor_ == 1 && versionMinor_ == 0) {
        // RFC 9112 section 6.1: an HTTP/1.0 message with Transfer-Encoding
        // has faulty framing; decode it, then close
        return codings_.isPresent() || !hasConnectionToken("keep-alive");
    }
    return false;
}

std::optional<uint64_t> Http::ReplyParser::contentLength() const
{
    if (codings_.isPresent())
        return std::nullopt;
    return contentLength_;
}

Http::ReplyParser::Framing Http::ReplyParser::framing(bool requestWasHead, bool requestWasConnect) const
{
    // RFC 9112 section 6.3, items 1 to 7 in order
    if (requestWasHead || (statusCode_ >= 100 && statusCode_ < 200) || statusCode_ == 204 ||
        statusCode_ == 304)
        return Framing::None;
    if (requestWasConnect && statusCode_ >= 200 && statusCode_ < 300)
        return Framing::None;
    if (codings_.isPresent())
        return codings_.isChunkedLast() ? Framing::Chunked : Framing::Close;
    if (contentLength_)
        return Framing::Length;
    return Framing::Close;
}
