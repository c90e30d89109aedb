/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Config::CachePeer: one `cache_peer` line, with its
/// `cache_peer_access` rules (doc/design.md "Peers"), and the TLS options
/// it shares with tls_outgoing_options.
#pragma once

#include "acl/AccessList.h"

#include <chrono>
#include <cstdint>
#include <string>

namespace Config {

/// `tls_outgoing_options`: TLS to https:// origins, and a `cache_peer`'s
/// tls-KEY= options: TLS to that peer (Tls::ClientOptions has the same
/// fields, and Server::TlsClientOptions() copies them across; doc/tls.md)
struct TlsOutgoingOptions {
    std::string caFile;        ///< cafile=
    std::string caPath;        ///< capath=
    std::string certFile;      ///< cert=
    std::string keyFile;       ///< key=
    std::string cipher;        ///< cipher=
    int minVersion = 0x0303;   ///< min-version= as OpenSSL's version number (TLS1_2_VERSION)
    uint64_t setOptions = 0;   ///< options= bits set
    uint64_t clearOptions = 0; ///< options= bits cleared (-NAME)
    bool verifyPeer = true;    ///< not flags=DONT_VERIFY_PEER
    bool verifyDomain = true;  ///< not flags=DONT_VERIFY_DOMAIN
    bool defaultCa = true;     ///< default-ca=on, not flags=NO_DEFAULT_CA
    bool sessionReuse = true;  ///< not flags=NO_SESSION_REUSE
};

/// `cache_peer HOST TYPE HTTP-PORT ICP-PORT [OPTION...]`, Squid 5.7's
/// options and defaults: parents and siblings (multicast is refused).
struct CachePeer {
    /// the peer's type: a sibling gets only the requests it said ICP_HIT to
    enum class Type { Parent, Sibling, Multicast };
    /// what `login=` sends to the peer (Squid's http.cc httpFixupAuthentication)
    enum class Login {
        None,      ///< no login=: the client's credentials stay here
        Pass,      ///< PASS: the client's Proxy-Authorization goes on
        PassThru,  ///< PASSTHRU: the same (cuttle has no external acl password to send instead)
        ProxyPass, ///< PROXYPASS: the same; to an originserver, it becomes Authorization
        Fixed,     ///< user:password, sent as Basic
        UserSuffix ///< *:password: the client's user name and this suffix, sent as Basic
    };
    /// `carp-key=`: which parts of the URL CARP hashes (none set: the whole URL)
    struct CarpKey {
        bool scheme = false; ///< scheme
        bool host = false;   ///< host
        bool port = false;   ///< port
        bool path = false;   ///< path
        bool params = false; ///< params (the query)
        /// whether any part was named
        bool isSet() const { return scheme || host || port || path || params; }
    };

    std::string host;           ///< name or address literal
    Type type = Type::Parent;   ///< parent, sibling, multicast
    uint16_t httpPort = 0;      ///< where HTTP requests go
    uint16_t icpPort = 0;       ///< where ICP queries go; 0: none
    bool closestOnly = false;   ///< closest-only: never FIRST_PARENT_MISS (cuttle has no CLOSEST_PARENT_MISS)
    bool allowMiss = false;     ///< allow-miss: no only-if-cached on requests to a sibling
    unsigned basetime = 0;      ///< basetime= (ms): taken off its ICP round trips
    std::string name;           ///< name=, else host: what cache_peer_access and logs use
    bool noQuery = false;       ///< no-query
    bool defaultParent = false; ///< default: the last-resort parent
    bool proxyOnly = false;     ///< proxy-only: replies it sends are not cached
    unsigned weight = 1;        ///< weight= (at least 1, as Squid makes it)
    bool roundRobin = false;    ///< round-robin
    bool weightedRoundRobin = false; ///< weighted-round-robin
    bool carp = false;               ///< carp
    CarpKey carpKey;                 ///< carp-key=
    bool sourceHash = false;         ///< sourcehash
    bool userHash = false;           ///< userhash
    bool originServer = false;       ///< originserver: origin-form requests, Authorization for login=
    Login login = Login::None;       ///< login=
    std::string loginText;           ///< login='s user:password (Fixed) or suffix (UserSuffix)
    std::chrono::milliseconds connectTimeout{0}; ///< connect-timeout=; 0: peer_connect_timeout
    unsigned connectFailLimit = 10;              ///< connect-fail-limit=: failed connects before it is dead
    unsigned maxConn = 0;                        ///< max-conn=; 0: no limit
    unsigned standby = 0;                        ///< standby= (accepted; no connection is opened ahead)
    bool noDigest = false;                       ///< no-digest (cuttle has no cache digests)
    bool noNetdbExchange = false;                ///< no-netdb-exchange (cuttle has no netdb)
    Acl::AccessList access;                      ///< cache_peer_access rules; none: every request may use it
    bool tls = false;                            ///< tls (or ssl): TLS to the peer
    TlsOutgoingOptions tlsOptions;               ///< tls-cafile= and the other tls-KEY= options
    std::string tlsDomain; ///< tls-domain=: the name its certificate must have; empty: host
    std::string origin;    ///< "FILE:LINE" of the line
};

} // namespace Config
