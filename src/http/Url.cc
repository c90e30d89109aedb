/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/Url.h"
#include "http/FieldSyntax.h"

#include <arpa/inet.h>

using Http::IsDigit;

namespace {

bool IsAlpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

char Lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
}

/// RFC 3986 reg-name characters: unreserved / pct-encoded / sub-delims
bool IsRegNameChar(char c)
{
    if (IsAlpha(c) || IsDigit(c))
        return true;
    switch (c) {
    case '-':
    case '.':
    case '_':
    case '~':
    case '%':
    case '!':
    case '$':
    case '&':
    case '\'':
    case '(':
    case ')':
    case '*':
    case '+':
    case ',':
    case ';':
    case '=':
        return true;
    default:
        return false;
    }
}

uint16_t DefaultPort(const std::string& scheme)
{
    if (scheme == "http")
        return 80;
    if (scheme == "https")
        return 443;
    if (scheme == "ftp")
        return 21;
    return 0;
}

} // namespace

bool Http::Url::parse(std::string_view text)
{
    *this = Url();
    if (text.size() >= MaxLength)
        return false;
    for (const char c : text) {
        if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
            return false;
    }

    // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), and Squid's
    // cache_object (the cache manager's, which squidclient sends)
    const auto colon = text.find(':');
    if (colon == std::string_view::npos || colon == 0 || !IsAlpha(text[0]))
        return false;
    static constexpr std::string_view CacheObject = "cache_object";
    bool cacheObject = colon == CacheObject.size();
    for (size_t i = 0; cacheObject && i < colon; ++i)
        cacheObject = Lower(text[i]) == CacheObject[i];
    for (size_t i = 0; i < colon; ++i) {
        const char c = text[i];
        if (!IsAlpha(c) && !IsDigit(c) && c != '+' && c != '-' && c != '.' && !(c == '_' && cacheObject))
            return false;
        scheme_ += Lower(c);
    }
    auto rest = text.substr(colon + 1);
    if (!rest.starts_with("//"))
        return false;
    rest.remove_prefix(2);

    const auto authorityEnd = rest.find_first_of("/?#");
    auto authority = rest.substr(0, authorityEnd);
    const auto tail = authorityEnd == std::string_view::npos ? std::string_view() : rest.substr(authorityEnd);

    const auto at = authority.rfind('@');
    if (at != std::string_view::npos)
        authority.remove_prefix(at + 1); // userinfo: deprecated (RFC 9110 4.2.4), not used

    std::string_view hostText, portText;
    bool hasPort = false;
    if (authority.starts_with('[')) {
        const auto close = authority.find(']');
        if (close == std::string_view::npos)
            return false;
        hostText = authority.substr(1, close - 1);
        const auto after = authority.substr(close + 1);
        if (!after.empty()) {
            if (after[0] != ':')
                return false;
            hasPort = true;
            portText = after.substr(1);
        }
        char buf[sizeof(in6_addr)];
        const std::string literal(hostText);
        if (literal.empty() || literal.size() >= INET6_ADDRSTRLEN ||
            inet_pton(AF_INET6, literal.c_str(), buf) != 1)
            return false;
    } else {
        const auto portColon = authority.rfind(':');
        if (portColon != std::string_view::npos) {
            hasPort = true;
            hostText = authority.substr(0, portColon);
            portText = authority.substr(portColon + 1);
        } else {
            hostText = authority;
        }
        if (hostText.empty())
            return false;
        for (const char c : hostText) {
            if (!IsRegNameChar(c))
                return false;
        }
    }
    for (const char c : hostText)
        host_ += Lower(c);

    port_ = DefaultPort(scheme_);
    // RFC 3986: an empty port after ':' means the default
    if (hasPort && !portText.empty()) {
        if (portText.size() > 5)
            return false;
        unsigned value = 0;
        for (const char c : portText) {
            if (!IsDigit(c))
                return false;
            value = value * 10 + unsigned(c - '0');
        }
        if (value == 0 || value > 65535)
            return false;
        port_ = static_cast<uint16_t>(value);
        explicitPort_ = true;
    }

    // a fragment is never sent in a request target; drop it if a client did
    auto pathPart = tail.substr(0, tail.find('#'));
    path_.assign(pathPart.data(), pathPart.size());
    if (path_.empty() || path_[0] == '?')
        path_.insert(path_.begin(), '/');
    return true;
}

std::string Http::Url::authorityHost() const
{
    return isIpv6Host() ? "[" + host_ + "]" : host_;
}

bool Http::Url::hasDefaultPort() const
{
    return port_ == DefaultPort(scheme_);
}

std::string Http::Url::canonical() const
{
    // built in one allocation: a request makes it more than once
    std::string out;
    out.reserve(scheme_.size() + host_.size() + path_.size() + 14); // "://" "[]" ":65535"
    out += scheme_;
    out += "://";
    if (isIpv6Host()) {
        out += '[';
        out += host_;
        out += ']';
    } else {
        out += host_;
    }
    if (explicitPort_ && port_ != DefaultPort(scheme_)) {
        out += ':';
        out += std::to_string(port_);
    }
    out += path_;
    return out;
}
