/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "client/Side.h"
#include "mgr/Figures.h"
#include "base/Heap.h"
#include "base/TextException.h"
#include "client/Bumping.h"
#include "client/Connection.h"
#include "client/Services.h"
#include "comm/Loop.h"
#include "comm/OriginalDestination.h"
#include "config/Settings.h"
#include "log/CacheLog.h"
#include "sbuf/BlockPool.h"

#include <cerrno>

#include <algorithm>
#include <cstring>

#include <sys/socket.h>

Client::Side::Side(Comm::Loop& loop, Services& services) : loop_(loop), services_(services) {}

Client::Side::~Side()
{
    connections_.clear(); // before the services they use
}

void Client::Side::bindPorts(const Config::Settings& settings, bool isStartup)
{
    std::vector<Port> bound;
    for (const auto& wanted : settings.httpPorts) {
        // a port configured before keeps its socket (and its real port when it was 0)
        auto old = std::find_if(ports_.begin(), ports_.end(), [&](const Port& p) {
            return p.listener && p.host == wanted.host && p.port == wanted.port;
        });
        if (old != ports_.end()) {
            // a port that gains or loses `intercept` keeps its socket (a new
            // one could not bind beside it): connections accepted from now
            // on are taken in the new mode, and with its new name
            if (bool(old->mode->bump) != wanted.sslBump)
                debugs(5, 0,
                       "ERROR: http_port "
                           << wanted.host << ":" << wanted.port
                           << " keeps its ssl-bump setting (the CA is read when the port opens, "
                              "as root): restart cuttle to change it");
            if (bool(old->mode->tls) != wanted.terminatesTls()) {
                // the key is read when a port opens, as root: a port cannot
                // change between http_port and https_port until a restart
                debugs(5, 0,
                       "ERROR: " << (wanted.tls ? "https_port " : "http_port ") << wanted.host << ":"
                                 << wanted.port << " was opened as an "
                                 << (wanted.tls ? "http_port" : "https_port")
                                 << ": restart cuttle to change it");
            }
            if (old->mode->intercept != wanted.intercept) {
                old->mode->intercept = wanted.intercept;
                debugs(5, 1,
                       "http_port " << old->listener->localAddress().toString() << " is now "
                                    << (wanted.intercept ? "an intercept port" : "a forward proxy port"));
            }
            old->mode->name = wanted.name;
            bound.push_back(std::move(*old));
            ports_.erase(old);
            continue;
        }
        const auto address = Comm::Address::Parse(wanted.host, wanted.port);
        const auto mode = std::make_shared<Mode>(Mode{wanted.intercept, wanted.name, nullptr, nullptr});
        std::string problem;
        std::unique_ptr<Comm::Listener> listener;
        if (wanted.terminatesTls()) {
            Tls::ServerOptions options;
            options.certFile = wanted.tlsCert;
            options.keyFile = wanted.tlsKey;
            options.dhFile = wanted.tlsDh;
            options.caFile = wanted.tlsCaFile;
            options.clientCa = wanted.tlsClientCa;
            options.cipher = wanted.tlsCipher;
            options.minVersion = wanted.tlsMinVersion;
            options.setOptions = wanted.tlsSetOptions;
            options.clearOptions = wanted.tlsClearOptions;
            std::string why;
            mode->tls = Tls::ServerContext::Make(options, why);
            if (!mode->tls)
                problem = "https_port " + wanted.host + ":" + std::to_string(wanted.port) + ": " + why;
        }
        if (wanted.sslBump) {
            Tls::MinterOptions options;
            options.caCertFile = wanted.tlsCert;
            options.caKeyFile = wanted.tlsKey;
            options.cacheBytes = wanted.dynamicCertCacheBytes;
            options.generate = wanted.generateHostCertificates;
            options.signHash = settings.sslproxyCertSignHash;
            options.minVersion = wanted.tlsMinVersion;
            options.setOptions = wanted.tlsSetOptions;
            options.clearOptions = wanted.tlsClearOptions;
            std::string why;
            mode->bump = Tls::Minter::Make(options, why);
            if (!mode->bump)
                problem = std::string(wanted.tls ? "https_port " : "http_port ") + wanted.host + ":" +
                          std::to_string(wanted.port) + " ssl-bump: " + why;
        }
        if (!problem.empty()) {
            // a context could not be made: reported below
        } else if (!address) {
            problem = "http_port " + wanted.host + ":" + std::to_string(wanted.port) +
                      ": the address is not an IP address literal";
        } else {
            try {
                const auto local = *address;
                listener = std::make_unique<Comm::Listener>(
                    loop_, local,
                    [this, mode](Comm::Descriptor&& fd, const Comm::Address& peer) {
                        if (!admits(peer))
                            return; // closed unanswered (fd goes)
                        if (mode->tls)
                            (void)adopt(std::move(fd), peer, Comm::Address(), mode->name, nullptr, {},
                                        mode->tls->get());
                        else if (mode->intercept)
                            adoptIntercepted(std::move(fd), peer, mode->name, mode->bump);
                        else if (mode->bump) {
                            auto bump = std::make_unique<BumpState>();
                            bump->ca = mode->bump;
                            (void)adopt(std::move(fd), peer, Comm::Address(), mode->name, nullptr,
                                        std::move(bump));
                        } else // the listener's own address is looked up by the connection
                            (void)adopt(std::move(fd), peer, Comm::Address(), mode->name);
                    },
                    settings.workers > 1);
            } catch (const TextException& e) {
                problem = e.message();
            }
        }
        if (!listener) {
            if (isStartup)
                Throw(problem + (wanted.origin.empty() ? "" : " (" + wanted.origin + ")"));
            debugs(5, 0, "ERROR: " << problem);
            continue;
        }
        ++connectionsSeen_;
        // Squid 5's wording, which tests and admins grep for
        debugs(5, 1,
               "Accepting " << (wanted.intercept ? "NAT intercepted " : "")
                            << (wanted.sslBump ? "SSL bumped " : "") << (wanted.tls ? "HTTPS" : "HTTP")
                            << " Socket connections at conn" << connectionsSeen_
                            << " local=" << listener->localAddress().toString() << " remote=[::] FD "
                            << listener->fd() << (wanted.intercept ? " flags=41" : " flags=9"));
        bound.push_back(Port{wanted.host, wanted.port, mode, std::move(listener)});
    }
    for (const auto& gone : ports_) {
        if (gone.listener)
            debugs(5, 1, "Closing HTTP(S) port " << gone.listener->localAddress().toString());
    }
    ports_ = std::move(bound); // listeners no longer configured close here
}

std::vector<Client::Side::ListeningPort> Client::Side::listeningPorts() const
{
    std::vector<ListeningPort> listening;
    for (const auto& p : ports_) {
        if (p.listener)
            listening.push_back(ListeningPort{p.host, p.port, p.listener->localAddress().port()});
    }
    return listening;
}

Client::Connection& Client::Side::adopt(Comm::Descriptor&& fd, const Comm::Address& peer,
                                        const Comm::Address& local, const std::string& portName,
                                        const Comm::Address* interceptedAt, std::unique_ptr<BumpState>&& bump,
                                        SSL_CTX* tls)
{
    Comm::Address where = local;
    if (where.port() == 0) {
        sockaddr_storage ss{};
        socklen_t len = sizeof(ss);
        if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&ss), &len) == 0)
            where = Comm::Address::FromSockaddr(reinterpret_cast<sockaddr*>(&ss), len);
    }
    auto connection = std::make_unique<Connection>(services_, std::move(fd), peer, where, portName);
    Connection& c = *connection;
    if (interceptedAt)
        c.setIntercepted(*interceptedAt);
    if (bump)
        c.setBump(std::move(bump));
    if (tls)
        c.setTls(tls);
    connections_.emplace(&c, std::move(connection));
    ++perClient_[c.peerHost()];
    connectionPeak_ = std::max(connectionPeak_, connections_.size());
    // a throw here is this connection's bug: it closes (and is released)
    // while the listener goes on draining its accept queue
    loop_.guard(&c, [&c] { c.start(); });
    return c;
}

void Client::Side::adoptBumped(Comm::Descriptor&& fd, const Comm::Address& peer, const Comm::Address& local,
                               const std::string& portName, SSL_CTX* context,
                               std::unique_ptr<BumpState>&& bumped, const Comm::Address* interceptedAt)
{
    (void)adopt(std::move(fd), peer, local, portName, interceptedAt, std::move(bumped), context);
}

void Client::Side::relayTls(Comm::Descriptor&& fd, Tls::AcceptedPtr&& tls, Comm::Descriptor&& plainEnd)
{
    auto relay = std::make_unique<Tls::Relay>(loop_, std::move(tls), std::move(fd), std::move(plainEnd));
    Tls::Relay* r = relay.get();
    relays_.emplace(r, std::move(relay));
    r->setDoneHandler([this, r] { loop_.callSoon([this, r] { relays_.erase(r); }); });
    r->start();
}

void Client::Side::adoptIntercepted(Comm::Descriptor&& fd, const Comm::Address& peer,
                                    const std::string& portName, const Tls::MinterRef& bumpCa)
{
    sockaddr_storage ss{};
    socklen_t len = sizeof(ss);
    if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&ss), &len) != 0)
        return; // the connection is gone already
    const auto self = Comm::Address::FromSockaddr(reinterpret_cast<sockaddr*>(&ss), len);
    int xerrno = 0;
    const auto original = Comm::OriginalDestination(fd.get(), self, xerrno);
    if (!original) {
        // as Squid 5.7 (Comm::TcpAcceptor): without NAT state there is no
        // destination to serve; the connection closes unanswered
        debugs(89, 1,
               "ERROR: NF getsockopt(ORIGINAL_DST) failed on local="
                   << self.toString() << " remote=" << peer.toString() << ": " << std::strerror(xerrno));
        debugs(50, 1,
               "ERROR: NAT lookup failed to locate original IPs on local=" << self.toString()
                                                                           << " remote=" << peer.toString());
        return;
    }
    std::unique_ptr<BumpState> bump;
    if (bumpCa) {
        // its TLS may be bumped: the connection makes up a CONNECT to the
        // original destination (Connection::start())
        bump = std::make_unique<BumpState>();
        bump->ca = bumpCa;
    }
    (void)adopt(std::move(fd), peer, *original, portName, &self, std::move(bump));
}

void Client::Side::release(Connection& connection)
{
    Connection* key = &connection;
    if (const auto it = perClient_.find(connection.peerHost()); it != perClient_.end() && --it->second == 0)
        perClient_.erase(it);
    // destroyed after the current callback: the connection may still be on the stack
    loop_.callSoon([this, key] {
        connections_.erase(key);
        giveBackMemory();
    });
}

bool Client::Side::admits(const Comm::Address& peer)
{
    const auto& limit = services_.settings().clientIpMaxConnections;
    if (!limit || connectionsFrom(peer.host()) < *limit)
        return true;
    // a client that keeps trying must not fill cache.log: one line a second
    const auto now = loop_.now();
    if (now - lastRefusal_ >= std::chrono::seconds(1)) {
        lastRefusal_ = now;
        debugs(33, 1,
               "WARNING: " << peer.toString() << " attempting more than " << *limit << " connections.");
    }
    return false;
}

size_t Client::Side::connectionsFrom(const std::string& host) const
{
    const auto it = perClient_.find(host);
    return it == perClient_.end() ? 0 : it->second;
}

void Client::Side::giveBackMemory()
{
    // After a burst of connections, the allocator keeps the freed connection
    // objects and small blocks for reuse (glibc's free() only trims the top
    // of its heap; tcmalloc keeps its free spans), so RSS stayed at its peak.
    // Each time the open connections have halved since the last peak, down
    // to none, hand the free pages back: Base::ReleaseFreeHeap() walks the
    // heap (milliseconds for tens of MB) and happens about log2(peak) times
    // per burst of at least MinPeak connections, never for a small server.
    // Halving alone is not enough: the connections still open lie among the
    // freed ones, so few pages are wholly free before the last ones go.
    // The heap is the process's: with `workers N` the kernel spreads a burst
    // among the workers, and each counts its share against MinPeak / N.
    constexpr size_t MinPeak = 1024;
    const size_t workers = std::max<size_t>(services_.settings().workers, 1);
    if ((connectionPeak_ < MinPeak / workers && !burstEnding_) || connections_.size() > connectionPeak_ / 2)
        return;
    connectionPeak_ = connections_.size();
    burstEnding_ = connectionPeak_ > 0;
    Sbuf::DefaultPool().trim();
    Base::ReleaseFreeHeap();
}

void Client::Side::stopAccepting()
{
    for (auto& p : ports_) {
        if (p.listener && p.listener->isListening()) {
            debugs(5, 1, "Closing HTTP(S) port " << p.listener->localAddress().toString());
            p.listener->stop();
        }
    }
}

void Client::Side::startShutdown()
{
    shuttingDown_ = true;
    stopAccepting();
    for (auto& [raw, connection] : connections_) {
        if (connection->isIdle())
            connection->close();
    }
}

void Client::Side::closeAll()
{
    for (auto& [raw, connection] : connections_)
        connection->close();
}

std::vector<Comm::Address> Client::Side::listeningAddresses() const
{
    std::vector<Comm::Address> result;
    for (const auto& p : ports_) {
        if (p.listener && p.listener->isListening())
            result.push_back(p.listener->localAddress());
    }
    return result;
}

void Client::Side::describe(std::vector<Mgr::ActiveRequest>& active,
                            std::unordered_map<std::string, size_t>& connectionsByClient) const
{
    connectionsByClient = perClient_;
    for (const auto& [connection, owned] : connections_) {
        Mgr::ActiveRequest request;
        if (connection->describe(request))
            active.push_back(std::move(request));
    }
}
