/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "server/Pool.h"
#include "server/Peers.h"
#include "log/CacheLog.h"

#include <algorithm>
#include <cerrno>

#include <sys/socket.h>
#include <sys/uio.h>

Server::OriginConnection::OriginConnection(Comm::Loop& loop, Comm::Descriptor&& fd, const Comm::Address& peer)
    : fd_(std::move(fd)), peer_(peer)
{
    registration_ = loop.watch(fd_.get(), *this);
}

Server::OriginConnection::~OriginConnection()
{
    registration_.cancel();
    if (parent_)
        parent_->noteClosed();
}

void Server::OriginConnection::setPeer(const RefCount<Peer>& peer)
{
    parent_ = peer;
    parent_->noteOpened();
}

ssize_t Server::OriginConnection::read(char* buffer, size_t size)
{
    return tls_ ? tls_->read(buffer, size) : ::recv(fd_.get(), buffer, size, 0);
}

ssize_t Server::OriginConnection::writev(const iovec* iov, int count)
{
    return tls_ ? tls_->writev(iov, count) : ::writev(fd_.get(), iov, count);
}

void Server::OriginConnection::handleIo(const Comm::IoEvents& events)
{
    if (user_)
        user_->handleIo(events);
}

void Server::OriginConnection::handleBug(const std::exception& e) noexcept
{
    if (user_)
        user_->handleBug(e);
}

Server::Pool::Idle::Idle(Pool& p, std::string k, OriginConnectionPtr&& c)
    : pool(p), key(std::move(k)), connection(std::move(c))
{
    connection->setUser(this);
}

Server::Pool::Idle::~Idle()
{
    if (connection)
        connection->setUser(nullptr);
}

void Server::Pool::Idle::handleIo(const Comm::IoEvents& events)
{
    // writability alone says nothing about the origin (the loop reports it
    // once when a descriptor is watched, and again when acknowledged bytes
    // free a send buffer that was full): it must not cost a good connection
    if (!events.readable && !events.hangup && !events.error)
        return;
    // over TLS an idle origin may send what is not an answer (session
    // tickets after the handshake, a key update): OpenSSL takes those, and
    // a read that finds no application byte leaves the connection good
    if (auto* tls = connection->tls(); tls && !events.hangup && !events.error) {
        char byte;
        if (tls->read(&byte, 1) < 0 && errno == EAGAIN)
            return;
    }
    // an idle origin connection has nothing to say: a FIN, a reset or stray
    // bytes all mean it cannot carry another request
    debugs(11, 3,
           "closing idle connection to " << connection->peer().toString() << ": the origin closed it or sent "
                                         << "unrequested bytes");
    pool.drop(*this);
}

Server::Pool::~Pool()
{
    closeAll();
}

void Server::Pool::put(const std::string& key, OriginConnectionPtr&& connection)
{
    if (!connection)
        return;
    if (idleTimeout_ <= Comm::Milliseconds(0) || maxPerKey_ == 0) {
        // taken and closed after this callback (the caller, which moved a
        // named pointer in, must not keep it open; a Forwarder calls this
        // from inside the connection's own handleIo())
        connection->setUser(nullptr);
        auto doomed = std::make_shared<OriginConnectionPtr>(std::move(connection));
        loop_.callSoon([doomed] {});
        return;
    }
    auto& list = idle_[key];
    list.push_front(std::make_unique<Idle>(*this, key, std::move(connection)));
    ++count_;
    Idle* idle = list.front().get();
    idle->timer = loop_.schedule(idleTimeout_, [this, idle] { drop(*idle); });
    while (list.size() > maxPerKey_) {
        list.pop_back();
        --count_;
    }
}

Server::OriginConnectionPtr Server::Pool::take(const std::string& key)
{
    const auto it = idle_.find(key);
    if (it == idle_.end() || it->second.empty())
        return nullptr;
    auto idle = std::move(it->second.front());
    it->second.pop_front();
    if (it->second.empty())
        idle_.erase(it);
    --count_;
    idle->timer.cancel();
    idle->connection->setUser(nullptr);
    return std::move(idle->connection);
}

void Server::Pool::drop(Idle& idle)
{
    const auto it = idle_.find(idle.key);
    if (it == idle_.end())
        return;
    auto& list = it->second;
    const auto pos = std::find_if(list.begin(), list.end(), [&](const auto& p) { return p.get() == &idle; });
    if (pos == list.end())
        return;
    // destroyed after this callback: the Idle may be the caller
    auto doomed = std::make_shared<std::unique_ptr<Idle>>(std::move(*pos));
    list.erase(pos);
    if (list.empty())
        idle_.erase(it);
    --count_;
    (*doomed)->connection->setUser(nullptr);
    (*doomed)->timer.cancel();
    loop_.callSoon([doomed] {});
}

void Server::Pool::closeAll()
{
    idle_.clear();
    count_ = 0;
}
