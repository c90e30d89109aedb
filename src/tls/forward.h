/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Forward declarations of the TLS part (namespace Tls).
#pragma once

#include <memory>

namespace Tls {

class Accepted;
class ClientContext;
class Connection;
struct ClientOptions;
struct VerifyFailure;

/// an owned connection to an origin over TLS
using ConnectionPtr = std::unique_ptr<Connection>;
/// an owned TLS connection from a client (Accepted.h)
using AcceptedPtr = std::unique_ptr<Accepted>;

} // namespace Tls
