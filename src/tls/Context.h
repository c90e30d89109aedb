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
/// plain peer's FIN is), partial writes from moving buffers, and minVersion;
/// null with why set (naming the setting as versionName) when OpenSSL refuses.
CtxPtr NewContext(const SSL_METHOD* method, uint64_t setOptions, uint64_t clearOptions, int minVersion,
                  const char* versionName, std::string& why);

} // namespace Tls
