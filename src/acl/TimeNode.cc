/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/TimeNode.h"
#include "acl/AccessList.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace Acl {

namespace {

constexpr unsigned AllWeek = 0x7f;
constexpr unsigned Weekdays = 0x3e; // Monday to Friday

/// The weekday bits of one letter, or 0 for a bad letter ('-' is Squid's placeholder: ~0u).
unsigned DayBits(char letter)
{
    switch (std::toupper(static_cast<unsigned char>(letter))) {
    case 'S':
        return 1u << 0;
    case 'M':
        return 1u << 1;
    case 'T':
        return 1u << 2;
    case 'W':
        return 1u << 3;
    case 'H':
        return 1u << 4;
    case 'F':
        return 1u << 5;
    case 'A':
        return 1u << 6;
    case 'D':
        return Weekdays;
    case '-':
        return ~0u;
    default:
        return 0;
    }
}

/// "h1:m1-h2:m2" into minutes; false when malformed or out of range.
bool ParseRange(const std::string& text, int& start, int& stop)
{
    int h1 = -1, m1 = -1, h2 = -1, m2 = -1;
    char tail = 0;
    if (std::sscanf(text.c_str(), "%d:%d-%d:%d%c", &h1, &m1, &h2, &m2, &tail) != 4)
        return false;
    const bool ok = h1 >= 0 && h1 < 24 && m1 >= 0 && m1 < 60 && m2 >= 0 && m2 < 60 &&
                    ((h2 >= 0 && h2 < 24) || (h2 == 24 && m2 == 0));
    start = h1 * 60 + m1;
    stop = h2 * 60 + m2;
    return ok;
}

} // namespace

TimeNode::TimeNode(std::string name) : Node(std::move(name), "time") {}

bool TimeNode::addValues(const std::vector<std::string>& values, std::string& why, std::vector<std::string>&)
{
    unsigned days = 0;
    std::vector<Span> added;
    for (const auto& value : values) {
        if (!std::isdigit(static_cast<unsigned char>(value.front()))) {
            for (const char c : value) {
                const auto bits = DayBits(c);
                if (!bits) {
                    why = "bad day '" + std::string(1, c) + "' in '" + value +
                          "': days are S M T W H F A (Sunday to Saturday) and D (Monday to Friday)";
                    return false;
                }
                if (bits != ~0u)
                    days |= bits;
            }
            continue;
        }
        Span span;
        if (!ParseRange(value, span.start, span.stop)) {
            why = "bad time range '" + value + "': expecting h1:m1-h2:m2 within 00:00-24:00";
            return false;
        }
        if (span.start > span.stop) {
            why = "reversed time range '" + value + "': h1:m1 must be less than h2:m2";
            return false;
        }
        span.weekdays = days ? days : AllWeek;
        days = 0;
        added.push_back(span);
    }
    if (days) {
        Span span;
        span.weekdays = days;
        added.push_back(span);
    }
    spans_.insert(spans_.end(), added.begin(), added.end());
    return true;
}

bool TimeNode::matchesTime(time_t when) const
{
    struct tm local {};
    if (!localtime_r(&when, &local))
        return false;
    const int minute = local.tm_hour * 60 + local.tm_min;
    const unsigned day = 1u << local.tm_wday;
    return std::any_of(spans_.begin(), spans_.end(), [minute, day](const Span& s) {
        return (s.weekdays & day) && s.start <= minute && minute <= s.stop;
    });
}

bool TimeNode::match(const Checklist& facts) const
{
    return matchesTime(facts.now ? facts.now : std::time(nullptr));
}

} // namespace Acl
