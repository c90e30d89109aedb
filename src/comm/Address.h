/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Comm::Address: an IPv4 or IPv6 socket address with a port.

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <sys/socket.h>

namespace Comm {

/// An IPv4 or IPv6 address and port, as the kernel takes it (sockaddr_storage).
class Address {
public:
    /// the IPv4 wildcard 0.0.0.0:0
    Address();

    /// Parses an address literal ("127.0.0.1", "::1", "[::1]") and a port.
    /// An empty host means the IPv6 wildcard (which also accepts IPv4 on
    /// Linux's default bindv6only=0), as Squid binds `http_port 3128`.
    /// Returns nothing when host is not a literal (no name lookup here).
    static std::optional<Address> Parse(std::string_view host, uint16_t port);

    /// builds an Address from what accept()/getsockname() returned
    static Address FromSockaddr(const sockaddr* sa, socklen_t len);

    /// the address for bind()/connect()
    const struct sockaddr* raw() const { return reinterpret_cast<const struct sockaddr*>(&storage_); }
    /// the size of raw() for bind()/connect()
    socklen_t length() const;
    /// AF_INET or AF_INET6
    int family() const { return storage_.ss_family; }
    /// the port in host order
    uint16_t port() const;
    /// the address literal without brackets or port ("::1", "127.0.0.1");
    /// an IPv4-mapped IPv6 address prints as IPv4, as Squid logs it
    std::string host() const;
    /// "127.0.0.1:3128" or "[::1]:3128", as Squid prints listening ports
    std::string toString() const;

private:
    sockaddr_storage storage_; ///< the kernel's form
};

} // namespace Comm
