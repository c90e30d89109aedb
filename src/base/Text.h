/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Small text helpers shared by the parts.

#pragma once

#include <cctype>
#include <string>
#include <string_view>

/// `text` with its ASCII letters lowercased (host names, domain lists and
/// user names compare this way; other bytes are kept).
inline std::string AsciiLowercase(std::string_view text)
{
    std::string out(text);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

/// `text` with its ASCII letters uppercased (other bytes are kept).
inline std::string AsciiUppercase(std::string_view text)
{
    std::string out(text);
    for (char& c : out)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}
