/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Log::DebugOptions: Squid's `debug_options` value, parsed.
#pragma once

#include <array>
#include <string>

namespace Log {

/// Per-section debug levels, as Squid's `debug_options ALL,1 33,2 rotate=N` sets them.
///
/// Levels follow Squid: 0 critical, 1 important, 2..9 ever more detail.
/// Tokens are applied left to right, so `ALL,1 33,2` raises section 33 only,
/// while `33,2 ALL,1` leaves every section (33 included) at 1.
class DebugOptions {
public:
    /// Squid's number of debug sections (0..99).
    static constexpr int Sections = 100;
    /// Highest level (Squid's MAX_DEBUG_LEVEL).
    static constexpr int MaxLevel = 9;
    /// Squid's default: every section at level 1.
    static constexpr int DefaultLevel = 1;

    /// Every section at DefaultLevel, rotate count unset.
    DebugOptions();

    /// Parses a `debug_options` value. Tokens: `ALL,L`, `S,L`, `rotate=N`.
    /// A level above 9 is lowered to 9 (as Squid does). Throws
    /// std::invalid_argument with a one-line reason for anything else
    /// (a bad number, a section outside 0..99, an unknown token).
    static DebugOptions Parse(const std::string& text);

    /// The level of one section; a section outside 0..99 reads as DefaultLevel.
    int level(int section) const;
    /// Sets one section's level (clamped to 0..9). Throws std::out_of_range for a bad section.
    void setLevel(int section, int lvl);
    /// Sets every section's level.
    void setAll(int lvl);
    /// `rotate=N`, or -1 when the value did not say (then logfile_rotate applies).
    int rotateCount() const { return rotate_; }

private:
    std::array<signed char, Sections> levels_; ///< level per section
    int rotate_ = -1;                          ///< rotate=N, -1 when unset
};

} // namespace Log
