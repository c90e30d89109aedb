/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "tls/ClientContext.h"
#include "tls/Connection.h"
#include "tls/Context.h"

namespace {

/// OpenSSL's new-session callback: keeps the session for the connection's origin
int NewSession(SSL* ssl, SSL_SESSION* session)
{
    auto* connection = Tls::Connection::Of(ssl);
    if (!connection)
        return 0; // OpenSSL keeps its reference
    connection->noteSession(Tls::SessionPtr(session));
    return 1; // the reference is ours now
}

} // namespace

Tls::ClientContext::ClientContext(CtxPtr&& ctx, const ClientOptions& options)
    : ctx_(std::move(ctx)), options_(options)
{}

RefCount<Tls::ClientContext> Tls::ClientContext::Make(const ClientOptions& options, std::string& why)
{
    auto ctx = NewContext(TLS_client_method(), options.setOptions, options.clearOptions, options.minVersion,
                          "min-version", why);
    if (!ctx)
        return nullptr;
    if (!options.cipher.empty() && !SSL_CTX_set_cipher_list(ctx.get(), options.cipher.c_str())) {
        why = "cipher=" + options.cipher + ": " + LastError("no cipher matches");
        return nullptr;
    }
    if (options.defaultCa && !SSL_CTX_set_default_verify_paths(ctx.get())) {
        why = "the system CA store: " + LastError("cannot be read");
        return nullptr;
    }
    if ((!options.caFile.empty() || !options.caPath.empty()) &&
        !SSL_CTX_load_verify_locations(ctx.get(), options.caFile.empty() ? nullptr : options.caFile.c_str(),
                                       options.caPath.empty() ? nullptr : options.caPath.c_str())) {
        why = "cafile=" + options.caFile + " capath=" + options.caPath + ": " + LastError("cannot be read");
        return nullptr;
    }
    if (!options.certFile.empty()) {
        const auto& key = options.keyFile.empty() ? options.certFile : options.keyFile;
        if (!SSL_CTX_use_certificate_chain_file(ctx.get(), options.certFile.c_str()) ||
            !SSL_CTX_use_PrivateKey_file(ctx.get(), key.c_str(), SSL_FILETYPE_PEM) ||
            !SSL_CTX_check_private_key(ctx.get())) {
            why = "cert=" + options.certFile + " key=" + key + ": " + LastError("cannot be used");
            return nullptr;
        }
    }
    if (options.verifyPeer)
        SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, VerifyCallback);
    else
        SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);
    if (options.sessionReuse) {
        SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
        SSL_CTX_sess_set_new_cb(ctx.get(), NewSession);
    } else {
        SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
        SSL_CTX_set_options(ctx.get(), SSL_OP_NO_TICKET);
    }
    return RefCount<ClientContext>(new ClientContext(std::move(ctx), options));
}

SSL_SESSION* Tls::ClientContext::session(const std::string& key)
{
    const auto found = byKey_.find(key);
    if (found == byKey_.end())
        return nullptr;
    sessions_.splice(sessions_.begin(), sessions_, found->second);
    return found->second->second.get();
}

void Tls::ClientContext::keepSession(const std::string& key, SessionPtr&& session)
{
    if (!options_.sessionReuse || options_.sessionCacheSize == 0)
        return;
    if (const auto found = byKey_.find(key); found != byKey_.end()) {
        found->second->second = std::move(session);
        sessions_.splice(sessions_.begin(), sessions_, found->second);
        return;
    }
    sessions_.emplace_front(key, std::move(session));
    byKey_[key] = sessions_.begin();
    if (sessions_.size() > options_.sessionCacheSize) {
        byKey_.erase(sessions_.back().first);
        sessions_.pop_back();
    }
}

void Tls::ClientContext::forgetSession(const std::string& key)
{
    const auto found = byKey_.find(key);
    if (found == byKey_.end())
        return;
    sessions_.erase(found->second);
    byKey_.erase(found);
}
