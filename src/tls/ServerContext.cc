/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "tls/ServerContext.h"
#include "tls/Context.h"

#include <openssl/pem.h>

RefCount<Tls::ServerContext> Tls::ServerContext::Make(const ServerOptions& options, std::string& why)
{
    auto ctx = NewContext(TLS_server_method(), options.setOptions, options.clearOptions, options.minVersion,
                          "tls-min-version", why);
    if (!ctx)
        return nullptr;
    const auto& key = options.keyFile.empty() ? options.certFile : options.keyFile;
    if (options.certFile.empty()) {
        why = "tls-cert= is required";
        return nullptr;
    }
    if (!SSL_CTX_use_certificate_chain_file(ctx.get(), options.certFile.c_str()) ||
        !SSL_CTX_use_PrivateKey_file(ctx.get(), key.c_str(), SSL_FILETYPE_PEM) ||
        !SSL_CTX_check_private_key(ctx.get())) {
        why = "tls-cert=" + options.certFile + " tls-key=" + key + ": " + LastError("cannot be used");
        return nullptr;
    }
    if (!options.cipher.empty() && !SSL_CTX_set_cipher_list(ctx.get(), options.cipher.c_str())) {
        why = "cipher=" + options.cipher + ": " + LastError("no cipher matches");
        return nullptr;
    }
    if (!options.dhFile.empty()) {
        std::unique_ptr<BIO, Free<BIO, BIO_free_all>> bio(BIO_new_file(options.dhFile.c_str(), "r"));
        EVP_PKEY* dh = bio ? PEM_read_bio_Parameters(bio.get(), nullptr) : nullptr;
        if (!dh || !SSL_CTX_set0_tmp_dh_pkey(ctx.get(), dh)) {
            EVP_PKEY_free(dh);
            why = "tls-dh=" + options.dhFile + ": " + LastError("cannot be read");
            return nullptr;
        }
    }
    if (!options.caFile.empty() &&
        !SSL_CTX_load_verify_locations(ctx.get(), options.caFile.c_str(), nullptr)) {
        why = "cafile=" + options.caFile + ": " + LastError("cannot be read");
        return nullptr;
    }
    if (!options.clientCa.empty()) {
        STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(options.clientCa.c_str());
        if (!names || !SSL_CTX_load_verify_locations(ctx.get(), options.clientCa.c_str(), nullptr)) {
            sk_X509_NAME_pop_free(names, X509_NAME_free);
            why = "clientca=" + options.clientCa + ": " + LastError("cannot be read");
            return nullptr;
        }
        SSL_CTX_set_client_CA_list(ctx.get(), names);
        SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
    }
    return RefCount<ServerContext>(new ServerContext(std::move(ctx)));
}
