/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Server::OriginConnection and Server::Pool: connections to origins,
/// and the idle persistent ones kept for reuse.
///
/// An OriginConnection owns its socket and its one loop registration for its
/// whole life (doc/design.md "The event loop": one registration per descriptor); events go to
/// whoever uses it now: a Forwarder during a transaction, the Pool while it
/// is idle. Moving a connection between them never touches epoll.
///
/// The Pool keeps idle connections by "host:port" (the URL's, so a reused
/// connection needs no DNS lookup; "https://host:port" over TLS; a parent's:
/// "peer NAME"), newest first, each with a
/// server_idle_pconn_timeout timer. An idle connection that becomes readable
/// (the origin closed it, or sent bytes no request asked for) is closed at
/// once. A connection taken from the pool may still have been closed by the
/// origin an instant before: the retry rule (doc/design.md "The origin side") covers that.
#pragma once

#include "comm/Address.h"
#include "comm/Descriptor.h"
#include "comm/Loop.h"
#include "server/forward.h"
#include "base/RefCount.h"
#include "store/BodyWriter.h"
#include "tls/Connection.h"

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>

namespace Server {

/// One connection to an origin; see the file comment. Over TLS (an
/// https:// origin) it owns its Tls::Connection, and reads and writes go
/// through it (read(), and the Sink API for Store::BodyWriter).
class OriginConnection : public Comm::IoHandler, public Store::BodyWriter::Sink {
public:
    /// takes a connected socket to peer (Comm::Connector's) and watches it
    OriginConnection(Comm::Loop& loop, Comm::Descriptor&& fd, const Comm::Address& peer);
    ~OriginConnection() override;
    OriginConnection(const OriginConnection&) = delete;
    OriginConnection& operator=(const OriginConnection&) = delete;

    /// the socket
    int fd() const { return fd_.get(); }
    /// the origin's address
    const Comm::Address& peer() const { return peer_; }
    /// sends events to user (null: dropped)
    void setUser(Comm::IoHandler* user) { user_ = user; }
    /// transactions this connection has carried
    uint64_t useCount() const { return uses_; }
    /// counts one more transaction
    void noteUse() { ++uses_; }
    /// the connection goes to this parent, which counts it while it is open (max-conn)
    void setPeer(const RefCount<Peer>& peer);

    /// speaks TLS from now on (before any byte went over the socket)
    void startTls(Tls::ConnectionPtr&& tls) { tls_ = std::move(tls); }
    /// the TLS side, or null for plain HTTP
    Tls::Connection* tls() const { return tls_.get(); }
    /// recv(2)'s contract, through TLS when it speaks it (a short read: drained)
    ssize_t read(char* buffer, size_t size);

    /* Store::BodyWriter::Sink API (through TLS) */
    ssize_t writev(const struct iovec* iov, int count) override;

    /* Comm::IoHandler API */
    void handleIo(const Comm::IoEvents& events) override;
    void handleBug(const std::exception& e) noexcept override;

private:
    Comm::Descriptor fd_;             ///< the socket
    Comm::Registration registration_; ///< after fd_: cancelled before it closes
    Comm::Address peer_;              ///< where it goes
    Comm::IoHandler* user_ = nullptr; ///< not owned
    uint64_t uses_ = 0;
    RefCount<Peer> parent_;  ///< the cache_peer it goes to; null: an origin
    Tls::ConnectionPtr tls_; ///< after fd_: its close_notify goes out before the socket closes
};

/// an owned origin connection
using OriginConnectionPtr = std::unique_ptr<OriginConnection>;

/// Idle persistent connections to origins; see the file comment.
class Pool {
public:
    /// an empty pool on loop
    explicit Pool(Comm::Loop& loop) : loop_(loop) {}
    ~Pool();
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;

    /// how long an idle connection is kept (server_idle_pconn_timeout; <= 0 keeps none)
    void setIdleTimeout(Comm::Milliseconds timeout) { idleTimeout_ = timeout; }
    /// the most connections kept per key (older ones are closed)
    void setMaxPerKey(size_t n) { maxPerKey_ = n; }
    /// keeps an idle connection for key ("host:port"), or closes it when none may be kept
    void put(const std::string& key, OriginConnectionPtr&& connection);
    /// the newest idle connection for key, or null
    OriginConnectionPtr take(const std::string& key);
    /// idle connections held
    size_t idleCount() const { return count_; }
    /// closes every idle connection
    void closeAll();

private:
    /// one idle connection: it receives the connection's events while idle
    class Idle : public Comm::IoHandler {
    public:
        Idle(Pool& pool, std::string key, OriginConnectionPtr&& connection);
        ~Idle() override;
        void handleIo(const Comm::IoEvents& events) override;
        Pool& pool;
        std::string key;
        OriginConnectionPtr connection;
        Comm::Timer timer;
    };
    using IdleList = std::list<std::unique_ptr<Idle>>;

    void drop(Idle& idle);

    Comm::Loop& loop_;
    Comm::Milliseconds idleTimeout_{60000};
    size_t maxPerKey_ = 64;
    std::unordered_map<std::string, IdleList> idle_; ///< newest first
    size_t count_ = 0;
};

} // namespace Server
