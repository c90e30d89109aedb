/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "tls/Context.h"

#include "log/CacheLog.h"

#include <mutex>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

thread_local Tls::KernelTlsCounts KernelTls;

/// a connected loopback TCP socket (the client's end) and its peer, or -1s
bool LoopbackPair(int& client, int& server)
{
    client = server = -1;
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener < 0)
        return false;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    bool ok = ::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
              ::listen(listener, 1) == 0 &&
              ::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len) == 0;
    if (ok) {
        client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ok = client >= 0 && ::connect(client, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
             (server = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC)) >= 0;
    }
    ::close(listener);
    return ok;
}

} // namespace

bool Tls::KernelTlsAvailable()
{
    static const bool available = [] {
        int client = -1, server = -1;
        bool yes = false;
        if (LoopbackPair(client, server))
            yes = ::setsockopt(client, IPPROTO_TCP, TCP_ULP, "tls", 3) == 0;
        for (const int fd : {client, server})
            if (fd >= 0)
                ::close(fd);
        return yes;
    }();
    return available;
}

const Tls::KernelTlsCounts& Tls::ThreadKernelTls()
{
    return KernelTls;
}

std::string Tls::NoteKernelTls(SSL* ssl)
{
    if (!(SSL_get_options(ssl) & SSL_OP_ENABLE_KTLS))
        return "OpenSSL";
    const bool send = BIO_get_ktls_send(SSL_get_wbio(ssl)) > 0;
    const bool receive = BIO_get_ktls_recv(SSL_get_rbio(ssl)) > 0;
    ++KernelTls.asked;
    KernelTls.send += send;
    KernelTls.receive += receive;
    if (send && receive)
        return "kernel TLS send and receive";
    if (send || receive)
        return std::string(send ? "kernel TLS send" : "kernel TLS receive") + ", OpenSSL for the other way";
    return "OpenSSL (kernel TLS asked for, not taken: no tls module, or the cipher)";
}

std::string Tls::LastError(const char* fallback)
{
    const unsigned long e = ERR_peek_last_error();
    ERR_clear_error();
    if (!e)
        return fallback;
    char text[256];
    ERR_error_string_n(e, text, sizeof(text));
    return text;
}

Tls::CtxPtr Tls::NewContext(const SSL_METHOD* method, uint64_t setOptions, uint64_t clearOptions,
                            int minVersion, const char* versionName, std::string& why)
{
    ERR_clear_error();
    CtxPtr ctx(SSL_CTX_new(method));
    if (!ctx) {
        why = LastError("SSL_CTX_new failed");
        return nullptr;
    }
    SSL_CTX_set_options(ctx.get(), setOptions | SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_clear_options(ctx.get(), clearOptions);
    if (SSL_CTX_get_options(ctx.get()) & SSL_OP_ENABLE_KTLS) {
        static std::once_flag told;
        std::call_once(told, [] {
            if (KernelTlsAvailable())
                debugs(83, 1,
                       "kernel TLS (options=KTLS): the kernel offers it; OpenSSL hands it each "
                       "connection whose cipher it can take (AES-GCM, ChaCha20-Poly1305)");
            else
                debugs(83, 1,
                       "kernel TLS (options=KTLS): not offered by this kernel (no tls module): OpenSSL "
                       "ciphers every TLS connection itself");
        });
    }
    SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    // Clients' connections (https_port, bumped) idle between requests, by
    // the thousand: their buffers go back while they hold no bytes (an idle
    // https_port connection: 16 KB of RSS against 24). Origin connections
    // keep theirs: an https:// fetch measured about 7% more CPU without.
    if (method == TLS_server_method())
        SSL_CTX_set_mode(ctx.get(), SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_read_ahead(ctx.get(), 1);
    SSL_CTX_set_default_read_buffer_len(ctx.get(), 65536);
    if (!SSL_CTX_set_min_proto_version(ctx.get(), minVersion)) {
        why = std::string(versionName) + ": " + LastError("not supported");
        return nullptr;
    }
    return ctx;
}
