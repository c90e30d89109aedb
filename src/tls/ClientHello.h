/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Tls::ParseClientHello(): what SSL bump needs of a client's first
/// TLS bytes (doc/design.md "TLS", "SSL bump"): whether they are a TLS
/// ClientHello, and the server name it asks for (SNI, RFC 6066 section 3).
///
/// The parser reads the bytes from the start each time it is called (the
/// caller peeks at the socket with MSG_PEEK, so the bytes stay there for
/// the TLS library or the tunnel that comes after): a hello split across
/// reads, or across TLS records (RFC 8446 section 5.1 lets a handshake
/// message span records), answers NeedMore until it is whole. Every length
/// is checked against what contains it; nothing past MaxHelloBytes is read.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace Tls {

/// what the first bytes of a connection are
struct ClientHello {
    /// the parse's outcome
    enum class Status {
        NeedMore, ///< a prefix of a ClientHello so far: read more and parse again
        Done,     ///< a whole ClientHello
        NotTls,   ///< not a TLS handshake (plain HTTP, SSLv2, garbage)
        Malformed ///< a TLS handshake whose ClientHello breaks its own lengths or is too big
    };
    Status status = Status::NeedMore;
    std::string serverName; ///< the SNI host_name, lowercased; empty: none
};

/// the most bytes a ClientHello may take, records included (64 KB of
/// handshake message, which no real client reaches, plus the headers)
constexpr size_t MaxHelloBytes = 64 * 1024 + 5 * 8;

/// Parses the bytes a client sent first (see the file comment).
ClientHello ParseClientHello(std::string_view bytes);

} // namespace Tls
