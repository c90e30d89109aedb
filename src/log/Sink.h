/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Log::Sink: where one access_log's lines go (Squid's logfile modules).
///
/// | module   | place             | how                                                    |
/// |----------|-------------------|--------------------------------------------------------|
/// | `stdio`  | PATH              | a Log::File written by the event loop at flush()       |
/// | `daemon` | PATH              | a Log::File written by a thread of its own             |
/// | `syslog` | FACILITY.PRIORITY | syslog(3), one message per line, at append()           |
/// | `udp`    | //HOST:PORT       | one datagram per line, never waiting (a full socket drops it) |
/// | `tcp`    | //HOST:PORT       | a stream written by a thread of its own, reconnecting  |
///
/// The loop thread calls every method. A threaded sink hands its buffer to
/// its thread at flush(); the thread holds at most eight buffers (at least
/// 1 MB) more: past that, lines are dropped and the loop is told, so a stuck
/// disk or receiver costs bounded memory and never blocks the loop.

#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace Log {

struct OutputSpec;

/// One access_log destination (see the file comment).
class Sink {
public:
    virtual ~Sink() = default;

    /// Opens the module of SPEC. Throws std::system_error or std::invalid_argument.
    static std::unique_ptr<Sink> Open(const OutputSpec& spec);

    /// Adds one line (with its newline).
    virtual void append(std::string_view line) = 0;
    /// Writes or hands over what append() buffered. False when the write failed.
    virtual bool flush() = 0;
    /// Squid's rotation with COUNT copies for a file, else a reconnect or nothing.
    virtual bool rotate(int count) = 0;
    /// Reopens a file by its path; other modules do nothing.
    virtual bool reopen() = 0;
    /// Bytes append() holds that flush() has not handed on.
    virtual size_t buffered() const = 0;
    /// Whether every line appended so far is written, or its failure known
    /// to error() (a threaded sink may still be writing: flush() again later).
    virtual bool isSettled() const { return buffered() == 0; }

    /// The current error episode's reason, or "".
    const std::string& error() const { return error_; }
    /// True once per error episode (the caller reports it to cache.log).
    bool takeErrorReport();

protected:
    /// Starts an error episode (the first reason is kept) or, with "", ends it.
    void setError(const std::string& reason);

private:
    std::string error_;     ///< see error()
    bool reported_ = false; ///< the episode was reported
};

/// The syslog(3) facility called NAME (auth ... local7, with or without
/// "LOG_": cuttle's -l and access_log's syslog: module), or -1.
int SyslogFacility(const std::string& name);

} // namespace Log
