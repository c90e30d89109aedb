/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Config::Settings: the immutable snapshot of one parsed squid.conf.
///
/// The parser (Config::Parser) fills one Settings from the directive table;
/// the daemon holds it by `std::shared_ptr<const Settings>` and swaps the
/// whole snapshot on reconfigure, so nothing ever sees a half-applied file.
/// Every field starts at the default its directive declares in the table.

#pragma once

#include "acl/AccessList.h"
#include "acl/Address.h"
#include "acl/Registry.h"
#include "config/CachePeer.h"
#include "config/HeaderRules.h"
#include "base/Regex.h"
#include "log/AccessLog.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Config {

/// One `http_port [addr:]port` line.
struct HttpPort {
    std::string host;   ///< address literal to bind; empty means every address
    uint16_t port = 0;  ///< 0 binds a free port (cache.log names it)
    std::string origin; ///< "FILE:LINE" of the directive, for messages
    /// `name=` (the myportname acl); Squid's default is the address as written
    std::string name;
    /// `intercept` (or `transparent`): connections NATed to this port; the
    /// original destination comes from SO_ORIGINAL_DST (doc/design.md "Interception")
    bool intercept = false;
    /// an `https_port`: clients speak TLS to it (Tls::ServerOptions has the same fields)
    bool tls = false;
    std::string tlsCert;          ///< tls-cert= (or cert=)
    std::string tlsKey;           ///< tls-key= (or key=); empty: in tlsCert
    std::string tlsDh;            ///< tls-dh= (or dhparams=)
    std::string tlsCaFile;        ///< cafile=
    std::string tlsClientCa;      ///< clientca=
    std::string tlsCipher;        ///< cipher=
    int tlsMinVersion = 0x0303;   ///< tls-min-version= (OpenSSL's TLS1_2_VERSION)
    uint64_t tlsSetOptions = 0;   ///< options= bits set
    uint64_t tlsClearOptions = 0; ///< options= bits cleared
    /// `ssl-bump`: on an http_port a CONNECT's TLS may be bumped; on an
    /// `https_port ... intercept` the intercepted TLS may (a CONNECT to the
    /// original destination is made up for it). The bump CA is in
    /// tlsCert/tlsKey (doc/design.md "SSL bump", "Interception").
    bool sslBump = false;
    bool generateHostCertificates = true;     ///< generate-host-certificates= (off: show tlsCert itself)
    uint64_t dynamicCertCacheBytes = 4 << 20; ///< dynamic_cert_mem_cache_size= (Squid's default: 4 MB)

    /// whether cuttle ends the clients' TLS with tlsCert itself (an
    /// https_port that does not bump)
    bool terminatesTls() const { return tls && !sslBump; }
};

/// One `ssl_bump ACTION [!]ACL...` line.
struct SslBumpRule {
    /// what the rule does (Squid 5's older names map on these: client-first
    /// and server-first to Bump, none to Splice)
    enum class Action { Peek, Stare, Splice, Bump, Terminate };
    Action action = Action::Splice;
    Acl::AccessList acls; ///< the line's acls as one `allow ACL...` rule
};

/// One `sslproxy_cert_sign signTrusted|signUntrusted|signSelf [!]ACL...` line.
struct CertSignRule {
    /// who signs a minted certificate: the bump CA, an untrusted CA cuttle
    /// makes from it, or the certificate itself (doc/design.md "SSL bump")
    enum class Signing { Trusted, Untrusted, Self };
    Signing signing = Signing::Trusted;
    Acl::AccessList acls; ///< the line's acls as one `allow ACL...` rule
};

/// One `sslproxy_cert_adapt setValidAfter|setValidBefore|setCommonName[{CN}] [!]ACL...` line.
struct CertAdaptRule {
    /// setValidAfter: the CA's "Not After"; setValidBefore: the CA's "Not
    /// Before"; setCommonName: the CN (and the one name) CN or the CONNECT's host
    enum class Adaptation { ValidAfter, ValidBefore, CommonName };
    Adaptation adaptation = Adaptation::ValidAfter;
    std::string commonName; ///< setCommonName{CN}'s CN; empty: the CONNECT's host
    Acl::AccessList acls;   ///< the line's acls as one `allow ACL...` rule
};

/// `request_buffer_size SIZE | auto [min=SIZE] [max=SIZE]`
struct BufferSize {
    bool isAuto = false; ///< adapt per connection between min and max
    uint64_t fixed = 0;  ///< the size when !isAuto
    uint64_t min = 0;    ///< lower bound in auto mode
    uint64_t max = 0;    ///< upper bound in auto mode
};

/// One `access_log` line.
struct AccessLogSpec {
    std::string format = "squid"; ///< the log format's name as written (a built-in one or a logformat line's)
    Log::OutputSpec output;       ///< module, place, format and options; filter: set when the logs open
    Acl::AccessList acls;         ///< the line's acls as one `allow ACL...` rule; empty: every request

    /// Whether the log takes a transaction: its acls all match (or it has none).
    bool matches(const Acl::Checklist& facts) const
    {
        return acls.size() == 0 || acls.check(facts) == Acl::Answer::Allowed;
    }
};

/// One `logformat NAME FORMAT` line.
struct LogformatSpec {
    std::string name;                          ///< NAME
    std::shared_ptr<const Log::Format> format; ///< FORMAT, parsed
};

/// `via`, `forwarded_for` values.
enum class ForwardedFor { On, Off, Transparent, Truncate, Delete };

using Duration = std::chrono::milliseconds;

/// `children N [startup=N] [idle=N] [concurrency=N] [queue-size=N]` of a
/// helper (auth_param, url_rewrite_children), with Squid 5.7's defaults.
struct HelperChildren {
    unsigned children = 20;   ///< children N: the most helper processes
    unsigned startup = 0;     ///< startup=N: started at once
    unsigned idle = 1;        ///< idle=N: kept idle
    unsigned concurrency = 0; ///< concurrency=N: requests in flight per helper (0: one)
    unsigned queueSize = 0;   ///< queue-size=N; 0: twice children, as in Squid
};

/// A helper program and its children: `url_rewrite_program` with
/// `url_rewrite_children`, `store_id_program` with `store_id_children`.
struct HelperProgramSettings {
    std::vector<std::string> program; ///< the helper and its arguments; empty: none
    HelperChildren children;          ///< ..._children
};

/// `auth_param basic ...` (Squid 5.7's names and defaults).
struct AuthBasicSettings {
    std::vector<std::string> program; ///< the helper and its arguments; empty: no basic scheme
    HelperChildren children;          ///< auth_param basic children ...
    std::string realm = "Squid proxy-caching web server"; ///< the realm of the 407 challenge
    Duration credentialsTtl = std::chrono::hours(2);      ///< how long a good check is trusted
    bool caseSensitive = false;                           ///< off: user names are lowercased before the check
    bool utf8 = false; ///< on: Latin-1 credentials go to the helper as UTF-8
};

/// `auth_param digest ...` (Squid 5.7's names and defaults).
struct AuthDigestSettings {
    std::vector<std::string> program; ///< the helper and its arguments; empty: no digest scheme
    HelperChildren children;          ///< auth_param digest children ...
    std::string realm = "Squid proxy-caching web server";    ///< the realm of the 407 challenge
    Duration nonceGarbageInterval = std::chrono::minutes(5); ///< how often expired nonces are dropped
    Duration nonceMaxDuration = std::chrono::minutes(30);    ///< how long a nonce is good
    unsigned nonceMaxCount = 50;                             ///< how many uses a nonce is good for
    bool nonceStrictness = false; ///< on: each nonce count must be the last one plus one
    bool checkNonceCount = true;  ///< off: the client's nonce count is ignored
    bool postWorkaround = false;  ///< on: a non-GET digest computed for GET passes (old browsers)
    bool utf8 = false;            ///< on: a Latin-1 user name goes to the helper as UTF-8
};

/// One `refresh_pattern [-i] REGEX MIN PERCENT MAX [OPTION...]` line
/// (Squid 5.7's meaning; doc/directives.md).
///
/// The freshness numbers and options mirror Store::RefreshRule
/// (store/Freshness.h) field for field, with the same names and units: the
/// layering (test-suite/source/layering.sh) lets neither config include
/// store headers nor store include config's, so the sides, which may use
/// both, copy a matched pattern into a Store::RefreshRule. A
/// default-constructed RefreshPattern is Squid's built-in rule for URLs that
/// no line matches (0, 20%, 3 days), as a default Store::RefreshRule is.
struct RefreshPattern {
    std::string pattern;                ///< the regex as written
    bool caseInsensitive = false;       ///< `-i`
    std::shared_ptr<const Regex> regex; ///< compiled; nullptr only in the built-in default
    int64_t min = 0;                    ///< seconds (squid.conf says minutes)
    int64_t percent = 20;               ///< of (Date - Last-Modified); may exceed 100, as in Squid
    int64_t max = 3 * 24 * 3600;        ///< seconds (squid.conf says minutes)
    bool overrideExpire = false;        ///< override-expire: min overrides an explicit expiry
    bool overrideLastmod = false;       ///< override-lastmod: min overrides the Last-Modified factor
    bool reloadIntoIms = false;         ///< reload-into-ims: a client reload becomes a validation
    bool ignoreReload = false;          ///< ignore-reload: a client reload is ignored
    bool ignoreNoStore = false;         ///< ignore-no-store: a response's no-store is ignored
    bool ignorePrivate = false;         ///< ignore-private: a response's private is ignored
    bool refreshIms = false;            ///< refresh-ims: a client's If-Modified-Since goes to the origin
    bool storeStale = false;            ///< store-stale: store responses that are stale or unvalidatable
    int64_t maxStale = -1;              ///< max-stale=NN seconds; < 0: max_stale applies
    std::string origin;                 ///< "FILE:LINE" of the line, for messages

    /// Whether this line applies to `url` (always true for the built-in default).
    bool matches(const std::string& url) const { return !regex || regex->matches(url); }
};

/// `memory_replacement_policy` and `cache_replacement_policy` values (Squid's
/// names: lru, heap GDSF, heap LFUDA, heap LRU).
enum class ReplacementPolicy { Lru, HeapGdsf, HeapLfuda, HeapLru };

/// One `cache_dir TYPE DIR MBYTES [L1 L2] [OPTION...]` line. Every type
/// (ufs, aufs, diskd, rock) is served by the one disk store (src/disk/);
/// doc/directives.md says how each type's words are read.
struct CacheDir {
    std::string type;                ///< ufs, aufs, diskd or rock, as written
    std::string path;                ///< the directory
    uint64_t maxBytes = 0;           ///< MBYTES, in bytes
    unsigned l1 = 16;                ///< first-level directories (rock: cuttle's 16)
    unsigned l2 = 256;               ///< second-level directories per first-level one (rock: 256)
    uint64_t minSize = 0;            ///< min-size=: smaller objects are not stored here
    std::optional<uint64_t> maxSize; ///< max-size=: larger objects are not stored here; none: no limit
    bool noStore = false;            ///< no-store (or Squid's older read-only): hits only, nothing stored
    uint64_t slotSize = 16384;       ///< rock's slot-size=, bytes (accepted; see its documentation)
    unsigned swapTimeoutMs = 0;      ///< rock's swap-timeout=, ms (accepted; see its documentation)
    unsigned maxSwapRate = 0;        ///< rock's max-swap-rate=, swaps/s (accepted; see its documentation)
    std::string origin;              ///< "FILE:LINE" of the line, for start-up messages
    /// the cache_replacement_policy in force at the line (as in Squid, a
    /// policy applies to the cache_dir lines below it)
    ReplacementPolicy policy = ReplacementPolicy::Lru;
};

/// `store_dir_select_algorithm` values.
enum class StoreDirSelect { LeastLoad, RoundRobin };

/// `memory_cache_mode` values (Squid's): which objects the memory cache keeps.
enum class MemoryCacheMode {
    Always, ///< every object that fits (misses and disk hits alike)
    Disk,   ///< only objects read from the disk store (no miss is kept in memory)
    Network ///< only objects fetched from the network (no disk hit is kept in memory)
};

/// The acls that end a `DIRECTIVE VALUE [[!]ACL...]` line: the line
/// applies when they all match (or there are none).
struct AclLine {
    Acl::AccessList acls; ///< the line's acls as one `allow ACL...` rule; empty: every request

    /// Whether the line applies to a transaction: its acls all match (or it has none).
    bool matches(const Acl::Checklist& facts) const
    {
        return acls.size() == 0 || acls.check(facts) == Acl::Answer::Allowed;
    }
};

/// One `DIRECTIVE SIZE|none [[!]ACL...]` line (Squid's acl_b_size_t):
/// range_offset_limit, reply_body_max_size.
struct SizeLimit : AclLine {
    /// the size in bytes (range_offset_limit: how far into an object a Range
    /// may start for cuttle to fetch it whole; reply_body_max_size: the
    /// largest reply body); -1: no limit
    int64_t bytes = 0;
};

/// One `tcp_outgoing_address ADDRESS [[!]ACL...]` line (Squid's Acl::Address).
struct OutgoingAddress : AclLine {
    Acl::Address address; ///< the source address of the connections it applies to
};

/// One `tcp_outgoing_tos TOS [[!]ACL...]` line (Squid's acl_tos).
struct OutgoingTos : AclLine {
    uint8_t tos = 0; ///< the TOS byte (IP_TOS; IPV6_TCLASS for IPv6)
};

/// One `tcp_outgoing_mark MARK [[!]ACL...]` line (Squid's acl_nfmark).
struct OutgoingMark : AclLine {
    uint32_t mark = 0; ///< the netfilter mark (SO_MARK)
};

/// One `deny_info ERR_PAGE|[NNN:]URL|TCP_RESET ACL...` line: what a client
/// denied by a rule whose last acl (Acl::Checklist::lastAcl) is one of
/// `acls` gets instead of the ERR_ACCESS_DENIED page.
struct DenyInfo {
    enum class Action {
        Page,     ///< the error page `target` (a name in error_directory), with `status`
        Redirect, ///< a redirect to `target` with its %-codes expanded, with `status` (0: 302 or 307)
        Reset     ///< the connection is reset (TCP_RESET)
    };
    Action action = Action::Page;
    std::string target;            ///< the page name or the URL pattern
    int status = 0;                ///< NNN: given before the page or URL; 0: Squid's (403; 302 or 307)
    std::vector<std::string> acls; ///< the acl names the line is for
};

/// The %-codes a deny_info URL may hold (`%%` too), each expanded by
/// Errors::ExpandDenyInfoUrl(); Squid's others (%B, %o, %O) are refused.
inline constexpr std::string_view DenyInfoUrlCodes = "aAeEhHiMpPRTuUwx";

/// Everything one squid.conf says, with defaults filled in.
/// One `cachemgr_passwd` line: the password (or `none`, `disable`) of the
/// manager actions it names (`all`: every action no earlier line names).
struct ManagerPassword {
    std::string password;             ///< as written; "none" and "disable" are keywords
    std::vector<std::string> actions; ///< action names, or "all"
};

struct Settings {
    std::vector<HttpPort> httpPorts;

    AuthBasicSettings authBasic;   ///< `auth_param basic`
    AuthDigestSettings authDigest; ///< `auth_param digest`
    /// "basic", "digest": the schemes in the order of their first
    /// auth_param line, which is the order of a 407's challenges (Squid's)
    std::vector<std::string> authSchemes;
    Duration authenticateIpTtl = std::chrono::seconds(1); ///< authenticate_ip_ttl (max_user_ip)
    HelperProgramSettings urlRewrite;                     ///< `url_rewrite_program` ...
    bool urlRewriteBypass = false;    ///< `url_rewrite_bypass`: requests skip busy rewriters
    Acl::AccessList urlRewriteAccess; ///< `url_rewrite_access`; no rule: every request goes to the rewriter
    HelperProgramSettings storeId;    ///< `store_id_program` ...
    bool storeIdBypass = false;       ///< `store_id_bypass`: requests skip busy store-ID helpers
    Acl::AccessList storeIdAccess;    ///< `store_id_access`; no rule: every request goes to the helper
    /// http_access, http_reply_access, url_rewrite_access or store_id_access
    /// uses a dst acl, so a URL's host name is resolved before they are
    /// checked (client/Destination.cc); worked out once, when parsed
    bool rulesNeedDstAddress = false;
    Acl::Registry acls;                  ///< every `acl` line, plus Squid's predefined acls
    Acl::AccessList httpAccess;          ///< `http_access` rules in order
    Acl::AccessList httpReplyAccess;     ///< `http_reply_access` rules in order; no rule: every reply is sent
    Acl::AccessList adaptedHttpAccess;   ///< `adapted_http_access`: http_access again after url_rewrite
    Acl::AccessList missAccess;          ///< `miss_access`: who may cause a fetch; no rule: anyone
    Acl::AccessList storeMiss;           ///< `store_miss`: which fetched replies may be stored; no rule: all
    std::vector<DenyInfo> denyInfos;     ///< `deny_info` lines in order
    Acl::AccessList followXForwardedFor; ///< `follow_x_forwarded_for`; no rule: X-Forwarded-For is not read
    bool aclUsesIndirectClient = true;   ///< `acl_uses_indirect_client`: src acls see the indirect client
    bool logUsesIndirectClient = true;   ///< `log_uses_indirect_client`: access.log shows the indirect client
    uint64_t requestBodyMaxSize = 0;     ///< `request_body_max_size`, bytes; 0: no limit
    std::vector<SizeLimit> replyBodyMaxSizes; ///< `reply_body_max_size` lines in order; none: no limit
    std::vector<OutgoingAddress> tcpOutgoingAddresses; ///< `tcp_outgoing_address` lines in order
    std::vector<OutgoingTos> tcpOutgoingTos;           ///< `tcp_outgoing_tos` lines in order
    std::vector<OutgoingMark> tcpOutgoingMarks;        ///< `tcp_outgoing_mark` lines in order

    uint64_t cacheMem = 0;            ///< cache_mem, bytes
    bool sharedMemoryLocking = false; ///< shared_memory_locking: cache_mem populated and locked at start
    std::optional<uint64_t> memoryPopulateAhead; ///< memory_populate_ahead, bytes (0: off; none: auto)
    uint64_t maximumObjectSizeInMemory = 0;      ///< bytes
    uint64_t readAheadGap = 0;                   ///< bytes
    uint64_t spliceMinSize = 0;                  ///< splice_min_size, bytes (0: never splice)
    BufferSize requestBufferSize;                ///< stream block size
    uint64_t requestHeaderMaxSize = 0;           ///< bytes
    uint64_t replyHeaderMaxSize = 0;             ///< bytes

    std::vector<CacheDir> cacheDirs;                           ///< `cache_dir` lines in order
    StoreDirSelect storeDirSelect = StoreDirSelect::LeastLoad; ///< store_dir_select_algorithm
    uint64_t maximumObjectSize = 0;                            ///< maximum_object_size, bytes
    unsigned cacheSwapLow = 90;                                ///< cache_swap_low, percent
    unsigned cacheSwapHigh = 95;                               ///< cache_swap_high, percent
    MemoryCacheMode memoryCacheMode = MemoryCacheMode::Always; ///< memory_cache_mode
    bool memoryCacheShared = true; ///< memory_cache_shared: the workers store in one memory cache
    std::vector<RefreshPattern> refreshPatterns;                        ///< `refresh_pattern` lines in order
    uint64_t minimumObjectSize = 0;                                     ///< minimum_object_size, bytes
    ReplacementPolicy memoryReplacementPolicy = ReplacementPolicy::Lru; ///< memory_replacement_policy
    /// cache_replacement_policy: the last line's (each CacheDir keeps the one above it)
    ReplacementPolicy cacheReplacementPolicy = ReplacementPolicy::Lru;
    Acl::AccessList cacheAccess;              ///< `cache` rules in order; no rule: everything may be cached
    Acl::AccessList sendHit;                  ///< `send_hit` rules in order; no rule: every hit may be served
    bool collapsedForwarding = false;         ///< collapsed_forwarding
    int64_t quickAbortMin = 0;                ///< quick_abort_min, bytes; < 0: always finish a kept fetch
    uint64_t quickAbortMax = 0;               ///< quick_abort_max, bytes
    unsigned quickAbortPct = 0;               ///< quick_abort_pct, 0 to 100
    Duration negativeTtl{0};                  ///< negative_ttl
    std::vector<SizeLimit> rangeOffsetLimits; ///< `range_offset_limit` lines in order
    Duration maxStale{0};                     ///< max_stale

    std::vector<AccessLogSpec> accessLogs; ///< in order; nothing follows an `access_log none` without acls
    Log::OutputSpec cacheStoreLog;         ///< cache_store_log (module none: no store log)
    std::vector<LogformatSpec> logformats; ///< logformat lines in order
    bool bufferedLogs = false;             ///< buffered_logs
    bool logMimeHdrs = false;              ///< log_mime_hdrs (a format printing %>h or %<h whole acts as on)
    std::string cacheLog;                  ///< cache_log path
    std::string pidFilename;               ///< "none" disables the pid file
    std::string debugOptions;              ///< raw `debug_options` value, e.g. "ALL,1 33,2"
    unsigned logfileRotate = 10;           ///< logfile_rotate: old logs `-k rotate` keeps (0: just reopen)
    std::string visibleHostname;           ///< empty: use gethostname()
    std::string uniqueHostname;            ///< empty: the visible host name
    std::vector<ManagerPassword> managerPasswords; ///< cachemgr_passwd lines, in order
    std::string serviceName;                       ///< `${service_name}`: `-n NAME` (the manager's info page)
    unsigned processNumber = 1; ///< `${process_number}`: the worker that read this snapshot, from 1
    /// the directive lines cuttle applied, in order, words joined by one space
    /// (the manager's `config` page, Mgr::RenderPage())
    std::vector<std::string> appliedLines;
    bool via = true;
    bool stripQueryTerms = true;   ///< strip_query_terms: access.log URLs end at the `?`
    bool hostVerifyStrict = false; ///< host_verify_strict: a Host that fails verification gets 409
    ForwardedFor forwardedFor = ForwardedFor::On;
    bool httpdSuppressVersionString =
        false;                      ///< httpd_suppress_version_string: "cuttle", not "cuttle/VERSION"
    HeaderRules requestHeaderRules; ///< request_header_access, _replace, _add
    HeaderRules replyHeaderRules;   ///< reply_header_access, _replace, _add

    std::vector<CachePeer> cachePeers; ///< `cache_peer` lines in order, with their cache_peer_access
    Acl::AccessList alwaysDirect;      ///< `always_direct`: requests it allows never go to a peer
    Acl::AccessList neverDirect;       ///< `never_direct`: requests it allows go to peers only
    TlsOutgoingOptions tlsOutgoing;    ///< `tls_outgoing_options`
    Acl::AccessList sslproxyCertError; ///< `sslproxy_cert_error`: certificate errors allowed; no rule: none
    std::vector<SslBumpRule> sslBump;  ///< `ssl_bump`, in order; none: every CONNECT is spliced
    /// `sslproxy_cert_sign`, in order; Squid's defaults (signUntrusted
    /// ssl::certUntrusted, signSelf ssl::certSelfSigned, signTrusted all)
    /// follow them in Client::DecideMinting()
    std::vector<CertSignRule> sslproxyCertSign;
    std::vector<CertAdaptRule> sslproxyCertAdapt; ///< `sslproxy_cert_adapt`, in order
    std::string sslproxyCertSignHash = "sha256";  ///< `sslproxy_cert_sign_hash`: OpenSSL's digest name
    bool preferDirect = false;                    ///< `prefer_direct`: direct before the parents
    bool nonhierarchicalDirect = true;            ///< `nonhierarchical_direct`: a POST (...) goes direct
    unsigned forwardMaxTries = 25;                ///< `forward_max_tries`: destinations tried per request
    unsigned connectRetries = 0;                  ///< `connect_retries`: reconnects to an address that failed
    bool retryOnError = false; ///< `retry_on_error`: a 403, 500, 501 or 503 tries the next destination
    unsigned happyEyeballsConnectTimeout = 250; ///< `happy_eyeballs_connect_timeout` (ms)
    Duration peerConnectTimeout{0};             ///< `peer_connect_timeout`: a peer's default connect-timeout
    unsigned icpPort = 0;                       ///< `icp_port`: the ICP listener's UDP port; 0: none
    std::string udpIncomingAddress;             ///< `udp_incoming_address`: the ICP listener's address
    Acl::AccessList icpAccess;           ///< `icp_access`: who may query; no rule: nobody (Squid's default)
    unsigned icpQueryTimeout = 0;        ///< `icp_query_timeout` (ms); 0: from the peers' round trips
    unsigned minimumIcpQueryTimeout = 5; ///< `minimum_icp_query_timeout` (ms)
    unsigned maximumIcpQueryTimeout = 2000; ///< `maximum_icp_query_timeout` (ms)
    Duration deadPeerTimeout{0};            ///< `dead_peer_timeout`: a peer silent this long to ICP is dead
    bool logIcpQueries = true;              ///< `log_icp_queries`: access.log lines for ICP queries
    bool icpHitStale = false;               ///< `icp_hit_stale`: stale objects are ICP hits too
    Duration connectTimeout{0};
    Duration readTimeout{0};
    Duration requestTimeout{0};
    Duration clientIdlePconnTimeout{0};
    std::optional<unsigned> clientIpMaxConnections; ///< client_ip_max_connections; none: no limit
    Duration serverIdlePconnTimeout{0};
    Duration shutdownLifetime{0};

    std::vector<std::string> dnsNameservers; ///< "IP" or "IP:PORT" (cuttle extension)
    std::string hostsFile;                   ///< "none" disables it
    Duration dnsTimeout{0};                  ///< dns_timeout: a whole lookup's bound
    Duration positiveDnsTtl{0};              ///< positive_dns_ttl: the name cache keeps names this long
    Duration negativeDnsTtl{0};              ///< negative_dns_ttl: ... and failures this long
    unsigned fqdncacheSize = 0;              ///< fqdncache_size: the name cache's most entries
    unsigned ipcacheSize = 0;                ///< ipcache_size: the address cache's most entries
    bool clientPersistentConnections = true; ///< client_persistent_connections
    bool serverPersistentConnections = true; ///< server_persistent_connections
    uint64_t maxFiledescriptors = 0;         ///< max_filedescriptors; 0: the limit cuttle inherited
    /// the most `workers` cuttle runs
    static constexpr unsigned MaxWorkers = 128;
    unsigned workers = 1; ///< workers: event-loop threads (doc/design.md "Workers")
    /// cpu_affinity_map: the core (counted from 1, as Squid) each worker
    /// (by process number, from 1) is pinned to; a worker not named runs anywhere
    std::vector<std::pair<unsigned, unsigned>> cpuAffinity;
    std::string coredumpDir;          ///< "none" keeps the start-up directory
    std::string cacheEffectiveUser;   ///< who cuttle serves as when started by root
    std::string cacheEffectiveGroup;  ///< empty: cacheEffectiveUser's groups
    std::string errorDirectory;       ///< error_directory; empty: negotiate the language
    std::string errorDefaultLanguage; ///< error_default_language; empty: none (pages say en)
    bool errorLogLanguages = true;    ///< error_log_languages: log a language with no pages
    std::string errHtmlText;          ///< err_html_text: the %L code's HTML
    bool emailErrData = false;        ///< email_err_data: the %W code's mailto details
    std::string errPageStylesheet;    ///< err_page_stylesheet: the %l code's file; "none": none
    std::string cacheMgr;             ///< cache_mgr: the %w code's address

    std::string configFile; ///< path the snapshot was read from

    /// The first refresh_pattern line that matches `url`, or Squid's built-in
    /// default (min 0, 20%, max 3 days) when none does.
    const RefreshPattern& refreshPatternFor(const std::string& url) const
    {
        static const RefreshPattern builtIn;
        for (const auto& p : refreshPatterns)
            if (p.matches(url))
                return p;
        return builtIn;
    }

    /// Whether the `cache` rules let this transaction be served from and
    /// stored in the cache (Squid: with no rule, everything may be).
    bool mayCache(const Acl::Checklist& facts) const
    {
        return cacheAccess.size() == 0 || cacheAccess.check(facts) == Acl::Answer::Allowed;
    }

    /// The range_offset_limit of the first line that matches, in bytes
    /// (-1: no limit), or 0 when none does (Squid's default).
    int64_t rangeOffsetLimitFor(const Acl::Checklist& facts) const
    {
        return FirstMatching(rangeOffsetLimits, facts, 0);
    }

    /// The reply_body_max_size of the first line that matches, in bytes, or
    /// -1 (no limit) when none does (Squid's HttpReply::calcMaxBodySize()).
    int64_t replyBodyMaxSizeFor(const Acl::Checklist& facts) const
    {
        return FirstMatching(replyBodyMaxSizes, facts, -1);
    }

    /// The first deny_info line for the acl called `acl`, or nullptr (Squid's aclGetDenyInfoPage()).
    const DenyInfo* denyInfoFor(std::string_view acl) const
    {
        for (const auto& d : denyInfos)
            for (const auto& name : d.acls)
                if (name == acl)
                    return &d;
        return nullptr;
    }

    /// The size of the first of `limits` whose acls match, or `otherwise`.
    static int64_t FirstMatching(const std::vector<SizeLimit>& limits, const Acl::Checklist& facts,
                                 int64_t otherwise)
    {
        for (const auto& l : limits)
            if (l.matches(facts))
                return l.bytes;
        return otherwise;
    }
};

} // namespace Config
