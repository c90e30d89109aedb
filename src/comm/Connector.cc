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
        // from the loop, never from inside start()
        spareTimer_ = loop_.defer([this, address = *literal] { begin({address}); }, &prime_);
        return;
    }
    if (!resolver_) {
        spareTimer_ = loop_.defer([this] { fail("no DNS resolver"); }, &prime_);
        return;
    }
    lookup_ =
        resolver_->resolve(target_.host, target_.port, [this](const Resolver::Answer& a) { onResolved(a); });
}

void Comm::Connector::onResolved(const Resolver::Answer& answer)
{
    if (answer.addresses.empty()) {
        fail(answer.error.empty() ? "Name not found" : answer.error);
        return;
    }
    begin(answer.addresses);
}

void Comm::Connector::fail(const std::string& text)
{
    Result r;
    r.error = Error::Dns;
    r.text = text;
    finish(std::move(r));
}

void Comm::Connector::begin(const std::vector<Address>& addresses)
{
    // Squid 5 (HappyConnOpener): the family of the first address is the
    // prime one; the spare family waits happy_eyeballs_connect_timeout
    const int primeFamily = addresses.front().family();
    for (const auto& address : addresses)
        (address.family() == primeFamily ? prime_ : spare_).addresses.push_back(address);
    spareTimer_.cancel();
    if (spare_.hasMore())
        spareTimer_ = loop_.schedule(
            target_.spareDelay, [this] { allowSpare(); }, &prime_);
    advance();
}

void Comm::Connector::allowSpare()
{
    spareAllowed_ = true;
    spareTimer_.cancel();
    advance();
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
    if (mark)
        key += " mark " + std::to_string(*mark);
    return key;
}

bool Comm::Connector::prepare(int fd, const Address& peer)
{
    const int one = 1;
    (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    const auto& out = target_.outgoing;
    const bool v6 = peer.family() == AF_INET6;
    if (out.tos) {
        const int tos = *out.tos;
        // Squid 5.7 (Ip::Qos::setSockTos) warns and goes on when the kernel refuses
        if (::setsockopt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_TCLASS : IP_TOS, &tos, sizeof(tos)) !=
            0)
            debugs(50, 2,
                   "WARNING: setting TOS " << tos << " for " << peer.toString() << ": "
                                           << std::strerror(errno));
    }
    if (out.mark) {
        const unsigned mark = *out.mark;
        // as a refused TOS (Squid 5.7's Ip::Qos::setSockNfmark): a warning
        if (::setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)) != 0)
            debugs(50, 2,
                   "WARNING: setting mark " << mark << " for " << peer.toString() << ": "
                                            << std::strerror(errno));
    }
    const auto& local = v6 ? out.local6 : out.local4;
    if (local && ::bind(fd, local->raw(), local->length()) != 0) {
        debugs(11, 1,
               "ERROR: cannot bind the source address " << local->host() << " to reach " << peer.toString()
                                                        << ": " << std::strerror(errno));
        return false;
    }
    return true;
}

void Comm::Connector::advance()
{
    // every step ends here: start what may start, or give up (last: it may
    // destroy this Connector)
    if (!prime_.isConnecting())
        launch(prime_);
    if (!prime_.isConnecting() && !spareAllowed_)
        spareAllowed_ = true; // the prime family has nothing left
    if (spareAllowed_) {
        spareTimer_.cancel();
        if (!spare_.isConnecting())
            launch(spare_);
    }
    if (prime_.isConnecting() || spare_.isConnecting())
        return;
    Result r;
    r.peer = lastPeer_;
    r.error = Error::Connect;
    r.xerrno = lastErrno_;
    r.text = lastErrno_ ? std::strerror(lastErrno_) : "no address";
    finish(std::move(r));
}

bool Comm::Connector::launch(Attempt& attempt)
{
    attempt.close();
    if (attempt.retriesLeft > 0 && attempt.next > 0) {
        // connect_retries: the same address again, within its connect_timeout
        --attempt.retriesLeft;
        if (connectTo(attempt, attempt.addresses[attempt.next - 1]))
            return true;
    }
    attempt.timer.cancel();
    while (attempt.hasMore()) {
        const auto& peer = attempt.addresses[attempt.next++];
        attempt.retriesLeft = target_.retries;
        if (connectTo(attempt, peer)) {
            if (target_.connectTimeout > Milliseconds(0)) {
                attempt.timer = loop_.schedule(
                    target_.connectTimeout,
                    [this, &attempt] {
                        attempt.retriesLeft = 0; // the address had its time
                        onFailed(attempt, ETIMEDOUT);
                    },
                    &attempt);
            }
            return true;
        }
    }
    return false;
}

bool Comm::Connector::connectTo(Attempt& attempt, const Address& peer)
{
    // retries of a failure that comes at once are made here, not through the loop
    for (;;) {
        lastPeer_ = peer;
        Descriptor fd(::socket(peer.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
        if (!fd.isOpen() || !prepare(fd.get(), peer)) {
            lastErrno_ = errno;
            attempt.retriesLeft = 0; // only a failed connect is retried
            return false;
        }
        if (::connect(fd.get(), peer.raw(), peer.length()) != 0 && errno != EINPROGRESS) {
            lastErrno_ = errno;
            debugs(11, 3, "connect to " << peer.toString() << ": " << std::strerror(errno));
            if (attempt.retriesLeft == 0)
                return false;
            --attempt.retriesLeft;
            continue;
        }
        if (target_.connectsCounter)
            ++*target_.connectsCounter;
        attempt.fd = std::move(fd);
        attempt.peer = peer;
        // the socket's writability (or error) says how it went; a connect
        // that completed at once reports writable as soon as it is watched
        attempt.registration = loop_.watch(attempt.fd.get(), attempt);
        return true;
    }
}

void Comm::Connector::Attempt::close()
{
    registration.cancel();
    fd.reset();
}

void Comm::Connector::Attempt::handleIo(const IoEvents& events)
{
    if (fd.isOpen() && (events.writable || events.error || events.hangup))
        owner_.onConnectEvent(*this);
}

void Comm::Connector::Attempt::handleBug(const std::exception& e) noexcept
{
    try {
        owner_.prime_.close();
        owner_.spare_.close();
        owner_.prime_.timer.cancel();
        owner_.spare_.timer.cancel();
        owner_.spareTimer_.cancel();
        Result r;
        r.peer = owner_.lastPeer_;
        r.error = Error::Connect;
        r.text = std::string("internal error: ") + e.what();
        owner_.finish(std::move(r));
    } catch (...) {
    }
}

void Comm::Connector::onConnectEvent(Attempt& attempt)
{
    int error = 0;
    socklen_t len = sizeof(error);
    if (::getsockopt(attempt.fd.get(), SOL_SOCKET, SO_ERROR, &error, &len) != 0)
        error = errno;
    if (error != 0) {
        onFailed(attempt, error);
        return;
    }
    // the first to connect wins; the other family's attempt is closed
    Attempt& other = &attempt == &prime_ ? spare_ : prime_;
    other.close();
    other.timer.cancel();
    spareTimer_.cancel();
    attempt.timer.cancel();
    attempt.registration.cancel(); // the new owner watches it
    Result r;
    r.fd = std::move(attempt.fd);
    r.peer = attempt.peer;
    finish(std::move(r));
}

void Comm::Connector::onFailed(Attempt& attempt, int error)
{
    lastErrno_ = error;
    lastPeer_ = attempt.peer;
    debugs(11, 3, "connect to " << attempt.peer.toString() << ": " << std::strerror(error));
    attempt.close();
    if (&attempt == &prime_)
        spareAllowed_ = true; // Squid 5: a prime failure lets the spare start at once
    advance();
}

void Comm::Connector::finish(Result&& result)
{
    lookup_ = Lookup();
    const auto done = std::move(done_);
    done_ = nullptr;
    if (done)
        done(std::move(result)); // may destroy this Connector: nothing after it
}
