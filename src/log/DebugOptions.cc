/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "log/DebugOptions.h"

#include <algorithm>
#include <charconv>
#include <sstream>
#include <stdexcept>
#include <strings.h>

namespace {

/// A whole decimal number, or throws naming TOKEN.
int parseNumber(const std::string& text, const std::string& token)
{
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size())
        throw std::invalid_argument("debug_options: bad number in '" + token + "'");
    return value;
}

int clampLevel(int lvl)
{
    return std::clamp(lvl, 0, Log::DebugOptions::MaxLevel);
}

} // namespace

Log::DebugOptions::DebugOptions()
{
    levels_.fill(DefaultLevel);
}

Log::DebugOptions Log::DebugOptions::Parse(const std::string& text)
{
    DebugOptions result;
    std::istringstream in(text);
    std::string token;
    while (in >> token) {
        if (token.rfind("rotate=", 0) == 0) {
            const int n = parseNumber(token.substr(7), token);
            if (n < 0)
                throw std::invalid_argument("debug_options: negative rotate count in '" + token + "'");
            result.rotate_ = n;
            continue;
        }
        const auto comma = token.find(',');
        if (comma == std::string::npos)
            throw std::invalid_argument("debug_options: expected SECTION,LEVEL or rotate=N, got '" + token +
                                        "'");
        const std::string section = token.substr(0, comma);
        const int lvl = parseNumber(token.substr(comma + 1), token);
        if (lvl < 0)
            throw std::invalid_argument("debug_options: negative level in '" + token + "'");
        if (strcasecmp(section.c_str(), "ALL") == 0) {
            result.setAll(lvl);
            continue;
        }
        const int s = parseNumber(section, token);
        if (s < 0 || s >= Sections)
            throw std::invalid_argument("debug_options: section outside 0.." + std::to_string(Sections - 1) +
                                        " in '" + token + "'");
        result.setLevel(s, lvl);
    }
    return result;
}

int Log::DebugOptions::level(int section) const
{
    if (section < 0 || section >= Sections)
        return DefaultLevel;
    return levels_[static_cast<size_t>(section)];
}

void Log::DebugOptions::setLevel(int section, int lvl)
{
    if (section < 0 || section >= Sections)
        throw std::out_of_range("debug section " + std::to_string(section) + " is outside 0..99");
    levels_[static_cast<size_t>(section)] = static_cast<signed char>(clampLevel(lvl));
}

void Log::DebugOptions::setAll(int lvl)
{
    levels_.fill(static_cast<signed char>(clampLevel(lvl)));
}
