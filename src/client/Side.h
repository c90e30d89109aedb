/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Client::Side: the client side of the proxy: the http_port
/// listeners and every client Connection.
///
/// Ownership: Proxy::Instance owns the Side; the Side owns its listeners and
/// connections (by unique_ptr). A Connection that ends asks to be
/// release()d and is destroyed after the current loop callback
/// (Loop::callSoon), never by itself. Connections reach the rest of the
/// proxy through Client::Services only.

#pragma once

#include "client/Counters.h"
#include "client/forward.h"
#include "comm/Address.h"
#include "comm/Descriptor.h"
#include "comm/Listener.h"
#include "tls/Relay.h"
#include "tls/Minter.h"
#include "tls/ServerContext.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace Mgr {
struct ActiveRequest;
}

namespace Comm {
class Loop;
}
namespace Config {
struct Settings;
}

namespace Client {

class Services;

/// The listeners and the connections (see the file comment).
class Side {
public:
    /// a side with no port yet: bindPorts() opens them
    Side(Comm::Loop& loop, Services& services);
    ~Side();
    Side(const Side&) = delete;
    Side& operator=(const Side&) = delete;

    /// Binds each http_port of settings that is not bound yet and closes
    /// listeners for ports no longer configured. At start-up (isStartup) a
    /// port that cannot be bound throws (the daemon exits with the message);
    /// on reconfigure it is logged and the others apply.
    void bindPorts(const Config::Settings& settings, bool isStartup);

    /// A listening http_port: as configured, and the port it got.
    struct ListeningPort {
        std::string host;        ///< as configured
        uint16_t configuredPort; ///< as configured (0: any)
        uint16_t boundPort;      ///< the port bound
    };
    /// the ports listening now, in the order they were configured
    std::vector<ListeningPort> listeningPorts() const;

    /// Takes an accepted client connection and starts serving it.
    /// `local` is the address it was accepted on (error pages show it); for
    /// an intercepted connection it is the original destination and
    /// interceptedAt the socket's own address.
    /// `bump`: what an ssl-bump port's or a bumped connection knows (Bumping.h)
    /// `tls`: the connection speaks TLS with this context's certificate
    /// (an https_port's, or one minted for a bumped connection)
    Connection& adopt(Comm::Descriptor&& fd, const Comm::Address& peer, const Comm::Address& local,
                      const std::string& portName, const Comm::Address* interceptedAt = nullptr,
                      std::unique_ptr<BumpState>&& bump = {}, SSL_CTX* tls = nullptr);
    /// Serves a bumped client: adopted with `bumped`, its TLS ending in the
    /// connection with context's certificate (Services::adoptBumped())
    void adoptBumped(Comm::Descriptor&& fd, const Comm::Address& peer, const Comm::Address& local,
                     const std::string& portName, SSL_CTX* context, std::unique_ptr<BumpState>&& bumped,
                     const Comm::Address* interceptedAt);
    /// keeps a relay for a tunnel inside TLS (Services::relayTls())
    void relayTls(Comm::Descriptor&& fd, Tls::AcceptedPtr&& tls, Comm::Descriptor&& plainEnd);
    /// Takes a connection accepted on an intercept port: looks its original
    /// destination up (SO_ORIGINAL_DST) and adopts it, or closes it when the
    /// kernel has none, as Squid does. With bumpCa (an `https_port ...
    /// intercept ssl-bump`) its TLS may be bumped with that CA.
    void adoptIntercepted(Comm::Descriptor&& fd, const Comm::Address& peer, const std::string& portName,
                          const Tls::MinterRef& bumpCa);
    /// Ends a connection: it is destroyed after the current callback.
    void release(Connection& connection);

    /// Stops accepting (closes every listener); open connections go on.
    void stopAccepting();
    /// Shutdown: stops accepting, closes idle connections now, and makes the
    /// others close after their current reply.
    void startShutdown();
    /// Closes every connection now (the end of shutdown_lifetime).
    void closeAll();
    /// Whether startShutdown() was called.
    bool isShuttingDown() const { return shuttingDown_; }

    /// the open client connections
    size_t connectionCount() const { return connections_.size(); }
    /// the open client connections from the address `host` (Comm::Address::host())
    size_t connectionsFrom(const std::string& host) const;
    /// connections accepted since start-up
    uint64_t acceptCount() const { return connectionsSeen_; }
    /// what the client side counts for the cache manager
    Counters& counters() { return counters_; }
    const Counters& counters() const { return counters_; }
    /// each connection's request in progress (active_requests), and the
    /// open connections by client address (client_list)
    void describe(std::vector<Mgr::ActiveRequest>& active,
                  std::unordered_map<std::string, size_t>& connectionsByClient) const;
    /// the addresses being listened on (real ports after binding port 0)
    std::vector<Comm::Address> listeningAddresses() const;

private:
    /// what a port's accepted connections are (a reconfigure may change it)
    struct Mode {
        bool intercept = false; ///< an intercept port
        std::string name;       ///< its name= (the myportname acl)
        /// an https_port's TLS context (read when the port was bound); null: http_port
        Tls::ServerContextRef tls;
        /// an ssl-bump http_port's CA (read when the port was bound); null: none
        Tls::MinterRef bump;
    };
    /// one http_port and its socket
    struct Port {
        std::string host;                         ///< as configured
        uint16_t port = 0;                        ///< as configured (0: any)
        std::shared_ptr<Mode> mode;               ///< shared with its accept callback
        std::unique_ptr<Comm::Listener> listener; ///< the bound socket
    };

    void giveBackMemory();
    /// whether client_ip_max_connections lets `peer` open one more connection
    bool admits(const Comm::Address& peer);

    Comm::Loop& loop_;
    Services& services_;
    std::vector<Port> ports_;
    std::unordered_map<Connection*, ConnectionPtr> connections_;
    std::unordered_map<Tls::Relay*, std::unique_ptr<Tls::Relay>> relays_; ///< tunnels' TLS sides (relayTls())
    std::unordered_map<std::string, size_t> perClient_; ///< open connections by peer host, for maxconn
    uint64_t connectionsSeen_ = 0;                      ///< for Squid's "connN" labels
    Counters counters_;                                 ///< the cache manager's client_http.* counters
    size_t connectionPeak_ = 0;             ///< most connections open since memory was last given back
    bool burstEnding_ = false;              ///< memory was given back during a burst that has not ended
    Comm::Clock::time_point lastRefusal_{}; ///< the last client_ip_max_connections warning
    bool shuttingDown_ = false;
};

} // namespace Client
