/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "tls/Context.h"

#include <openssl/err.h>

std::string Tls::LastError(const char* fallback)
{
    const unsigned long e = ERR_peek_last_error();
    ERR_clear_error();
    if (!e)
        return fallback;
    char text[256];
    ERR_error_string_n(e, text, sizeof(text));
    return text;
}

Tls::CtxPtr Tls::NewContext(const SSL_METHOD* method, uint64_t setOptions, uint64_t clearOptions,
                            int minVersion, const char* versionName, std::string& why)
{
    ERR_clear_error();
    CtxPtr ctx(SSL_CTX_new(method));
    if (!ctx) {
        why = LastError("SSL_CTX_new failed");
        return nullptr;
    }
    SSL_CTX_set_options(ctx.get(), setOptions | SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_clear_options(ctx.get(), clearOptions);
    SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_read_ahead(ctx.get(), 1);
    SSL_CTX_set_default_read_buffer_len(ctx.get(), 65536);
    if (!SSL_CTX_set_min_proto_version(ctx.get(), minVersion)) {
        why = std::string(versionName) + ": " + LastError("not supported");
        return nullptr;
    }
    return ctx;
}
