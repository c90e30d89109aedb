/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The client side's answer to ICP queries (doc/design.md "Siblings
/// and ICP"): Squid 5.7's icpHandleIcpV2 decision, and its access.log line.
#pragma once

#include "client/forward.h"
#include "comm/Address.h"
#include "config/Settings.h"
#include "server/IcpPacket.h"
#include "store/Freshness.h"

#include <string>

namespace Client {

class Services;

/// What a query from `from` about `url` gets: ICP_ERR for a URL that does
/// not parse, ICP_DENIED unless icp_access allows `from`, ICP_HIT when the
/// cache holds the object fresh for 30 more seconds (any stored object with
/// icp_hit_stale), ICP_MISS otherwise.
Server::IcpOpcode AnswerIcpQuery(Services& services, const Comm::Address& from, const std::string& url);

/// access.log's line for a query answered (log_icp_queries): ICP_QUERY,
/// UDP_HIT/000 and the like, the reply's size, HIER_NONE/-.
void LogIcpQuery(Services& services, const Comm::Address& from, Server::IcpOpcode reply, size_t size,
                 const std::string& url);

/// the store's copy of a refresh_pattern line (Caching.cc)
Store::RefreshRule RuleOf(const Config::RefreshPattern& p);

} // namespace Client
