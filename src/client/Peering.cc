/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Where a miss goes: the client side's part of peer selection
/// (doc/design.md "Peers"): the request's facts for Server::Peers::select(),
/// and the hierarchy code access.log prints; the source address, TOS and mark
/// of its connections (tcp_outgoing_address, tcp_outgoing_tos, tcp_outgoing_mark).

#include "cuttle.h"
#include "client/Connection.h"
#include "client/Services.h"
#include "config/Settings.h"
#include "log/AccessRecord.h"
#include "server/Peers.h"

Comm::Connector::Outgoing Client::Connection::outgoingFor(const Acl::Checklist& facts) const
{
    // Squid 5.7 (getOutgoingAddress, GetTosToServer): the first line whose
    // acls match, for the address among the lines of the destination's family
    const auto& settings = services_.settings();
    Comm::Connector::Outgoing out;
    for (const auto& line : settings.tcpOutgoingAddresses) {
        auto& slot = line.address.isIpv4() ? out.local4 : out.local6;
        if (!slot && line.matches(facts))
            slot = Comm::Address::Parse(line.address.toString(), 0);
    }
    for (const auto& line : settings.tcpOutgoingTos) {
        if (line.matches(facts)) {
            out.tos = line.tos;
            break;
        }
    }
    for (const auto& line : settings.tcpOutgoingMarks) {
        if (line.matches(facts)) {
            out.mark = line.mark;
            break;
        }
    }
    return out;
}

Client::Connection::Aim Client::Connection::aimAtPeers(Server::Request& request, const Http::Url& url,
                                                       const Acl::Checklist& facts, bool mayPing)
{
    request.outgoing = outgoingFor(facts);
    auto* peers = services_.forwarding().peers;
    if (!peers || !peers->isActive())
        return Aim::Go; // direct, with no selection to make
    if (intercepted_ && !(tx_ && tx_->hostVerified)) {
        // an intercepted request whose Host was not verified goes to its
        // original destination only (doc/differences.md "Peers"): when
        // never_direct forbids that, it fails rather than leave direct
        return peers->forbidsDirect(facts) ? Aim::Nowhere : Aim::Go;
    }
    // Squid's clientHierarchical(): a GET or a TRACE, without Authorization
    // (so a CONNECT goes to a parent when never_direct, or
    // nonhierarchical_direct off, sends it there)
    const auto method = parser_.method();
    const bool hierarchical =
        (method == Http::Method::Get || method == Http::Method::Trace) && !parser_.findField("Authorization");
    mayPing = mayPing && method != Http::Method::Connect; // Squid's tunnel asks no ICP peer
    Server::Peers::Query query{facts, peerHost_, hierarchical};
    // peerAllowedToUse(): no sibling for a no-cache request or a revalidation
    query.siblingsMayTake = !(tx_ && (tx_->stale || tx_->requestFacts.wantsReload()));
    if (icpPing_ && icpPing_->isDone() && icpPing_->url() == facts.url) {
        query.icp = &icpPing_->result(); // the wait is over: the head was handled again
    } else if (mayPing) {
        icpPing_ = peers->ping(query, [this] { resumeAfterCheck(); });
        if (icpPing_) {
            state_ = State::Checking;
            return Aim::Waiting;
        }
    }
    request.destinations = peers->select(query);
    icpPing_.reset();
    if (method == Http::Method::Connect) {
        // a tunnel is spliced between plain sockets: not through a TLS
        // connection to a parent (doc/differences.md "TLS")
        std::erase_if(request.destinations,
                      [](const Server::Destination& d) { return d.peer && d.peer->tls(); });
    }
    if (request.destinations.empty())
        return Aim::Nowhere;
    request.url = url.canonical();
    if (const auto credentials = parser_.findField("Proxy-Authorization"))
        request.proxyAuthorization = std::string(*credentials);
    request.user = facts.user;
    return Aim::Go;
}

void Client::Connection::answerCannotForward()
{
    // Squid 5.7: no destination is 503 ERR_CANNOT_FORWARD, logged TCP_MISS/503 HIER_NONE
    closeAfterReply_ = closeAfterReply_ || parser_.hasBody();
    if (pendingLog_)
        pendingLog_->resultCode = "TCP_MISS";
    reply(Http::StatusCode::ServiceUnavailable, "ERR_CANNOT_FORWARD", *tx_->pageContext);
}

const char* Client::Connection::hierarchyCode() const
{
    if (tx_ && tx_->forwarder && (tx_->forwarder->peer() || tx_->forwarder->pingTimedOut()))
        return Server::HierarchyName(tx_->forwarder->hierarchy(), tx_->forwarder->pingTimedOut());
    if (tx_ && tx_->tunnelVia.peer)
        return Server::HierarchyName(tx_->tunnelVia.code);
    return intercepted_ ? "ORIGINAL_DST" : "HIER_DIRECT";
}
