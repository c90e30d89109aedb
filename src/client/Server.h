/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Client::Server: the client side of the proxy: the http_port
/// listeners, every client Connection, and what they share (the
/// configuration snapshot, access.log, the error page templates).
///
/// Ownership: the Server owns its listeners and connections (by unique_ptr);
/// a Connection that ends asks the Server to release() it and is destroyed
/// after the current loop callback (Loop::callSoon), never by itself.
/// The configuration is an immutable snapshot swapped whole by configure().

#pragma once

#include "client/forward.h"
#include "comm/Address.h"
#include "comm/Descriptor.h"
#include "comm/Listener.h"
#include "comm/Loop.h"
#include "config/Settings.h"
#include "errors/Templates.h"
#include "comm/Resolver.h"
#include "log/AccessLog.h"
#include "server/Forwarder.h"
#include "server/Pool.h"
#include "server/forward.h"
#include "store/Index.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace Client {

/// The client side of the proxy (see the file comment).
class Server {
public:
    /// a server with no configuration yet: call configure() before use
    explicit Server(Comm::Loop& loop);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    /// Applies a configuration snapshot: opens its access logs, loads its
    /// error templates, and binds each http_port that is not bound yet
    /// (closing listeners for ports no longer configured). At start-up
    /// (isStartup) any failure throws (the daemon exits with the message);
    /// on reconfigure a log or port that cannot be opened is logged and the
    /// rest applies (old access logs are kept when the new ones fail).
    void configure(std::shared_ptr<const Config::Settings> settings, bool isStartup);

    /// Takes an accepted client connection and starts serving it.
    /// `local` is the address it was accepted on (error pages show it).
    Connection& adopt(Comm::Descriptor&& fd, const Comm::Address& peer, const Comm::Address& local);

    /// Stops accepting (closes every listener); open connections go on.
    void stopAccepting();
    /// Shutdown: stops accepting, closes idle connections now, and makes the
    /// others close after their current reply.
    void startShutdown();
    /// Closes every connection now (the end of shutdown_lifetime).
    void closeAll();
    /// Whether startShutdown() was called.
    bool isShuttingDown() const { return shuttingDown_; }

    /// `-k rotate`: rotates every access log keeping logfile_rotate old files
    /// (0: just reopens the path, after logrotate renamed the file).
    void rotateLogs();
    /// Writes buffered access.log lines (the loop calls it every iteration).
    void flushLogs();

    /// the open client connections
    size_t connectionCount() const { return connections_.size(); }
    /// the addresses being listened on (real ports after binding port 0)
    std::vector<Comm::Address> listeningAddresses() const;

    /* for Connection */

    /// the configuration in force (valid after configure())
    const Config::Settings& settings() const { return *settings_; }
    /// the configuration snapshot in force, for holders that must outlive a swap
    const std::shared_ptr<const Config::Settings>& settingsRef() const { return settings_; }
    /// the event loop
    Comm::Loop& loop() { return loop_; }
    /// access.log destinations
    Log::AccessLog& accessLog() { return *accessLog_; }
    /// the error page templates
    const Errors::Templates& templates() const { return templates_; }
    /// visible_hostname, or the host's name
    const std::string& visibleHostname() const { return visibleHostname_; }
    /// Ends a connection: it is destroyed after the current callback.
    void release(Connection& connection);
    /// what every forwarder shares: the loop, DNS, the origin connection pool
    ::Server::Context& forwarding() { return *forwarding_; }
    /// the forwarding knobs of the configuration in force
    const ::Server::Limits& forwardLimits() const { return limits_; }
    /// the origin connection pool
    ::Server::Pool& originPool() { return pool_; }
    /// the memory cache
    Store::Index& cache() { return cache_; }
    /// collapsed_forwarding: the in-flight miss for key whose reply head has
    /// not arrived yet (others may join it), or null
    Store::EntryRef pendingMiss(const std::string& key) const;
    /// registers entry as the in-flight miss for key (forgetPending() forgets it)
    void setPendingMiss(const std::string& key, const Store::EntryRef& entry);
    /// collapsed_forwarding: the conditional request in flight for the stale
    /// stored object `stale` (stored under fullKey) whose reply head has not
    /// arrived yet (others may wait for it instead of asking the origin
    /// themselves), or null
    Store::EntryRef pendingRevalidation(const std::string& fullKey, const Store::EntryRef& stale) const;
    /// registers reply as the conditional request in flight for the stale
    /// object stored under fullKey
    void setPendingRevalidation(const std::string& fullKey, const Store::EntryRef& stale,
                                const Store::EntryRef& reply);
    /// forgets fetch wherever it is registered (a pending miss under
    /// cacheKey, a pending revalidation under staleKey); others stay
    void forgetPending(const Store::EntryRef& fetch, const std::string& cacheKey,
                       const std::string& staleKey);
    /// keeps a forwarder whose clients all left while it finishes storing
    /// its object (quick_abort_*); it is destroyed once done
    void adoptFinishing(::Server::ForwarderPtr&& forwarder);
    /// forwarders finishing objects without clients
    size_t finishingCount() const { return finishing_.size(); }
    /// keeps and starts a fetch that no client owns (a stale-while-revalidate
    /// revalidation, or a fetch taken over from a client that left)
    void startDetached(std::unique_ptr<DetachedFetch>&& fetch);
    /// whether a fetch of cacheKey that no client owns is under way
    bool isFetchingDetached(const std::string& cacheKey) const;

private:
    /// one http_port and its socket
    struct Port {
        std::string host;                         ///< as configured
        uint16_t port = 0;                        ///< as configured (0: any)
        std::unique_ptr<Comm::Listener> listener; ///< the bound socket
    };

    /// a conditional request others may wait for, and the stale object it asks about
    struct PendingRevalidation {
        Store::EntryRef stale; ///< the stored object being revalidated
        Store::EntryRef reply; ///< where the origin's answer goes
    };

    void bindPorts(const Config::Settings& settings, bool isStartup);
    std::unique_ptr<Log::AccessLog> openAccessLogs(const Config::Settings& settings) const;
    void giveBackMemory();

    void configureForwarding(const Config::Settings& settings, bool isStartup);
    /// shared_memory_locking: the block pool's arena, made at start-up only;
    /// memory_populate_ahead: its page reserve
    void configureMemory(const Config::Settings& settings, bool isStartup);
    /// the bytes memory_populate_ahead asks for (auto worked out)
    static uint64_t PopulateAhead(const Config::Settings& settings);

    Comm::Loop& loop_;
    ::Server::Pool pool_;                                            ///< idle origin connections
    std::unique_ptr<Comm::Resolver> resolver_;                       ///< DNS (c-ares)
    std::unique_ptr<::Server::Context> forwarding_;                  ///< shared by every forwarder
    ::Server::Limits limits_;                                        ///< from the configuration in force
    Store::Index cache_;                                             ///< the memory cache (cache_mem)
    std::unordered_map<std::string, Store::EntryRef> pendingMisses_; ///< see pendingMiss()
    std::unordered_map<std::string, PendingRevalidation> pendingRevalidations_; ///< see pendingRevalidation()
    std::vector<::Server::ForwarderPtr> finishing_;                             ///< see adoptFinishing()
    std::vector<std::unique_ptr<DetachedFetch>> detached_;                      ///< see startDetached()
    Comm::Timer reapTimer_;                                                     ///< destroys finished ones
    void reapFinishing();
    std::shared_ptr<const Config::Settings> settings_;
    std::unique_ptr<Log::AccessLog> accessLog_;
    Errors::Templates templates_;
    std::string visibleHostname_;
    std::vector<Port> ports_;
    std::unordered_map<Connection*, ConnectionPtr> connections_;
    uint64_t connectionsSeen_ = 0; ///< for Squid's "connN" labels
    size_t connectionPeak_ = 0;    ///< most connections open since memory was last given back
    bool shuttingDown_ = false;
};

} // namespace Client
