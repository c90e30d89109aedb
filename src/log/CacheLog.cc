/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "log/CacheLog.h"

#include <ctime>
#include <iostream>
#include <string>
#include <sys/time.h>
#include <syslog.h>
#include <system_error>

namespace {

/// Squid 5's debugLogTime(): local time, with milliseconds for levels above 1.
std::string timePrefix(int level)
{
    timeval now{};
    ::gettimeofday(&now, nullptr);
    std::tm tm{};
    const std::time_t secs = now.tv_sec;
    ::localtime_r(&secs, &tm);
    char buf[64];
    size_t n = std::strftime(buf, sizeof(buf), "%Y/%m/%d %H:%M:%S", &tm);
    std::string result(buf, n);
    if (level > 1) {
        char ms[8];
        std::snprintf(ms, sizeof(ms), ".%03d", static_cast<int>(now.tv_usec / 1000));
        result += ms;
    }
    return result;
}

/// the calling thread's kid label ("" or "kid2"): each worker thread sets its own
thread_local std::string KidLabel;

} // namespace

Log::CacheLog::CacheLog() : stderr_(&std::cerr)
{
    setOptions(DebugOptions());
}

void Log::CacheLog::setOptions(const DebugOptions& options)
{
    const std::lock_guard<std::mutex> lock(mutex_);
    options_ = options;
    for (int section = 0; section < DebugOptions::Sections; ++section)
        levels_[size_t(section)].store(static_cast<signed char>(options.level(section)),
                                       std::memory_order_relaxed);
}

Log::DebugOptions Log::CacheLog::options() const
{
    const std::lock_guard<std::mutex> lock(mutex_);
    return options_;
}

void Log::CacheLog::setKidLabel(const std::string& label)
{
    KidLabel = label;
}

bool Log::CacheLog::isOpen() const
{
    const std::lock_guard<std::mutex> lock(mutex_);
    return file_.isOpen();
}

void Log::CacheLog::setStderrStream(std::ostream* stream)
{
    const std::lock_guard<std::mutex> lock(mutex_);
    stderr_ = stream ? stream : &std::cerr;
}

void Log::CacheLog::setSyslogFacility(int facility)
{
    const std::lock_guard<std::mutex> lock(mutex_);
    if (syslogFacility_ >= 0)
        ::closelog();
    syslogFacility_ = facility;
    if (facility >= 0)
        ::openlog("cuttle", LOG_PID | LOG_NDELAY, facility);
}

void Log::CacheLog::write(int section, int level, std::string_view message)
{
    std::string line = timePrefix(level);
    if (!KidLabel.empty()) {
        line += ' ';
        line += KidLabel;
    }
    line += "| ";
    line += message;
    if (line.empty() || line.back() != '\n')
        line += '\n';

    const bool wanted = level <= maxLevelFor(section);
    const std::lock_guard<std::mutex> lock(mutex_);
    // Squid's -s sends its important messages (levels 0 and 1) to syslog too.
    if (syslogFacility_ >= 0 && level <= 1 && wanted)
        ::syslog(level == 0 ? LOG_ERR : LOG_NOTICE, "%.*s", static_cast<int>(message.size()), message.data());
    const bool toFile = wanted && file_.isOpen();
    // Squid writes to stderr while cache.log is not open yet, and copies up to -d LEVEL.
    const bool toStderr = (wanted && !file_.isOpen()) || level <= stderrLevel();
    writeLine(level, line, toFile, toStderr);
}

void Log::CacheLog::writeLine(int level, std::string_view line, bool toFile, bool toStderr)
{
    if (toFile) {
        file_.append(line);
        unflushed_.store(true, std::memory_order_release);
        if (level <= 1 && !file_.flush() && file_.takeErrorReport()) {
            const std::string report = timePrefix(0) + "| ERROR: cache.log: " + file_.lastError() + "\n";
            writeLine(0, report, false, true);
        }
    }
    if (toStderr) {
        stderr_->write(line.data(), static_cast<std::streamsize>(line.size()));
        stderr_->flush();
    }
}

void Log::CacheLog::open(const std::string& path)
{
    const std::lock_guard<std::mutex> lock(mutex_);
    if (path.empty() || path == "none") {
        file_.close();
        return;
    }
    file_.open(path); // throws std::system_error; we keep writing to stderr then
}

void Log::CacheLog::reopen()
{
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!file_.reopen() && !file_.lastError().empty()) {
        const std::string line = timePrefix(0) + "| ERROR: cache.log: " + file_.lastError() + "\n";
        writeLine(0, line, false, true);
    }
}

void Log::CacheLog::rotate(int fallbackCount)
{
    const std::lock_guard<std::mutex> lock(mutex_);
    const int count = options_.rotateCount() >= 0 ? options_.rotateCount() : fallbackCount;
    if (!file_.rotate(count) && !file_.lastError().empty()) {
        const std::string line = timePrefix(0) + "| ERROR: cache.log: " + file_.lastError() + "\n";
        writeLine(0, line, false, true);
    }
}

void Log::CacheLog::flush()
{
    // every loop iteration of every worker comes here: most find nothing written
    if (!unflushed_.exchange(false, std::memory_order_acquire))
        return;
    const std::lock_guard<std::mutex> lock(mutex_);
    if (file_.flush())
        return;
    unflushed_.store(true, std::memory_order_relaxed); // what is left is tried again
    if (file_.takeErrorReport()) {
        const std::string line = timePrefix(0) + "| ERROR: cache.log: " + file_.lastError() + "\n";
        writeLine(0, line, false, true);
    }
}

void Log::CacheLog::close()
{
    const std::lock_guard<std::mutex> lock(mutex_);
    file_.close();
}

Log::CacheLog& Log::cacheLog()
{
    // The one per-process logger (see CacheLog.h); a function-local static is
    // built on first use, so debugs() works before main() configures anything.
    static CacheLog theLog;
    return theLog;
}
