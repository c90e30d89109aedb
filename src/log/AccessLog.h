/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Log::AccessLog: Squid's access.log, in Squid's formats, to one or more files.
///
/// Each `access_log` line of squid.conf becomes one destination:
///
///     access_log stdio:/var/log/cuttle/access.log squid
///     access_log daemon:/var/log/cuttle/access.log common
///     access_log none
///
/// `stdio:PATH` and `daemon:PATH` both write PATH from the proxy process itself
/// through a buffered Log::File: Squid's daemon: module hands lines to a helper
/// process (log_file_daemon) so the proxy never blocks on disk; cuttle gets the
/// same by never writing outside flush() and never calling fsync. A bare PATH
/// means stdio:PATH. `none` adds nothing (and is how `access_log none` reads).
///
/// Lines are formatted at log() and buffered; the event loop calls flush() once
/// per iteration and on a timer; destruction flushes. A write error is logged
/// once to cache.log (section 46, level 0), not once per line.
/// Formats: "squid" (the native one) "common" and "combined"; see formatSquid().

#pragma once

#include "log/AccessRecord.h"
#include "log/File.h"

#include <memory>
#include <string>
#include <vector>

namespace Log {

/// The built-in `logformat` names cuttle writes.
enum class AccessFormat {
    Squid,   ///< `%ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru %[un %Sh/%<a %mt`
    Common,  ///< `%>a %[ui %[un [%tl] "%rm %ru HTTP/%rv" %>Hs %<st %Ss:%Sh`
    Combined ///< common + `"%{Referer}>h" "%{User-Agent}>h"` before `%Ss:%Sh`
};

/// Squid's native line for R, without the newline, byte for byte as Squid 5.7 writes it:
/// `1700000000.123      5 127.0.0.1 TCP_MISS/200 1234 GET http://x/ - HIER_DIRECT/127.0.0.1 text/html`.
/// Empty fields print "-"; the URL is escaped as Squid's rfc1738_escape_unescaped
/// (controls, space, non-ASCII and `<>"#{}|\^~[]`'` become %XX; '%' stays) and cut to 8191 bytes;
/// the user name is quoted as Squid's `%[` does.
std::string formatSquid(const AccessRecord& r);
/// The `common` line (Apache CLF) for R, without the newline; %tl is local time.
std::string formatCommon(const AccessRecord& r);
/// The `combined` line for R, without the newline.
std::string formatCombined(const AccessRecord& r);
/// The line for R in FORMAT, without the newline.
std::string format(AccessFormat format, const AccessRecord& r);
/// Maps a logformat name ("squid", "common", "combined") to AccessFormat.
/// Throws std::invalid_argument for other names.
AccessFormat ParseFormatName(const std::string& name);

/// Every access.log destination of one configuration (see the file comment).
class AccessLog {
public:
    /// No destinations: log() does nothing.
    AccessLog();
    /// Flushes every destination.
    ~AccessLog();
    AccessLog(const AccessLog&) = delete;
    AccessLog& operator=(const AccessLog&) = delete;

    /// Adds the destination of one `access_log` line: SPEC is "stdio:PATH",
    /// "daemon:PATH", a bare absolute PATH, or "none" (ignored). Opens the file now.
    /// Throws std::invalid_argument for another module (syslog:, udp:, tcp:) and
    /// std::system_error when the file cannot be opened.
    void add(const std::string& spec, AccessFormat format = AccessFormat::Squid);

    /// Formats R for each destination and buffers the lines.
    void log(const AccessRecord& r);
    /// Writes buffered lines to every file (no fsync). Reports a write error once.
    void flush();
    /// `-k rotate`: rotates each file keeping COUNT copies (Squid's logfile_rotate;
    /// 0 just reopens, for logrotate), then reopens. Failures go to cache.log.
    void rotate(int count);
    /// Reopens each file by path (after an outside rename).
    void reopen();
    /// Flushes and drops every destination.
    void close();
    /// The number of destinations (`none` does not count).
    size_t size() const { return outputs_.size(); }

private:
    /// One destination.
    struct Output {
        AccessFormat format; ///< its line format
        File file;           ///< its buffered file
    };
    void reportError(Output& out);

    std::vector<std::unique_ptr<Output>> outputs_; ///< every destination, in config order
};

} // namespace Log
