/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/Range.h"
#include "http/FieldSyntax.h"
#include "http/Date.h"
#include "http/RequestParser.h"

#include <algorithm>
#include <random>

using Http::TrimOws;

namespace {

/// 1*DIGIT, saturated at UINT64_MAX (a position that large is past any body)
std::optional<uint64_t> ParsePosition(std::string_view s)
{
    if (s.empty())
        return std::nullopt;
    uint64_t v = 0;
    for (const char c : s) {
        if (c < '0' || c > '9')
            return std::nullopt;
        const auto d = uint64_t(c - '0');
        v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
    }
    return v;
}

/// int-range / suffix-range (RFC 9110 14.1.1), no whitespace inside
std::optional<Http::ByteRangeSpec> ParseSpec(std::string_view s)
{
    const auto dash = s.find('-');
    if (dash == std::string_view::npos)
        return std::nullopt;
    if (dash == 0) {
        const auto suffix = ParsePosition(s.substr(1));
        if (!suffix)
            return std::nullopt;
        return Http::ByteRangeSpec::Suffix(*suffix);
    }
    const auto first = ParsePosition(s.substr(0, dash));
    if (!first)
        return std::nullopt;
    if (dash + 1 == s.size())
        return Http::ByteRangeSpec::From(*first);
    const auto last = ParsePosition(s.substr(dash + 1));
    // section 14.1.1: a last-pos below the first-pos makes the spec invalid
    if (!last || *last < *first)
        return std::nullopt;
    // last == NoLast only when saturated: "to the end" either way
    return Http::ByteRangeSpec::FromTo(*first, *last);
}

/// whether two ranges overlap or touch (no byte between them)
bool Touch(const Http::ByteRange& a, const Http::ByteRange& b)
{
    // last() + 1 cannot overflow: a range ends within a body of at most UINT64_MAX bytes
    return a.offset <= b.last() + 1 && b.offset <= a.last() + 1;
}

Http::ByteRange Join(const Http::ByteRange& a, const Http::ByteRange& b)
{
    const uint64_t offset = std::min(a.offset, b.offset);
    const uint64_t last = std::max(a.last(), b.last());
    return {offset, last - offset + 1};
}

const char HexDigits[] = "0123456789abcdef";

} // namespace

std::string Http::ByteRangeSpec::toString() const
{
    if (isSuffix)
        return "-" + std::to_string(suffix);
    std::string s = std::to_string(first) + "-";
    if (last != NoLast)
        s += std::to_string(last);
    return s;
}

bool Http::ByteRangeSet::parse(std::string_view value)
{
    specs_.clear();
    value = TrimOws(value);
    const auto eq = value.find('=');
    if (eq == std::string_view::npos || !EqualsIgnoreCase(value.substr(0, eq), "bytes"))
        return false;

    std::vector<ByteRangeSpec> specs;
    std::string_view rest = value.substr(eq + 1);
    for (;;) {
        const auto comma = rest.find(',');
        const auto item = TrimOws(rest.substr(0, comma));
        if (!item.empty()) { // RFC 9110 5.6.1: empty list elements are ignored
            if (specs.size() == MaxRanges)
                return false;
            const auto spec = ParseSpec(item);
            if (!spec)
                return false;
            specs.push_back(*spec);
        }
        if (comma == std::string_view::npos)
            break;
        rest.remove_prefix(comma + 1);
    }
    if (specs.empty())
        return false;
    specs_ = std::move(specs);
    return true;
}

std::vector<Http::ByteRange> Http::ByteRangeSet::resolve(uint64_t length) const
{
    std::vector<ByteRange> out;
    if (length == 0)
        return out; // RFC 9110 14.1.1: nothing of an empty body is satisfiable
    for (const auto& spec : specs_) {
        ByteRange r;
        if (spec.isSuffix) {
            if (spec.suffix == 0)
                continue;
            r.length = std::min(spec.suffix, length);
            r.offset = length - r.length;
        } else {
            if (spec.first >= length)
                continue;
            const uint64_t last = std::min(spec.last, length - 1);
            r = {spec.first, last - spec.first + 1};
        }

        // The parts kept never touch each other, so everything r touches
        // joins into one contiguous range, which takes the place of the
        // earliest of them (RFC 9110 14.2: coalesce regardless of order).
        size_t at = out.size();
        for (size_t i = 0; i < out.size();) {
            if (!Touch(out[i], r)) {
                ++i;
                continue;
            }
            r = Join(out[i], r);
            if (at == out.size()) {
                at = i;
                ++i;
            } else {
                out.erase(out.begin() + static_cast<std::ptrdiff_t>(i));
            }
        }
        if (at == out.size())
            out.push_back(r);
        else
            out[at] = r;
    }
    return out;
}

std::string Http::ByteRangeSet::toString() const
{
    std::string s = "bytes=";
    for (size_t i = 0; i < specs_.size(); ++i) {
        if (i)
            s += ',';
        s += specs_[i].toString();
    }
    return s;
}

std::string Http::ContentRangeValue(const ByteRange& range, uint64_t completeLength)
{
    return "bytes " + std::to_string(range.offset) + "-" + std::to_string(range.last()) + "/" +
           std::to_string(completeLength);
}

std::string Http::UnsatisfiedRangeValue(uint64_t completeLength)
{
    return "bytes */" + std::to_string(completeLength);
}

std::optional<Http::ContentRange> Http::ParseContentRange(std::string_view value)
{
    // RFC 9110 14.4: range-unit SP ( range-resp / unsatisfied-range ), with
    // range-resp = incl-range "/" ( complete-length / "*" ); only the bytes
    // unit, and only a satisfied range (an unsatisfied one names no bytes)
    value = TrimOws(value);
    if (value.size() < 6 || !EqualsIgnoreCase(value.substr(0, 6), "bytes "))
        return std::nullopt;
    value.remove_prefix(6);
    const auto dash = value.find('-');
    const auto slash = value.find('/');
    if (dash == std::string_view::npos || slash == std::string_view::npos || slash < dash)
        return std::nullopt;
    const auto first = ParsePosition(value.substr(0, dash));
    const auto last = ParsePosition(value.substr(dash + 1, slash - dash - 1));
    if (!first || !last || *last < *first || *last == UINT64_MAX)
        return std::nullopt;
    ContentRange range;
    range.range = {*first, *last - *first + 1};
    const auto complete = value.substr(slash + 1);
    if (complete != "*") {
        const auto length = ParsePosition(complete);
        // section 14.4: a complete length must exceed the last position
        if (!length || *length <= *last || *length == UINT64_MAX)
            return std::nullopt;
        range.completeLength = *length;
    }
    return range;
}

bool Http::IfRangeMatches(std::string_view ifRange, const std::optional<EntityTag>& etag,
                          std::optional<time_t> lastModified, std::optional<time_t> date)
{
    ifRange = TrimOws(ifRange);
    if (ifRange.starts_with('"') || ifRange.starts_with("W/")) {
        const auto tag = ParseEntityTag(ifRange);
        // a weak tag never matches strongly, as a client MUST NOT send one
        return tag && etag && tag->strongMatch(*etag);
    }
    const auto when = ParseHttpDate(ifRange);
    if (!when || !lastModified || *when != *lastModified)
        return false;
    // RFC 9110 8.8.2.2: an intermediate cache may take Last-Modified as
    // strong only when the stored Date is at least one second later
    return date && *date > *lastModified;
}

std::string Http::MakeBoundary()
{
    // one generator per thread, seeded once from the system's entropy
    thread_local std::mt19937_64 generator{[] {
        std::random_device device;
        std::seed_seq seed{device(), device(), device(), device()};
        return std::mt19937_64(seed);
    }()};
    std::string boundary = "cuttle";
    for (int word = 0; word < 2; ++word) {
        uint64_t bits = generator();
        for (int i = 0; i < 16; ++i, bits >>= 4)
            boundary += HexDigits[bits & 0xf];
    }
    return boundary;
}

Http::MultipartByteranges::MultipartByteranges(std::string boundary, std::string contentType,
                                               uint64_t completeLength)
    : boundary_(std::move(boundary)), contentType_(std::move(contentType)), completeLength_(completeLength)
{}

std::string Http::MultipartByteranges::contentTypeValue() const
{
    return "multipart/byteranges; boundary=" + boundary_;
}

std::string Http::MultipartByteranges::partHead(const ByteRange& range, bool isFirst) const
{
    // RFC 2046 5.1.1: the CRLF before a delimiter line belongs to the
    // delimiter, so every part but the first starts with one
    std::string s;
    s.reserve(boundary_.size() + contentType_.size() + 96);
    if (!isFirst)
        s += "\r\n";
    s += "--";
    s += boundary_;
    s += "\r\n";
    if (!contentType_.empty()) {
        s += "Content-Type: ";
        s += contentType_;
        s += "\r\n";
    }
    s += "Content-Range: ";
    s += ContentRangeValue(range, completeLength_);
    s += "\r\n\r\n";
    return s;
}

std::string Http::MultipartByteranges::closing() const
{
    return "\r\n--" + boundary_ + "--\r\n";
}

uint64_t Http::MultipartByteranges::bodyLength(const std::vector<ByteRange>& ranges) const
{
    uint64_t total = closing().size();
    for (size_t i = 0; i < ranges.size(); ++i)
        total += partHead(ranges[i], i == 0).size() + ranges[i].length;
    return total;
}
