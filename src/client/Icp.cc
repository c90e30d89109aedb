/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "client/Icp.h"
#include "client/Services.h"
#include "acl/AccessList.h"
#include "http/Url.h"
#include "log/AccessLog.h"
#include "log/AccessRecord.h"
#include "store/Key.h"
#include "store/Index.h"
#include "store/Lookup.h"

#include <ctime>

#include <sys/time.h>

Server::IcpOpcode Client::AnswerIcpQuery(Services& services, const Comm::Address& from,
                                         const std::string& url)
{
    using Server::IcpOpcode;
    Http::Url parsed;
    if (!parsed.parse(url))
        return IcpOpcode::Err; // icpGetRequest()
    const auto& settings = services.settings();
    // icpAccessAllowed(): the query's source and its URL; no rule denies
    Acl::Checklist facts;
    if (const auto address = Acl::Address::Parse(from.host()))
        facts.srcAddr = *address;
    facts.srcPort = from.port();
    facts.dstHost = parsed.host();
    facts.dstPort = parsed.port();
    facts.method = "GET";
    facts.urlScheme = parsed.scheme();
    facts.urlPath = parsed.path();
    facts.url = parsed.canonical();
    if (settings.icpAccess.size() == 0 || settings.icpAccess.check(facts) != Acl::Answer::Allowed)
        return IcpOpcode::Denied;
    // ICP2State::created() and icpCheckUdpHit(): a stored GET of the URL,
    // fresh for 30 more seconds (refreshCheckICP), or any with icp_hit_stale
    if (services.cache().budget() == 0 || !settings.mayCache(facts))
        return IcpOpcode::Miss;
    Store::LookupOptions options;
    options.now = ::time(nullptr) + 30;
    const auto rule = RuleOf(settings.refreshPatternFor(facts.url));
    const auto found = Store::LookUp(services.cache(), services.inFlight(), Store::MakeKey("GET", facts.url),
                                     {}, Store::RequestFacts(), rule, options);
    switch (found.kind) {
    case Store::Lookup::Kind::Hit:
        return IcpOpcode::Hit;
    case Store::Lookup::Kind::StaleHit:
    case Store::Lookup::Kind::Validate:
        return settings.icpHitStale && found.entry && found.entry->reply() ? IcpOpcode::Hit : IcpOpcode::Miss;
    default:
        return IcpOpcode::Miss;
    }
}

void Client::LogIcpQuery(Services& services, const Comm::Address& from, Server::IcpOpcode reply, size_t size,
                         const std::string& url)
{
    using Server::IcpOpcode;
    if (!services.settings().logIcpQueries)
        return;
    // icpLogFromICPCode()
    const char* code = "UDP_MISS";
    switch (reply) {
    case IcpOpcode::Hit:
        code = "UDP_HIT";
        break;
    case IcpOpcode::Err:
        code = "UDP_INVALID";
        break;
    case IcpOpcode::Denied:
        code = "UDP_DENIED";
        break;
    case IcpOpcode::MissNoFetch:
        code = "UDP_MISS_NOFETCH";
        break;
    default:
        break;
    }
    Log::AccessRecord r;
    ::gettimeofday(&r.start, nullptr);
    r.end = r.start;
    r.clientAddress = from.host();
    r.clientPort = from.port();
    r.resultCode = code;
    r.bytesSent = size;
    r.method = "ICP_QUERY";
    r.url = url;
    r.requestUrl = url;
    services.accessLog().log(r);
}
