/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "tls/Relay.h"
#include "base/TextException.h"
#include "log/CacheLog.h"

#include <cerrno>

#include <openssl/err.h>
#include <sys/socket.h>

Tls::Relay::Relay(Comm::Loop& loop, SslPtr&& ssl, Comm::Descriptor&& tlsFd, Comm::Descriptor&& plainFd)
    : loop_(loop), tlsFd_(std::move(tlsFd)), plainFd_(std::move(plainFd)), ssl_(std::move(ssl))
{
    Must2(ssl_ && SSL_is_init_finished(ssl_.get()) && SSL_get_fd(ssl_.get()) == tlsFd_.get(),
          "a relay takes an established TLS connection over its socket");
    tlsWatch_ = loop_.watch(tlsFd_.get(), tlsSide_);
    plainWatch_ = loop_.watch(plainFd_.get(), plainSide_);
}

Tls::Relay::~Relay()
{
    resume_.cancel();
    tlsWatch_.cancel();
    plainWatch_.cancel();
}

void Tls::Relay::start()
{
    pump();
}

void Tls::Relay::end(const char* why)
{
    if (ended_)
        return;
    ended_ = true;
    debugs(83, 3, "TLS client connection ends: " << why);
    if (!clientEnded_) {
        SSL_shutdown(ssl_.get()); // a close_notify, best effort
        ERR_clear_error();
    }
    resume_.cancel();
    tlsWatch_.cancel();
    plainWatch_.cancel();
    if (done_) {
        const auto done = std::move(done_);
        done_ = nullptr;
        done();
    }
}

void Tls::Relay::pump()
{
    if (ended_)
        return;
    // each pass moves what it can both ways; a full buffer emptied by a
    // write is read into again in the next pass
    for (int pass = 0; !ended_ && pass < 64; ++pass) {
        const bool down = moveDown();
        const bool up = !ended_ && moveUp();
        if (!down && !up)
            return;
    }
    // a busy relay gives the loop back: its sockets still hold bytes, so
    // carry on from a deferred call rather than wait for an edge
    if (!ended_)
        resume_ = loop_.defer([this] { pump(); }, &tlsSide_);
}

bool Tls::Relay::moveDown()
{
    bool moved = false;
    if (down_.isEmpty() && !clientEnded_ && tlsReadable_) {
        size_t n = 0;
        ERR_clear_error();
        const int r = SSL_read_ex(ssl_.get(), down_.bytes.data(), down_.bytes.size(), &n);
        if (r == 1) {
            down_.start = 0;
            down_.end = n;
            moved = true;
        } else {
            const int e = SSL_get_error(ssl_.get(), r);
            if (e == SSL_ERROR_WANT_READ)
                tlsReadable_ = false;
            if (e == SSL_ERROR_ZERO_RETURN) {
                clientEnded_ = true;
                moved = true;
            } else if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
                end("a TLS read failed");
                return false;
            }
        }
    }
    if (!down_.isEmpty()) {
        const ssize_t w =
            ::send(plainFd_.get(), down_.bytes.data() + down_.start, down_.end - down_.start, MSG_NOSIGNAL);
        if (w > 0) {
            down_.start += size_t(w);
            moved = true;
        } else if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            end("the connection's end closed");
            return false;
        }
    }
    if (clientEnded_ && down_.isEmpty() && !plainShut_) {
        ::shutdown(plainFd_.get(), SHUT_WR); // the connection sees the client's EOF
        plainShut_ = true;
    }
    return moved;
}

bool Tls::Relay::moveUp()
{
    bool moved = false;
    if (up_.isEmpty() && plainReadable_) {
        const ssize_t n = ::recv(plainFd_.get(), up_.bytes.data(), up_.bytes.size(), 0);
        if (n > 0) {
            up_.start = 0;
            up_.end = size_t(n);
            moved = true;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            plainReadable_ = false;
        } else if (n == 0) {
            end("the connection closed");
            return false;
        } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            end("the connection's end failed");
            return false;
        }
    }
    if (!up_.isEmpty()) {
        size_t w = 0;
        ERR_clear_error();
        const int r = SSL_write_ex(ssl_.get(), up_.bytes.data() + up_.start, up_.end - up_.start, &w);
        if (r == 1) {
            up_.start += w;
            moved = true;
        } else {
            const int e = SSL_get_error(ssl_.get(), r);
            if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
                end("a TLS write failed");
                return false;
            }
        }
    }
    return moved;
}
