/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The DNS settings of a configuration as the resolver takes them,
/// and the blocking lookup of the host names of address acls
/// (Config::Parser::setHostResolver()).

#pragma once

#include "acl/Address.h"
#include "comm/Resolver.h"
#include "config/Settings.h"

#include <string>
#include <vector>

namespace Proxy {

/// hosts_file, dns_nameservers and dns_timeout of `settings`.
Comm::Resolver::Options DnsOptions(const Config::Settings& settings);

/// Resolves `host` with `dns`'s DNS settings on a loop of its own, waiting
/// for the answer (at most dns_timeout): Squid resolves the host names of
/// src, dst and localip acls while it reads squid.conf, blocking too. False
/// with `why` when the name has no address or the lookup fails.
bool ResolveAclHost(const std::string& host, const Config::Settings& dns,
                    std::vector<Acl::Address>& addresses, std::string& why);

} // namespace Proxy
