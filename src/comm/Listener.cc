/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "comm/Listener.h"
#include "base/TextException.h"
#include "log/CacheLog.h"

#include <cerrno>
#include <cstring>

#include <netinet/in.h>
#include <sys/socket.h>

namespace {
[[noreturn]] void ThrowSocketError(const char* what, const Comm::Address& where, int err)
{
    Throw(std::string(what) + " " + where.toString() + ": " + std::strerror(err));
}
} // namespace

Comm::Listener::Listener(Loop& loop, const Address& where, AcceptCallback onAccept, bool shared)
    : loop_(loop), local_(where), onAccept_(std::move(onAccept))
{
    fd_.reset(::socket(where.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd_.isOpen())
        ThrowSocketError("cannot open a socket for", where, errno);
    const int on = 1;
    (void)::setsockopt(fd_.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    if (shared && ::setsockopt(fd_.get(), SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on)) != 0)
        ThrowSocketError("cannot share (SO_REUSEPORT)", where, errno);
    if (::bind(fd_.get(), where.raw(), where.length()) != 0)
        ThrowSocketError("cannot bind", where, errno);
    if (::listen(fd_.get(), SOMAXCONN) != 0)
        ThrowSocketError("cannot listen on", where, errno);
    sockaddr_storage bound{};
    socklen_t len = sizeof(bound);
    if (::getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&bound), &len) == 0)
        local_ = Address::FromSockaddr(reinterpret_cast<sockaddr*>(&bound), len);
    registration_ = loop_.watch(fd_.get(), *this);
}

Comm::Listener::~Listener() = default;

void Comm::Listener::stop()
{
    retry_.cancel();
    registration_.cancel();
    fd_.reset();
}

void Comm::Listener::handleIo(const IoEvents&)
{
    acceptAll();
}

void Comm::Listener::acceptAll()
{
    while (fd_.isOpen()) {
        sockaddr_storage peer{};
        socklen_t len = sizeof(peer);
        const int fd =
            ::accept4(fd_.get(), reinterpret_cast<sockaddr*>(&peer), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            const int err = errno;
            if (err == EAGAIN || err == EWOULDBLOCK)
                return;
            if (err == EINTR || err == ECONNABORTED || err == EPROTO)
                continue;
            if (err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM) {
                // edge-triggered: no new event comes for connections already
                // queued, so come back when descriptors may have been freed;
                // said once an episode, not at every retry
                if (!isStarved_) {
                    isStarved_ = true;
                    ++starvedEpisodes_;
                    debugs(5, 0,
                           "WARNING: cannot accept on "
                               << local_.toString() << ": " << std::strerror(err)
                               << "; new connections wait until descriptors are freed"
                               << " (raise max_filedescriptors)");
                }
                retry_ = loop_.schedule(
                    RetryDelay, [this] { acceptAll(); }, this);
                return;
            }
            debugs(5, 1, "ERROR: accept on " << local_.toString() << ": " << std::strerror(err));
            return;
        }
        ++accepted_;
        if (isStarved_) {
            isStarved_ = false;
            debugs(5, 0, "accepting on " << local_.toString() << " again: descriptors were freed");
        }
        Descriptor accepted(fd);
        const Address from = Address::FromSockaddr(reinterpret_cast<sockaddr*>(&peer), len);
        // edge-triggered: a callback that throws must not leave the rest of
        // the queue unaccepted until the next client happens to connect
        loop_.guard(this, [&] { onAccept_(std::move(accepted), from); });
    }
}
