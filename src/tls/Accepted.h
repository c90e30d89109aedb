/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Tls::Accepted: the TLS server side of one client socket, an
/// https_port's or a bumped connection's (doc/design.md "TLS").
///
/// A Tls::Channel in accept state: the handshake runs inside the first
/// read()s (SSL_read accepts first), so the owner reads as from any socket
/// and bounds a stalled handshake with its own request timer. The
/// Client::Connection that owns it reads requests into its blocks and
/// writes replies from the stored blocks through it: OpenSSL's cipher is
/// the one copy of a body byte on the way out.
///
/// Ownership: owns its SSL; does not own the socket. A connection freed
/// after its handshake sends a close_notify first (best effort), unless
/// the client ended first. A CONNECT hands the whole object on (Tls::Relay).
#pragma once

#include "tls/Channel.h"
#include "tls/forward.h"

namespace Tls {

/// One accepted TLS connection; see the file comment.
class Accepted : public Channel {
public:
    /// TLS with context's certificate over the accepted socket fd
    Accepted(SSL_CTX* context, int fd);
    ~Accepted() override;

    /// sends a close_notify now (the reply is done, or the relay ends), once
    void closeNotify();
};

} // namespace Tls
