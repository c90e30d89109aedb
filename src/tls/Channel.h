/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Tls::Channel: reads and writes of one TLS connection over a
/// non-blocking socket, with recv(2)'s and writev(2)'s contracts, driven by
/// the edge-triggered loop (doc/design.md "TLS"). The connections to origins
/// (Tls::Connection) and from clients (Tls::Accepted) are channels.
///
/// The rules that keep a channel right under edge-triggered epoll:
///
///   - read() calls SSL_read into the space it is given until OpenSSL wants
///     more bytes from the socket (SSL_ERROR_WANT_READ) or the space is
///     full, so a short read means drained, as recv() does (bytes OpenSSL
///     read ahead sit in its buffer, where no event announces them); an EOF
///     or error met after some bytes is kept for the next call
///     (hasPendingEnd()).
///   - writev() calls SSL_write per piece, from the caller's buffers (the
///     cipher's copy is the only one); a record OpenSSL could not send
///     whole is offered again by the caller from the same bytes (the
///     contexts allow moving buffers: tls/Context.h).
///   - a read that needs a write (SSL_ERROR_WANT_WRITE) says so
///     (readWantsWrite()): the owner reads again when the socket turns
///     writable; a write that needs a read (writeWantsRead()), when it
///     turns readable.
///
/// Ownership: owns its SSL; does not own the socket.
#pragma once

#include "tls/Ptr.h"

#include <string>

#include <sys/types.h>

struct iovec;

namespace Tls {

/// One TLS connection's reads and writes; see the file comment.
class Channel {
public:
    /// speaks TLS through ssl, whose socket is set
    explicit Channel(SslPtr&& ssl);
    virtual ~Channel() = default;
    Channel(const Channel&) = delete;
    Channel& operator=(const Channel&) = delete;

    /// recv(2)'s contract: bytes read (a short count: drained), 0 at the
    /// peer's end, -1 with errno (EAGAIN: nothing now)
    ssize_t read(char* buffer, size_t size);
    /// whether an EOF or an error met by the last read() waits for the next one
    bool hasPendingEnd() const { return pendingEnd_ != 0; }
    /// writev(2)'s contract: bytes taken (a short count: the socket is
    /// full), -1 with errno (EAGAIN: nothing taken now)
    ssize_t writev(const struct iovec* iov, int count);
    /// the last read() stopped because OpenSSL must write first
    bool readWantsWrite() const { return readWantsWrite_; }
    /// the last writev() stopped because OpenSSL must read first
    bool writeWantsRead() const { return writeWantsRead_; }
    /// who ciphers its bytes, once the handshake is done (NoteKernelTls())
    const std::string& cipheredBy() const { return cipheredBy_; }
    /// the protocol agreed ("TLSv1.3")
    const char* version() const;
    /// whether the handshake ended
    bool isEstablished() const { return !cipheredBy_.empty(); }

protected:
    /// the handshake ended: counts the connection's kernel TLS (NoteKernelTls())
    void noteEstablished();
    /// keeps the end or failure SSL_get_error() reported as sslError for result
    void noteBreak(int sslError, int result);

    SslPtr ssl_;
    int pendingEnd_ = 0; ///< 0: none; -1: EOF; else the errno of a failure, for the next read()

private:
    std::string cipheredBy_; ///< see cipheredBy(); empty until the handshake ended
    bool readWantsWrite_ = false;
    bool writeWantsRead_ = false;
};

} // namespace Tls
