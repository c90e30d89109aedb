/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The character classes and trimming of RFC 9110's field syntax that
/// every parser of the http part shares (requests, replies, Cache-Control,
/// ETag, Range) and the store's Vary key uses too.
#pragma once

#include <array>
#include <string_view>

namespace Http {

/// DIGIT (RFC 5234)
inline bool IsDigit(char c)
{
    return c >= '0' && c <= '9';
}

/// tchar (RFC 9110 section 5.6.2): the bytes of a token, such as a method
/// or a field name (a table: every field name of every head is checked)
inline bool IsTokenChar(char c)
{
    static constexpr auto Table = [] {
        std::array<bool, 256> t{};
        for (int b = 0; b < 256; ++b)
            t[b] = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9');
        for (const char b : std::string_view("!#$%&'*+-.^_`|~"))
            t[static_cast<unsigned char>(b)] = true;
        return t;
    }();
    return Table[static_cast<unsigned char>(c)];
}

/// OWS: SP or HTAB (RFC 9110 section 5.6.3)
inline bool IsOws(char c)
{
    return c == ' ' || c == '\t';
}

/// s without leading and trailing OWS
inline std::string_view TrimOws(std::string_view s)
{
    while (!s.empty() && IsOws(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && IsOws(s.back()))
        s.remove_suffix(1);
    return s;
}

/// Calls f(element) for each element of a comma-separated list (RFC 9110
/// section 5.6.1), trimmed of OWS; empty elements are passed too. Stops and
/// returns false when f does.
template <class F>
bool ForEachListElement(std::string_view list, F f)
{
    for (;;) {
        const auto comma = list.find(',');
        if (!f(TrimOws(list.substr(0, comma))))
            return false;
        if (comma == std::string_view::npos)
            return true;
        list.remove_prefix(comma + 1);
    }
}

/// RFC 9110 field-value and reason-phrase bytes: VCHAR, obs-text, SP, HTAB;
/// no other control byte
inline bool IsFieldValueChar(char c)
{
    const auto u = static_cast<unsigned char>(c);
    return u == '\t' || (u >= 0x20 && u != 0x7f);
}

} // namespace Http
