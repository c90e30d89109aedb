/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/Address.h"

#include <cstring>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace Acl {

namespace {

Address FromIpv4(const in_addr& a)
{
    Address::Bytes b{};
    b[10] = 0xff;
    b[11] = 0xff;
    std::memcpy(b.data() + 12, &a.s_addr, 4);
    return Address(b);
}

/// Strips brackets and an IPv6 zone; empty when the text cannot be a literal.
std::string Unwrap(std::string_view text)
{
    if (text.size() >= 2 && text.front() == '[' && text.back() == ']')
        text = text.substr(1, text.size() - 2);
    std::string s(text);
    if (const auto pct = s.find('%'); pct != std::string::npos && s.find(':') != std::string::npos)
        s.resize(pct);
    return s;
}

std::optional<Address> ParseIpv6(const std::string& s)
{
    in6_addr a6;
    if (s.find(':') == std::string::npos || inet_pton(AF_INET6, s.c_str(), &a6) != 1)
        return std::nullopt;
    Address::Bytes b;
    std::memcpy(b.data(), a6.s6_addr, 16);
    return Address(b);
}

} // namespace

std::optional<Address> Address::Parse(std::string_view text)
{
    const auto s = Unwrap(text);
    if (s.empty())
        return std::nullopt;
    in_addr a4;
    if (inet_pton(AF_INET, s.c_str(), &a4) == 1)
        return FromIpv4(a4);
    return ParseIpv6(s);
}

std::optional<Address> Address::ParseLenient(std::string_view text)
{
    const auto s = Unwrap(text);
    if (s.empty())
        return std::nullopt;
    // inet_aton accepts the same IPv4 spellings as glibc's numeric getaddrinfo.
    in_addr a4;
    if (s.find(':') == std::string::npos && inet_aton(s.c_str(), &a4) == 1)
        return FromIpv4(a4);
    return ParseIpv6(s);
}

Address Address::FromSockaddr(const sockaddr* sa)
{
    if (!sa)
        return Address();
    if (sa->sa_family == AF_INET) {
        sockaddr_in sin;
        std::memcpy(&sin, sa, sizeof(sin));
        return FromIpv4(sin.sin_addr);
    }
    if (sa->sa_family == AF_INET6) {
        sockaddr_in6 sin6;
        std::memcpy(&sin6, sa, sizeof(sin6));
        Bytes b;
        std::memcpy(b.data(), sin6.sin6_addr.s6_addr, 16);
        return Address(b);
    }
    return Address();
}

Address Address::PrefixMask(unsigned bits)
{
    Bytes b{};
    for (unsigned i = 0; i < 16 && bits > 0; ++i) {
        const unsigned take = bits >= 8 ? 8 : bits;
        b[i] = static_cast<uint8_t>(0xff00u >> take);
        bits -= take;
    }
    return Address(b);
}

bool Address::isIpv4() const
{
    static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return isSet_ && std::memcmp(bytes_.data(), prefix, 12) == 0;
}

Address Address::masked(const Address& mask) const
{
    Bytes b;
    for (size_t i = 0; i < b.size(); ++i)
        b[i] = bytes_[i] & mask.bytes_[i];
    Address result(b);
    result.isSet_ = isSet_;
    return result;
}

unsigned Address::leadingOnes() const
{
    unsigned n = 0;
    for (const auto byte : bytes_) {
        if (byte == 0xff) {
            n += 8;
            continue;
        }
        for (uint8_t bit = 0x80; bit && (byte & bit); bit >>= 1)
            ++n;
        break;
    }
    return n;
}

std::string Address::toString() const
{
    if (!isSet_)
        return std::string();
    char buf[INET6_ADDRSTRLEN];
    if (isIpv4()) {
        in_addr a4;
        std::memcpy(&a4.s_addr, bytes_.data() + 12, 4);
        return inet_ntop(AF_INET, &a4, buf, sizeof(buf));
    }
    in6_addr a6;
    std::memcpy(a6.s6_addr, bytes_.data(), 16);
    return inet_ntop(AF_INET6, &a6, buf, sizeof(buf));
}

} // namespace Acl
