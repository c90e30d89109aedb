/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "tls/Accepted.h"
#include "base/TextException.h"

#include <openssl/err.h>

Tls::Accepted::Accepted(SSL_CTX* context, int fd) : Channel(SslPtr(SSL_new(context)))
{
    Must2(SSL_set_fd(ssl_.get(), fd) == 1, "SSL_set_fd failed");
    SSL_set_accept_state(ssl_.get());
}

Tls::Accepted::~Accepted()
{
    closeNotify();
}

void Tls::Accepted::closeNotify()
{
    // not after the client's own end or a failure (pendingEnd_), nor twice
    if (!isEstablished() || pendingEnd_ || (SSL_get_shutdown(ssl_.get()) & SSL_SENT_SHUTDOWN))
        return;
    SSL_shutdown(ssl_.get());
    ERR_clear_error();
}
