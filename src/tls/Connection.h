/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Tls::Connection: the TLS client side of one origin socket, driven by
/// the edge-triggered loop (doc/design.md "TLS").
///
/// Nothing here blocks or waits: the socket is non-blocking and every call
/// does what OpenSSL can do now. handshake() runs SSL_connect until it
/// wants a read or a write that the socket cannot do yet; the owner calls
/// it again on any event. Reads and writes are a Tls::Channel's (its rules
/// under edge-triggered epoll: tls/Channel.h).
///
/// Verification: the chain against the context's CAs, the name against the
/// host (SSL_set1_host, or the address for an IP literal), SNI for a name.
/// Each error goes to the allowError function (sslproxy_cert_error); the
/// first one it refuses fails the handshake and is kept in failure().
///
/// Ownership: owns its SSL; does not own the socket.
#pragma once

#include "tls/Channel.h"
#include "tls/ClientContext.h"
#include "tls/forward.h"

#include <functional>
#include <string>

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
class Connection : public Channel {
public:
    /// sslproxy_cert_error: whether an error (base/TlsErrors.h code) may pass
    using AllowError = std::function<bool(int code)>;

    /// TLS over the connected socket fd to host (its name or IP literal);
    /// sessionKey names the origin in the context's session cache
    Connection(const ClientContextRef& context, int fd, const std::string& host, std::string sessionKey,
               AllowError allowError);
    ~Connection() override;

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
    /// the origin's certificate (after the handshake; a resumed session's too), or null
    X509Ptr peerCertificate() const { return X509Ptr(SSL_get1_peer_certificate(ssl_.get())); }

    /// the Connection of ssl (OpenSSL's callbacks), or null
    static Connection* Of(const SSL* ssl);
    /// keeps a session the origin gave (OpenSSL's new-session callback)
    void noteSession(SessionPtr&& session);

private:
    friend int VerifyCallback(int ok, X509_STORE_CTX* store);

    ClientContextRef context_;
    std::string sessionKey_;
    AllowError allowError_; ///< cleared once the handshake is done
    VerifyFailure failure_;
};

/// the verify callback the client context installs (friend of Connection)
int VerifyCallback(int ok, X509_STORE_CTX* store);

} // namespace Tls
