/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "tls/Channel.h"
#include "base/TextException.h"
#include "log/CacheLog.h"
#include "tls/Context.h"

#include <cerrno>

#include <openssl/err.h>
#include <sys/uio.h>

Tls::Channel::Channel(SslPtr&& ssl) : ssl_(std::move(ssl))
{
    Must2(ssl_ != nullptr, "SSL_new failed");
}

const char* Tls::Channel::version() const
{
    return SSL_get_version(ssl_.get());
}

void Tls::Channel::noteEstablished()
{
    cipheredBy_ = NoteKernelTls(ssl_.get()); // counted whatever the debug level
    // an origin connection's line names the origin (Server::Forwarder)
    if (SSL_is_server(ssl_.get()))
        debugs(83, 3, "TLS client connection: " << version() << ", " << cipheredBy_);
}

void Tls::Channel::noteBreak(int sslError, int result)
{
    if (sslError == SSL_ERROR_ZERO_RETURN) {
        pendingEnd_ = -1;
        return;
    }
    if (sslError == SSL_ERROR_SYSCALL && result == 0 && errno == 0) {
        pendingEnd_ = -1; // an EOF OpenSSL did not report as one
        return;
    }
    if (sslError == SSL_ERROR_SYSCALL && errno)
        pendingEnd_ = errno;
    else
        pendingEnd_ = EPROTO; // a TLS protocol failure (a bad record, an alert)
    debugs(83, 3, "TLS read or write failed: " << LastError("no reason given"));
}

ssize_t Tls::Channel::read(char* buffer, size_t size)
{
    readWantsWrite_ = false;
    size_t got = 0;
    while (got < size && !pendingEnd_) {
        size_t n = 0;
        ERR_clear_error();
        errno = 0;
        const int r = SSL_read_ex(ssl_.get(), buffer + got, size - got, &n);
        if (r == 1) {
            got += n;
            continue;
        }
        const int e = SSL_get_error(ssl_.get(), r);
        if (e == SSL_ERROR_WANT_READ)
            break;
        if (e == SSL_ERROR_WANT_WRITE) {
            readWantsWrite_ = true;
            break;
        }
        noteBreak(e, r);
    }
    // a server's handshake ends inside SSL_read (Tls::Accepted)
    if (!isEstablished() && SSL_is_init_finished(ssl_.get()))
        noteEstablished();
    if (got > 0)
        return ssize_t(got);
    if (pendingEnd_ == -1)
        return 0;
    if (pendingEnd_) {
        errno = pendingEnd_;
        return -1;
    }
    errno = EAGAIN;
    return -1;
}

ssize_t Tls::Channel::writev(const iovec* iov, int count)
{
    writeWantsRead_ = false;
    size_t taken = 0;
    for (int i = 0; i < count; ++i) {
        const auto* base = static_cast<const char*>(iov[i].iov_base);
        size_t done = 0;
        while (done < iov[i].iov_len) {
            size_t n = 0;
            ERR_clear_error();
            errno = 0;
            const int r = SSL_write_ex(ssl_.get(), base + done, iov[i].iov_len - done, &n);
            if (r == 1) {
                done += n;
                taken += n;
                continue;
            }
            const int e = SSL_get_error(ssl_.get(), r);
            if (e == SSL_ERROR_WANT_READ)
                writeWantsRead_ = true;
            if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
                if (taken > 0)
                    return ssize_t(taken);
                errno = EAGAIN;
                return -1;
            }
            if (taken > 0)
                return ssize_t(taken); // the failure shows again on the next call
            errno = (e == SSL_ERROR_SYSCALL && errno) ? errno : EPIPE;
            return -1;
        }
    }
    return ssize_t(taken);
}
