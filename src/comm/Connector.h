/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Comm::Connector: dials a host: resolves its name (an IP literal is
/// taken as it is), races its IPv4 and IPv6 addresses as Squid 5 does (Happy
/// Eyeballs, RFC 8305), and reports the connected socket, or why no address
/// could be reached. The origin side (Server::Forwarder) and CONNECT tunnels
/// (Client::Connection) dial through it, to an origin or a parent; TLS to
/// origins will plug in here.
///
///     start() --> resolve (Comm::Resolver; no query for an IP literal)
///             --> the first address's family is the prime one, the other the spare
///             --> per family, one attempt at a time, its addresses in order:
///                   socket, TCP_NODELAY, TOS, bind to the source address of
///                   the family (if any), non-blocking connect
///                   writable / SO_ERROR 0 ... done(fd, peer); the other family's
///                                             attempt is closed
///                   error .................... the same address again while
///                                             connect_retries allows, then the next
///                   connect_timeout (per address, retries included) ... the next
///             --> the spare family starts happy_eyeballs_connect_timeout after
///                 the prime one, or at once when a prime attempt fails (or the
///                 prime family has no usable address)
///             --> no address left in either: done(error Dns or Connect, text, errno)
///
/// The callback never runs inside start() (answers come from the loop) and
/// never after the Connector is destroyed; it may destroy the Connector.
/// While connecting, the Connector watches its sockets; the socket it hands
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
class Connector final {
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
    /// how the sockets leave (tcp_outgoing_address, tcp_outgoing_tos, tcp_outgoing_mark)
    struct Outgoing {
        std::optional<Address> local4; ///< the source address for an IPv4 destination; none: the kernel's
        std::optional<Address> local6; ///< the source address for an IPv6 destination
        std::optional<int> tos;        ///< IP_TOS (IPV6_TCLASS for IPv6); none: left alone
        std::optional<uint32_t> mark;  ///< SO_MARK (needs CAP_NET_ADMIN); none: left alone
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
        Milliseconds spareDelay{250};        ///< happy_eyeballs_connect_timeout
        unsigned retries = 0;                ///< connect_retries: reconnects to a failed address
    };

    /// resolver may be null: then only IP literals can be dialed
    Connector(Loop& loop, Resolver* resolver, Target target, Callback done);
    ~Connector();
    Connector(const Connector&) = delete;
    Connector& operator=(const Connector&) = delete;

    /// starts dialing; the callback comes later, from the loop
    void start();

private:
    /// one family's connection attempt: its addresses and the socket being connected
    class Attempt final : public IoHandler {
    public:
        explicit Attempt(Connector& owner) : owner_(owner) {}
        /// whether a socket is being connected
        bool isConnecting() const { return fd.isOpen(); }
        /// whether an address is left to try
        bool hasMore() const { return next < addresses.size(); }
        /// stops connecting (the socket, its registration and timer go)
        void close();

        /* IoHandler API (the socket being connected) */
        void handleIo(const IoEvents& events) override;
        void handleBug(const std::exception& e) noexcept override;

        std::vector<Address> addresses; ///< of this family, in the resolver's order
        size_t next = 0;                ///< the next address to try
        unsigned retriesLeft = 0;       ///< reconnects left to the current address
        Descriptor fd;                  ///< the socket being connected
        Address peer;                   ///< where fd connects to
        Registration registration;      ///< fd's (after fd: goes first)
        Timer timer;                    ///< connect_timeout of the current address

    private:
        Connector& owner_;
    };

    void onResolved(const Resolver::Answer& answer);
    void begin(const std::vector<Address>& addresses);
    void advance();
    void allowSpare();
    bool launch(Attempt& attempt);
    bool connectTo(Attempt& attempt, const Address& peer);
    bool prepare(int fd, const Address& peer);
    void onConnectEvent(Attempt& attempt);
    void onFailed(Attempt& attempt, int error);
    void fail(const std::string& text);
    void finish(Result&& result);

    Loop& loop_;
    Resolver* resolver_;
    Target target_;
    Callback done_;
    Lookup lookup_;             ///< the DNS lookup in flight
    Attempt prime_{*this};      ///< the first address's family
    Attempt spare_{*this};      ///< the other family
    bool spareAllowed_ = false; ///< whether the spare family may be dialed
    Timer spareTimer_;          ///< happy_eyeballs_connect_timeout, or a deferred step (owned by prime_)
    Address lastPeer_;          ///< the last address that failed
    int lastErrno_ = 0;         ///< of the last failed attempt
};

} // namespace Comm
