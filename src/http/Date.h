/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file HTTP dates (RFC 9110 section 5.6.7): parsing Date, Expires,
/// Last-Modified, If-Modified-Since and If-Range values, and formatting the
/// Date (and Age-adjusted) fields cuttle sends.
///
/// Three formats are accepted, exactly as the RFC's grammar spells them, and
/// nothing else (no extra or missing spaces, no other zone than "GMT", names
/// case-sensitive as section 5.6.7 says, except in ParseCacheDate()):
///
///     IMF-fixdate  Sun, 06 Nov 1994 08:49:37 GMT   (the one cuttle sends)
///     rfc850-date  Sunday, 06-Nov-94 08:49:37 GMT  (obsolete)
///     asctime-date Sun Nov  6 08:49:37 1994        (obsolete; day is SP DIGIT or 2DIGIT)
///
/// The day name must be a valid name of the format but is not checked
/// against the date (the RFC does not ask it, and a sender that got it wrong
/// still meant the date). The day must exist in its month (no Feb 30), the
/// time is 00:00:00 to 23:59:60 (a leap second counts as the next second).
/// A two-digit rfc850 year is the latest year with those digits that puts
/// the date at most 50 years after `now` (the RFC's MUST: "more than 50
/// years in the future" means the most recent past year), so the window of
/// 100 years slides with the clock: in 2026, 76 is 2076 and 77 is 1977. What to do with a value that does not
/// parse is the caller's: an invalid Expires means "already expired" (RFC 9111 section 5.3), an invalid
/// If-Modified-Since is ignored (RFC 9110 section 13.1.3).
///
/// Time is a count of seconds since 1970-01-01T00:00:00Z without leap
/// seconds (POSIX time_t), computed with our own days-from-civil arithmetic:
/// no mktime/timegm, no locale, no TZ environment, no static buffers, so
/// every function here is thread-safe and gives the same answer on every
/// machine. Years 0000 to 9999 (the four digits the format has) are
/// covered; formatting clamps a time outside them to the nearest end.

#pragma once

#include <cstddef>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>

namespace Http {

/// bytes in an IMF-fixdate, e.g. "Sun, 06 Nov 1994 08:49:37 GMT"
constexpr size_t HttpDateLength = 29;

/// Parses an HTTP-date in any of the three formats; two-digit years are
/// resolved relative to `now`. nullopt when the text is not an HTTP-date.
std::optional<time_t> ParseHttpDate(std::string_view text, time_t now);

/// ParseHttpDate() as a cache recipient parses Date, Expires and
/// Last-Modified to compute freshness (RFC 9111 section 4.2: "a cache
/// recipient SHOULD match the field value case-insensitively"): day and month
/// names and "GMT" in any letter case ("sun, 06 NOV 1994 08:49:37 gmt"); the
/// same three formats, nothing else.
std::optional<time_t> ParseCacheDate(std::string_view text, time_t now);

/// ParseHttpDate(text, now) with the current time as now.
std::optional<time_t> ParseHttpDate(std::string_view text);

/// Writes the IMF-fixdate of t (clamped to years 0000..9999) to out, which
/// must hold HttpDateLength bytes; no terminating NUL. Returns HttpDateLength.
size_t FormatHttpDate(time_t t, char* out);

/// The IMF-fixdate of t (clamped to years 0000..9999).
std::string FormatHttpDate(time_t t);

} // namespace Http
