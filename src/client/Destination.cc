/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Client::Connection::destinationKnown(): the origin's addresses
/// for `dst` acls, resolved before the rules that read them
/// (doc/design.md "Access control").

#include "cuttle.h"
#include "client/Connection.h"
#include "client/Services.h"
#include "comm/Resolver.h"
#include "config/Settings.h"
#include "http/Url.h"
#include "log/AccessRecord.h"

bool Client::Connection::destinationKnown(const Http::Url& url, Acl::Checklist& facts)
{
    // only the lists of Settings::rulesNeedDstAddress wait for the lookup;
    // the others see a literal host only (doc/differences.md)
    if (!services_.settings().rulesNeedDstAddress || Acl::Address::Parse(url.host()))
        return true; // nothing reads it, or the host is an address the acl reads itself
    if (dstAnswer_ && dstAnswer_->first == url.host()) {
        facts.dstAddrs = dstAnswer_->second;
        return true;
    }
    auto* resolver = services_.forwarding().resolver;
    if (!resolver)
        return true; // no addresses: no dst acl matches, as a failed lookup in Squid
    // Squid 5.7's dst acl looks the host up (ACLDestinationIP, a slow acl)
    // and matches when one of its addresses is listed; a name without one
    // matches nothing. The head waits and is handled again with the answer.
    state_ = State::Checking;
    pendingLog_.reset(); // made again when the head is handled again
    const std::string host = url.host();
    dstLookup_ = resolver->resolve(host, url.port(), [this, host](const Comm::Resolver::Answer& answer) {
        std::vector<Acl::Address> addresses;
        for (const auto& a : answer.addresses)
            addresses.push_back(Acl::Address::FromSockaddr(a.raw()));
        dstAnswer_ =
            std::make_unique<std::pair<std::string, std::vector<Acl::Address>>>(host, std::move(addresses));
        // a throw ends this connection only (the resolver's delivery is not its owner)
        services_.loop().guard(this, [this] { resumeAfterCheck(); });
    });
    return false;
}
