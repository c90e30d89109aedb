/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Tls::ServerContext: the SSL_CTX of one https_port, made once when
/// the port is bound (at start, before root is dropped: the key may be
/// root's alone), and kept by the port across reconfigures.
#pragma once

#include "base/RefCount.h"
#include "tls/Ptr.h"

#include <cstdint>
#include <string>

namespace Tls {

/// an https_port's TLS settings, as Config::TlsPortOptions parsed them
struct ServerOptions {
    std::string certFile;            ///< tls-cert=: the certificate, its chain after it (PEM)
    std::string keyFile;             ///< tls-key=: its key; empty: in certFile
    std::string dhFile;              ///< tls-dh=: DH parameters (PEM); empty: none (ECDHE still works)
    std::string caFile;              ///< cafile=: CAs that verify client certificates
    std::string clientCa;            ///< clientca=: CAs whose client certificates are asked for and required
    std::string cipher;              ///< cipher=
    int minVersion = TLS1_2_VERSION; ///< tls-min-version=
    uint64_t setOptions = 0;         ///< options= bits to set
    uint64_t clearOptions = 0;       ///< options= bits to clear
};

/// One https_port's SSL_CTX; see the file comment.
class ServerContext : public RefCountable {
public:
    /// A context for options, or null with why (a file that cannot be read,
    /// a key that does not match its certificate...)
    static RefCount<ServerContext> Make(const ServerOptions& options, std::string& why);
    /// the OpenSSL context
    SSL_CTX* get() const { return ctx_.get(); }

private:
    explicit ServerContext(CtxPtr&& ctx) : ctx_(std::move(ctx)) {}
    CtxPtr ctx_;
};

/// a shared server context
using ServerContextRef = RefCount<ServerContext>;

} // namespace Tls
