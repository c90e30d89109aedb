/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Client::LogFilter: an access_log line's acls, checked against a finished transaction.

#pragma once

#include "log/AccessLog.h"

#include <memory>

namespace Config {
struct Settings;
}

namespace Client {

/// The acls of `access_log ... ACL...` (Config::AccessLogSpec::acls): a
/// check list is made from the access.log record (client and local
/// addresses, the URL's parts, method, status, hierarchy, the logged user),
/// so src, dst (a literal host), dstdomain, port, method, proto,
/// urlpath_regex, url_regex, http_status, hier_code, myip, myport and
/// proxy_auth decide; an acl that needs what the record lacks does not match.
class LogFilter final : public Log::RecordFilter {
public:
    /// the acls of settings->accessLogs[index]; holds the snapshot its acls live in
    LogFilter(std::shared_ptr<const Config::Settings> settings, size_t index);

    /* Log::RecordFilter API */
    bool accepts(const Log::AccessRecord& r) const override;

private:
    std::shared_ptr<const Config::Settings> settings_; ///< owns the acls
    size_t index_;                                     ///< of the access_log line
};

} // namespace Client
