/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The other end of the TLS unit tests: a throw-away CA, certificates
/// it signs (or self-signed ones) made in memory, and a TLS server over one
/// end of a non-blocking socketpair whose other end a Tls::Connection uses.
#pragma once

#include "tls/ClientContext.h"
#include "tls/Ptr.h"

#include <string>

namespace TlsTest {

/// an owned key pair
using KeyPtr = std::unique_ptr<EVP_PKEY, Tls::Free<EVP_PKEY, EVP_PKEY_free>>;

/// A certificate and its key.
struct Identity {
    Tls::X509Ptr cert;
    KeyPtr key;
};

/// a CA certificate (CN=cuttle unit test CA) and its key
Identity MakeCa();
/// a certificate for dnsName signed by ca (self-signed when ca is null),
/// valid from now + fromDays to now + toDays
Identity MakeLeaf(const std::string& dnsName, const Identity* ca, long fromDays = -1, long toDays = 30);
/// writes cert as PEM to a new temporary file and returns its path
std::string WritePem(const X509* cert);
/// n bytes of a repeating pattern ("abc...s" again and again): a body
/// whose every byte is checked
std::string Pattern(size_t n);
/// a server context for identity as cuttle makes them (Tls::NewContext():
/// read-ahead, partial writes from moving buffers, buffers released while
/// empty), TLS 1.2 and up
Tls::CtxPtr ProductionServerContext(const Identity& identity);

/// A non-blocking socketpair with a TLS server on one end.
class Server {
public:
    /// a server context for identity (several Servers share one to resume sessions)
    static Tls::CtxPtr ContextFor(const Identity& identity);
    /// serves with ctx (not owned) on the server end
    explicit Server(SSL_CTX* ctx);
    ~Server();
    /// the client end, for a Tls::Connection
    int clientFd() const { return fds_[0]; }
    /// one step of the server's handshake: 1 done, 0 waiting, -1 failed
    int handshake();
    /// writes text whole (the socketpair's buffer must hold it)
    void write(const std::string& text);
    /// reads what has arrived (up to a limit)
    std::string read();
    /// sends close_notify and closes the server end
    void close();
    /// whether the last handshake resumed a session
    bool resumed() const { return SSL_session_reused(ssl_.get()) == 1; }

private:
    Tls::SslPtr ssl_;
    int fds_[2] = {-1, -1};
};

/// drives client and server handshakes in turn until both end (a bounded
/// number of steps); returns the client's last step
template <typename Client>
auto Handshake(Client& client, Server& server)
{
    auto step = client.handshake();
    for (int i = 0; i < 50 && step == Client::Step::Blocked; ++i) {
        if (server.handshake() < 0)
            break;
        step = client.handshake();
    }
    server.handshake(); // TLS 1.3: the server ends after the client's Finished
    return step;
}

} // namespace TlsTest
