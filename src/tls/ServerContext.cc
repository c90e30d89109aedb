/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "tls/ServerContext.h"

#include <openssl/err.h>
#include <openssl/pem.h>

namespace {

/// OpenSSL's reason for the last failure, or fallback
std::string Reason(const char* fallback)
{
    const unsigned long e = ERR_peek_last_error();
    ERR_clear_error();
    if (!e)
        return fallback;
    char text[256];
    ERR_error_string_n(e, text, sizeof(text));
    return text;
}

} // namespace

RefCount<Tls::ServerContext> Tls::ServerContext::Make(const ServerOptions& options, std::string& why)
{
    ERR_clear_error();
    CtxPtr ctx(SSL_CTX_new(TLS_server_method()));
    if (!ctx) {
        why = Reason("SSL_CTX_new failed");
        return nullptr;
    }
    // a client's FIN without close_notify is its end, as a plain client's FIN is
    SSL_CTX_set_options(ctx.get(), options.setOptions | SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_clear_options(ctx.get(), options.clearOptions);
    SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (!SSL_CTX_set_min_proto_version(ctx.get(), options.minVersion)) {
        why = "tls-min-version: " + Reason("not supported");
        return nullptr;
    }
    const auto& key = options.keyFile.empty() ? options.certFile : options.keyFile;
    if (options.certFile.empty()) {
        why = "tls-cert= is required";
        return nullptr;
    }
    if (!SSL_CTX_use_certificate_chain_file(ctx.get(), options.certFile.c_str()) ||
        !SSL_CTX_use_PrivateKey_file(ctx.get(), key.c_str(), SSL_FILETYPE_PEM) ||
        !SSL_CTX_check_private_key(ctx.get())) {
        why = "tls-cert=" + options.certFile + " tls-key=" + key + ": " + Reason("cannot be used");
        return nullptr;
    }
    if (!options.cipher.empty() && !SSL_CTX_set_cipher_list(ctx.get(), options.cipher.c_str())) {
        why = "cipher=" + options.cipher + ": " + Reason("no cipher matches");
        return nullptr;
    }
    if (!options.dhFile.empty()) {
        std::unique_ptr<BIO, Free<BIO, BIO_free_all>> bio(BIO_new_file(options.dhFile.c_str(), "r"));
        EVP_PKEY* dh = bio ? PEM_read_bio_Parameters(bio.get(), nullptr) : nullptr;
        if (!dh || !SSL_CTX_set0_tmp_dh_pkey(ctx.get(), dh)) {
            EVP_PKEY_free(dh);
            why = "tls-dh=" + options.dhFile + ": " + Reason("cannot be read");
            return nullptr;
        }
    }
    if (!options.caFile.empty() &&
        !SSL_CTX_load_verify_locations(ctx.get(), options.caFile.c_str(), nullptr)) {
        why = "cafile=" + options.caFile + ": " + Reason("cannot be read");
        return nullptr;
    }
    if (!options.clientCa.empty()) {
        STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(options.clientCa.c_str());
        if (!names || !SSL_CTX_load_verify_locations(ctx.get(), options.clientCa.c_str(), nullptr)) {
            sk_X509_NAME_pop_free(names, X509_NAME_free);
            why = "clientca=" + options.clientCa + ": " + Reason("cannot be read");
            return nullptr;
        }
        SSL_CTX_set_client_CA_list(ctx.get(), names);
        SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
    }
    return RefCount<ServerContext>(new ServerContext(std::move(ctx)));
}
