/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Log::AccessLog: Squid's access.log, in Squid's formats, to files, syslog or the network.
///
/// Each `access_log` line of squid.conf becomes one Output, tried in order
/// as Squid 5.7's accessLogLogTo() does: an Output whose acls (a
/// RecordFilter) do not accept the record is skipped; a `none` Output that
/// accepts it ends the list.
///
///     access_log stdio:/var/log/cuttle/access.log squid
///     access_log daemon:/var/log/cuttle/access.log logformat=combined buffer-size=1MB !localhost
///     access_log syslog:local4.info squid
///     access_log tcp://127.0.0.1:5140 squid
///     access_log none
///
/// Lines are formatted at log() into each Output's buffer; the modules are
/// in log/Sink.h: `stdio` writes from the event loop (a Log::File), `daemon`
/// hands the buffer to a writer thread so a slow disk never stops the loop,
/// `syslog` calls syslog(3), `udp` sends a datagram per line, `tcp` streams
/// from a writer thread. flush() runs once per loop iteration (every second
/// only, with buffered_logs on). A write error is logged once to cache.log
/// (section 46, level 0) and the lines are dropped; with on-error=die it is
/// fatal (Squid's default; cuttle's is drop, see doc/differences.md).
///
/// The built-in formats are written by their own functions (formatSquid()
/// ...), as Squid writes them, and a logformat line's by its Log::Format.

#pragma once

#include "log/AccessRecord.h"
#include "log/Format.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace Log {

class Sink;

/// The built-in log formats (Squid 5.7's), and Custom for a logformat line's.
enum class AccessFormat {
    Squid,     ///< `%ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru %[un %Sh/%<a %mt`
    Common,    ///< `%>a %[ui %[un [%tl] "%rm %ru HTTP/%rv" %>Hs %<st %Ss:%Sh`
    Combined,  ///< common + `"%{Referer}>h" "%{User-Agent}>h"` before `%Ss:%Sh`
    Referrer,  ///< `%ts.%03tu %>a %{Referer}>h %ru`
    UserAgent, ///< `%>a [%tl] "%{User-Agent}>h"`
    IcapSquid, ///< Squid's ICAP line, which an access_log without ICAP fills with ICAP_ERR_UNKNOWN
    Custom     ///< a logformat line's Format
};

/// Squid's native line for R, without the newline, byte for byte as Squid 5.7 writes it:
/// `1700000000.123      5 127.0.0.1 TCP_MISS/200 1234 GET http://x/ - HIER_DIRECT/127.0.0.1 text/html`.
/// Empty fields print "-"; the URL is escaped as Squid's rfc1738_escape_unescaped only when
/// it holds a control character, and cut to 8191 bytes; the user name is QuoteMimeBlob()'d.
std::string formatSquid(const AccessRecord& r);
/// The `common` line (Apache CLF) for R, without the newline; %tl is local time.
std::string formatCommon(const AccessRecord& r);
/// The `combined` line for R, without the newline (Referer and User-Agent as received).
std::string formatCombined(const AccessRecord& r);
/// The line for R in a built-in FORMAT (not Custom), without the newline.
std::string format(AccessFormat format, const AccessRecord& r);
/// Maps a built-in logformat name to AccessFormat ("auto" is squid).
/// Throws std::invalid_argument for other names.
AccessFormat ParseFormatName(const std::string& name);

/// Whether an access_log gets a record: the line's acls, checked by the client side.
class RecordFilter {
public:
    virtual ~RecordFilter() = default;
    /// whether the record passes the acls
    virtual bool accepts(const AccessRecord& r) const = 0;
};

/// One `access_log` line, as AccessLog::add() opens it.
struct OutputSpec {
    std::string module = "stdio";              ///< stdio, daemon, syslog, udp, tcp or none
    std::string place;                         ///< path, FACILITY.PRIORITY or HOST:PORT
    AccessFormat format = AccessFormat::Squid; ///< the line format
    std::shared_ptr<const Format> custom;      ///< the Format of a Custom one
    size_t bufferSize = 64 * 1024;             ///< buffer-size=: bytes held before a write
    bool dieOnError = false; ///< on-error=die, or drop (cuttle's default: doc/differences.md)
    int rotate = -1;         ///< rotate=N; -1: logfile_rotate
    std::shared_ptr<const RecordFilter> filter; ///< the acls; nullptr: every record

    /// Reads MODULE:PLACE (Squid's spellings: stdio:PATH, daemon:PATH, a
    /// bare /PATH, syslog[:FACILITY[.PRIORITY]], udp://HOST:PORT,
    /// tcp://HOST:PORT, none) into module and place. Throws
    /// std::invalid_argument naming what is wrong.
    void parsePlace(const std::string& text);
    /// Whether place is a file path (stdio and daemon).
    bool isFile() const { return module == "stdio" || module == "daemon"; }
};

/// Every access_log of one configuration (see the file comment).
class AccessLog {
public:
    /// No outputs: log() does nothing.
    AccessLog();
    /// Flushes every output.
    ~AccessLog();
    AccessLog(const AccessLog&) = delete;
    AccessLog& operator=(const AccessLog&) = delete;

    /// Adds an output and opens it. Throws std::system_error when a file
    /// cannot be opened, std::invalid_argument for a bad place.
    void add(OutputSpec spec);
    /// add() of a plain MODULE:PLACE in a built-in FORMAT.
    void add(const std::string& place, AccessFormat format = AccessFormat::Squid);
    /// log_mime_hdrs: the squid, common and combined lines end with the
    /// request and reply heads, each QuoteMimeBlob()'d in brackets.
    void setMimeHeaders(bool on);
    /// buffered_logs: flush() writes only when a buffer is full or once a second.
    void setBuffered(bool on) { buffered_ = on; }

    /// What the client side must keep in an AccessRecord for these outputs.
    const RecordNeeds& needs() const { return needs_; }

    /// Formats R for each output that takes it and buffers the lines.
    void log(const AccessRecord& r);
    /// Buffers a line formatted elsewhere (with its newline) for every
    /// output that writes, whatever its format and acls (the store log's).
    void logLine(std::string_view line);
    /// Writes buffered lines (see setBuffered()). Reports a write error once.
    void flush();
    /// Whether every line logged so far is written or its failure reported:
    /// otherwise flush() must run again soon, even if nothing else happens.
    bool isSettled() const;
    /// `-k rotate`: rotates each file keeping its rotate= or COUNT copies (Squid's
    /// logfile_rotate; 0 just reopens, for logrotate), then reopens. With
    /// `done`, a file whose path is in it was rotated by another worker
    /// already and is only reopened, and the paths rotated here are added.
    void rotate(int count, std::set<std::string>* done = nullptr);
    /// Reopens each file by path (after an outside rename).
    void reopen();
    /// Flushes and drops every output.
    void close();
    /// The number of outputs that write (`none` does not count).
    size_t size() const;

private:
    /// One access_log line.
    struct Output {
        OutputSpec spec;            ///< how it was configured
        std::unique_ptr<Sink> sink; ///< where its lines go; nullptr for none
    };
    void writeAll();
    void updateNeeds();
    void reportError(Output& out);

    std::vector<Output> outputs_; ///< in config order
    bool mimeHeaders_ = false;    ///< log_mime_hdrs
    RecordNeeds needs_;           ///< see needs(), updated by add() and setMimeHeaders()
    bool buffered_ = false;       ///< buffered_logs
    uint64_t sequence_ = 0;       ///< %sn of the next line
    int64_t lastFlushSecond_ = 0; ///< monotonic second of the last buffered flush
    std::string line_;            ///< the line being formatted (its capacity is kept)
};

} // namespace Log
