/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file What the client and the server contexts (ClientContext.h,
/// ServerContext.h) make alike: a new SSL_CTX with the settings both sides
/// share, and OpenSSL's reason for a failure.
#pragma once

#include "tls/Ptr.h"

#include <cstdint>
#include <string>

namespace Tls {

/// OpenSSL's reason for the last failure (its error queue is cleared), or fallback
std::string LastError(const char* fallback);

/// A new SSL_CTX of `method` with options= set and cleared (and
/// SSL_OP_IGNORE_UNEXPECTED_EOF: a FIN without close_notify is an end, as a
/// plain peer's FIN is), partial writes from moving buffers, a server's
/// buffers released while empty, and minVersion;
/// null with why set (naming the setting as versionName) when OpenSSL refuses.
/// The first context with options=KTLS says in cache.log whether the
/// kernel offers kernel TLS (KernelTlsAvailable()).
CtxPtr NewContext(const SSL_METHOD* method, uint64_t setOptions, uint64_t clearOptions, int minVersion,
                  const char* versionName, std::string& why);

/// Whether this kernel takes the "tls" upper-layer protocol on a TCP
/// socket (TCP_ULP, the tls module: kernel TLS), tried once on a loopback
/// connection of its own. Asked first as root, which lets the kernel load
/// the module.
bool KernelTlsAvailable();

/// This thread's connections whose context asked for kernel TLS
/// (options=KTLS), once their handshake ended: how many, and how many of
/// them the kernel encrypts (send) and decrypts (receive) for.
struct KernelTlsCounts {
    uint64_t asked = 0;
    uint64_t send = 0;
    uint64_t receive = 0;
};
/// this thread's counts (each worker's loop is one thread)
const KernelTlsCounts& ThreadKernelTls();

/// After a handshake of ssl: counts it (ThreadKernelTls()) when its context
/// asked for kernel TLS, and returns how its bytes are ciphered, for
/// cache.log ("kernel TLS send and receive", "kernel TLS send",
/// "OpenSSL", ...).
std::string NoteKernelTls(SSL* ssl);

} // namespace Tls
