/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::Address: an IP address as the acl code compares it.
///
/// Every address is held as 16 bytes in network order. An IPv4 address is
/// stored IPv4-mapped (::ffff:a.b.c.d), as Squid does, so an IPv4 rule
/// (`10.0.0.0/8`, held as ::ffff:10.0.0.0/104) matches a client that reached
/// a dual-stack socket as ::ffff:10.1.2.3, and `::/0` matches IPv4 clients too.

#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include <endian.h>

struct sockaddr;

namespace Acl {

/// An IPv4 or IPv6 address, or "unset" (a default-constructed Address).
class Address {
public:
    /// Sixteen bytes in network order.
    using Bytes = std::array<uint8_t, 16>;

    /// An unset address: isSet() is false and no acl value matches it.
    Address() = default;

    /// An address from its 16 bytes (IPv4 given as ::ffff:a.b.c.d).
    explicit Address(const Bytes& bytes) : bytes_(bytes), isSet_(true) {}

    /// Parses an address literal as a client or URL gives it: dotted-quad
    /// IPv4 or IPv6 (inet_pton), optionally in [brackets], an IPv6 zone
    /// suffix (`%eth0`) ignored. nullopt when `text` is not a literal.
    static std::optional<Address> Parse(std::string_view text);

    /// Like Parse(), but IPv4 also in the short and numeric forms that
    /// Squid's acl parser (getaddrinfo with AI_NUMERICHOST) accepts:
    /// `10.1` is 10.0.0.1, `10` is 0.0.0.10.
    static std::optional<Address> ParseLenient(std::string_view text);

    /// The address of an AF_INET or AF_INET6 socket address; unset for any other family or nullptr.
    static Address FromSockaddr(const sockaddr* sa);

    /// The mask of the first `bits` bits (0..128) of the 16-byte form.
    static Address PrefixMask(unsigned bits);

    /// Whether this holds an address.
    bool isSet() const { return isSet_; }

    /// Whether this is an IPv4 address (IPv4-mapped in the 16-byte form).
    bool isIpv4() const;

    /// The 16 bytes in network order.
    const Bytes& bytes() const { return bytes_; }

    /// This address ANDed with `mask`.
    Address masked(const Address& mask) const;

    /// Number of leading one bits (a CIDR length over 128 bits).
    unsigned leadingOnes() const;

    /// The literal: dotted quad for IPv4, RFC 5952 text for IPv6, "" if unset.
    std::string toString() const;

    /// Byte order comparison (unset addresses compare as all zeros): as two
    /// big-endian 64-bit words, inline (acl matching compares addresses
    /// many times a request; a byte-array comparison is a memcmp() call).
    std::strong_ordering operator<=>(const Address& other) const
    {
        const uint64_t a = word(0), b = other.word(0);
        if (a != b)
            return a <=> b;
        return word(8) <=> other.word(8);
    }
    /// Equal bytes (and set-ness).
    bool operator==(const Address& other) const = default;

private:
    /// The 8 bytes at `offset` as a number, most significant first.
    uint64_t word(size_t offset) const
    {
        uint64_t w;
        std::memcpy(&w, bytes_.data() + offset, sizeof(w));
        return be64toh(w);
    }

    Bytes bytes_{};
    bool isSet_ = false;
};

} // namespace Acl
