/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "proxy/ConfigDns.h"

#include "comm/Loop.h"

#include <optional>

Comm::Resolver::Options Proxy::DnsOptions(const Config::Settings& settings)
{
    Comm::Resolver::Options dns;
    dns.nameservers = settings.dnsNameservers;
    dns.hostsFile = settings.hostsFile;
    dns.timeout = settings.dnsTimeout;
    dns.positiveTtl = std::chrono::duration_cast<Comm::Milliseconds>(settings.positiveDnsTtl);
    dns.negativeTtl = std::chrono::duration_cast<Comm::Milliseconds>(settings.negativeDnsTtl);
    dns.nameCacheSize = settings.fqdncacheSize;
    dns.addressCacheSize = settings.ipcacheSize;
    return dns;
}

bool Proxy::ResolveAclHost(const std::string& host, const Config::Settings& dns,
                           std::vector<Acl::Address>& addresses, std::string& why)
{
    const auto options = DnsOptions(dns);
    try {
        Comm::Loop loop;
        Comm::Resolver resolver(loop, options);
        std::optional<Comm::Resolver::Answer> answer;
        auto lookup = resolver.resolve(host, 0, [&answer](const Comm::Resolver::Answer& a) { answer = a; });
        // the resolver ends the lookup at its own deadline (dns_timeout);
        // this bound only guards against a lookup that would never end
        const auto deadline = Comm::Clock::now() + options.timeout + Comm::Milliseconds(1000);
        while (!answer && Comm::Clock::now() < deadline)
            loop.runOnce(Comm::Milliseconds(100));
        if (!answer) {
            why = "no answer within dns_timeout";
            return false;
        }
        if (answer->addresses.empty()) {
            why = answer->error.empty() ? "no address" : answer->error;
            return false;
        }
        for (const auto& a : answer->addresses)
            addresses.push_back(Acl::Address::FromSockaddr(a.raw()));
        return true;
    } catch (const std::exception& e) {
        why = e.what();
        return false;
    }
}
