/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Comm::Connector: dials a host: resolves its name (an IP literal is
/// taken as it is), tries each address in turn, each within the connect
/// timeout, and reports the connected socket, or why no address could be
/// reached. The origin side (Server::Forwarder) and CONNECT tunnels
/// (Client::Connection) dial through it, to an origin or a parent; TLS to
/// origins will plug in here.
///
///     start() --> resolve (Comm::Resolver; no query for an IP literal)
///             --> for each address: socket, TCP_NODELAY, TOS, bind to the source
///                   address of its family (if any), non-blocking connect
///                   writable / SO_ERROR 0 ......... done(fd, peer)
///                   error, or connect_timeout ...... the next address
///             --> no address left: done(error Dns or Connect, text, errno)
///
/// The callback never runs inside start() (answers come from the loop) and
/// never after the Connector is destroyed; it may destroy the Connector.
/// While connecting, the Connector watches the socket; the socket it hands
/// over is watched by no one (its new owner registers it: Loop.h's change of
/// owner).

#pragma once

#include "comm/Address.h"
#include "comm/Descriptor.h"
#include "comm/Loop.h"
#include "comm/Resolver.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace Comm {

/// Dials one host (see the file comment).
class Connector final : public IoHandler {
public:
    /// why no connection was made
    enum class Error {
        None,   ///< connected
        Dns,    ///< the name did not resolve (or no resolver for a name)
        Connect ///< every address refused, failed or timed out
    };
    /// what a dial ended with
    struct Result {
        Descriptor fd;             ///< the connected socket (open exactly on success)
        Address peer;              ///< the address connected to, or the last one tried
        Error error = Error::None; ///< see Error
        std::string text;          ///< the DNS error or strerror of the last connect failure
        int xerrno = 0;            ///< the errno of the last connect failure (0 for DNS)
    };
    using Callback = std::function<void(Result&& result)>;
    /// how the sockets leave (tcp_outgoing_address, tcp_outgoing_tos)
    struct Outgoing {
        std::optional<Address> local4; ///< the source address for an IPv4 destination; none: the kernel's
        std::optional<Address> local6; ///< the source address for an IPv6 destination
        std::optional<int> tos;        ///< IP_TOS (IPV6_TCLASS for IPv6); none: left alone
        /// "" with nothing set, otherwise a text naming the choices (a pool key suffix)
        std::string key() const;
    };

    /// what to dial and how
    struct Target {
        std::string host;                    ///< a name or an IP literal
        uint16_t port = 0;                   ///< the port
        Milliseconds connectTimeout{0};      ///< per address; <= 0: the kernel's own
        uint64_t* connectsCounter = nullptr; ///< incremented per connect(2) started, if set
        Outgoing outgoing;                   ///< source address and TOS
    };

    /// resolver may be null: then only IP literals can be dialed
    Connector(Loop& loop, Resolver* resolver, Target target, Callback done);
    ~Connector() override;
    Connector(const Connector&) = delete;
    Connector& operator=(const Connector&) = delete;

    /// starts dialing; the callback comes later, from the loop
    void start();

    /* IoHandler API (the socket being connected) */
    void handleIo(const IoEvents& events) override;
    void handleBug(const std::exception& e) noexcept override;

private:
    void onResolved(const Resolver::Answer& answer);
    void connectNext();
    bool prepare(int fd);
    void onConnectEvent();
    void finish(Result&& result);

    Loop& loop_;
    Resolver* resolver_;
    Target target_;
    Callback done_;
    Lookup lookup_;                  ///< the DNS lookup in flight
    std::vector<Address> addresses_; ///< to try, in order
    size_t next_ = 0;                ///< the next address to try
    Descriptor fd_;                  ///< the socket being connected
    Address peer_;                   ///< where fd_ connects to
    Registration registration_;      ///< fd_'s, while connecting (after fd_: goes first)
    Timer timer_;                    ///< connect_timeout, or a deferred step
    int lastErrno_ = 0;              ///< of the last failed attempt
};

} // namespace Comm
