/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Tls::Connection: the TLS client side of one origin socket, driven by
/// the edge-triggered loop (doc/design.md "TLS").
///
/// Nothing here blocks or waits: the socket is non-blocking and every call
/// does what OpenSSL can do now. The rules that keep it right under
/// edge-triggered epoll:
///
///   - handshake() runs SSL_connect until it wants a read or a write that
///     the socket cannot do yet; the owner calls it again on any event.
///   - read() calls SSL_read into the space it is given until OpenSSL wants
///     more bytes from the socket (SSL_ERROR_WANT_READ) or the space is
///     full, so a short read means drained, as recv() does; an EOF or error
///     met after some bytes is kept for the next call (hasPendingEnd()).
///   - writev() calls SSL_write per piece, from the caller's buffers (the
///     cipher's copy is the only one); a record OpenSSL could not send
///     whole is offered again by the caller from the same bytes.
///   - a read that needs a write (SSL_ERROR_WANT_WRITE) says so
///     (readWantsWrite()): the owner reads again when the socket turns
///     writable; a write that needs a read (writeWantsRead()), when it
///     turns readable.
///
/// Verification: the chain against the context's CAs, the name against the
/// host (SSL_set1_host, or the address for an IP literal), SNI for a name.
/// Each error goes to the allowError function (sslproxy_cert_error); the
/// first one it refuses fails the handshake and is kept in failure().
///
/// Ownership: owns its SSL; does not own the socket.
#pragma once

#include "tls/ClientContext.h"
#include "tls/forward.h"

#include <functional>
#include <string>

#include <sys/types.h>

struct iovec;

namespace Tls {

/// Why a TLS connection to an origin failed, as the ERR_SECURE_CONNECT_FAIL page says it.
struct VerifyFailure {
    int code = 0;       ///< the error (base/TlsErrors.h codes); 0: none
    std::string name;   ///< %x: Squid's name of it ("X509_V_ERR_CERT_HAS_EXPIRED")
    std::string detail; ///< %D: Squid's English detail ("SSL Certificate expired on: ...")
};

/// The failure for certificate error code found on cert (which may be null).
VerifyFailure CertificateFailure(int code, X509* cert);
/// The failure of a handshake that broke off without a certificate error
/// (SQUID_TLS_ERR_CONNECT), with OpenSSL's reason or the system's.
VerifyFailure HandshakeFailure(const std::string& reason);

/// One TLS client connection; see the file comment.
class Connection {
public:
    /// sslproxy_cert_error: whether an error (base/TlsErrors.h code) may pass
    using AllowError = std::function<bool(int code)>;

    /// TLS over the connected socket fd to host (its name or IP literal);
    /// sessionKey names the origin in the context's session cache
    Connection(const ClientContextRef& context, int fd, const std::string& host, std::string sessionKey,
               AllowError allowError);
    ~Connection();
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    /// what a handshake step ended with
    enum class Step {
        Done,    ///< established: read and write now
        Blocked, ///< waiting for the socket: call again on its next event
        Failed   ///< see failure()
    };
    /// goes on with the handshake as far as the socket allows
    Step handshake();
    /// why the handshake failed
    const VerifyFailure& failure() const { return failure_; }
    /// whether the handshake resumed a kept session
    bool isResumed() const;
    /// the protocol agreed ("TLSv1.3")
    const char* version() const;
    /// who ciphers its bytes, once the handshake is done (NoteKernelTls())
    const std::string& cipheredBy() const { return cipheredBy_; }
    /// the origin's certificate (after the handshake; a resumed session's too), or null
    X509Ptr peerCertificate() const { return X509Ptr(SSL_get1_peer_certificate(ssl_.get())); }

    /// recv(2)'s contract: bytes read (a short count: drained), 0 at the
    /// origin's end, -1 with errno (EAGAIN: nothing now)
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

    /// the Connection of ssl (OpenSSL's callbacks), or null
    static Connection* Of(const SSL* ssl);
    /// keeps a session the origin gave (OpenSSL's new-session callback)
    void noteSession(SessionPtr&& session);

private:
    friend int VerifyCallback(int ok, X509_STORE_CTX* store);
    void noteBreak(int sslError, int result);

    ClientContextRef context_;
    SslPtr ssl_;
    std::string sessionKey_;
    AllowError allowError_; ///< cleared once the handshake is done
    VerifyFailure failure_;
    std::string cipheredBy_; ///< see cipheredBy()
    int pendingEnd_ = 0;     ///< 0: none; -1: EOF; else the errno of a failure, for the next read()
    bool readWantsWrite_ = false;
    bool writeWantsRead_ = false;
};

/// the verify callback the client context installs (friend of Connection)
int VerifyCallback(int ok, X509_STORE_CTX* store);

} // namespace Tls
