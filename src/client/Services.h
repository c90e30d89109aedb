/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Client::Services: what a client Connection and a DetachedFetch may
/// use of the proxy they run in, and nothing else: the configuration in
/// force and what it made (access.log, the error templates, the visible
/// host name), forwarding (the origin side's context and limits), the cache
/// (the index, the fetches in flight that others may join, fetches no
/// client owns), and the client side itself (releasing a connection,
/// whether it is shutting down).
///
/// Proxy::Instance implements it (doc/design.md "Parts and where they
/// live"); the client side does not know the composition root above it.
/// Every reference it returns stays valid while the connection or fetch
/// lives, but settings(), accessLog() and errorPages() may be replaced
/// between two loop callbacks by a reconfigure: ask again, do not keep them.

#pragma once

#include "client/forward.h"
#include "server/forward.h"
#include "tls/forward.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace Comm {
class Address;
class Descriptor;
class Loop;
} // namespace Comm
struct ssl_ctx_st;
using SSL_CTX = ssl_ctx_st; ///< OpenSSL's context (openssl/ssl.h)
namespace Config {
struct Settings;
}
namespace Errors {
class Catalog;
}
namespace Log {
class AccessLog;
}
namespace Store {
class DiskTier;
class Entry;
class Index;
class InFlight;
class Parts;
} // namespace Store

namespace Auth {
class Basic;
class Digest;
} // namespace Auth
namespace Helper {
class Pool;
}

namespace Client {

/// The services of the proxy a client connection uses (see the file comment).
class Services {
public:
    virtual ~Services() = default;

    /* the configuration in force and what it made */

    /// the configuration snapshot
    virtual const Config::Settings& settings() const = 0;
    /// the event loop this side runs on
    virtual Comm::Loop& loop() = 0;
    /// access.log destinations
    virtual Log::AccessLog& accessLog() = 0;
    /// cache_store_log: a reply entry no one keeps is let go at the end of
    /// its transaction (a RELEASE line for method and url, when the store log is on)
    virtual void noteReleased(std::string_view method, std::string_view url, const Store::Entry& entry) = 0;
    /// the error pages, by language
    virtual const Errors::Catalog& errorPages() const = 0;
    /// visible_hostname, or the host's name
    virtual const std::string& visibleHostname() const = 0;
    /// how this cuttle names itself in Via: unique_hostname (or the visible
    /// host name) and the software, as Squid's "ThisCache"
    virtual const std::string& viaName() const = 0;

    /* forwarding */

    /// what every forwarder shares: the loop, DNS, the origin connection pool
    virtual Server::Context& forwarding() = 0;
    /// the forwarding knobs of the configuration in force
    virtual const Server::Limits& forwardLimits() const = 0;

    /* the cache */

    /// the memory cache
    virtual Store::Index& cache() = 0;
    /// the disk store (cache_dir), or null when squid.conf has none
    virtual Store::DiskTier* disk() { return nullptr; }
    /// the fetches others may join (collapsed_forwarding)
    virtual Store::InFlight& inFlight() = 0;
    /// the parts of objects that Range requests fetched (this worker's)
    virtual Store::Parts& parts() = 0;
    /// Erases the object stored under `key` (memory and disk), here and in
    /// every other worker (PURGE and RFC 9111 4.4's invalidation reach the
    /// whole process: doc/design.md "Workers"); returns how many copies
    /// this worker held (the others erase theirs a moment later).
    virtual size_t eraseStored(const std::string& key) = 0;
    /// keeps a forwarder whose clients all left while it finishes storing
    /// its object (quick_abort_*); it is destroyed once done
    virtual void adoptFinishing(Server::ForwarderPtr&& forwarder) = 0;
    /// keeps and starts a fetch that no client owns (a stale-while-revalidate
    /// revalidation, or a fetch taken over from a client that left)
    virtual void startDetached(std::unique_ptr<DetachedFetch>&& fetch) = 0;

    /* the client side */

    /// ends a connection: it is destroyed after the current callback
    virtual void release(Connection& connection) = 0;
    /// serves a bumped client (SSL bump): fd is adopted as a connection
    /// from peer to local with `bumped` (an intercepted one, local its
    /// original destination, when interceptedAt is the intercept port's
    /// address) whose TLS ends in it with context's certificate
    virtual void adoptBumped(Comm::Descriptor&& fd, const Comm::Address& peer, const Comm::Address& local,
                             const std::string& portName, SSL_CTX* context,
                             std::unique_ptr<BumpState>&& bumped, const Comm::Address* interceptedAt) = 0;
    /// keeps a Tls::Relay between a TLS client's socket fd with its
    /// established tls and plainEnd, a socketpair end (a CONNECT tunnel
    /// inside TLS: the tunnel splices the other end); it ends by itself
    virtual void relayTls(Comm::Descriptor&& fd, Tls::AcceptedPtr&& tls, Comm::Descriptor&& plainEnd) = 0;
    /// whether shutdown has begun (connections close after their reply)
    virtual bool isShuttingDown() const = 0;
    /// The open client connections from the address `host` (Connection's
    /// peer host literal), this one included: the maxconn acl's count.
    virtual size_t connectionsFrom(const std::string& host) const = 0;

    /* authentication */

    /// `auth_param basic`, or null when it is not configured
    virtual Auth::Basic* basicAuth() = 0;
    /// `auth_param digest`, or null when it is not configured
    virtual Auth::Digest* digestAuth() = 0;
    /// `url_rewrite_program`'s helpers, or null when it is not configured
    virtual Helper::Pool* urlRewriter() = 0;
    /// `store_id_program`'s helpers, or null when it is not configured
    virtual Helper::Pool* storeIdHelper() = 0;
    /// the acl lookups (external_acl_type helpers and their cached answers)
    virtual Lookups& lookups() = 0;

    /* the cache manager (doc/design.md "The cache manager") */

    /// what the client side counts (each logged transaction)
    virtual Counters& counters() = 0;
    /// Gives `done` the body of the manager page `action`
    /// (Mgr::RenderPage()), or nullopt when the action is not a page: at
    /// once, or, for a list each worker keeps of its own with several
    /// workers (Mgr::IsPerWorkerList()), from the loop once every worker
    /// gave its part. `done` is not called once the returned token (null
    /// when it was called at once) is dropped.
    using ManagerPageDone = std::function<void(std::optional<std::string>)>;
    virtual std::shared_ptr<void> managerPage(const std::string& action, ManagerPageDone done) = 0;
    /// runs a manager command (shutdown, reconfigure, rotate) as
    /// `cuttle -k` does: by the signal it sends, handled from the loop
    virtual void managerCommand(const std::string& action) = 0;
};

} // namespace Client
