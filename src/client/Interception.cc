/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Client::Connection's interception methods: an intercept port's
/// Host verification and original destination (doc/design.md "Interception").

#include "cuttle.h"

#include "client/Connection.h"
#include "client/HostVerification.h"
#include "client/Services.h"
#include "comm/Resolver.h"
#include "config/Settings.h"
#include "log/CacheLog.h"
#include "server/Forwarder.h"

void Client::Connection::setIntercepted(const Comm::Address& self)
{
    intercepted_ = true;
    interceptPort_ = self;
    // a client that connected to the intercept port itself, without NAT:
    // forwarding to the "original destination" would reach this port again
    interceptedSelf_ = self.host() == localHost_ && self.port() == localPort_;
}

bool Client::Connection::hostCheckReady()
{
    if (!intercepted_ || hostCheck_)
        return true;
    if (hostLookup_.isPending())
        return false;
    const auto original = Comm::Address::Parse(localHost_, localPort_);
    const auto host =
        HostToVerify(parser_.target(), parser_.method() == Http::Method::Connect, parser_.findField("Host"));
    auto check =
        CheckInterceptedHost(host ? std::optional<std::string_view>(*host) : std::nullopt, *original);
    if (check.outcome != HostCheck::Outcome::NeedsLookup) {
        hostCheck_ = std::make_unique<HostCheck>(std::move(check));
        return true;
    }
    auto* resolver = services_.forwarding().resolver;
    if (!resolver) {
        hostCheck_ = std::make_unique<HostCheck>(CheckResolvedHost({}, *original));
        return true;
    }
    // Squid resolves Host before http_access (ClientRequestContext::hostHeaderVerify)
    debugs(85, 3, "validate host=" << check.lookupHost << " against " << original->toString());
    hostLookup_ = resolver->resolve(check.lookupHost, 0, [this](const Comm::Resolver::Answer& answer) {
        const auto dst = Comm::Address::Parse(localHost_, localPort_);
        hostCheck_ = std::make_unique<HostCheck>(CheckResolvedHost(answer.addresses, *dst));
        // parses the head again, with the verdict; a throw ends this
        // connection only (the resolver's delivery is not its owner)
        services_.loop().guard(this, [this] { drive(); });
    });
    return false;
}

Client::HostCheck Client::Connection::takeHostCheck(const Http::Url& url, std::string_view userAgent)
{
    HostCheck check;
    if (intercepted_) {
        if (hostCheck_)
            check = std::move(*hostCheck_);
        hostCheck_.reset();
    }
    if (check.failed()) {
        // Squid 5.7's wording; level 1 only when the request is refused
        const bool refused =
            services_.settings().hostVerifyStrict || parser_.method() == Http::Method::Connect;
        debugs(85, refused ? 1 : 3,
               "SECURITY ALERT: Host header forgery detected on local="
                   << localHost_ << ":" << localPort_ << " remote=" << peerHost_ << " (" << check.mismatch
                   << " does not match " << check.against << ")");
        if (refused && !userAgent.empty())
            debugs(85, 1, "SECURITY ALERT: By user agent: " << userAgent);
        debugs(85, refused ? 1 : 3, "SECURITY ALERT: on URL: " << url.canonical());
    }
    return check;
}

void Client::Connection::aimAtOrigin(Server::Request& request, const Http::Url& url) const
{
    if (intercepted_) {
        // Squid 5.7 with client_dst_passthru on (its default): an intercepted
        // request goes where the client was going, never to a name the
        // client's Host field chose (CVE-2009-0801)
        request.host = localHost_;
        request.port = localPort_;
        return;
    }
    request.host = url.host();
    request.port = url.port();
}
