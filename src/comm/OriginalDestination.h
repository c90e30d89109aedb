/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Comm::OriginalDestination(): where an intercepted connection was going.

#pragma once

#include "comm/Address.h"

#include <optional>

namespace Comm {

/// The destination a client connected to before netfilter's NAT (iptables
/// REDIRECT or DNAT) sent the connection to this socket: getsockopt
/// SO_ORIGINAL_DST for IPv4 (an IPv4-mapped IPv6 socket included) or
/// IP6T_SO_ORIGINAL_DST for IPv6, as Squid 5.7 asks it
/// (Ip::Intercept::NetfilterInterception). No capability is needed. Returns
/// nothing, with errno's value in xerrno, when the kernel has no connection
/// tracking state for the socket (ENOENT). A connection that was not NATed
/// but is tracked gets its own local address back.
std::optional<Address> OriginalDestination(int fd, const Address& local, int& xerrno);

} // namespace Comm
