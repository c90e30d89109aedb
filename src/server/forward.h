/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Forward declarations of the server side (namespace Server).
#pragma once

#include <memory>

namespace Server {

class Forwarder;
class IcpPing;
class OriginConnection;
class Peer;
class Peers;
class Pool;
struct Context;
struct Destination;
struct Limits;
struct Request;

/// an owned forwarder (the client side owns each one)
using ForwarderPtr = std::unique_ptr<Forwarder>;

} // namespace Server
