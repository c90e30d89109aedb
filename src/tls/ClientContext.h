/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Tls::ClientContext: what every TLS connection to an origin shares
/// (one SSL_CTX built from tls_outgoing_options), and the sessions kept to
/// resume them.
///
/// One context per configuration (Proxy::Instance makes it); connections
/// hold a reference, so a pooled connection made under an older
/// configuration keeps its context until it closes. The session cache keeps
/// the last SSL_SESSION an origin ("host:port") gave, at most
/// sessionCacheSize origins, the least recently used forgotten first; a new
/// connection to that origin offers it (TLS 1.2 session IDs or tickets, TLS
/// 1.3 tickets, which arrive after the handshake and are caught by OpenSSL's
/// new-session callback). Everything here runs on the loop's thread.
#pragma once

#include "base/RefCount.h"
#include "tls/Ptr.h"

#include <cstdint>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>

namespace Tls {

/// tls_outgoing_options, as Config::TlsOutgoingOptions parsed them
/// (doc/tls.md says what each means).
struct ClientOptions {
    std::string caFile;              ///< cafile=: more CAs to trust (PEM)
    std::string caPath;              ///< capath=: a directory of hashed CA files
    std::string certFile;            ///< cert=: a client certificate (PEM, chain after it); empty: none
    std::string keyFile;             ///< key=: its private key; empty: in certFile
    std::string cipher;              ///< cipher=: OpenSSL's list for TLS 1.2 and older; empty: OpenSSL's
    int minVersion = TLS1_2_VERSION; ///< min-version= (OpenSSL's TLS1_x_VERSION)
    uint64_t setOptions = 0;         ///< options=: SSL_OP_* bits to set
    uint64_t clearOptions = 0;       ///< options=: SSL_OP_* bits to clear (-NAME)
    bool verifyPeer = true;          ///< verify the chain (flags=DONT_VERIFY_PEER turns it off)
    bool verifyDomain = true;        ///< check the name (flags=DONT_VERIFY_DOMAIN turns it off)
    bool defaultCa = true;           ///< trust the system's CAs (default-ca=off, flags=NO_DEFAULT_CA)
    bool sessionReuse = true;        ///< resume sessions (flags=NO_SESSION_REUSE turns it off)
    size_t sessionCacheSize = 1000;  ///< origins whose last session is kept
};

/// The SSL_CTX and session cache of connections to origins; see the file comment.
class ClientContext : public RefCountable {
public:
    /// A context for options, or null with why (a CA file that cannot be
    /// read, a cipher list OpenSSL refuses...).
    static RefCount<ClientContext> Make(const ClientOptions& options, std::string& why);

    /// the OpenSSL context
    SSL_CTX* get() const { return ctx_.get(); }
    /// the options it was made from
    const ClientOptions& options() const { return options_; }

    /// the last session origin `key` gave, or null; the cache keeps owning it
    SSL_SESSION* session(const std::string& key);
    /// keeps session as origin key's last one (the oldest origin goes past the bound)
    void keepSession(const std::string& key, SessionPtr&& session);
    /// forgets origin key's session (its handshake failed)
    void forgetSession(const std::string& key);
    /// origins with a session kept
    size_t sessionCount() const { return byKey_.size(); }

    ClientContext(const ClientContext&) = delete;
    ClientContext& operator=(const ClientContext&) = delete;

private:
    ClientContext(CtxPtr&& ctx, const ClientOptions& options);

    using Sessions = std::list<std::pair<std::string, SessionPtr>>; ///< newest first
    CtxPtr ctx_;
    ClientOptions options_;
    Sessions sessions_;
    std::unordered_map<std::string, Sessions::iterator> byKey_;
};

/// a shared client context
using ClientContextRef = RefCount<ClientContext>;

} // namespace Tls
