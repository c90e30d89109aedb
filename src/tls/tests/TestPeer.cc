/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "tls/tests/TestPeer.h"
#include "base/TextException.h"
#include "tls/Context.h"

#include <cstdio>
#include <cstdlib>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

/// a new P-256 key
TlsTest::KeyPtr NewKey()
{
    TlsTest::KeyPtr key(EVP_EC_gen("P-256"));
    Must2(key, "EVP_EC_gen failed");
    return key;
}

/// adds extension nid=value to cert, issued by issuer
void AddExtension(X509* cert, X509* issuer, int nid, const char* value)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    std::unique_ptr<X509_EXTENSION, Tls::Free<X509_EXTENSION, X509_EXTENSION_free>> ext(
        X509V3_EXT_conf_nid(nullptr, &ctx, nid, value));
    Must2(ext, "X509V3_EXT_conf_nid failed");
    X509_add_ext(cert, ext.get(), -1);
}

/// a certificate for subject cn with key, valid in [fromDays, toDays] from now
Tls::X509Ptr NewCert(const std::string& cn, EVP_PKEY* key, long fromDays, long toDays, long serial)
{
    Tls::X509Ptr cert(X509_new());
    X509_set_version(cert.get(), 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), serial);
    X509_gmtime_adj(X509_getm_notBefore(cert.get()), fromDays * 86400);
    X509_gmtime_adj(X509_getm_notAfter(cert.get()), toDays * 86400);
    X509_set_pubkey(cert.get(), key);
    X509_NAME_add_entry_by_txt(X509_get_subject_name(cert.get()), "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
    return cert;
}

} // namespace

TlsTest::Identity TlsTest::MakeCa()
{
    Identity ca;
    ca.key = NewKey();
    ca.cert = NewCert("cuttle unit test CA", ca.key.get(), -1, 30, 1);
    X509_set_issuer_name(ca.cert.get(), X509_get_subject_name(ca.cert.get()));
    AddExtension(ca.cert.get(), ca.cert.get(), NID_basic_constraints, "critical,CA:TRUE");
    AddExtension(ca.cert.get(), ca.cert.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
    Must2(X509_sign(ca.cert.get(), ca.key.get(), EVP_sha256()) > 0, "X509_sign failed");
    return ca;
}

TlsTest::Identity TlsTest::MakeLeaf(const std::string& dnsName, const Identity* ca, long fromDays,
                                    long toDays)
{
    static long serial = 100;
    Identity leaf;
    leaf.key = NewKey();
    leaf.cert = NewCert(dnsName, leaf.key.get(), fromDays, toDays, ++serial);
    X509* issuer = ca ? ca->cert.get() : leaf.cert.get();
    X509_set_issuer_name(leaf.cert.get(), X509_get_subject_name(issuer));
    AddExtension(leaf.cert.get(), issuer, NID_subject_alt_name, ("DNS:" + dnsName).c_str());
    Must2(X509_sign(leaf.cert.get(), ca ? ca->key.get() : leaf.key.get(), EVP_sha256()) > 0,
          "X509_sign failed");
    return leaf;
}

std::string TlsTest::WritePem(const X509* cert)
{
    char path[] = "/tmp/cuttle-tls-test.XXXXXX";
    const int fd = ::mkstemp(path);
    Must2(fd >= 0, "mkstemp failed");
    FILE* file = ::fdopen(fd, "w");
    PEM_write_X509(file, cert);
    ::fclose(file);
    return path;
}

Tls::CtxPtr TlsTest::Server::ContextFor(const Identity& identity)
{
    Tls::CtxPtr ctx(SSL_CTX_new(TLS_server_method()));
    SSL_CTX_use_certificate(ctx.get(), identity.cert.get());
    SSL_CTX_use_PrivateKey(ctx.get(), identity.key.get());
    return ctx;
}

TlsTest::Server::Server(SSL_CTX* ctx)
{
    Must2(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds_) == 0,
          "socketpair failed");
    ssl_.reset(SSL_new(ctx));
    SSL_set_fd(ssl_.get(), fds_[1]);
    SSL_set_accept_state(ssl_.get());
}

TlsTest::Server::~Server()
{
    ssl_.reset();
    for (int fd : fds_) {
        if (fd >= 0)
            ::close(fd);
    }
}

int TlsTest::Server::handshake()
{
    if (SSL_is_init_finished(ssl_.get()))
        return 1;
    const int r = SSL_do_handshake(ssl_.get());
    if (r == 1)
        return 1;
    const int e = SSL_get_error(ssl_.get(), r);
    ERR_clear_error();
    return e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE ? 0 : -1;
}

void TlsTest::Server::write(const std::string& text)
{
    size_t n = 0;
    Must2(SSL_write_ex(ssl_.get(), text.data(), text.size(), &n) == 1 && n == text.size(),
          "the test server's write did not fit");
}

std::string TlsTest::Server::read()
{
    std::string out;
    char buffer[16384];
    size_t n = 0;
    while (SSL_read_ex(ssl_.get(), buffer, sizeof(buffer), &n) == 1)
        out.append(buffer, n);
    ERR_clear_error();
    return out;
}

void TlsTest::Server::close()
{
    SSL_shutdown(ssl_.get());
    ::close(fds_[1]);
    fds_[1] = -1;
}

std::string TlsTest::Pattern(size_t n)
{
    std::string s(n, '\0');
    for (size_t i = 0; i < n; ++i)
        s[i] = char('a' + i % 19);
    return s;
}

Tls::CtxPtr TlsTest::ProductionServerContext(const Identity& identity)
{
    std::string why;
    auto ctx = Tls::NewContext(TLS_server_method(), 0, 0, TLS1_2_VERSION, "TLSv1.2", why);
    Must2(ctx != nullptr, "NewContext: " + why);
    Must2(SSL_CTX_use_certificate(ctx.get(), identity.cert.get()) == 1 &&
              SSL_CTX_use_PrivateKey(ctx.get(), identity.key.get()) == 1,
          "the identity's certificate or key");
    return ctx;
}
