/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "tls/Connection.h"
#include "tls/Context.h"
#include "base/TextException.h"
#include "base/TlsErrors.h"
#include "log/CacheLog.h"

#include <cerrno>
#include <cstring>

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/err.h>

namespace {

/// the SSL ex_data slot that holds each SSL's Tls::Connection
int ConnectionIndex()
{
    static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
    return index;
}

/// whether host is an IPv4 or IPv6 literal
bool IsAddress(const std::string& host)
{
    unsigned char buffer[16];
    return inet_pton(AF_INET, host.c_str(), buffer) == 1 || inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

/// X509_NAME_oneline(): "/CN=origin.test", as Squid's %ssl_subject and %ssl_ca_name print
std::string OneLine(const X509_NAME* name)
{
    if (!name)
        return "[Not available]";
    char text[512];
    X509_NAME_oneline(name, text, sizeof(text));
    return text;
}

/// ASN1_TIME_print(): "Feb  1 00:00:00 2020 GMT", as Squid's %ssl_notbefore and %ssl_notafter print
std::string TimeText(const ASN1_TIME* when)
{
    if (!when)
        return "[Not available]";
    std::unique_ptr<BIO, Tls::Free<BIO, BIO_free_all>> bio(BIO_new(BIO_s_mem()));
    ASN1_TIME_print(bio.get(), when);
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, size_t(size));
}

} // namespace

Tls::VerifyFailure Tls::CertificateFailure(int code, X509* cert)
{
    // Squid 5.7's English error-details.txt for the errors an origin's
    // certificate commonly has; "%ssl_error_descr: %ssl_subject" for the rest
    VerifyFailure failure;
    failure.code = code;
    failure.name = TlsErrorName(code);
    const auto subject = OneLine(cert ? X509_get_subject_name(cert) : nullptr);
    const auto issuer = OneLine(cert ? X509_get_issuer_name(cert) : nullptr);
    switch (code) {
    case X509_V_ERR_CERT_HAS_EXPIRED:
        failure.detail = "SSL Certificate expired on: " + TimeText(cert ? X509_get0_notAfter(cert) : nullptr);
        break;
    case X509_V_ERR_CERT_NOT_YET_VALID:
        failure.detail =
            "SSL Certificate is not valid before: " + TimeText(cert ? X509_get0_notBefore(cert) : nullptr);
        break;
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
        failure.detail = "SSL Certificate error: certificate issuer (CA) not known: " + issuer;
        break;
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
        failure.detail = "Self-signed SSL Certificate: " + subject;
        break;
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
        failure.detail = "Self-signed SSL Certificate in chain: " + subject;
        break;
    case SquidX509VErrDomainMismatch:
        failure.detail = "Certificate does not match domainname: " + subject;
        break;
    default:
        failure.detail = std::string(X509_verify_cert_error_string(code)) + ": " + subject;
        break;
    }
    return failure;
}

Tls::VerifyFailure Tls::HandshakeFailure(const std::string& reason)
{
    VerifyFailure failure;
    failure.code = SquidTlsErrConnect;
    failure.name = TlsErrorName(SquidTlsErrConnect);
    failure.detail = "Failed to establish a secure connection: " + reason;
    return failure;
}

int Tls::VerifyCallback(int ok, X509_STORE_CTX* store)
{
    const auto* ssl =
        static_cast<const SSL*>(X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()));
    auto* connection = ssl ? Connection::Of(ssl) : nullptr;
    if (ok || !connection)
        return ok;
    int code = X509_STORE_CTX_get_error(store);
    // SSL_set1_host()'s check is the one Squid makes itself and names its own way
    if (code == X509_V_ERR_HOSTNAME_MISMATCH || code == X509_V_ERR_IP_ADDRESS_MISMATCH)
        code = SquidX509VErrDomainMismatch;
    if (connection->allowError_ && connection->allowError_(code)) {
        debugs(83, 2, "TLS certificate error " << TlsErrorName(code) << " allowed by sslproxy_cert_error");
        return 1;
    }
    if (!connection->failure_.code)
        connection->failure_ = CertificateFailure(code, X509_STORE_CTX_get_current_cert(store));
    return 0;
}

Tls::Connection* Tls::Connection::Of(const SSL* ssl)
{
    return static_cast<Connection*>(SSL_get_ex_data(ssl, ConnectionIndex()));
}

Tls::Connection::Connection(const ClientContextRef& context, int fd, const std::string& host,
                            std::string sessionKey, AllowError allowError)
    : Channel(SslPtr(SSL_new(context->get()))), context_(context), sessionKey_(std::move(sessionKey)),
      allowError_(std::move(allowError))
{
    SSL_set_ex_data(ssl_.get(), ConnectionIndex(), this);
    Must2(SSL_set_fd(ssl_.get(), fd) == 1, "SSL_set_fd failed");
    const bool literal = IsAddress(host);
    if (!literal)
        SSL_set_tlsext_host_name(ssl_.get(), host.c_str()); // SNI (RFC 6066 section 3): names only
    const auto& options = context_->options();
    if (options.verifyPeer && options.verifyDomain) {
        if (literal)
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_.get()), host.c_str());
        else
            SSL_set1_host(ssl_.get(), host.c_str());
    }
    if (auto* session = context_->session(sessionKey_)) {
        SSL_set_session(ssl_.get(), session);
        debugs(83, 3, "offering " << sessionKey_ << " its last TLS session");
    }
}

Tls::Connection::~Connection()
{
    SSL_set_ex_data(ssl_.get(), ConnectionIndex(), nullptr);
    // OpenSSL marks the session of a connection freed before it sent a
    // close_notify as not resumable: send one (best effort, never waited
    // for), or, when the origin already ended, only say it was sent; a
    // connection that failed keeps its mark
    if (!SSL_is_init_finished(ssl_.get()) || pendingEnd_ > 0)
        return;
    if (pendingEnd_ == 0)
        SSL_shutdown(ssl_.get());
    else
        SSL_set_shutdown(ssl_.get(), SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
    ERR_clear_error();
}

bool Tls::Connection::isResumed() const
{
    return SSL_session_reused(ssl_.get()) == 1;
}

void Tls::Connection::noteSession(SessionPtr&& session)
{
    debugs(83, 3, "keeping a TLS session of " << sessionKey_);
    context_->keepSession(sessionKey_, std::move(session));
}

Tls::Connection::Step Tls::Connection::handshake()
{
    ERR_clear_error();
    errno = 0;
    const int r = SSL_connect(ssl_.get());
    if (r == 1) {
        allowError_ = nullptr; // it may hold the transaction that started the handshake
        noteEstablished();
        return Step::Done;
    }
    const int e = SSL_get_error(ssl_.get(), r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
        return Step::Blocked;
    if (!failure_.code) {
        auto reason = LastError("");
        if (reason.empty())
            reason = errno ? std::strerror(errno) : "the origin closed the connection";
        failure_ = HandshakeFailure(reason);
    }
    context_->forgetSession(sessionKey_);
    return Step::Failed;
}
