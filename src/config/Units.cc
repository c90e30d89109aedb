/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "config/Units.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <strings.h>

namespace {

struct UnitDef {
    const char* name;
    uint64_t factor;
};

const UnitDef SizeUnits[] = {
    {"bytes", 1},
    {"KB", 1024ull},
    {"MB", 1024ull * 1024},
    {"GB", 1024ull * 1024 * 1024},
};

// Squid 5.7 cache_cf.cc parseTimeUnit(): a month is 30 days, a year 365.2522 days.
constexpr uint64_t Second = 1000;
constexpr uint64_t Day = 86400 * Second;
const UnitDef TimeUnits[] = {
    {"millisecond", 1},          {"second", Second},  {"minute", 60 * Second},
    {"hour", 3600 * Second},     {"day", Day},        {"week", 7 * Day},
    {"fortnight", 14 * Day},     {"month", 30 * Day}, {"year", 31557790500ull},
    {"decade", 315577905000ull},
};

/// Squid 5.7 holds a time in signed 64-bit nanoseconds and refuses more;
/// so does cuttle, whose timers add a time to the steady clock's nanoseconds.
constexpr uint64_t MaxTimeMilliseconds = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / 1000000;

/// Splits a decimal number into an integer part and a fraction in [0, 1).
bool ParseNumber(const std::string& word, uint64_t& whole, long double& fraction, std::string& why)
{
    if (word.empty()) {
        why = "a number is missing";
        return false;
    }
    if (word[0] == '-') {
        why = "'" + word + "' is negative";
        return false;
    }
    size_t i = 0;
    whole = 0;
    fraction = 0;
    if (word[0] == '+')
        ++i;
    const size_t digitsStart = i;
    for (; i < word.size() && std::isdigit(static_cast<unsigned char>(word[i])); ++i) {
        if (__builtin_mul_overflow(whole, 10u, &whole) ||
            __builtin_add_overflow(whole, static_cast<uint64_t>(word[i] - '0'), &whole)) {
            why = "'" + word + "' is too big";
            return false;
        }
    }
    bool anyDigit = i > digitsStart;
    if (i < word.size() && word[i] == '.') {
        ++i;
        long double scale = 0.1L;
        for (; i < word.size() && std::isdigit(static_cast<unsigned char>(word[i])); ++i) {
            fraction += scale * (word[i] - '0');
            scale /= 10;
            anyDigit = true;
        }
    }
    if (!anyDigit || i != word.size()) {
        why = "'" + word + "' is not a number";
        return false;
    }
    return true;
}

/// whole.fraction * factor, rounded down, without overflow.
bool Scale(uint64_t whole, long double fraction, uint64_t factor, uint64_t& out)
{
    if (__builtin_mul_overflow(whole, factor, &out))
        return false;
    const auto extra = static_cast<uint64_t>(std::floor(fraction * static_cast<long double>(factor)));
    return !__builtin_add_overflow(out, extra, &out);
}

/// Splits "64KB" into the number prefix and the unit, for a better message.
bool LooksGlued(const std::string& word, std::string& number, std::string& unit)
{
    size_t i = 0;
    while (i < word.size() && (std::isdigit(static_cast<unsigned char>(word[i])) || word[i] == '.'))
        ++i;
    if (i == 0 || i == word.size())
        return false;
    number = word.substr(0, i);
    unit = word.substr(i);
    return true;
}

} // namespace

uint64_t Config::Units::SizeUnit(const std::string& unit)
{
    for (const auto& u : SizeUnits)
        if (strcasecmp(unit.c_str(), u.name) == 0)
            return u.factor;
    return 0;
}

uint64_t Config::Units::TimeUnit(const std::string& unit)
{
    for (const auto& u : TimeUnits) {
        if (strcasecmp(unit.c_str(), u.name) == 0)
            return u.factor;
        if (strcasecmp(unit.c_str(), (std::string(u.name) + "s").c_str()) == 0)
            return u.factor;
    }
    return 0;
}

Config::Units::Result Config::Units::ParseSize(const std::vector<std::string>& words, size_t& pos,
                                               uint64_t& bytes)
{
    Result r;
    if (pos >= words.size()) {
        r.why = "a size is missing (e.g. 64 KB)";
        return r;
    }
    const std::string& word = words[pos];
    uint64_t whole = 0;
    long double fraction = 0;
    if (!ParseNumber(word, whole, fraction, r.why)) {
        std::string number, unit;
        if (LooksGlued(word, number, unit) && SizeUnit(unit))
            r.why = "write the size and its unit as two words: '" + number + " " + unit + "'";
        return r;
    }
    ++pos;
    uint64_t factor = 1;
    if (pos < words.size() && SizeUnit(words[pos])) {
        factor = SizeUnit(words[pos]);
        ++pos;
    } else if (pos < words.size() && words[pos].find('=') == std::string::npos) {
        // Squid takes the word after the number as its unit, whatever it is
        r.why = "unknown size unit '" + words[pos] + "' (use bytes, KB, MB or GB)";
        return r;
    } else if (whole != 0 || fraction != 0) {
        // Squid's parseBytesLine() has no word for a unitless 0
        r.warning = "no unit on the size '" + word + "', assuming bytes";
    }
    if (!Scale(whole, fraction, factor, bytes)) {
        r.why = "the size '" + word + "' is too big";
        r.warning.clear();
        return r;
    }
    r.ok = true;
    return r;
}

Config::Units::Result Config::Units::ParseDuration(const std::vector<std::string>& words, size_t& pos,
                                                   std::chrono::milliseconds& value)
{
    Result r;
    if (pos >= words.size()) {
        r.why = "a time is missing (e.g. 30 seconds)";
        return r;
    }
    const std::string& word = words[pos];
    uint64_t whole = 0;
    long double fraction = 0;
    if (!ParseNumber(word, whole, fraction, r.why)) {
        std::string number, unit;
        if (LooksGlued(word, number, unit) && (TimeUnit(unit) || strcasecmp(unit.c_str(), "msec") == 0))
            r.why = "write the time and its unit as two words: '" + number + " " + unit + "'";
        return r;
    }
    ++pos;
    if (pos >= words.size()) {
        r.why = "missing time unit after '" + word + "' (e.g. seconds, minutes)";
        return r;
    }
    const std::string& unit = words[pos];
    uint64_t factor = TimeUnit(unit);
    if (!factor && (strcasecmp(unit.c_str(), "msec") == 0 || strcasecmp(unit.c_str(), "msecs") == 0)) {
        factor = 1;
        r.warning = "'" + unit + "' is a cuttle extension that Squid 5.7 rejects; write 'milliseconds'";
    }
    if (!factor) {
        r.why = "unknown time unit '" + unit +
                "' (use milliseconds, seconds, minutes, hours, days, weeks, "
                "fortnights, months, years or decades)";
        return r;
    }
    ++pos;
    uint64_t ms = 0;
    if (!Scale(whole, fraction, factor, ms) || ms > MaxTimeMilliseconds) {
        // Squid 5.7 cache_cf.cc ToNanoSeconds(): the same limit, the same words
        r.why = "the time '" + word + " " + unit + "' is too long: time values cannot exceed 292.269 years";
        r.warning.clear();
        return r;
    }
    value = std::chrono::milliseconds(static_cast<std::chrono::milliseconds::rep>(ms));
    r.ok = true;
    return r;
}

std::string Config::Units::FormatSize(uint64_t bytes)
{
    for (int i = 3; i >= 1; --i) {
        const uint64_t f = SizeUnits[i].factor;
        if (bytes && bytes % f == 0)
            return std::to_string(bytes / f) + " " + SizeUnits[i].name;
    }
    return std::to_string(bytes) + " bytes";
}

const std::vector<std::string>& Config::Units::SizeUnitNames()
{
    static const std::vector<std::string> names = {"bytes", "KB", "MB", "GB"};
    return names;
}

const std::vector<std::string>& Config::Units::TimeUnitNames()
{
    static const std::vector<std::string> names = {"millisecond", "second",    "minute", "hour", "day",
                                                   "week",        "fortnight", "month",  "year", "decade"};
    return names;
}

Config::Units::Result Config::Units::ParseSizeWord(const std::string& word, uint64_t& bytes)
{
    size_t cut = 0;
    while (cut < word.size() && std::isdigit(static_cast<unsigned char>(word[cut])))
        ++cut;
    std::vector<std::string> words{word.substr(0, cut)};
    if (cut < word.size())
        words.push_back(word.substr(cut));
    size_t pos = 0;
    auto r = ParseSize(words, pos, bytes);
    if (r.ok && (cut == 0 || pos != words.size())) {
        r.ok = false;
        r.why = "'" + word + "' is not a size";
    }
    return r;
}
