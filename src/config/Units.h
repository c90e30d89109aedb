/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Config::Units: sizes (`64 KB`) and times (`30 seconds`) as Squid 5.7 reads them.
///
/// A value is a decimal number (a fraction is allowed: `1.5 MB`) followed by
/// a unit as a separate word, as Squid writes them. Units are matched without
/// regard to case, as Squid does.
///
///   sizes: bytes, KB, MB, GB (powers of 1024). A bare number is taken as
///          bytes with a warning (Squid: "No units on ..., assuming N bytes").
///          `64KB` in one word is an error, as in Squid.
///   times: millisecond(s), second(s), minute(s), hour(s), day(s), week(s),
///          fortnight(s), month(s) (30 days), year(s) (365.2522 days),
///          decade(s): Squid 5.7's list. `msec` and `msecs` are accepted
///          with a warning (Squid rejects them). A bare number is an error
///          ("missing time unit"), as in Squid 5.7.
///
/// Negative values, garbage and values that overflow are errors; so are
/// times over 292.269 years (2^63 - 1 nanoseconds), as in Squid 5.7
/// (`request_timeout 1000 decades`).

#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace Config {
namespace Units {

/// What parsing one value found.
struct Result {
    bool ok = false;     ///< the value is valid
    std::string why;     ///< when !ok: the reason
    std::string warning; ///< when ok: a warning to report (e.g. no unit), else empty
};

/// Parses a size starting at words[pos]; advances pos past the number and
/// its unit word when present (the next word is taken as the unit only when
/// it is one).
Result ParseSize(const std::vector<std::string>& words, size_t& pos, uint64_t& bytes);

/// Parses a size written as one word, the unit glued to the number
/// ("64KB", "4MB"; bytes without one), as option values are (KEY=SIZE);
/// a word with no digits first, or with more than a unit after them, is refused.
Result ParseSizeWord(const std::string& word, uint64_t& bytes);

/// Parses a time starting at words[pos] (a number and a unit word); advances pos.
Result ParseDuration(const std::vector<std::string>& words, size_t& pos, std::chrono::milliseconds& value);

/// The number of bytes in one `unit` (bytes, KB, MB, GB), or 0 when it is not a size unit.
uint64_t SizeUnit(const std::string& unit);

/// The milliseconds in one time `unit`, or 0 when it is not a time unit.
uint64_t TimeUnit(const std::string& unit);

/// A size as Squid writes it, in the biggest unit that divides it: "16 KB", "1 MB", "100 bytes".
std::string FormatSize(uint64_t bytes);

/// Every size unit name, for documentation.
const std::vector<std::string>& SizeUnitNames();

/// Every time unit name (singular), for documentation.
const std::vector<std::string>& TimeUnitNames();

} // namespace Units
} // namespace Config
