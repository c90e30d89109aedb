/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Forward declarations and pointer aliases of src/tunnel (namespace Tunnel).

#pragma once

#include <memory>

namespace Tunnel {

class ParentConnect;
class Tunnel;

/// the one owner of a tunnel (normally the client connection that got the CONNECT)
using TunnelPtr = std::unique_ptr<Tunnel>;

} // namespace Tunnel
