/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "comm/Connector.h"
#include "log/CacheLog.h"

#include <cerrno>
#include <cstring>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

Comm::Connector::Connector(Loop& loop, Resolver* resolver, Target target, Callback done)
    : loop_(loop), resolver_(resolver), target_(std::move(target)), done_(std::move(done))
{}

Comm::Connector::~Connector() = default;

void Comm::Connector::start()
{
    if (const auto literal = Address::Parse(target_.host, target_.port)) {
        addresses_ = {*literal};
        // from the loop, never from inside start()
        timer_ = loop_.defer([this] { connectNext(); }, this);
        return;
    }
    if (!resolver_) {
        timer_ = loop_.defer(
            [this] {
                Result r;
                r.error = Error::Dns;
                r.text = "no DNS resolver";
                finish(std::move(r));
            },
            this);
        return;
    }
    lookup_ =
        resolver_->resolve(target_.host, target_.port, [this](const Resolver::Answer& a) { onResolved(a); });
}

void Comm::Connector::onResolved(const Resolver::Answer& answer)
{
    if (answer.addresses.empty()) {
        Result r;
        r.error = Error::Dns;
        r.text = answer.error.empty() ? "Name not found" : answer.error;
        finish(std::move(r));
        return;
    }
    addresses_ = answer.addresses;
    next_ = 0;
    connectNext();
}

std::string Comm::Connector::Outgoing::key() const
{
    std::string key;
    if (local4)
        key += " from " + local4->host();
    if (local6)
        key += " from " + local6->host();
    if (tos)
        key += " tos " + std::to_string(*tos);
    return key;
}

bool Comm::Connector::prepare(int fd)
{
    const int one = 1;
    (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    const auto& out = target_.outgoing;
    const bool v6 = peer_.family() == AF_INET6;
    if (out.tos) {
        const int tos = *out.tos;
        // Squid 5.7 (Ip::Qos::setSockTos) warns and goes on when the kernel refuses
        if (::setsockopt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_TCLASS : IP_TOS, &tos, sizeof(tos)) !=
            0)
            debugs(50, 2,
                   "WARNING: setting TOS " << tos << " for " << peer_.toString() << ": "
                                           << std::strerror(errno));
    }
    const auto& local = v6 ? out.local6 : out.local4;
    if (local && ::bind(fd, local->raw(), local->length()) != 0) {
        debugs(11, 1,
               "ERROR: cannot bind the source address " << local->host() << " to reach " << peer_.toString()
                                                        << ": " << std::strerror(errno));
        return false;
    }
    return true;
}

void Comm::Connector::connectNext()
{
    registration_.cancel();
    fd_.reset();
    timer_.cancel();
    while (next_ < addresses_.size()) {
        peer_ = addresses_[next_++];
        Descriptor fd(::socket(peer_.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
        if (!fd.isOpen()) {
            lastErrno_ = errno;
            continue;
        }
        if (!prepare(fd.get())) {
            lastErrno_ = errno;
            continue;
        }
        const int rc = ::connect(fd.get(), peer_.raw(), peer_.length());
        if (rc != 0 && errno != EINPROGRESS) {
            lastErrno_ = errno;
            debugs(11, 3, "connect to " << peer_.toString() << ": " << std::strerror(errno));
            continue;
        }
        if (target_.connectsCounter)
            ++*target_.connectsCounter;
        fd_ = std::move(fd);
        // the socket's writability (or error) says how it went; a connect
        // that completed at once reports writable as soon as it is watched
        registration_ = loop_.watch(fd_.get(), *this);
        if (rc != 0 && target_.connectTimeout > Milliseconds(0)) {
            timer_ = loop_.schedule(
                target_.connectTimeout,
                [this] {
                    lastErrno_ = ETIMEDOUT;
                    debugs(11, 3, "connect to " << peer_.toString() << ": connect_timeout");
                    connectNext();
                },
                this);
        }
        return;
    }
    Result r;
    r.peer = peer_;
    r.error = Error::Connect;
    r.xerrno = lastErrno_;
    r.text = lastErrno_ ? std::strerror(lastErrno_) : "no address";
    finish(std::move(r));
}

void Comm::Connector::handleIo(const IoEvents& events)
{
    if (fd_.isOpen() && (events.writable || events.error || events.hangup))
        onConnectEvent();
}

void Comm::Connector::onConnectEvent()
{
    int error = 0;
    socklen_t len = sizeof(error);
    if (::getsockopt(fd_.get(), SOL_SOCKET, SO_ERROR, &error, &len) != 0)
        error = errno;
    if (error != 0) {
        lastErrno_ = error;
        debugs(11, 3, "connect to " << peer_.toString() << ": " << std::strerror(error));
        connectNext();
        return;
    }
    timer_.cancel();
    registration_.cancel(); // the new owner watches it
    Result r;
    r.fd = std::move(fd_);
    r.peer = peer_;
    finish(std::move(r));
}

void Comm::Connector::handleBug(const std::exception& e) noexcept
{
    try {
        registration_.cancel();
        fd_.reset();
        timer_.cancel();
        Result r;
        r.peer = peer_;
        r.error = Error::Connect;
        r.text = std::string("internal error: ") + e.what();
        finish(std::move(r));
    } catch (...) {
    }
}

void Comm::Connector::finish(Result&& result)
{
    lookup_ = Lookup();
    const auto done = std::move(done_);
    done_ = nullptr;
    if (done)
        done(std::move(result)); // may destroy this Connector: nothing after it
}
