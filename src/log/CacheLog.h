/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Log::CacheLog and the debugs() macro: Squid's cache.log.
///
/// Use: `debugs(33, 2, "accepted " << fd << " from " << peer);`. The macro tests
/// the section's level before it builds the message, so a disabled debugs()
/// costs one array load and a compare.
///
/// Lines look like Squid 5's (debug.cc):
///
///     2024/05/01 12:00:00| message                 (levels 0 and 1)
///     2024/05/01 12:00:00.123| message             (levels 2..9 carry milliseconds)
///     2024/05/01 12:00:00 kid1| message            (after setKidLabel("kid1"))
///
/// in local time. Where a line goes:
///  - into the cache.log file once open() succeeded, buffered, flushed by
///    flush() (the event loop calls it once per iteration), at once for
///    level 0 and 1 messages, and when the buffer is full;
///  - to stderr while no file is open (start-up, `-k parse`, or after a failed
///    open), like Squid before it has opened cache.log;
///  - also to stderr when the level is <= the `-d LEVEL` (setStderrLevel()).
///
/// One CacheLog exists per process (Log::cacheLog()); it is the only mutable
/// state of this library outside objects its callers own. Every worker
/// thread writes to it (doc/design.md "Workers"): the lines go out under a
/// mutex, and the per-section levels that debugs() tests are atomic copies
/// of the options, so a reconfigure on the main thread does not race the
/// workers' tests. The kid label is the calling thread's own.

#pragma once

#include "log/DebugOptions.h"
#include "log/File.h"

#include <array>
#include <atomic>
#include <iosfwd>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>

namespace Log {

/// Squid's cache.log: per-section levels, a file, a stderr copy.
class CacheLog {
public:
    /// Logs to stderr, every section at level 1, no -d copy.
    CacheLog();

    /// Whether a message of SECTION at LEVEL would be written anywhere.
    bool isEnabled(int section, int level) const
    {
        return level <= maxLevelFor(section) || level <= stderrLevel_.load(std::memory_order_relaxed);
    }

    /// Writes one message (no trailing newline needed). Callers normally use debugs().
    /// Level 0 and 1 messages also go to syslog when setSyslogFacility() enabled it.
    void write(int section, int level, std::string_view message);

    /// Replaces the per-section levels (from DebugOptions::Parse of `debug_options`).
    void setOptions(const DebugOptions& options);
    /// The current per-section levels.
    DebugOptions options() const;
    /// Squid's `-d LEVEL`: messages up to LEVEL are copied to stderr; -1 disables.
    void setStderrLevel(int level) { stderrLevel_ = level; }
    /// The `-d` level, -1 when off.
    int stderrLevel() const { return stderrLevel_; }
    /// Redirects the stderr copy and the no-file fallback (tests); nullptr restores std::cerr.
    void setStderrStream(std::ostream* stream);
    /// Squid's `-s` / `-l FACILITY`: also send level 0 and 1 messages to
    /// syslog(3) with FACILITY (a LOG_* facility value); -1 (the default) stops it.
    void setSyslogFacility(int facility);
    /// The syslog facility, -1 when syslog is off.
    int syslogFacility() const { return syslogFacility_; }
    /// Adds " LABEL" before the "|" (Squid's " kid1"); "" (the default) omits it.
    void setKidLabel(const std::string& label);

    /// Opens PATH as cache.log. Throws std::system_error when it cannot be
    /// opened; the daemon then keeps logging to stderr. "none" or "" keeps stderr.
    void open(const std::string& path);
    /// Reopens the same path (after an outside rename); logs a failure to stderr.
    void reopen();
    /// `-k rotate`: rotates with options().rotateCount() (or FALLBACK when it is
    /// unset, which is the daemon's logfile_rotate), then reopens.
    void rotate(int fallbackCount);
    /// Writes buffered lines now.
    void flush();
    /// Flushes and closes; later messages go to stderr.
    void close();
    /// Whether a file is open.
    bool isOpen() const;

private:
    int maxLevelFor(int section) const
    {
        return section >= 0 && section < DebugOptions::Sections
                   ? levels_[size_t(section)].load(std::memory_order_relaxed)
                   : DebugOptions::DefaultLevel;
    }
    /// writes a formatted line (mutex_ held)
    void writeLine(int level, std::string_view line, bool toFile, bool toStderr);

    mutable std::mutex mutex_;           ///< guards what follows it, and the writes
    DebugOptions options_;               ///< per-section levels, rotate=N
    std::ostream* stderr_;               ///< where stderr output goes
    int syslogFacility_ = -1;            ///< -s / -l FACILITY; -1: no syslog
    File file_;                          ///< the cache.log file
    std::atomic<int> stderrLevel_{-1};   ///< -d LEVEL
    std::atomic<bool> unflushed_{false}; ///< lines were appended since the last flush()
    /// options_'s levels, read without the mutex by isEnabled()
    std::array<std::atomic<signed char>, DebugOptions::Sections> levels_;
};

/// The process's one cache.log (see the file comment). Never null.
CacheLog& cacheLog();

} // namespace Log

/// Squid's debugs(SECTION, LEVEL, CONTENT): CONTENT is a `<<` chain, only
/// evaluated when the level is enabled.
#define debugs(SECTION, LEVEL, CONTENT)                                                                      \
    do {                                                                                                     \
        ::Log::CacheLog& debugsLog_ = ::Log::cacheLog();                                                     \
        const int debugsSection_ = (SECTION);                                                                \
        const int debugsLevel_ = (LEVEL);                                                                    \
        if (debugsLog_.isEnabled(debugsSection_, debugsLevel_)) {                                            \
            std::ostringstream debugsStream_;                                                                \
            debugsStream_ << CONTENT;                                                                        \
            debugsLog_.write(debugsSection_, debugsLevel_, debugsStream_.str());                             \
        }                                                                                                    \
    } while (false)
