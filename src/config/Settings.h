/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Config::Settings: the immutable snapshot of one parsed squid.conf.
///
/// The parser (Config::Parser) fills one Settings from the directive table;
/// the daemon holds it by `std::shared_ptr<const Settings>` and swaps the
/// whole snapshot on reconfigure, so nothing ever sees a half-applied file.
/// Every field starts at the default its directive declares in the table.

#pragma once

#include "acl/AccessList.h"
#include "acl/Registry.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace Config {

/// One `http_port [addr:]port` line.
struct HttpPort {
    std::string host;   ///< address literal to bind; empty means every address
    uint16_t port = 0;  ///< 0 binds a free port (cache.log names it)
    std::string origin; ///< "FILE:LINE" of the directive, for messages
};

/// `request_buffer_size SIZE | auto [min=SIZE] [max=SIZE]`
struct BufferSize {
    bool isAuto = false; ///< adapt per connection between min and max
    uint64_t fixed = 0;  ///< the size when !isAuto
    uint64_t min = 0;    ///< lower bound in auto mode
    uint64_t max = 0;    ///< upper bound in auto mode
};

/// One `access_log` line.
struct AccessLogSpec {
    enum class Kind { Stdio, Daemon, None };
    Kind kind = Kind::Stdio;
    std::string path;             ///< file for Stdio and Daemon
    std::string format = "squid"; ///< logformat name
};

/// `via`, `forwarded_for` values.
enum class ForwardedFor { On, Off, Transparent, Truncate, Delete };

using Duration = std::chrono::milliseconds;

/// Everything one squid.conf says, with defaults filled in.
struct Settings {
    std::vector<HttpPort> httpPorts;

    Acl::Registry acls;         ///< every `acl` line, plus Squid's predefined acls
    Acl::AccessList httpAccess; ///< `http_access` rules in order

    uint64_t cacheMem = 0;                  ///< cache_mem, bytes
    uint64_t maximumObjectSizeInMemory = 0; ///< bytes
    uint64_t readAheadGap = 0;              ///< bytes
    BufferSize requestBufferSize;           ///< stream block size
    uint64_t requestHeaderMaxSize = 0;      ///< bytes
    uint64_t replyHeaderMaxSize = 0;        ///< bytes

    std::vector<AccessLogSpec> accessLogs; ///< empty after `access_log none`
    std::string cacheLog;                  ///< cache_log path
    std::string pidFilename;               ///< "none" disables the pid file
    std::string debugOptions;              ///< raw `debug_options` value, e.g. "ALL,1 33,2"
    unsigned logfileRotate = 10;           ///< logfile_rotate: old logs `-k rotate` keeps (0: just reopen)
    std::string visibleHostname;           ///< empty: use gethostname()
    bool via = true;
    bool stripQueryTerms = true; ///< strip_query_terms: access.log URLs end at the `?`
    ForwardedFor forwardedFor = ForwardedFor::On;

    Duration connectTimeout{0};
    Duration readTimeout{0};
    Duration requestTimeout{0};
    Duration clientIdlePconnTimeout{0};
    Duration serverIdlePconnTimeout{0};
    Duration shutdownLifetime{0};

    std::vector<std::string> dnsNameservers; ///< "IP" or "IP:PORT" (cuttle extension)
    std::string hostsFile;                   ///< "none" disables it
    std::string coredumpDir;                 ///< "none" keeps the start-up directory
    std::string cacheEffectiveUser;          ///< accepted; privilege drop comes later
    std::string errorDirectory;              ///< error page templates

    std::string configFile; ///< path the snapshot was read from
};

} // namespace Config
