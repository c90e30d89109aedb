/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "tls/Relay.h"
#include "base/TextException.h"
#include "log/CacheLog.h"

#include <cerrno>

#include <sys/socket.h>
#include <sys/uio.h>

Tls::Relay::Relay(Comm::Loop& loop, AcceptedPtr&& tls, Comm::Descriptor&& tlsFd, Comm::Descriptor&& plainFd)
    : loop_(loop), tlsFd_(std::move(tlsFd)), plainFd_(std::move(plainFd)), tls_(std::move(tls))
{
    Must2(tls_ && tls_->isEstablished(), "a relay takes an established TLS connection");
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
    tls_->closeNotify(); // best effort; not after the client's own end
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
        const ssize_t n = tls_->read(down_.bytes.data(), down_.bytes.size());
        if (n > 0) {
            down_.start = 0;
            down_.end = size_t(n);
            moved = true;
        } else if (n == 0) {
            clientEnded_ = true;
            moved = true;
        } else if (errno != EAGAIN) {
            end("a TLS read failed");
            return false;
        } else if (!tls_->readWantsWrite()) {
            tlsReadable_ = false;
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
        iovec iov{up_.bytes.data() + up_.start, up_.end - up_.start};
        const ssize_t w = tls_->writev(&iov, 1);
        if (w > 0) {
            up_.start += size_t(w);
            moved = true;
        } else if (errno != EAGAIN) {
            end("a TLS write failed");
            return false;
        }
    }
    return moved;
}
