/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/Date.h"
#include "http/Fields.h"

#include <cstdint>
#include <limits>
#include <tuple>

namespace {

constexpr std::string_view DayNames[7] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr std::string_view LongDayNames[7] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                              "Thursday", "Friday", "Saturday"};
constexpr std::string_view MonthNames[12] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                             "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

constexpr int64_t SecondsPerDay = 86400;

/// days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// days_from_civil, exact for every year an int64_t day count can hold)
constexpr int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

static_assert(DaysFromCivil(1970, 1, 1) == 0);
static_assert(DaysFromCivil(2000, 3, 1) == 11017);
static_assert(DaysFromCivil(1969, 12, 31) == -1);

/// a broken-down UTC time
struct Civil {
    int64_t year = 0;
    unsigned month = 1; ///< 1..12
    unsigned day = 1;   ///< 1..31
    unsigned hour = 0, minute = 0, second = 0;
    unsigned weekday = 0; ///< 0 is Sunday

    auto key() const { return std::tie(year, month, day, hour, minute, second); }
};

/// the inverse of DaysFromCivil
Civil CivilFromDays(int64_t z)
{
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const auto doe = static_cast<unsigned>(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    Civil c;
    c.day = doy - (153 * mp + 2) / 5 + 1;
    c.month = mp < 10 ? mp + 3 : mp - 9;
    c.year = static_cast<int64_t>(yoe) + era * 400 + (c.month <= 2);
    return c;
}

int64_t FloorDiv(int64_t a, int64_t b)
{
    return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

Civil CivilFromTime(int64_t t)
{
    const int64_t days = FloorDiv(t, SecondsPerDay);
    Civil c = CivilFromDays(days);
    const auto secs = static_cast<unsigned>(t - days * SecondsPerDay);
    c.hour = secs / 3600;
    c.minute = secs / 60 % 60;
    c.second = secs % 60;
    const int64_t wd = (days + 4) % 7; // 1970-01-01 was a Thursday
    c.weekday = static_cast<unsigned>(wd < 0 ? wd + 7 : wd);
    return c;
}

bool IsLeapYear(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

unsigned DaysInMonth(int64_t y, unsigned m)
{
    static constexpr unsigned Days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && IsLeapYear(y) ? 29 : Days[m - 1];
}

/// the first and last second FormatHttpDate can write (years 0000..9999)
constexpr int64_t MinFormattable = DaysFromCivil(0, 1, 1) * SecondsPerDay;
constexpr int64_t MaxFormattable = DaysFromCivil(9999, 12, 31) * SecondsPerDay + SecondsPerDay - 1;

time_t ToTimeT(int64_t t)
{
    // a 32-bit time_t cannot hold every HTTP-date: saturate rather than wrap
    if (t > static_cast<int64_t>(std::numeric_limits<time_t>::max()))
        return std::numeric_limits<time_t>::max();
    if (t < static_cast<int64_t>(std::numeric_limits<time_t>::min()))
        return std::numeric_limits<time_t>::min();
    return static_cast<time_t>(t);
}

/// Walks one candidate format over the text; every method fails (false)
/// without consuming on a mismatch, and the caller gives up on the first.
class Scanner {
public:
    Scanner(std::string_view s, bool anyCase) : s_(s), anyCase_(anyCase) {}

    bool literal(std::string_view lit)
    {
        const auto here = s_.substr(pos_, lit.size());
        if (anyCase_ ? !Http::EqualsIgnoreCase(here, lit) : here != lit)
            return false;
        pos_ += lit.size();
        return true;
    }

    /// exactly n decimal digits
    bool digits(size_t n, unsigned& out)
    {
        if (s_.size() - pos_ < n)
            return false;
        unsigned v = 0;
        for (size_t i = 0; i < n; ++i) {
            const char c = s_[pos_ + i];
            if (c < '0' || c > '9')
                return false;
            v = v * 10 + unsigned(c - '0');
        }
        pos_ += n;
        out = v;
        return true;
    }

    /// one of the names (case-sensitive unless anyCase_); index is its position
    template <size_t N>
    bool name(const std::string_view (&names)[N], unsigned& index)
    {
        for (size_t i = 0; i < N; ++i) {
            if (literal(names[i])) {
                index = unsigned(i);
                return true;
            }
        }
        return false;
    }

    /// time-of-day = hour ":" minute ":" second
    bool timeOfDay(Civil& c)
    {
        return digits(2, c.hour) && literal(":") && digits(2, c.minute) && literal(":") &&
               digits(2, c.second);
    }

    bool atEnd() const { return pos_ == s_.size(); }

private:
    std::string_view s_;
    bool anyCase_ = false; ///< names and "GMT" in any letter case (RFC 9111 section 4.2)
    size_t pos_ = 0;
};

/// the seconds of a broken-down date, or nullopt when it does not exist
std::optional<int64_t> ToSeconds(const Civil& c)
{
    if (c.month < 1 || c.month > 12 || c.day < 1 || c.day > DaysInMonth(c.year, c.month))
        return std::nullopt;
    if (c.hour > 23 || c.minute > 59 || c.second > 60) // 60: a leap second (RFC 9110 5.6.7)
        return std::nullopt;
    return DaysFromCivil(c.year, c.month, c.day) * SecondsPerDay + c.hour * 3600 + c.minute * 60 + c.second;
}

/// IMF-fixdate: day-name "," SP 2DIGIT SP month SP 4DIGIT SP time-of-day SP "GMT"
std::optional<int64_t> ParseImfFixdate(std::string_view text, bool anyCase)
{
    Scanner s(text, anyCase);
    Civil c;
    unsigned ignored = 0, year = 0;
    if (!(s.name(DayNames, ignored) && s.literal(", ") && s.digits(2, c.day) && s.literal(" ") &&
          s.name(MonthNames, c.month) && s.literal(" ") && s.digits(4, year) && s.literal(" ") &&
          s.timeOfDay(c) && s.literal(" GMT") && s.atEnd()))
        return std::nullopt;
    c.month += 1;
    c.year = year;
    return ToSeconds(c);
}

/// asctime-date: day-name SP month SP ( 2DIGIT / ( SP DIGIT ) ) SP time-of-day SP 4DIGIT
std::optional<int64_t> ParseAsctime(std::string_view text, bool anyCase)
{
    Scanner s(text, anyCase);
    Civil c;
    unsigned ignored = 0, year = 0;
    if (!(s.name(DayNames, ignored) && s.literal(" ") && s.name(MonthNames, c.month) && s.literal(" ")))
        return std::nullopt;
    if (!(s.literal(" ") ? s.digits(1, c.day) : s.digits(2, c.day)))
        return std::nullopt;
    if (!(s.literal(" ") && s.timeOfDay(c) && s.literal(" ") && s.digits(4, year) && s.atEnd()))
        return std::nullopt;
    c.month += 1;
    c.year = year;
    return ToSeconds(c);
}

/// rfc850-date: day-name-l "," SP 2DIGIT "-" month "-" 2DIGIT SP time-of-day SP "GMT"
std::optional<int64_t> ParseRfc850(std::string_view text, time_t now, bool anyCase)
{
    Scanner s(text, anyCase);
    Civil c;
    unsigned ignored = 0, yy = 0;
    if (!(s.name(LongDayNames, ignored) && s.literal(", ") && s.digits(2, c.day) && s.literal("-") &&
          s.name(MonthNames, c.month) && s.literal("-") && s.digits(2, yy) && s.literal(" ") &&
          s.timeOfDay(c) && s.literal(" GMT") && s.atEnd()))
        return std::nullopt;
    c.month += 1;

    // RFC 9110 5.6.7: a date that appears to be more than 50 years in the
    // future is the most recent past year with the same last two digits.
    // So the year is the latest one ending in yy that puts the date at most
    // 50 years after now: a 100-year window that slides with the clock.
    Civil limit = CivilFromTime(static_cast<int64_t>(now));
    const int64_t century = limit.year - (limit.year % 100 + 100) % 100;
    limit.year += 50;
    c.year = century + 100 + yy;
    while (c.key() > limit.key()) // at most twice
        c.year -= 100;
    return ToSeconds(c);
}

void Put2(char* out, unsigned v)
{
    out[0] = char('0' + v / 10 % 10);
    out[1] = char('0' + v % 10);
}

/// ParseHttpDate() and ParseCacheDate()
std::optional<time_t> ParseAny(std::string_view text, time_t now, bool anyCase)
{
    std::optional<int64_t> t;
    if (text.size() == Http::HttpDateLength && text[3] == ',')
        t = ParseImfFixdate(text, anyCase);
    else if (text.size() > 3 && text[3] == ' ')
        t = ParseAsctime(text, anyCase);
    else
        t = ParseRfc850(text, now, anyCase);
    if (!t)
        return std::nullopt;
    return ToTimeT(*t);
}

} // namespace

std::optional<time_t> Http::ParseHttpDate(std::string_view text, time_t now)
{
    return ParseAny(text, now, false);
}

std::optional<time_t> Http::ParseCacheDate(std::string_view text, time_t now)
{
    return ParseAny(text, now, true);
}

std::optional<time_t> Http::ParseHttpDate(std::string_view text)
{
    return ParseHttpDate(text, time(nullptr));
}

size_t Http::FormatHttpDate(time_t t, char* out)
{
    int64_t secs = static_cast<int64_t>(t);
    if (secs < MinFormattable)
        secs = MinFormattable;
    if (secs > MaxFormattable)
        secs = MaxFormattable;
    const Civil c = CivilFromTime(secs);

    // "Sun, 06 Nov 1994 08:49:37 GMT"
    const std::string_view day = DayNames[c.weekday];
    const std::string_view month = MonthNames[c.month - 1];
    out[0] = day[0];
    out[1] = day[1];
    out[2] = day[2];
    out[3] = ',';
    out[4] = ' ';
    Put2(out + 5, c.day);
    out[7] = ' ';
    out[8] = month[0];
    out[9] = month[1];
    out[10] = month[2];
    out[11] = ' ';
    const auto year = static_cast<unsigned>(c.year);
    Put2(out + 12, year / 100);
    Put2(out + 14, year % 100);
    out[16] = ' ';
    Put2(out + 17, c.hour);
    out[19] = ':';
    Put2(out + 20, c.minute);
    out[22] = ':';
    Put2(out + 23, c.second);
    out[25] = ' ';
    out[26] = 'G';
    out[27] = 'M';
    out[28] = 'T';
    return HttpDateLength;
}

std::string Http::FormatHttpDate(time_t t)
{
    std::string s(HttpDateLength, ' ');
    FormatHttpDate(t, s.data());
    return s;
}
