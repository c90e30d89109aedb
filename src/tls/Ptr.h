/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Owning pointers to OpenSSL objects: each calls its free function.
#pragma once

#include <memory>

#include <openssl/ssl.h>
#include <openssl/x509.h>

namespace Tls {

/// calls OpenSSL's free function F
template <typename T, void (*F)(T*)>
struct Free {
    void operator()(T* p) const { F(p); }
};

using CtxPtr = std::unique_ptr<SSL_CTX, Free<SSL_CTX, SSL_CTX_free>>;                 ///< an owned SSL_CTX
using SslPtr = std::unique_ptr<SSL, Free<SSL, SSL_free>>;                             ///< an owned SSL
using SessionPtr = std::unique_ptr<SSL_SESSION, Free<SSL_SESSION, SSL_SESSION_free>>; ///< an owned session
using X509Ptr = std::unique_ptr<X509, Free<X509, X509_free>>; ///< an owned certificate

} // namespace Tls
