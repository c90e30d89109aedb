/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "ReplySpec.h"

#include <cstring>
#include <limits>
#include <utility>

namespace {

bool isTokenChar(char c)
{
    // RFC 9110 section 5.6.2
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/// adds a header field given as "Name:Value" (h=) or by a shorthand
std::string addHeader(Origin::ReplySpec& spec, std::string_view name, std::string_view value)
{
    if (name.empty())
        return "empty header name";
    for (const char c : name) {
        if (!isTokenChar(c))
            return "bad character in header name '" + std::string(name) + "'";
    }
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
        value.remove_prefix(1);
    for (const char c : value) {
        if (c == '\r' || c == '\n' || c == '\0')
            return "CR, LF or NUL in the value of header '" + std::string(name) + "'";
    }
    spec.headers.emplace_back(std::string(name), std::string(value));
    return {};
}

std::string applyOne(std::string_view key, std::string_view value, Origin::ReplySpec& spec)
{
    using namespace Origin;
    if (key == "s") {
        const auto size = parseSize(value);
        if (!size)
            return "bad size s=" + std::string(value);
        spec.size = *size;
    } else if (key == "status") {
        const auto status = value.size() == 3 ? parseDecimal(value) : std::nullopt;
        if (!status || *status < 200)
            return "bad status=" + std::string(value) + " (200..999)";
        spec.status = static_cast<int>(*status);
    } else if (key == "h") {
        const auto colon = value.find(':');
        if (colon == std::string_view::npos)
            return "h= needs Name:Value, got '" + std::string(value) + "'";
        return addHeader(spec, value.substr(0, colon), value.substr(colon + 1));
    } else if (key == "cc") {
        return addHeader(spec, "Cache-Control", value);
    } else if (key == "etag") {
        return addHeader(spec, "ETag", value);
    } else if (key == "lm") {
        return addHeader(spec, "Last-Modified", value);
    } else if (key == "exp") {
        return addHeader(spec, "Expires", value);
    } else if (key == "ct") {
        return addHeader(spec, "Content-Type", value);
    } else if (key == "t") {
        const auto delay = parseDuration(value);
        if (!delay)
            return "bad duration t=" + std::string(value) + " (e.g. 5ms, 2s, 1.5s)";
        spec.delay = *delay;
    } else if (key == "rate") {
        const auto rate = parseSize(value);
        if (!rate)
            return "bad rate=" + std::string(value) + " (bytes per second, e.g. 100k)";
        spec.rate = *rate;
    } else if (key == "chunked" || key == "close" || key == "ranges") {
        if (value != "0" && value != "1")
            return std::string(key) + "= takes 0 or 1";
        (key == "chunked" ? spec.chunked : key == "close" ? spec.close : spec.ranges) = value == "1";
    } else if (key == "hsize") {
        const auto size = parseSize(value);
        if (!size || *size > (64u << 20))
            return "bad hsize=" + std::string(value) + " (at most 64m)";
        spec.headSize = *size;
    } else if (key == "fail") {
        const auto at = value.find('@');
        const auto mode = value.substr(0, at);
        spec.failAt = 0;
        if (at != std::string_view::npos) {
            const auto count = parseSize(value.substr(at + 1));
            if (!count || (mode != "reset" && mode != "stall"))
                return "bad fail=" + std::string(value);
            spec.failAt = *count;
        }
        if (mode == "reset")
            spec.failure = Failure::Reset;
        else if (mode == "stall")
            spec.failure = Failure::Stall;
        else if (mode == "empty")
            spec.failure = Failure::Empty;
        else if (mode == "badheader")
            spec.failure = Failure::BadHeader;
        else if (mode == "garbage")
            spec.failure = Failure::Garbage;
        else if (mode == "none" || mode.empty())
            spec.failure = Failure::None;
        else
            return "unknown fail=" + std::string(value);
    }
    return {};
}

} // namespace

std::optional<uint64_t> Origin::parseDecimal(std::string_view text)
{
    if (text.empty() || text.size() > 19)
        return std::nullopt;
    uint64_t value = 0;
    for (const char c : text) {
        if (c < '0' || c > '9')
            return std::nullopt;
        value = value * 10 + static_cast<uint64_t>(c - '0');
    }
    return value;
}

std::optional<uint64_t> Origin::parseSize(std::string_view text)
{
    unsigned shift = 0;
    if (!text.empty()) {
        switch (text.back()) {
        case 'k':
        case 'K':
            shift = 10;
            break;
        case 'm':
        case 'M':
            shift = 20;
            break;
        case 'g':
        case 'G':
            shift = 30;
            break;
        default:
            break;
        }
        if (shift)
            text.remove_suffix(1);
    }
    const auto value = parseDecimal(text);
    if (!value || *value > (std::numeric_limits<uint64_t>::max() >> shift))
        return std::nullopt;
    return *value << shift;
}

std::optional<std::chrono::microseconds> Origin::parseDuration(std::string_view text)
{
    size_t unitAt = 0;
    while (unitAt < text.size() && ((text[unitAt] >= '0' && text[unitAt] <= '9') || text[unitAt] == '.'))
        ++unitAt;
    const auto number = text.substr(0, unitAt);
    const auto unit = text.substr(unitAt);
    double perUnit = 0;
    if (unit == "us")
        perUnit = 1;
    else if (unit == "ms")
        perUnit = 1e3;
    else if (unit == "s")
        perUnit = 1e6;
    else if (unit == "m")
        perUnit = 60e6;
    else
        return std::nullopt;
    const auto dot = number.find('.');
    const auto whole = parseDecimal(number.substr(0, dot));
    if (!whole || *whole > 86400u * 1000000u)
        return std::nullopt;
    double value = static_cast<double>(*whole);
    if (dot != std::string_view::npos) {
        const auto fraction = number.substr(dot + 1);
        if (fraction.empty() || fraction.size() > 9 || !parseDecimal(fraction))
            return std::nullopt;
        double scale = 0.1;
        for (const char c : fraction) {
            value += (c - '0') * scale;
            scale /= 10;
        }
    }
    const double micros = value * perUnit;
    if (micros > 86400e6) // a day is more than any test waits
        return std::nullopt;
    return std::chrono::microseconds(static_cast<int64_t>(micros));
}

std::optional<std::string> Origin::percentDecode(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            out += text[i];
            continue;
        }
        if (i + 2 >= text.size())
            return std::nullopt;
        const int high = hexValue(text[i + 1]);
        const int low = hexValue(text[i + 2]);
        if (high < 0 || low < 0)
            return std::nullopt;
        out += static_cast<char>(high * 16 + low);
        i += 2;
    }
    return out;
}

std::string Origin::applyParams(std::string_view params, ReplySpec& spec)
{
    while (!params.empty()) {
        const auto amp = params.find('&');
        const auto item = params.substr(0, amp);
        params = amp == std::string_view::npos ? std::string_view() : params.substr(amp + 1);
        if (item.empty())
            continue;
        const auto eq = item.find('=');
        const auto key = item.substr(0, eq);
        const auto value =
            percentDecode(eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1));
        if (!value)
            return "bad percent-encoding in '" + std::string(item) + "'";
        if (auto error = applyOne(key, *value, spec); !error.empty())
            return error;
    }
    return {};
}

const char* Origin::reasonPhrase(int status)
{
    // RFC 9110 section 15
    static constexpr std::pair<int, const char*> Reasons[] = {
        {200, "OK"},
        {201, "Created"},
        {202, "Accepted"},
        {203, "Non-Authoritative Information"},
        {204, "No Content"},
        {205, "Reset Content"},
        {206, "Partial Content"},
        {300, "Multiple Choices"},
        {301, "Moved Permanently"},
        {302, "Found"},
        {303, "See Other"},
        {304, "Not Modified"},
        {305, "Use Proxy"},
        {307, "Temporary Redirect"},
        {308, "Permanent Redirect"},
        {400, "Bad Request"},
        {401, "Unauthorized"},
        {402, "Payment Required"},
        {403, "Forbidden"},
        {404, "Not Found"},
        {405, "Method Not Allowed"},
        {406, "Not Acceptable"},
        {407, "Proxy Authentication Required"},
        {408, "Request Timeout"},
        {409, "Conflict"},
        {410, "Gone"},
        {411, "Length Required"},
        {412, "Precondition Failed"},
        {413, "Content Too Large"},
        {414, "URI Too Long"},
        {415, "Unsupported Media Type"},
        {416, "Range Not Satisfiable"},
        {417, "Expectation Failed"},
        {421, "Misdirected Request"},
        {422, "Unprocessable Content"},
        {426, "Upgrade Required"},
        {428, "Precondition Required"},
        {429, "Too Many Requests"},
        {431, "Request Header Fields Too Large"},
        {451, "Unavailable For Legal Reasons"},
        {500, "Internal Server Error"},
        {501, "Not Implemented"},
        {502, "Bad Gateway"},
        {503, "Service Unavailable"},
        {504, "Gateway Timeout"},
        {505, "HTTP Version Not Supported"},
        {511, "Network Authentication Required"},
    };
    for (const auto& [code, reason] : Reasons) {
        if (code == status)
            return reason;
    }
    return "Unknown";
}
