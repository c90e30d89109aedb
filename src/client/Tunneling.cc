/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file CONNECT (doc/design.md "CONNECT"): the destinations peer selection
/// gave are dialed in turn (Comm::Connector); the origin's socket becomes the
/// tunnel at once, a parent's after its 200 to our own CONNECT request
/// (Tunnel::ParentConnect), whose refusal is relayed to the client.

#include "cuttle.h"
#include "client/Connection.h"
#include "client/Bumping.h"
#include "client/Services.h"
#include "config/Settings.h"
#include "errors/PageContext.h"
#include "log/AccessRecord.h"
#include "log/CacheLog.h"
#include "server/Peers.h"
#include "tunnel/Tunnel.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <sys/socket.h>

void Client::Connection::dialTunnel(const Http::Url& url, Server::Request&& request)
{
    auto& route = tx_->tunnelRoute;
    route = std::move(request);
    if (route.destinations.empty())
        route.destinations.push_back(Server::Destination{}); // direct
    route.url = url.authorityHost() + ":" + std::to_string(url.port());
    const bool viaParent = std::any_of(route.destinations.begin(), route.destinations.end(),
                                       [](const Server::Destination& d) { return d.peer; });
    if (viaParent) {
        // the request a parent gets (HeadForPeer() adds its login=
        // credentials): the client's, built as for an origin, in authority form
        auto spec = originSpec(url, parser_.methodToken());
        spec.path = route.url;
        spec.hostField = route.url;
        route.head = BuildOriginRequest(spec);
        editRequestHead(route.head);
    }
    tx_->tunnelNext = 0;
    dialNextHop();
}

void Client::Connection::dialNextHop()
{
    auto& route = tx_->tunnelRoute;
    tx_->tunnelVia = route.destinations[tx_->tunnelNext++];
    const Server::Peer* peer = tx_->tunnelVia.peer.getRaw();
    auto& forwarding = services_.forwarding();
    const auto& limits = services_.forwardLimits();
    Comm::Connector::Target target{
        peer ? peer->config().host : route.host, peer ? peer->config().httpPort : route.port,
        peer ? peer->connectTimeout() : limits.connectTimeout, &forwarding.connectionsOpened, route.outgoing};
    target.spareDelay = limits.spareDelay;
    target.retries = limits.connectRetries;
    tx_->dialer = std::make_unique<Comm::Connector>(
        services_.loop(), forwarding.resolver, std::move(target),
        [this](Comm::Connector::Result&& result) { onTunnelDialed(std::move(result)); });
    tx_->dialer->start();
}

void Client::Connection::onTunnelDialed(Comm::Connector::Result&& result)
{
    const auto& route = tx_->tunnelRoute;
    auto* peer = tx_->tunnelVia.peer.getRaw();
    if (peer) // Squid's peerConnectFailed() / peerConnectSucceded(), as for other requests
        peer->noteDialed(result.error == Comm::Connector::Error::None);
    if (result.error != Comm::Connector::Error::None && tx_->tunnelNext < route.destinations.size() &&
        tx_->tunnelNext < services_.forwardLimits().forwardMaxTries) {
        debugs(26, 2, "CONNECT " << route.url << ": " << result.text << "; trying the next destination");
        dialNextHop(); // replaces the dialer calling back, which allows it
        return;
    }
    if (result.error != Comm::Connector::Error::None && peer) {
        // Squid 5.7 answers a CONNECT whose last destination, a parent, could
        // not be reached with 500 ERR_CANNOT_FORWARD, logged NONE_NONE/500
        // HIER_NONE/- (test-suite/hierarchy/connect-parent.sh)
        const auto context = std::move(tx_->pageContext);
        stopForwarding();
        if (pendingLog_)
            pendingLog_->resultCode = "NONE_NONE";
        reply(Http::StatusCode::InternalServerError, "ERR_CANNOT_FORWARD", *context);
        kick_ = services_.loop().defer([this] { drive(); }, this); // written from the loop
        return;
    }
    switch (result.error) {
    case Comm::Connector::Error::None:
        break;
    case Comm::Connector::Error::Dns:
        answerFailure(Server::Failure::DnsFail, std::string(), 0, result.text);
        return;
    case Comm::Connector::Error::Connect:
        answerFailure(Server::Failure::ConnectFail, result.peer.host(), result.xerrno, result.text);
        return;
    }
    if (!peer) {
        startTunnel(std::move(result.fd), result.peer.host());
        return;
    }
    const auto parent = result.peer.host();
    tx_->parentConnect = std::make_unique<Tunnel::ParentConnect>(
        services_.loop(), std::move(result.fd), Server::HeadForPeer(route, peer->config()),
        services_.forwardLimits().readTimeout, services_.settings().replyHeaderMaxSize,
        [this, parent](Tunnel::ParentConnect::Result&& answer) {
            onParentAnswer(std::move(answer), parent);
        });
    tx_->parentConnect->start();
}

void Client::Connection::onParentAnswer(Tunnel::ParentConnect::Result&& answer, const std::string& parent)
{
    switch (answer.outcome) {
    case Tunnel::ParentConnect::Outcome::Established:
        startTunnel(std::move(answer.fd), parent, answer.leftover);
        return;
    case Tunnel::ParentConnect::Outcome::Refused:
        relayParentReply(std::move(answer), parent);
        return;
    case Tunnel::ParentConnect::Outcome::Failed: {
        debugs(26, 2, "CONNECT " << tx_->tunnelRoute.url << " through " << parent << ": " << answer.error);
        const char* hierarchy = hierarchyCode(); // the transaction is retired by the answer
        answerFailure(Server::Failure::ReadError, parent, 0, answer.error);
        if (pendingLog_)
            pendingLog_->hierarchy = hierarchy;
        return;
    }
    }
}

void Client::Connection::relayParentReply(Tunnel::ParentConnect::Result&& answer, const std::string& parent)
{
    // Squid 5.7 (Http::Tunneler::bailOnResponseError) answers with the
    // parent's reply, logged TCP_TUNNEL with its status and the parent
    if (pendingLog_) {
        auto& record = *pendingLog_;
        record.resultCode = "TCP_TUNNEL";
        record.httpStatus = answer.status;
        record.hierarchy = hierarchyCode();
        record.peerAddress = parent;
    }
    stopForwarding();
    closeAfterReply_ = true;
    out_ = std::move(answer.reply);
    outOffset_ = 0;
    noteReplyHead(out_);
    state_ = State::Writing;
    armTimer(services_.settings().readTimeout);
    // written from the loop, not from inside the exchange that just ended
    kick_ = services_.loop().defer([this] { drive(); }, this);
}

void Client::Connection::startTunnel(Comm::Descriptor&& serverFd, const std::string& peer,
                                     std::string_view serverPending)
{
    // an intercepted CONNECT gets no 200 line, as in Squid 5.7 (whose
    // tunnel answers only an explicit proxy's CONNECT): bytes flow at once;
    // a spliced ssl-bump CONNECT had its 200 before the peek (Bumping.cc)
    std::string first = intercepted_ || (bump_ && bump_->answered)
                            ? std::string()
                            : std::string("HTTP/1.1 200 Connection established\r\n\r\n");
    first += serverPending; // what a parent sent after its own 200 follows ours
    std::string_view pending;
    if (buffer_ && parsedOffset_ < buffer_->size())
        pending = buffer_->view().substr(parsedOffset_);
    if (!first.empty() && transmit(first) != ssize_t(first.size())) {
        close();
        return;
    }
    // a client speaking TLS: its TLS ends in a relay (Services::relayTls())
    // whose plain end the tunnel splices
    Comm::Descriptor clientEnd;
    if (tls_) {
        int pair[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, pair) != 0) {
            debugs(26, 1, "ERROR: a tunnel for " << peerHost_ << ": socketpair: " << std::strerror(errno));
            close();
            return;
        }
        clientEnd = Comm::Descriptor(pair[1]);
        registration_.cancel();
        services_.relayTls(std::move(fd_), std::move(tls_), Comm::Descriptor(pair[0]));
    } else {
        clientEnd = std::move(fd_);
    }
    if (pendingLog_) {
        auto& record = *pendingLog_;
        record.resultCode = "TCP_TUNNEL";
        record.httpStatus = 200;
        record.hierarchy = hierarchyCode();
        record.peerAddress = peer;
        record.bytesSent += first.size();
    }
    stopForwarding();
    registration_.cancel(); // the tunnel watches both sockets now
    state_ = State::Tunneling;
    timer_.cancel();
    tunnel_ = std::make_unique<Tunnel::Tunnel>(
        services_.loop(), std::move(clientEnd), std::move(serverFd), services_.settings().readTimeout,
        [this](const Tunnel::Tunnel::Stats& stats, const std::string& error) {
            if (!error.empty())
                debugs(26, 3, "tunnel for " << peerHost_ << " ended: " << error);
            if (pendingLog_)
                pendingLog_->bytesSent += stats.serverToClient;
            close();
        });
    tunnel_->start(pending);
    buffer_ = nullptr;
    parsedOffset_ = 0;
}
