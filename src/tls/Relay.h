/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Tls::Relay: the TLS end of a tunnel that a TLS client connection
/// (an https_port's or a bumped one) opened with CONNECT (doc/design.md "TLS").
///
///     client ==TLS== [client socket] Relay [socketpair end] --- [other end] Tunnel::Tunnel --- origin
///
/// The relay takes over the connection's established Tls::Accepted and
/// moves decrypted bytes (its reads: tls/Channel.h) to its end of a
/// socketpair and bytes from it back through TLS; the tunnel splices the
/// other end to the origin as it does for a plain client. The price is one
/// user-space copy each way (the 16 KB buffers here) and the socketpair's
/// kernel copy, paid by tunnels only: requests and replies over TLS go
/// through the Client::Connection's own Tls::Accepted.
///
/// Edge-triggered: every event on either socket runs pump(), which goes on
/// while anything moves, so each read goes until EAGAIN (or
/// SSL_ERROR_WANT_READ) or until its buffer is full, and a full buffer is
/// read into again as soon as a write empties it; the first pump() reads
/// what OpenSSL had read ahead. An EOF from the client half-closes the
/// socketpair; the tunnel closing its end ends the relay (a close_notify
/// goes to the client first).
#pragma once

#include "comm/Descriptor.h"
#include "comm/Loop.h"
#include "tls/Accepted.h"

#include <array>
#include <functional>

namespace Tls {

/// One https_port connection's TLS side; see the file comment.
class Relay {
public:
    /// called once when the relay ended (from inside it: destroy it later)
    using DoneHandler = std::function<void()>;

    /// relays between tls, established over tlsFd, and plainFd (a socketpair end)
    Relay(Comm::Loop& loop, AcceptedPtr&& tls, Comm::Descriptor&& tlsFd, Comm::Descriptor&& plainFd);
    ~Relay();
    Relay(const Relay&) = delete;
    Relay& operator=(const Relay&) = delete;

    /// who is told when the relay ends
    void setDoneHandler(DoneHandler done) { done_ = std::move(done); }
    /// starts relaying (it may end the relay at once)
    void start();

private:
    /// the events of one of the two sockets
    struct Side : Comm::IoHandler {
        Side(Relay& r, bool& ready) : relay(r), readable(ready) {}
        void handleIo(const Comm::IoEvents& events) override
        {
            if (events.readable || events.hangup || events.error)
                readable = true;
            relay.pump();
        }
        void handleBug(const std::exception&) noexcept override { relay.end("internal error"); }
        Relay& relay;
        bool& readable; ///< the relay's flag of this socket (tlsReadable_ or plainReadable_)
    };
    /// bytes read and not written yet
    struct Buffer {
        std::array<char, 16384> bytes;
        size_t start = 0; ///< the first byte not written
        size_t end = 0;   ///< after the last byte read
        bool isEmpty() const { return start == end; }
    };

    void pump();
    bool moveDown(); ///< client (TLS) -> connection; whether anything moved
    bool moveUp();   ///< connection -> client (TLS); whether anything moved
    void end(const char* why);

    Comm::Loop& loop_;
    Comm::Descriptor tlsFd_;
    Comm::Descriptor plainFd_;
    AcceptedPtr tls_; ///< after tlsFd_: its close_notify goes out before the socket closes
    /// whether a read of the socket may find bytes: set by a readable event,
    /// cleared by a read that found none (SSL_ERROR_WANT_READ, EAGAIN; not
    /// by a short read, which may have left an EOF), so that a relay moving
    /// bytes one way does not ask the idle way at every pass (edge-triggered:
    /// a new byte brings a new event)
    bool tlsReadable_ = true;
    bool plainReadable_ = true; ///< likewise for the socketpair end
    Side tlsSide_{*this, tlsReadable_};
    Side plainSide_{*this, plainReadable_};
    Comm::Registration tlsWatch_;   ///< after the descriptors: cancelled before they close
    Comm::Registration plainWatch_; ///< likewise
    Comm::Timer resume_;            ///< a busy relay's next pump()
    DoneHandler done_;
    Buffer down_;              ///< from the client to the connection
    Buffer up_;                ///< from the connection to the client
    bool clientEnded_ = false; ///< the client's close_notify or FIN came
    bool plainShut_ = false;   ///< the socketpair is half-closed toward the connection
    bool ended_ = false;
};

} // namespace Tls
