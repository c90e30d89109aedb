/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Comm::Listener: a listening TCP socket on the event loop.

#pragma once

#include "comm/Address.h"
#include "comm/Descriptor.h"
#include "comm/Loop.h"

#include <functional>
#include <string>

namespace Comm {

/// A bound, listening, non-blocking TCP socket. On readability it accepts
/// (accept4, non-blocking, close-on-exec) until EAGAIN and hands each new
/// descriptor to the accept callback, which takes ownership. Destroying the
/// Listener (or stop()) closes the socket: no more connections are accepted.
class Listener : public IoHandler {
public:
    /// receives each accepted connection: its descriptor and the peer's address
    using AcceptCallback = std::function<void(Descriptor&& fd, const Address& peer)>;

    /// Binds `where` (SO_REUSEADDR; IPv6 sockets also take IPv4 unless the
    /// address is a specific IPv6 one), listens and starts accepting. Port 0
    /// binds a free port: localAddress() tells which. Throws TextException
    /// with a message naming the address and errno on failure. A shared
    /// listener sets SO_REUSEPORT too: every worker binds its own socket to
    /// the same port and the kernel spreads new connections among them
    /// (doc/design.md "Workers").
    Listener(Loop& loop, const Address& where, AcceptCallback onAccept, bool shared = false);
    ~Listener() override;

    /// the bound address, with the real port
    const Address& localAddress() const { return local_; }
    /// stops accepting and closes the socket; idempotent
    void stop();
    /// whether the socket is open and accepting
    bool isListening() const { return fd_.isOpen(); }
    /// the listening descriptor number, for log messages (-1 after stop())
    int fd() const { return fd_.get(); }
    /// connections accepted so far
    uint64_t acceptedCount() const { return accepted_; }
    /// whether the last accept failed for want of descriptors or memory
    /// (EMFILE, ENFILE, ENOBUFS, ENOMEM): queued connections wait in the
    /// kernel's backlog and accepting is retried every RetryDelay
    bool isStarved() const { return isStarved_; }
    /// how many times accepting started failing for want of descriptors: each
    /// such episode is reported once in cache.log, and its end once
    uint64_t starvedEpisodes() const { return starvedEpisodes_; }
    /// how long a starved listener waits before it tries to accept again
    static constexpr Milliseconds RetryDelay{100};

    /* IoHandler API */
    void handleIo(const IoEvents& events) override;

private:
    void acceptAll();

    Loop& loop_;
    Descriptor fd_;             ///< the listening socket
    Registration registration_; ///< declared after fd_: cancelled before it closes
    Timer retry_;               ///< retries accepting after EMFILE/ENFILE
    Address local_;             ///< getsockname() after bind
    AcceptCallback onAccept_;
    uint64_t accepted_ = 0;
    bool isStarved_ = false;       ///< the last accept failed with EMFILE & co
    uint64_t starvedEpisodes_ = 0; ///< see starvedEpisodes()
};

} // namespace Comm
