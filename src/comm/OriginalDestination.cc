/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "comm/OriginalDestination.h"

#include <cerrno>

#include <netinet/in.h>
#include <sys/socket.h>

namespace {
// <linux/netfilter_ipv4.h> and <linux/netfilter_ipv6/ip6_tables.h> define
// these; their headers do not mix with the C library's, so the values
// (fixed by the kernel ABI) are spelled here
constexpr int SoOriginalDst = 80;     // SO_ORIGINAL_DST
constexpr int Ip6tSoOriginalDst = 80; // IP6T_SO_ORIGINAL_DST

/// whether the socket's local address is IPv4, or IPv4 mapped into IPv6
bool IsIpv4(const Comm::Address& local)
{
    if (local.family() == AF_INET)
        return true;
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(local.raw());
    return IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr);
}
} // namespace

std::optional<Comm::Address> Comm::OriginalDestination(int fd, const Address& local, int& xerrno)
{
    sockaddr_storage dst{};
    socklen_t len = sizeof(dst);
    const bool v4 = IsIpv4(local);
    const int rc = v4 ? ::getsockopt(fd, SOL_IP, SoOriginalDst, &dst, &len)
                      : ::getsockopt(fd, SOL_IPV6, Ip6tSoOriginalDst, &dst, &len);
    if (rc != 0) {
        xerrno = errno;
        return std::nullopt;
    }
    xerrno = 0;
    return Address::FromSockaddr(reinterpret_cast<sockaddr*>(&dst), len);
}
