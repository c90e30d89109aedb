/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "config/Directives.h"
#include "config/Handlers.h"

#include <string>

#ifndef CUTTLE_DEFAULT_LOG_DIR
#define CUTTLE_DEFAULT_LOG_DIR "/usr/local/var/log/cuttle"
#endif
#ifndef CUTTLE_DEFAULT_RUN_DIR
#define CUTTLE_DEFAULT_RUN_DIR "/usr/local/var/run"
#endif

void Config::DirectiveCall::error(const std::string& reason) const
{
    diagnostics.push_back(Diagnostic{Diagnostic::Level::Error, line.file, line.line, reason});
}

void Config::DirectiveCall::warning(const std::string& reason) const
{
    diagnostics.push_back(Diagnostic{Diagnostic::Level::Warning, line.file, line.line, reason});
}

void Config::DirectiveCall::warningOnce(const std::string& key, const std::string& reason,
                                        const std::string& what) const
{
    if (repeated)
        repeated->warn(diagnostics, line, key, reason, what);
    else
        warning(reason);
}

void Config::RepeatedWarnings::warn(std::vector<Diagnostic>& diagnostics, const Line& line,
                                    const std::string& key, const std::string& reason,
                                    const std::string& what)
{
    for (auto& e : entries_) {
        if (e.key == key) {
            ++e.count;
            return;
        }
    }
    entries_.push_back(Entry{key, diagnostics.size(), 1, what});
    diagnostics.push_back(Diagnostic{Diagnostic::Level::Warning, line.file, line.line, reason});
}

void Config::RepeatedWarnings::finish(std::vector<Diagnostic>& diagnostics)
{
    for (const auto& e : entries_) {
        if (e.count < 2 || e.index >= diagnostics.size())
            continue;
        const unsigned more = e.count - 1;
        diagnostics[e.index].reason += " (and on " + std::to_string(more) + " more " +
                                       (e.what.empty() ? std::string() : e.what + " ") +
                                       (more > 1 ? "lines" : "line") + ")";
    }
    entries_.clear();
}

namespace {

using namespace Config;
using namespace Config::Handlers;

#define LOG_DIR_SHOWN "$(localstatedir)/log/cuttle"
#define RUN_DIR_SHOWN "$(runstatedir)"
#define ERROR_DIR_SHOWN "$(pkgdatadir)/errors/templates"

const std::vector<Directive> Table = {
    {"http_port", "[ADDRESS:]PORT [OPTION...]", nullptr, nullptr, "httpPorts",
     "Listens for proxy requests on PORT, on every address or on ADDRESS only (an IPv4 address, a host name, "
     "or "
     "an IPv6 address in brackets: [::1]:3128). Port 0 binds a free port, which cache.log names. Several "
     "lines "
     "open several ports. `intercept` (or Squid's older spelling `transparent`) makes it a port for "
     "connections that iptables REDIRECT or DNAT sent to cuttle: each connection's original destination is "
     "read with SO_ORIGINAL_DST, requests come in origin-form and their URL is built from Host, the Host is "
     "verified against the original destination (host_verify_strict), and requests are forwarded to the "
     "original destination address (logged ORIGINAL_DST); a connection without NAT state is closed. "
     "`name=NAME` names the port for myportname acls (by default its address as written). `ssl-bump "
     "tls-cert=CA.pem [tls-key=KEY.pem] [generate-host-certificates=on|off] "
     "[dynamic_cert_mem_cache_size=SIZE]` lets ssl_bump rules splice or bump the TLS inside the port's "
     "CONNECT tunnels: tls-cert= is the bump CA (read once when the port opens, before cuttle leaves root; "
     "cert= and key= are taken too), whose key signs a certificate minted in memory for each bumped host "
     "(an ECDSA P-256 key made at start; kept in a least-recently-used cache of "
     "dynamic_cert_mem_cache_size, default 4 MB); with generate-host-certificates=off tls-cert= is shown "
     "as it is; tls-min-version= and options= apply to the bumped clients (doc/tls.md). Squid's other "
     "options after the address are accepted with a warning and ignored, except those that change "
     "what the port means for access control (tproxy, accel, vhost, vport, defaultsite, "
     "require-proxy-header, ssl-bump on an intercept port: intercepted TLS is bumped on an https_port), "
     "which are errors. With no http_port line "
     "cuttle listens nowhere.",
     HttpPortHandler, true},
    {"https_port", "[ADDRESS:]PORT tls-cert=PEM [tls-key=PEM] [OPTION...]", nullptr, nullptr, "httpPorts",
     "Listens for proxy requests over TLS (clients such as `curl --proxy https://HOST:PORT` speak TLS to "
     "the proxy itself), and serves them as an http_port does, name= and CONNECT included. tls-cert= is "
     "the certificate (its chain after it, PEM), tls-key= its key (default: in the same file), read once "
     "when the port opens, before cuttle leaves root; tls-dh= DH parameters; tls-min-version=1.0|1.1|1.2|1.3 "
     "(default 1.2); cipher= and options= as in tls_outgoing_options; clientca= asks for and requires a "
     "client certificate signed by those CAs (cafile= adds CAs that verify it). Squid's older names cert=, "
     "key=, dhparams= are taken; other options are ignored with a warning. Each connection is an ordinary "
     "client connection that speaks TLS (doc/design.md \"TLS\"). `https_port PORT "
     "intercept ssl-bump tls-cert=CA.pem [tls-key=] [generate-host-certificates=] "
     "[dynamic_cert_mem_cache_size=]` is Squid's port for TLS that iptables REDIRECT or DNAT sent to "
     "cuttle: tls-cert= is then the bump CA, as on an http_port ssl-bump, and each connection is handled "
     "as a CONNECT to its original destination that the client did not send (http_access and ssl_bump's "
     "steps see it; no 200 is written; logged NONE_NONE/200 0 CONNECT ADDRESS:PORT once bumped): ssl_bump "
     "splices it to the original destination or bumps it, and a bumped request's URL comes from Host "
     "(https://), Host is verified against the original destination as on an intercept http_port, and "
     "the request goes to the original destination over TLS verified for Host's name. intercept without "
     "ssl-bump, and ssl-bump without intercept, are errors here.",
     HttpsPortHandler, true},
    {"authenticate_ip_ttl", "TIME", "1 second", nullptr, "authenticateIpTtl",
     "How long a client address counts for the user that authenticated from it, for max_user_ip acls "
     "(Squid 5.7's default: 1 second).",
     DurationHandler<&Settings::authenticateIpTtl>, false},
    {"external_acl_type", "NAME [OPTION...] %FORMAT... PROGRAM [ARGUMENT...]", nullptr, nullptr, "acls",
     "A helper in Squid's external acl protocol that `acl X external NAME [ARG...]` acls ask, as Squid 5.7: "
     "each check sends the format's values (URL-escaped, \"-\" when empty) and the acl's arguments (\"-\" "
     "when it has none and the format no %DATA) as one line; OK matches, ERR does not, BH (or a helper that "
     "fails, hangs or crashes) denies the request "
     "whatever the rule says. The key=value pairs of the answer (user=, tag=, message=, log=, any other) "
     "become request notes that note, ext_user and tag acls match. Options: ttl=N (seconds an OK answer "
     "is cached, 3600), negative_ttl=N (ERR, ttl), cache=N (most cached answers, 262144), children-max=N "
     "(5), children-startup=N (0), children-idle=N (1), concurrency=N (0), queue-size=N, protocol=3.0, "
     "quote=url, ipv4, ipv6, grace=0. Format tokens: %LOGIN/%ul (asks for credentials first, as proxy_auth "
     "does), %un, %EXT_USER/%ue, %EXT_TAG/%et, %SRC/%>a, %SRCPORT/%>p, %DST/%>rd, %PROTO/%>rs, %PORT/%>rP, "
     "%PATH/%>rp, "
     "%METHOD/%>rm, %URI/%>ru, %MYADDR/%la, %MYPORT/%lp, %ACL, %DATA, %>{Header}, %>{Header:member}, "
     "%>{Header:;member}. Other tokens and options (grace=N, protocol=2.5, quote=shell) are errors.",
     ExternalAclTypeHandler, true},
    {"acl", "NAME TYPE [-FLAG...] VALUE... | NAME TYPE \"FILE\"", nullptr, nullptr, "acls",
     "Defines a named access list of one type; more lines with the same name add values. The types, as "
     "Squid 5.7 has them: src, dst, localip (addresses, networks, ranges), port, localport, myportname, "
     "method, proto, dstdomain, dstdom_regex, srcdomain and srcdom_regex (the client's name, by reverse DNS "
     "through the name cache: fqdncache_size), url_regex, urlpath_regex, browser, referer_regex, req_header, "
     "req_mime_type, rep_header, rep_mime_type, http_status, hier_code, peername, peername_regex, time, "
     "random, maxconn, proxy_auth, proxy_auth_regex, external (external_acl_type), note (a note "
     "helpers returned: `note [-m[=DELIMITERS]] NAME [VALUE...]`), ext_user, ext_user_regex and tag (an "
     "external acl's user= and tag=), max_user_ip ([-s] N: the user came from more than N addresses within "
     "authenticate_ip_ttl), any-of and all-of; -i makes the values after it "
     "case-insensitive. Names ignore case, as in Squid (Foo and foo are one acl). A method value is read as "
     "Squid reads it: `get` is GET (with a warning). A quoted \"FILE\" value names a file whose lines are "
     "values (a whole line is one name or pattern); a relative file name is resolved against the directory "
     "cuttle starts in. Squid's predefined acls all, localhost, to_localhost, to_linklocal, manager, "
     "CONNECT and the ssl_error ones ssl::certHasExpired, ssl::certNotYetValid, ssl::certDomainMismatch, "
     "ssl::certUntrusted and ssl::certSelfSigned exist already. An acl type that cuttle does not implement "
     "is a warning here (once per type and file), and any rule that uses it is an error. A proxy_auth acl "
     "needs auth_param basic or digest before it.",
     AclHandler, true},
    {"auth_param", "basic|digest program|children|realm|... VALUE...", nullptr, nullptr,
     "authBasic authDigest",
     "Proxy authentication with Squid's helpers. For both schemes: `program PATH ARGS...` starts the "
     "helpers, "
     "`children N startup=N idle=N concurrency=N queue-size=N` sizes them (20, 0, 1, 0), `realm TEXT` names "
     "the 407 challenge, `utf8 on` sends Latin-1 user names (and basic passwords) as UTF-8. `basic` "
     "(basic_ncsa_auth, basic_ldap_auth, ...): `credentialsttl TIME` (2 hours) is how long a good check is "
     "trusted, `casesensitive off` (the default) lowercases user names before the check. `digest` "
     "(digest_file_auth, digest_ldap_auth: asked `\"user\":\"realm\"`, they answer `OK ha1=HEX`): RFC 7616 "
     "MD5 with qop=auth; cuttle makes the nonces (128 random bits), good for `nonce_max_duration TIME` (30 "
     "minutes) and `nonce_max_count N` (50) uses, each with a larger nonce count (`nonce_strictness on`: one "
     "larger; `check_nonce_count off`: not checked); `nonce_garbage_interval TIME` (5 minutes) drops expired "
     "ones; `post_workaround on` accepts a POST digest computed for GET. A used-up, expired or unknown nonce "
     "with otherwise right credentials gets a new challenge with stale=true. With both schemes, a 407 offers "
     "both challenges in the order of their first auth_param line. A request with no or bad credentials that "
     "meets a proxy_auth acl gets 407 with Proxy-Authenticate; the user appears in access.log; "
     "Proxy-Authorization is never forwarded. A helper that fails or does not answer denies. key_extras, "
     "ntlm and negotiate are errors.",
     AuthParamHandler, true},
    {"url_rewrite_program", "PATH [ARGUMENT...]", nullptr, nullptr, "urlRewrite",
     "A URL rewriter in Squid's helper protocol (squidGuard, ufdbGuard, a script): each request that "
     "url_rewrite_access allows (not CONNECT) is sent as \"URL client/client user METHOD myip=IP "
     "myport=PORT\" "
     "(Squid's default url_rewrite_extras) before the cache lookup. `OK rewrite-url=URL` (or an old bare "
     "URL) fetches that URL instead; `OK url=URL status=30N` (or `30N:URL`) answers the client with that "
     "redirect, logged TCP_REDIRECT; ERR or an empty line keeps the URL. A rewriter that fails, hangs or "
     "answers BH fails the request with ERR_GATEWAY_FAILURE (500): a site filter is never bypassed.",
     HelperProgramHandler<&Settings::urlRewrite>, false},
    {"url_rewrite_children", "N [startup=N] [idle=N] [concurrency=N] [queue-size=N]", nullptr, nullptr,
     "urlRewrite",
     "How many rewriter processes run (20 at most by default, started on demand, 1 kept idle) and how many "
     "requests each has in flight (concurrency=0: one, without channel ids), as in Squid.",
     HelperChildrenHandler<&Settings::urlRewrite>, false},
    {"url_rewrite_extras", "\"FORMAT\"", "\"%>a/%>A %un %>rm myip=%la myport=%lp\"", nullptr, "(none)",
     "What follows the URL on a rewriter's line: only Squid's default is implemented; any other format is "
     "an error.",
     HelperExtrasHandler, false},
    {"url_rewrite_access", "allow|deny [!]ACL...", nullptr, nullptr, "urlRewriteAccess",
     "Which requests go to the rewriter, by the rules of http_access; with no line, every request does.",
     AccessRulesHandler<&Settings::urlRewriteAccess>, true},
    {"url_rewrite_bypass", "on|off", "off", nullptr, "urlRewriteBypass",
     "on: a request that finds every rewriter busy and the queue full goes on unchanged instead of "
     "failing, as Squid's url_rewrite_bypass.",
     OnOffHandler<&Settings::urlRewriteBypass>, false},
    {"store_id_program", "PATH [ARGUMENT...]", nullptr, nullptr, "storeId",
     "A store-ID helper in Squid's helper protocol: each GET or HEAD that may use the cache and that "
     "store_id_access allows is sent as \"URL client/client user METHOD myip=IP myport=PORT\" after the URL "
     "rewriter; `OK store-id=ID` makes ID the object's cache key instead of the URL, so copies of one "
     "object on several mirrors or CDN hosts are fetched once and hit under every URL. ERR, BH, a failure "
     "or a timeout keep the URL as the key (the request is served, only not shared), as in Squid. The URL "
     "fetched and logged stays the request's.",
     HelperProgramHandler<&Settings::storeId>, false},
    {"store_id_children", "N [startup=N] [idle=N] [concurrency=N] [queue-size=N]", nullptr, nullptr,
     "storeId",
     "How many store-ID helper processes run and how many requests each has in flight, as "
     "url_rewrite_children.",
     HelperChildrenHandler<&Settings::storeId>, false},
    {"store_id_extras", "\"FORMAT\"", "\"%>a/%>A %un %>rm myip=%la myport=%lp\"", nullptr, "(none)",
     "What follows the URL on a store-ID helper's line: only Squid's default is implemented; any other "
     "format is an error.",
     HelperExtrasHandler, false},
    {"store_id_access", "allow|deny [!]ACL...", nullptr, nullptr, "storeIdAccess",
     "Which requests go to the store-ID helper, by the rules of http_access; with no line, every request "
     "that may use the cache does.",
     AccessRulesHandler<&Settings::storeIdAccess>, true},
    {"store_id_bypass", "on|off", "on", nullptr, "storeIdBypass",
     "on (Squid's default): a request that finds every store-ID helper busy and the queue full keeps its "
     "URL as the cache key instead of waiting.",
     OnOffHandler<&Settings::storeIdBypass>, false},
    {"http_access", "allow|deny [!]ACL...", nullptr, "deny all", "httpAccess",
     "Allows or denies a request when every acl named on the line matches (a ! negates one); the first "
     "matching "
     "line decides. When no line matches, the answer is the opposite of the last line's; with no lines at "
     "all, "
     "every request is denied. A line that names an undefined acl or one of a type cuttle does not implement "
     "is "
     "an error: a rule is never dropped silently.",
     AccessRulesHandler<&Settings::httpAccess>, true},
    {"adapted_http_access", "allow|deny [!]ACL...", nullptr, nullptr, "adaptedHttpAccess",
     "Allows or denies a request again once url_rewrite_program has rewritten it, by the same rules and "
     "with the same answers as http_access (403, 407, deny_info), matching the rewritten URL; without a "
     "rewriter it is a second http_access. Squid checks it after ICAP and eCAP adaptation too, which "
     "cuttle does not do. With no adapted_http_access line nothing more is checked.",
     AccessRulesHandler<&Settings::adaptedHttpAccess>, true},
    {"miss_access", "allow|deny [!]ACL...", nullptr, nullptr, "missAccess",
     "Whether a request the cache cannot answer may be forwarded (a miss, a revalidation, an uncacheable "
     "request; not CONNECT), checked with the direct client's address: a denied one gets "
     "ERR_FORWARDING_DENIED (403, or its deny_info), logged TCP_MISS/403, as in Squid. Use it with sibling "
     "caches that may take hits but no misses from you. Fast acls only: a rule that would need a lookup "
     "denies. With no miss_access line every request may be forwarded.",
     AccessRulesHandler<&Settings::missAccess>, true},
    {"store_miss", "allow|deny [!]ACL...", nullptr, nullptr, "storeMiss",
     "Whether a fetched reply the cache could keep is stored, decided on its head (the reply acls "
     "http_status, rep_header, rep_mime_type match here): a denied one is served but not kept, as in Squid. "
     "It applies to a fetch that goes on without its client (quick_abort_*, collapsed forwarding, a "
     "background revalidation) with the facts of the request that started it; a rule that would need a "
     "lookup not made yet keeps the reply out. With no store_miss line every storable reply is stored.",
     AccessRulesHandler<&Settings::storeMiss>, true},
    {"http_reply_access", "allow|deny [!]ACL...", nullptr, nullptr, "httpReplyAccess",
     "Allows or denies a reply, once its head is known, by the same rules as http_access; acls of the reply "
     "(http_status, rep_header, rep_mime_type, hier_code) match here and nowhere else. A denied reply is "
     "replaced by the ERR_ACCESS_DENIED page (403), logged TCP_DENIED_REPLY, as in Squid; the object is "
     "still "
     "stored when it may be. With no http_reply_access line every reply is sent.",
     AccessRulesHandler<&Settings::httpReplyAccess>, true},
    {"follow_x_forwarded_for", "allow|deny [!]ACL...", nullptr, "deny all", "followXForwardedFor",
     "Which hops of X-Forwarded-For to trust, as in Squid 5.7: starting from the client that connected, "
     "while these rules (read as http_access rules, src acls seeing the hop) allow the current hop, the "
     "rightmost address left in X-Forwarded-For (all its fields joined) becomes the current hop; the last "
     "one reached is the indirect client. An item that is not an address literal stops the walk. With no "
     "line, X-Forwarded-For is not read.",
     AccessRulesHandler<&Settings::followXForwardedFor>, true},
    {"acl_uses_indirect_client", "on|off", "on", nullptr, "aclUsesIndirectClient",
     "on: src acls (in http_access and every later rule) see the indirect client that "
     "follow_x_forwarded_for found instead of the client that connected.",
     OnOffHandler<&Settings::aclUsesIndirectClient>, false},
    {"log_uses_indirect_client", "on|off", "on", nullptr, "logUsesIndirectClient",
     "on: access.log shows the indirect client that follow_x_forwarded_for found (%>a) instead of the "
     "client that connected.",
     OnOffHandler<&Settings::logUsesIndirectClient>, false},
    {"deny_info", "ERR_PAGE|[NNN:]ERR_PAGE|[3NN:]URL|TCP_RESET ACL...", nullptr, nullptr, "denyInfos",
     "What a client denied by http_access or http_reply_access gets when the last acl evaluated (the last "
     "acl of the deny line that matched; when no line matched, the last acl of the last line) is one of the "
     "ACLs named, as in Squid 5.7 (the first deny_info line naming it applies): the page ERR_PAGE from "
     "error_directory instead of ERR_ACCESS_DENIED (403, or the NNN: given, 200 to 599 but 3xx); a "
     "redirect to URL (302, or 307 for an HTTP/1.1 request other than GET and HEAD, or the 3NN: given) "
     "with its codes expanded and URL-escaped: %a user, %A the proxy's address, %e error number, %E its "
     "text, %h visible_hostname, %H the request's host, %i client address, %M method, %p port, %P "
     "protocol, %R path and query (not escaped), %T time, %u URL, %U URL after strip_query_terms, %w "
     "cache_mgr, %x error name, %% a percent sign (as %25); Squid's %B, %o and %O are errors. TCP_RESET "
     "resets the connection. The denial is logged as it would be (TCP_DENIED, TCP_DENIED_REPLY) with the "
     "status sent (000 for a reset). An acl that is not defined is a warning.",
     DenyInfoHandler, true},
    {"request_body_max_size", "SIZE", "0 KB", "0 KB (no limit)", "requestBodyMaxSize",
     "The largest request body a client may send, as in Squid 5.7 (one size for every request: it takes no "
     "acls). A request whose Content-Length is larger is answered 413 with the ERR_TOO_BIG page before "
     "http_access is checked, logged NONE_NONE/413, and its connection is closed; a chunked body that grows "
     "past the limit on its way to the origin has its connection reset, logged NONE_NONE/000, as Squid "
     "does. 0 means no limit.",
     RequestBodyMaxSizeHandler, false},
    {"reply_body_max_size", "SIZE|none [[!]ACL...]", nullptr, "none", "replyBodyMaxSizes",
     "The largest reply body a client may be sent. Several lines may be given, each with acls after the "
     "size (the size then needs its unit, as in Squid); the first line whose acls all match applies (request "
     "acls and reply acls alike); when none does, there is no limit. A reply whose Content-Length is "
     "larger, or a stored one whose body is, gets the ERR_TOO_BIG page (403) instead, logged "
     "TCP_DENIED_REPLY/403, "
     "before http_reply_access is checked, for misses and hits alike (the object is still stored when it "
     "may be); a reply to HEAD, and one without a body, pass. A reply without a length whose body grows past "
     "the limit is cut off: the client gets the body up to the limit, the connection is closed and the "
     "line logged with the bytes sent, as in Squid.",
     ReplyBodyMaxSizeHandler, true},
    {"cache_mem", "SIZE", "256 MB", nullptr, "cacheMem",
     "The memory that cached objects may use, in bytes, KB, MB or GB (two words, as `256 MB`). In-transit "
     "objects are counted too while they are being kept.",
     SizeHandler<&Settings::cacheMem>, false},
    {"shared_memory_locking", "on|off", "off", nullptr, "sharedMemoryLocking",
     "Whether the memory for cache_mem is taken, populated and locked in RAM (mlock) when cuttle starts, as "
     "Squid does with its shared memory: RSS is cache_mem from the start, and an object being stored is read "
     "into pages that are already there, so a large miss that is kept runs as fast as one that is not (fresh "
     "pages cost a fault and a zeroing each, and on a virtual machine often a fault in the host). Locking "
     "needs a large enough RLIMIT_MEMLOCK (LimitMEMLOCK= in a systemd unit) or CAP_IPC_LOCK; when it fails "
     "cuttle does not start. With workers sharing the memory cache, each locks an equal share of cache_mem "
     "for the objects it stores (what one stores past its share is not locked). A change takes effect at "
     "the next start. Off, as in Squid, takes memory as objects arrive.",
     OnOffHandler<&Settings::sharedMemoryLocking>, false},
    {"memory_populate_ahead", "auto|SIZE", "auto", nullptr, "memoryPopulateAhead",
     "cuttle's own: how much memory a helper thread keeps mapped and populated ahead of need, so that a "
     "large object being kept is read into pages that are already there (a fresh page costs a fault and a "
     "zeroing, and on a virtual machine often a fault in the host: a 512 MiB object kept into fresh pages "
     "arrived at 0.80x the rate of one not kept). The helper makes pages only while the proxy is quiet "
     "(right after start, and once no ready memory has been taken for a quarter of a second), at idle "
     "priority, never racing a transfer for the CPU; the memory it holds and what the "
     "cache holds together stay within cache_mem. auto is maximum_object_size_in_memory (at most "
     "cache_mem) in whole 4 MB chunks, so that one object of the largest size kept arrives into ready "
     "pages; with the default 512 KB that is none, and no thread. 0 turns it off; with "
     "shared_memory_locking on it is off too, as cache_mem was populated at start. Takes effect at once on "
     "a reconfigure.",
     SizeOrAutoHandler<&Settings::memoryPopulateAhead>, false},
    {"maximum_object_size_in_memory", "SIZE", "512 KB", nullptr, "maximumObjectSizeInMemory",
     "Objects larger than this are not kept in the memory cache; their bodies are released as soon as every "
     "client has been sent them.",
     SizeHandler<&Settings::maximumObjectSizeInMemory>, false},
    {"minimum_object_size", "SIZE", "0 KB", nullptr, "minimumObjectSize",
     "Responses with a body smaller than this are not kept in the cache; 0 keeps responses of any size, "
     "empty ones included.",
     SizeHandler<&Settings::minimumObjectSize>, false},
    {"maximum_object_size", "SIZE", "4 MB", nullptr, "maximumObjectSize",
     "Objects larger than this are not stored in the disk cache (nor in memory: "
     "maximum_object_size_in_memory is the memory cache's own, lower limit). As in Squid, a cache_dir's "
     "max-size= lowers it for that directory. Replies whose Content-Length is larger are not stored; a "
     "body of unknown length stops being stored the moment it passes the limit, and streams on.",
     SizeHandler<&Settings::maximumObjectSize>, false},
    {"cache_replacement_policy", "lru|heap GDSF|heap LFUDA|heap LRU", "lru", nullptr,
     "cacheReplacementPolicy",
     "Which objects a cache_dir evicts first when it passes cache_swap_high: the same policies as "
     "memory_replacement_policy, with a disk object's file size for heap GDSF. As in Squid, a line applies "
     "to the cache_dir lines below it (a cache_dir above every line uses lru), and a changed policy takes "
     "effect at the next start. A hit on a disk object counts as a reference; after a start, each "
     "cache_dir's order is the order its objects were stored in, every object with one reference.",
     ReplacementPolicyHandler<&Settings::cacheReplacementPolicy>, false},
    {"cache_dir", "TYPE DIR MBYTES [L1 L2] [OPTION...]", nullptr, nullptr, "cacheDirs",
     "A disk cache directory of MBYTES megabytes. The types ufs, aufs and diskd take L1 and L2, the counts "
     "of first- and second-level directories (1 to 256 each), as Squid does; rock takes none (cuttle lays "
     "it out as 16 and 256). One cuttle disk store serves every type: objects are files in DIR/L1/L2/, "
     "written by a small pool of I/O threads (aufs's model, which diskd's separate process and rock's "
     "shared database file are Squid's other ways to keep the disk off the event loop), and hits are sent "
     "with sendfile. Options: no-store (hits only; read-only, Squid's older name, is taken as no-store with "
     "a warning), min-size=BYTES and max-size=BYTES (a unit may follow in the same word: 4MB) bound the "
     "objects stored there. rock's slot-size= (1 to 32768), swap-timeout= (ms) and max-swap-rate= "
     "(swaps/s) and diskd's Q1= and Q2= are accepted and checked; they have no effect, since cuttle "
     "stores an object in one file of its own size and never queues a swap to a separate process. "
     "Several lines make several directories (see store_dir_select_algorithm). A directory must exist "
     "(cuttle -z makes it and its subdirectories); one that cannot be used stops cuttle at start-up, naming "
     "it.",
     CacheDirHandler, true},
    {"store_dir_select_algorithm", "least-load|round-robin", "least-load", nullptr, "storeDirSelect",
     "Which cache_dir stores a new object among those whose min-size and max-size admit it: least-load, "
     "the one with the most free space; round-robin, each in turn.",
     StoreDirSelectHandler, false},
    {"cache_swap_low", "PERCENT", "90", nullptr, "cacheSwapLow",
     "When a cache_dir is fuller than cache_swap_high percent of its MBYTES, objects are removed, in the "
     "order of its cache_replacement_policy, until it is below cache_swap_low percent.",
     CacheSwapHandler, false},
    {"cache_swap_high", "PERCENT", "95", nullptr, "cacheSwapHigh",
     "The use of a cache_dir, in percent of its MBYTES, past which objects are evicted; see cache_swap_low.",
     CacheSwapHandler, false},
    {"memory_cache_mode", "always|disk|network", "always", nullptr, "memoryCacheMode",
     "Which objects the memory cache keeps, as in Squid: always, every object that fits in "
     "maximum_object_size_in_memory; network, only objects fetched from the network; disk, no object "
     "fetched from the network: they go to the cache_dirs. With always and disk, a disk hit that fits "
     "is kept in memory too (its body read once by an I/O thread). Objects too large for memory go to "
     "the cache_dirs whatever the mode.",
     MemoryCacheModeHandler, false},
    {"memory_cache_shared", "on|off", "on", nullptr, "memoryCacheShared",
     "With several workers, whether they store in one memory cache of cache_mem (on, Squid's default "
     "for workers) or each in its own of cache_mem (off). Shared, an object one worker stored is a hit "
     "in every worker: in the worker that stored it, served from its blocks; in another, from a copy "
     "made for the hit (counted in mgr:mem as worker_copies). Collapsed forwarding joins fetches within "
     "a worker either way. Read at start only.",
     OnOffHandler<&Settings::memoryCacheShared>, false},
    {"memory_replacement_policy", "lru|heap GDSF|heap LFUDA|heap LRU", "lru", nullptr,
     "memoryReplacementPolicy",
     "Which objects the memory cache evicts first when cache_mem is full: lru, the least recently used; heap "
     "GDSF (Greedy-Dual Size Frequency), which keeps small popular objects for a better hit rate; heap LFUDA "
     "(Least Frequently Used with Dynamic Aging), which keeps popular objects whatever their size for a "
     "better "
     "byte hit rate; heap LRU, least recently used kept in a heap. `heap` alone is heap LRU, with a warning, "
     "as in Squid; the key names are case-sensitive.",
     ReplacementPolicyHandler<&Settings::memoryReplacementPolicy>, false},
    {"cache", "allow|deny [!]ACL...", nullptr, nullptr, "cacheAccess",
     "Requests that these rules deny are neither answered from the cache nor stored in it; other "
     "transactions and objects already cached are not affected. The rules read as http_access rules do: the "
     "first line whose acls all match decides, and when none does the answer is the opposite of the last "
     "line's. With no cache line at all everything may be cached. A line that names an undefined acl or one "
     "of a type cuttle does not implement is an error.",
     AccessRulesHandler<&Settings::cacheAccess>, true},
    {"send_hit", "allow|deny [!]ACL...", nullptr, nullptr, "sendHit",
     "Requests that these rules deny are not answered from the cache: they are forwarded as misses (logged "
     "TCP_MISS), and the reply may be stored again, as in Squid 5.7. The rules read as http_access rules "
     "do, reply acls (rep_header, http_status...) seeing the stored reply. A request that could join a "
     "fetch in flight (collapsed_forwarding) fetches alone when there are send_hit rules. With no line, "
     "every hit may be served.",
     AccessRulesHandler<&Settings::sendHit>, true},
    {"refresh_pattern", "[-i] REGEX MIN PERCENT MAX [OPTION...]", nullptr, nullptr, "refreshPatterns",
     "How long a response without explicit freshness (no max-age, s-maxage or Expires) stays fresh, for "
     "URLs that the POSIX extended regular expression REGEX matches (-i: ignoring case). The lines are "
     "tried in order and the first match applies; when none matches, cuttle uses Squid's built-in rule, "
     "`0 20% 4320`. MIN and MAX are minutes (cropped to 0 .. 525600, with a warning, as in Squid); PERCENT "
     "(the % is optional) may exceed 100. A response with Last-Modified is fresh for PERCENT of the time "
     "between Last-Modified and its Date, at most MAX; one without is fresh for MIN (at most MAX). As RFC "
     "9111 "
     "says, and unlike Squid, this heuristic applies only to status codes that allow it (200, 203, 204, 300, "
     "301, 308, 404, 405, 410, 414, 501) and to responses marked public. Squid's "
     "options: override-expire (MIN also applies to responses with an explicit expiry), override-lastmod "
     "(MIN also applies when Last-Modified says less), reload-into-ims (a client reload becomes a "
     "validation), ignore-reload (a client reload is served from the cache), ignore-no-store and "
     "ignore-private (the response's no-store or private is ignored), refresh-ims (a client "
     "If-Modified-Since is sent to the origin), store-stale (keep responses that are stale or cannot be "
     "validated), max-stale=SECONDS (overrides max_stale). The override and ignore options violate HTTP. A "
     "bad regex, a bad number and an unknown option are errors; Squid's obsolete ignore-no-cache, "
     "ignore-must-revalidate and ignore-auth get a warning. squid.conf.default has Squid's four usual lines.",
     RefreshPatternHandler, true},
    {"max_stale", "TIME", "1 week", nullptr, "maxStale",
     "How stale a cached response may be and still be served when its validation fails (the origin cannot "
     "be reached or answers with an error). A refresh_pattern max-stale=N option overrides it.",
     DurationHandler<&Settings::maxStale>, false},
    {"negative_ttl", "TIME", "0 seconds", nullptr, "negativeTtl",
     "How long error responses that Squid caches negatively (such as 404 Not Found) without an explicit "
     "expiry stay fresh. 0, Squid 5.7's default, gives them no freshness; more violates HTTP.",
     DurationHandler<&Settings::negativeTtl>, false},
    {"collapsed_forwarding", "on|off", "off", nullptr, "collapsedForwarding",
     "Whether concurrent requests for the same cachable URL share one origin fetch while it is in flight "
     "(a late request joins only while the start of the body is still held), and concurrent requests that "
     "find the same stale object share one revalidation (logged TCP_CF_REFRESH_*). With several workers, "
     "a request joins another worker's fetch or revalidation as well. Off, as in Squid, forwards each "
     "request on its own.",
     OnOffHandler<&Settings::collapsedForwarding>, false},
    {"quick_abort_min", "SIZE", "16 KB", nullptr, "quickAbortMin",
     "When every client of a fetch that is being cached has gone, the fetch goes on if less than this is "
     "left to read. A negative size (-1 KB) always finishes such fetches. A number without a unit is KB, as "
     "in Squid.",
     QuickAbortMinHandler, false},
    {"quick_abort_max", "SIZE", "16 KB", nullptr, "quickAbortMax",
     "When every client of a fetch that is being cached has gone, the fetch is abandoned if more than this "
     "is left to read (unless quick_abort_min says to go on). Setting both quick_abort_min and "
     "quick_abort_max to 0 KB abandons every such fetch. A number without a unit is KB, as in Squid.",
     QuickAbortMaxHandler, false},
    {"quick_abort_pct", "PERCENT", "95", nullptr, "quickAbortPct",
     "When every client of a fetch that is being cached has gone and neither quick_abort_min nor "
     "quick_abort_max decided, the fetch goes on if more than this percentage (0 to 100) of it has been "
     "read.",
     QuickAbortPctHandler, false},
    {"range_offset_limit", "SIZE|none [[!]ACL...]", "0", nullptr, "rangeOffsetLimits",
     "How far into an object a Range request may start for cuttle to fetch the whole object (and so be able "
     "to cache it); a Range that starts further is forwarded as it is and its answer is not cached. 0 never "
     "fetches more than the client asked for; none (or -1) always fetches the whole object, whatever "
     "quick_abort says. Several lines may be given, each with acls after the size (the size then needs its "
     "unit, as in Squid); the first line whose acls all match applies, and 0 when none does.",
     RangeOffsetLimitHandler, true},
    {"read_ahead_gap", "SIZE", "16 KB", nullptr, "readAheadGap",
     "How far the origin side may read ahead of the slowest client of an object before it stops reading and "
     "waits. The default is Squid's value, kept because the benchmark's sweep (doc/tuning.md) found no gain "
     "from a larger gap with cuttle's reads of up to 1 MB (the kernel's socket buffers already overlap "
     "reading and writing), and a small gap keeps a slow client of a large object cheap: it holds at most "
     "the gap plus two read blocks.",
     SizeHandler<&Settings::readAheadGap>, false},
    {"request_buffer_size", "SIZE | auto [min=SIZE] [max=SIZE]", "auto min=16 KB max=1 MB", nullptr,
     "requestBufferSize",
     "The size of one read block (cuttle's; it replaces Squid's compile-time HTTP_REQBUF_SZ). A fixed SIZE, "
     "or "
     "`auto`, which adapts each connection's read size between min and max from how full its reads come "
     "back. "
     "Sizes must lie within the block pool's sizes, 256 bytes to 4 MB, and min may not exceed max. The "
     "default was chosen by the benchmark (doc/tuning.md): a bulk transfer grows to 1 MB reads and moves a "
     "GB in about 5,000 system calls, while a connection with small replies keeps 16 KB blocks.",
     RequestBufferSizeHandler, false},
    {"splice_min_size", "SIZE", "32 KB", nullptr, "spliceMinSize",
     "cuttle's. A reply that is not cached and goes to one client with its framing unchanged "
     "(Content-Length, "
     "or close-delimited to a client that gets it so too; neither side over TLS, no Range, no "
     "reply_body_max_size) moves from the origin socket to the client socket with splice(2), through a pipe "
     "and without a copy in user space, when at least SIZE of its body is still to come after the first "
     "read (a close-delimited reply always). 0 turns splicing off. The default was chosen by measurement "
     "(doc/tuning.md \"Splice\"): below it the pipe's extra system calls cost more than the copy they save.",
     SizeHandler<&Settings::spliceMinSize>, false},
    {"request_header_max_size", "SIZE", "64 KB", nullptr, "requestHeaderMaxSize",
     "The largest request header section accepted; a larger one is answered with an error.",
     SizeHandler<&Settings::requestHeaderMaxSize>, false},
    {"reply_header_max_size", "SIZE", "64 KB", nullptr, "replyHeaderMaxSize",
     "The largest reply header section accepted from an origin; a larger one makes the reply an error.",
     SizeHandler<&Settings::replyHeaderMaxSize>, false},
    {"access_log", "MODULE:PLACE [FORMAT | OPTION=VALUE...] [ACL...] | none [ACL...]",
     "stdio:" CUTTLE_DEFAULT_LOG_DIR "/access.log squid", "stdio:" LOG_DIR_SHOWN "/access.log squid",
     "accessLogs",
     "Writes one line per transaction in FORMAT (squid, the default; common, combined, referrer, "
     "useragent, icap_squid, or a logformat line's NAME) to MODULE:PLACE: `stdio:PATH` (written by the "
     "event loop; a bare /PATH too), `daemon:PATH` (written by a thread of its own, so a slow disk never "
     "stops the proxy), `syslog:FACILITY.PRIORITY` (default user.info), `udp://HOST:PORT` (a datagram per "
     "line) or `tcp://HOST:PORT` (a stream, reconnected after a failure; HOST is an address). Several lines "
     "write several logs; each is tried in order and skipped when its acls do not all match; `none ACL...` "
     "ends the list for the requests its acls match, and `none` alone for every request (later lines are "
     "ignored with a warning). As in Squid 5.7, the word after PLACE is the format only when it names one "
     "(`auto` means squid); otherwise it and the words after it are acls. Options: logformat=NAME, "
     "buffer-size=SIZE (bytes held before a write, default 64KB), on-error=die|drop (die stops cuttle "
     "when the log cannot be written; drop, cuttle's default, loses the lines and says so once in "
     "cache.log) and "
     "rotate=N (copies kept by `-k rotate`, instead of logfile_rotate); after them the first other word "
     "starts the acls. The acls see the finished transaction: src, dst (an address in the URL), "
     "dstdomain, port, method, proto, urlpath_regex, url_regex, http_status, hier_code, myip, myport, "
     "proxy_auth (the logged user). A relative PATH is "
     "resolved against the directory cuttle starts in.",
     AccessLogHandler, true},
    {"logformat", "NAME FORMAT", nullptr, nullptr, "logformats",
     "Defines the log format NAME for access_log: FORMAT is the rest of the line as written, quotes, "
     "blanks and `#` included, with Squid 5.7's %-codes and modifiers: "
     "`%[encoding][-][[0]width][.precision][{arg}]code[{arg}]`, encoding `\"` (quoted string), `[` "
     "(Squid's MIME blob quoting), `#` (URL encoding), `/` (shell word) or `'` (raw). Codes with values: "
     "%% sn err_code >a >A >p >la >lp la lp <a <A <p >qos >nfmark <qos <nfmark (0x0: cuttle marks no "
     "packet) ts tu tl tg (with an optional {strftime format}) tr tS un ul rm >rm <rm ru >ru <ru >rs <rs "
     ">rd <rd >rP <rP rp >rp <rp rv >rv <rv >h >ha <h (whole, `{Name}`, `{Name:element}` or "
     "`{Name:;element}` with `,` `;` or `:` as separator) <Hs >Hs mt st >st <st >sh <sh <sH <sS Ss Sh, "
     "each optionally written `%http::CODE`. Codes Squid knows whose value cuttle does not have print `-`: "
     "err_detail note master_xaction >eui <la <lp >handshake dt et ea ue ui credentials <bs <pt <tt and "
     "the icap::, adapt:: and proxy_protocol:: codes. %us and the ssl:: codes are errors, as in Debian's "
     "squid 5.7. As in Squid, a format that prints %>h or %<h whole turns log_mime_hdrs on, and "
     "redefining a built-in format or an earlier NAME is ignored with a warning.",
     LogformatHandler, true},
    {"buffered_logs", "on|off", "off", nullptr, "bufferedLogs",
     "off: access.log lines are written at the end of each event-loop round, as they come. on: they are "
     "written when a log's buffer-size is reached and at most once a second otherwise (fewer system calls "
     "under load; up to a second of lines is lost if cuttle is killed).",
     OnOffHandler<&Settings::bufferedLogs>, false},
    {"log_mime_hdrs", "on|off", "off", nullptr, "logMimeHdrs",
     "on: the squid, common and combined lines end with the request's header fields and the reply's head, "
     "each in brackets with Squid's MIME blob quoting (CR and LF as \\r \\n; %, [, ], controls and "
     "non-ASCII as %xx; \\ doubled), as in Squid.",
     OnOffHandler<&Settings::logMimeHdrs>, false},
    {"cache_store_log", "MODULE:PLACE|none", "none", nullptr, "cacheStoreLog",
     "Squid's store.log: a line per object the cache lets go (RELEASE), in Squid 5.7's format: time, "
     "action, directory and file (-1 FFFFFFFF: the memory cache), a 32-hex-digit key, status, Date, "
     "Last-Modified and Expires (-1 when absent), Content-Type, expected/received body length, method "
     "and URL. A stored object gets its line when it is evicted, replaced, purged or invalidated; a "
     "reply that was never stored gets one when its transaction ends. MODULE:PLACE as for access_log "
     "(stdio:PATH, daemon:PATH, syslog:..., "
     "udp://..., tcp://...); rotated with access.log. none (the default, as in Squid 5.7) keeps no "
     "store log.",
     CacheStoreLogHandler, false},
    {"cache_log", "PATH|none", CUTTLE_DEFAULT_LOG_DIR "/cache.log", LOG_DIR_SHOWN "/cache.log", "cacheLog",
     "Where cuttle writes its own messages (start-up, warnings, errors). A relative PATH is resolved against "
     "the directory cuttle starts in. `none` keeps no cache.log: the messages go to stderr, as before a "
     "cache.log is open (Squid 5.7 takes `none` as a file name and writes ./none; cuttle says so in a "
     "warning).",
     CacheLogHandler, false},
    {"pid_filename", "PATH|none", CUTTLE_DEFAULT_RUN_DIR "/cuttle.pid", RUN_DIR_SHOWN "/cuttle.pid",
     "pidFilename",
     "The file that holds the running cuttle's process id, which `cuttle -k` uses to signal it; none writes "
     "no "
     "pid file. A relative PATH is resolved against the directory cuttle starts in.",
     PathHandler<&Settings::pidFilename, true>, false},
    {"debug_options", "ALL,LEVEL|SECTION,LEVEL... [rotate=N]", "ALL,1", nullptr, "debugOptions",
     "How much cache.log says: ALL,LEVEL sets every section, SECTION,LEVEL (0 to 99, levels 0 to 9) one "
     "section, "
     "later pairs override earlier ones. rotate=N keeps N old cache.log files on rotation.",
     DebugOptionsHandler, false},
    {"logfile_rotate", "COUNT", "10", nullptr, "logfileRotate",
     "How many old copies of each log file `cuttle -k rotate` keeps (an access_log's rotate=N overrides "
     "it for that log; syslog and udp logs are not rotated, a tcp log reconnects): access.log becomes "
     "access.log.0, the "
     "previous access.log.0 becomes access.log.1, and so on up to COUNT-1; 0 renames nothing and only "
     "reopens the logs, for an external logrotate (Debian's Squid package sets 0 in "
     "/etc/squid/conf.d/debian.conf). cache.log uses debug_options rotate=N instead when that is given.",
     CountHandler<&Settings::logfileRotate>, false},
    {"cachemgr_passwd", "PASSWORD|none|disable ACTION...", nullptr, nullptr, "managerPasswords",
     "The password of the cache manager actions named (`all`: every action no earlier line names; the "
     "first line naming an action decides, as in Squid 5.7). `none` serves them without a password, "
     "`disable` answers them 404. An action no line names is served without a password, except those "
     "Squid protects (shutdown, reconfigure, rotate, config and the rest that the `menu` page lists as "
     "hidden), which then answer 404. The password comes from the URL "
     "(`cache_object://HOST/ACTION@PASSWORD`, as squidclient -w sends it) or from an "
     "`Authorization: Basic` field; a missing or wrong one is answered 401 ERR_CACHE_MGR_ACCESS_DENIED. "
     "http_access decides first (the `manager` acl).",
     CachemgrPasswdHandler, true},
    {"visible_hostname", "HOSTNAME", nullptr, nullptr, "visibleHostname",
     "The host name that error pages and Via headers show. Without it cuttle uses the system's host name.",
     HostnameHandler, false},
    {"unique_hostname", "HOSTNAME", nullptr, nullptr, "uniqueHostname",
     "The name cuttle gives itself in the Via headers it adds, when several caches share one "
     "visible_hostname. A request whose Via already names this cuttle (` NAME (cuttle/VERSION)` in one of "
     "its elements) has come back to it: a miss is answered 403 ERR_ACCESS_DENIED as a forwarding loop, "
     "logged TCP_MISS/403 HIER_NONE with a WARNING in cache.log, as Squid 5.7 does.",
     HostnameHandler, false},
    {"via", "on|off", "on", nullptr, "via",
     "Whether cuttle adds a Via header to requests and replies it forwards (RFC 9110 section 7.6.3).",
     OnOffHandler<&Settings::via>, false},
    {"strip_query_terms", "on|off", "on", nullptr, "stripQueryTerms",
     "Whether access.log shows URLs without their query terms (everything after the `?`), as Squid does by "
     "default, so that passwords and session ids in query strings do not reach the log.",
     OnOffHandler<&Settings::stripQueryTerms>, false},
    {"host_verify_strict", "on|off", "off", nullptr, "hostVerifyStrict",
     "How a request whose Host header fails verification is answered, as in Squid 5.7. On an intercept port "
     "the Host must resolve to the connection's original destination address and name its port, if any; "
     "with off a request that fails is still forwarded to the original destination but neither served from "
     "nor stored in the cache (a CONNECT gets 409). With on it gets 409 Conflict (ERR_CONFLICT_HOST). An "
     "absolute-form request is verified by its URL's host and port instead of Host; a request without Host "
     "is not verified, so it is forwarded but not cached. Forward proxy ports check nothing: as in Squid, "
     "the URL's authority stands for Host there.",
     OnOffHandler<&Settings::hostVerifyStrict>, false},
    {"forwarded_for", "on|off|transparent|truncate|delete", "on", nullptr, "forwardedFor",
     "What cuttle does with X-Forwarded-For: on appends the client address, off appends `unknown`, "
     "transparent "
     "leaves the header alone, truncate replaces it with the client address, delete removes it.",
     ForwardedForHandler, false},
    {"httpd_suppress_version_string", "on|off", "off", nullptr, "httpdSuppressVersionString",
     "on: cuttle names itself without its version (`cuttle`, not `cuttle/VERSION`) in Server headers, Via "
     "headers and error pages, as Squid does with it.",
     OnOffHandler<&Settings::httpdSuppressVersionString>, false},
    {"request_header_access", "NAME allow|deny [!]ACL...", nullptr, nullptr, "requestHeaderRules",
     "Removes fields from the requests cuttle forwards, as Squid 5.7 does. Rules are grouped by header name "
     "(in any case); for each field the group used is the field's own name's, else `Other` (for names Squid "
     "does not know: X-Custom, DNT, ...), else `All`, the first that has rules. In that group the first "
     "rule whose acls all match decides: allow keeps the field, deny removes it (or, with "
     "request_header_replace for the group, replaces its value); when none matches the answer is the "
     "opposite of the last rule's, as in http_access. The acls see what http_access sees. The rules apply "
     "to every field that goes out, Host, Via and X-Forwarded-For included, except the hop's own framing, "
     "which cuttle writes (Content-Length, Transfer-Encoding, Connection; Squid removes them and breaks "
     "the message). They do not change what the cache looks up.",
     HeaderRulesHandler<&Settings::requestHeaderRules, HeaderAccessLine>, true},
    {"request_header_replace", "NAME VALUE", nullptr, nullptr, "requestHeaderRules",
     "The value a request field of group NAME (a header name, `Other` or `All`) gets when "
     "request_header_access denies it, instead of being removed: the rest of the line, as written. Only "
     "fields that are there are replaced, and only where request_header_access has rules for NAME.",
     HeaderRulesHandler<&Settings::requestHeaderRules, HeaderReplaceLine>, true},
    {"request_header_add", "NAME VALUE [ACL...]", nullptr, nullptr, "requestHeaderRules",
     "Adds the field NAME to the requests cuttle forwards, when every acl on the line matches (or there is "
     "none), after the request_header_access rules and untouched by them; a field of that name that is "
     "already there stays. A quoted \"VALUE\" has %-codes: %>a (client address), %rm (method), %ru (URL), "
     "%un (user, or -), %ts and %tu (the request's start, seconds and milliseconds), %{NAME}>h (the "
     "request's NAME field, or -) and %% (a %); any other code is an error. An unquoted VALUE is taken as it "
     "is.",
     HeaderRulesHandler<&Settings::requestHeaderRules, HeaderAddLine>, true},
    {"reply_header_access", "NAME allow|deny [!]ACL...", nullptr, nullptr, "replyHeaderRules",
     "request_header_access for the replies cuttle sends to clients (from the origin, from the cache, "
     "its own error pages, a URL rewriter's redirect and the manager page). The acls see what "
     "http_reply_access sees: the request's facts and the "
     "reply's. Content-Length, Transfer-Encoding and Connection, which cuttle writes for the hop, are not "
     "removed.",
     HeaderRulesHandler<&Settings::replyHeaderRules, HeaderAccessLine>, true},
    {"reply_header_replace", "NAME VALUE", nullptr, nullptr, "replyHeaderRules",
     "request_header_replace for reply fields that reply_header_access denies.",
     HeaderRulesHandler<&Settings::replyHeaderRules, HeaderReplaceLine>, true},
    {"reply_header_add", "NAME VALUE [ACL...]", nullptr, nullptr, "replyHeaderRules",
     "request_header_add for the replies cuttle sends to clients (not the 200 that opens a CONNECT tunnel), "
     "with the same %-codes.",
     HeaderRulesHandler<&Settings::replyHeaderRules, HeaderAddLine>, true},
    {"cache_peer", "HOST parent|sibling HTTP-PORT ICP-PORT [OPTION...]", nullptr, nullptr, "cachePeers",
     "A parent proxy that misses may go to, or a sibling that only hits go to, chosen as Squid 5.7's peer "
     "selection does (doc/forwarding.md \"Parents\" and \"Siblings and ICP\"). With icp_port set, a miss "
     "that may go to peers is first asked of each peer with an ICP port and without no-query: the first "
     "sibling or parent answering ICP_HIT gets it (SIBLING_HIT, PARENT_HIT), else the parent whose ICP_MISS "
     "came first per weight= (FIRST_PARENT_MISS), else the parents as below, else the origin. Parents: "
     "sourcehash, userhash, carp (with carp-key=scheme,host,port,path,params), round-robin, "
     "weighted-round-robin, the first parent that is up, the default one, then every other live parent, "
     "each weighed by weight=. Requests go to a peer in absolute-form (to a sibling with Cache-Control: "
     "only-if-cached unless allow-miss); originserver sends them as to an origin. Options: name=, "
     "no-query, default, proxy-only (its replies are not cached), allow-miss, basetime= (ms taken off its "
     "ICP round trips), login=user:pass, login=*:suffix, login=PASS|PASSTHRU|PROXYPASS (the client's "
     "credentials go on), connect-timeout= (seconds), connect-fail-limit= (failed connects before the peer "
     "is dead; a probe revives it), max-conn=, standby= (accepted; none opened ahead), no-digest and "
     "no-netdb-exchange (cuttle has neither). tls (or ssl) speaks TLS to the peer, verified against the "
     "system CAs and tls-cafile=, with tls-cert=, tls-key=, tls-capath=, tls-cipher=, tls-min-version=, "
     "tls-options=, tls-flags=, tls-default-ca= as in tls_outgoing_options (and Squid's sslcafile= and "
     "other ssl names), tls-domain= the name its certificate must have (default: HOST); a CONNECT never "
     "goes to a tls peer. Multicast, HTCP, tls-crlfile= and forceddomain= are refused.",
     CachePeerHandler, true},
    {"cache_peer_access", "NAME allow|deny [!]ACL...", nullptr, nullptr, "cachePeers",
     "Which requests may go to the cache_peer called NAME (declared above the line), by the rules of "
     "http_access; with no line, every request may.",
     CachePeerAccessHandler, true},
    {"peer_connect_timeout", "TIME", "30 seconds", nullptr, "peerConnectTimeout",
     "How long cuttle waits for a connection to a cache_peer to open, unless its connect-timeout= says; "
     "a dead peer is probed at most this often.",
     DurationHandler<&Settings::peerConnectTimeout>, false},
    {"icp_port", "PORT", "0", nullptr, "icpPort",
     "The UDP port cuttle answers ICP (RFC 2186, version 2) queries on, and sends its own queries from; 0 "
     "(the default): no ICP at all, so peers are chosen without queries. Port 0 is no port here, as in "
     "Squid: a test picks a free one. Squid's older name udp_port is taken.",
     IcpPortHandler, false},
    {"udp_incoming_address", "IP|any_addr", "any_addr", nullptr, "udpIncomingAddress",
     "The address the ICP port binds; any_addr: every address.", UdpIncomingAddressHandler, false},
    {"icp_access", "allow|deny [!]ACL...", nullptr, "deny all", "icpAccess",
     "Which clients may send ICP queries, by the rules of http_access (fast acls: src, dst-less ones); "
     "with no line nobody may (Squid's default): each query is answered ICP_DENIED and logged UDP_DENIED.",
     AccessRulesHandler<&Settings::icpAccess>, true},
    {"icp_query_timeout", "MILLISECONDS", "0", nullptr, "icpQueryTimeout",
     "How long a miss waits for the peers' ICP replies; 0 (the default): Squid's dynamic timeout, twice "
     "the mean ICP round trip of the parents expected to answer (of the siblings when none is a parent), "
     "each peer's round trip a running average of its replies, kept within "
     "minimum_icp_query_timeout and maximum_icp_query_timeout; 2 seconds when no reply is expected.",
     CountHandler<&Settings::icpQueryTimeout>, false},
    {"minimum_icp_query_timeout", "MILLISECONDS", "5", nullptr, "minimumIcpQueryTimeout",
     "The shortest dynamic ICP timeout (icp_query_timeout 0).",
     CountHandler<&Settings::minimumIcpQueryTimeout>, false},
    {"maximum_icp_query_timeout", "MILLISECONDS", "2000", nullptr, "maximumIcpQueryTimeout",
     "The longest dynamic ICP timeout (icp_query_timeout 0).",
     CountHandler<&Settings::maximumIcpQueryTimeout>, false},
    {"dead_peer_timeout", "TIME", "10 seconds", nullptr, "deadPeerTimeout",
     "A peer that has answered no ICP query for this long since the first one it left unanswered is dead "
     "to ICP: it is still queried (once per this time at least), but no reply from it is waited for, until "
     "one comes.",
     DurationHandler<&Settings::deadPeerTimeout>, false},
    {"icp_hit_stale", "on|off", "off", nullptr, "icpHitStale",
     "on: an object the cache holds answers ICP_HIT even when stale; off: only one fresh for 30 more "
     "seconds does (Squid's refreshCheckICP).",
     OnOffHandler<&Settings::icpHitStale>, false},
    {"log_icp_queries", "on|off", "on", nullptr, "logIcpQueries",
     "on: each ICP query answered gets an access.log line (ICP_QUERY, UDP_HIT, UDP_MISS, UDP_DENIED...).",
     OnOffHandler<&Settings::logIcpQueries>, false},
    {"always_direct", "allow|deny [!]ACL...", nullptr, nullptr, "alwaysDirect",
     "Requests these rules allow go to their origin, never to a cache_peer.",
     AccessRulesHandler<&Settings::alwaysDirect>, true},
    {"never_direct", "allow|deny [!]ACL...", nullptr, nullptr, "neverDirect",
     "Requests these rules allow (and always_direct does not) go to a cache_peer only, never to their "
     "origin; with no parent to take one, it fails (503).",
     AccessRulesHandler<&Settings::neverDirect>, true},
    {"prefer_direct", "on|off", "off", nullptr, "preferDirect",
     "on: the origin is tried before the parents (which stay as fallbacks).",
     OnOffHandler<&Settings::preferDirect>, false},
    {"nonhierarchical_direct", "on|off", "on", nullptr, "nonhierarchicalDirect",
     "on (Squid's default): a request that is not hierarchical (not a GET or TRACE, or one with an "
     "Authorization field) goes direct unless never_direct forbids it; off: it may go to parents too.",
     OnOffHandler<&Settings::nonhierarchicalDirect>, false},
    {"forward_max_tries", "N", "25", nullptr, "forwardMaxTries",
     "How many destinations (parents, the origin) a request may try, each after a failed connection.",
     ForwardMaxTriesHandler, false},
    {"retry_on_error", "on|off", "off", nullptr, "retryOnError",
     "on: a reply of 403, 500, 501 or 503 from a parent or the origin is not passed on while another "
     "destination may be tried (forward_max_tries): the request goes to the next one, as in Squid 5.7. "
     "A 502 or 504 is always retried so, on or off. Only when the request body, if any, is still held "
     "whole; the reply that is given up is not read and its connection is closed.",
     OnOffHandler<&Settings::retryOnError>, false},
    {"tcp_outgoing_address", "ADDRESS [[!]ACL...]", nullptr, nullptr, "tcpOutgoingAddresses",
     "The source address of connections to origins and parents (and of CONNECT tunnels), as Squid 5.7 "
     "picks it: the first line whose address is of the destination's family (IPv4 or IPv6) and whose acls "
     "all match (fast acls: a lookup not made yet does not match). No line: the kernel chooses. A pooled "
     "connection is reused only by a request that picks the same address. The address is a literal.",
     TcpOutgoingAddressHandler, true},
    {"tcp_outgoing_tos", "TOS [[!]ACL...]", nullptr, nullptr, "tcpOutgoingTos",
     "The TOS byte (IP_TOS, IPV6_TCLASS for IPv6) of connections to origins and parents: the first line "
     "whose acls all match. 0 to 255, decimal or 0x hex; the two ECN bits are cleared with a warning, as in "
     "Squid. tcp_outgoing_dscp and tcp_outgoing_ds are its aliases. A pooled connection is reused only by a "
     "request that picks the same value.",
     TcpOutgoingTosHandler, true},
    {"tcp_outgoing_mark", "MARK [[!]ACL...]", nullptr, nullptr, "tcpOutgoingMarks",
     "The netfilter mark (SO_MARK, for policy routing and firewall rules) of connections to origins and "
     "parents (and of CONNECT tunnels): the first line whose acls all match (fast acls). Decimal or 0x hex, "
     "32 bits. Setting it needs CAP_NET_ADMIN: started as root with a line of it, cuttle keeps that "
     "capability after it becomes cache_effective_user (as Squid does), and only then; a mark the kernel "
     "refuses is a warning and the connection goes on unmarked. A pooled connection is reused only by a "
     "request that picks the same mark.",
     TcpOutgoingMarkHandler, true},
    {"tls_outgoing_options", "KEY=VALUE...", nullptr, nullptr, "tlsOutgoing",
     "How cuttle speaks TLS to origins, for the https:// URLs plain clients ask for (doc/tls.md), with "
     "Squid 5's keys: cafile=PEM and capath=DIR add CAs to trust, beside the system's store unless "
     "default-ca=off or flags=NO_DEFAULT_CA; cert= and key= give a client certificate; cipher= is OpenSSL's "
     "list for TLS 1.2 and older; min-version=1.0|1.1|1.2|1.3 (default 1.2: TLS 1.0 and 1.1 are off unless "
     "asked for); options= OpenSSL's option names as Squid spells them (NO_TLSv1_3, NO_TICKET, ALL, ...; "
     "-NAME clears one), and cuttle's own KTLS: kernel TLS where the kernel has the tls module and the "
     "cipher suits it (cache.log says at start whether it does; off by default, doc/tls.md); "
     "flags=DONT_VERIFY_PEER (accept any certificate), DONT_VERIFY_DOMAIN (do not check "
     "the name), NO_DEFAULT_CA, NO_SESSION_REUSE. Several lines add up. A CA file that cannot be read or a "
     "cipher list OpenSSL refuses stops cuttle at start, and a reconfigure keeps the TLS settings in force.",
     TlsOutgoingOptionsHandler, true},
    {"sslproxy_cert_error", "allow|deny [!]ACL...", nullptr, "deny all", "sslproxyCertError",
     "Which certificate errors of an https:// origin are let through, by the rules of http_access with "
     "the error in the ssl_error acl (and the request's facts in the others); every error the rules do not "
     "allow fails the request with ERR_SECURE_CONNECT_FAIL (503), as in Squid. Allowing errors trusts "
     "origins that may not be who they say: keep the acls narrow.",
     AccessRulesHandler<&Settings::sslproxyCertError>, true},
    {"ssl_bump", "peek|stare|splice|bump|terminate [!]ACL...", nullptr, "splice every CONNECT", "sslBump",
     "What to do with the TLS inside a CONNECT tunnel of an `http_port ... ssl-bump`, checked as Squid 5 "
     "does at each step: step 1 (at_step SslBump1) on the CONNECT, step 2 (SslBump2) once the client's "
     "ClientHello is peeked (ssl::server_name then matches its SNI), step 3 (SslBump3) after peek or stare "
     "at step 2. The first rule whose acls match and whose action is possible at the step decides; no match "
     "splices. peek and stare go on to the next step (at step 2 cuttle makes a TLS handshake of its own with "
     "the "
     "origin: step 3's ssl::server_name sees its certificate's names, and a bump mimics them and its "
     "validity); splice tunnels the bytes untouched (the peeked ClientHello first); "
     "bump answers the client's TLS with a certificate minted for the SNI (or the CONNECT host) and serves "
     "the decrypted requests as https:// URLs through http_access, the cache and access.log, fetched over "
     "verified TLS (an origin that fails verification gets ERR_SECURE_CONNECT_FAIL to the client); "
     "terminate closes. Squid's client-first and server-first are bump, none is splice. Acls: at_step, "
     "ssl::server_name, ssl::server_name_regex, transaction_initiator and the others of the CONNECT.",
     SslBumpHandler, true},
    {"sslproxy_cert_sign", "signTrusted|signUntrusted|signSelf [!]ACL...", nullptr,
     "signUntrusted ssl::certUntrusted, then signSelf ssl::certSelfSigned, then signTrusted all",
     "sslproxyCertSign",
     "Who signs the certificate a bump shows the client, when ssl_bump bumps after looking at the origin "
     "(peek or stare at step 2, bumped at step 3; or bumped at step 2, which looks first when any "
     "sslproxy_cert_error, sslproxy_cert_sign or sslproxy_cert_adapt line exists): the first line whose acls "
     "match, then Squid's three "
     "default lines, which always follow the configured ones. signTrusted: the bump CA (tls-cert=); "
     "signUntrusted: a CA cuttle makes at start that no client trusts, named as the bump CA but with the CN "
     "`Not trusted by \"NAME\"` (NAME: the bump CA's CN), so that the client sees an untrusted certificate "
     "for an origin whose certificate was untrusted; signSelf: the minted "
     "certificate itself (self-signed). The ssl_error acl and the predefined ssl::certUntrusted, "
     "ssl::certSelfSigned, ssl::certHasExpired, ssl::certNotYetValid and ssl::certDomainMismatch acls see "
     "every error of the origin's certificate. When sslproxy_cert_error refuses one of them, or the origin "
     "was not looked at, the certificate is signTrusted and names the client's "
     "server name, as in Squid: the error page follows over it. Fast acls only.",
     CertSignHandler, true},
    {"sslproxy_cert_adapt", "setValidAfter|setValidBefore|setCommonName[{CN}] [!]ACL...", nullptr, nullptr,
     "sslproxyCertAdapt",
     "Changes to the certificate a bump mimics from the origin's (after a look at it, as for "
     "sslproxy_cert_sign), by the "
     "first line of each algorithm whose acls match, as in Squid: setValidAfter makes its \"Not After\" the "
     "bump CA's; setValidBefore its \"Not Before\" the CA's; setCommonName its CN the CONNECT's host, "
     "setCommonName{CN} the given one (at most 64 characters), and that name its one subjectAltName. The "
     "acls "
     "see the origin certificate's errors as sslproxy_cert_sign's do. Fast acls only.",
     CertAdaptHandler, true},
    {"sslproxy_cert_sign_hash", "DIGEST", "sha256", nullptr, "sslproxyCertSignHash",
     "The hash a bump's minted certificates are signed with, by OpenSSL's name (sha256, sha384, sha512, "
     "sha1, md5...; clients refuse sha1 and md5 signatures). An ssl-bump port takes it when it is first "
     "opened: a change waits for the next start, as the port's CA does.",
     CertSignHashHandler, true},
    {"sslcrtd_program", "PROGRAM [ARGUMENT...]", nullptr, nullptr, "(none)",
     "Accepted with one warning: cuttle mints bumped certificates in the process (ssl_bump), without "
     "Squid's security_file_certgen helper.",
     CertHelperHandler, false},
    {"sslcrtd_children", "N [OPTION...]", nullptr, nullptr, "(none)",
     "Accepted with one warning, as sslcrtd_program: cuttle runs no certificate helper.", CertHelperHandler,
     false},
    {"connect_timeout", "TIME", "1 minute", nullptr, "connectTimeout",
     "How long cuttle waits for a TCP connection to one address of an origin to open (its connect_retries "
     "included); then it tries the next address.",
     DurationHandler<&Settings::connectTimeout>, false},
    {"connect_retries", "N", "0", nullptr, "connectRetries",
     "How many times a connect to an address (an origin's or a parent's) that failed is made again before "
     "the next address is tried, all within connect_timeout; at most 10 (more is 10, with a warning, as in "
     "Squid 5.7). 0: each address once.",
     ConnectRetriesHandler, false},
    {"happy_eyeballs_connect_timeout", "MILLISECONDS", "250", nullptr, "happyEyeballsConnectTimeout",
     "IPv4 and IPv6 racing (Happy Eyeballs, RFC 8305) as Squid 5 does it: the family of a name's first "
     "address is the prime one and its addresses are tried first, one at a time; the other family's "
     "addresses start this long after the first prime attempt, or at once when a prime attempt fails, and "
     "the first connection made wins (the other attempt is closed).",
     CountHandler<&Settings::happyEyeballsConnectTimeout>, false},
    {"read_timeout", "TIME", "15 minutes", nullptr, "readTimeout",
     "How long an origin connection may stay silent while a reply is awaited or being read before cuttle "
     "gives "
     "up on it.",
     DurationHandler<&Settings::readTimeout>, false},
    {"request_timeout", "TIME", "5 minutes", nullptr, "requestTimeout",
     "How long cuttle waits for a complete request header section after a client connected or its previous "
     "request ended.",
     DurationHandler<&Settings::requestTimeout>, false},
    {"client_ip_max_connections", "COUNT|-1", "-1", nullptr, "clientIpMaxConnections",
     "The most connections one client address may have open at once; a connection past it is closed as "
     "soon as it is accepted, unanswered, with a warning in cache.log (at most one a second). -1: no "
     "limit.",
     LimitHandler<&Settings::clientIpMaxConnections>, false},
    {"client_idle_pconn_timeout", "TIME", "2 minutes", nullptr, "clientIdlePconnTimeout",
     "How long an idle persistent client connection is kept open between requests.",
     DurationHandler<&Settings::clientIdlePconnTimeout>, false},
    {"client_persistent_connections", "on|off", "on", nullptr, "clientPersistentConnections",
     "off: every reply to a client says `Connection: close` and its connection closes after it, as in "
     "Squid.",
     OnOffHandler<&Settings::clientPersistentConnections>, false},
    {"server_persistent_connections", "on|off", "on", nullptr, "serverPersistentConnections",
     "off: every request to an origin or a parent says `Connection: close` and its connection is closed "
     "after the reply, never pooled, as in Squid.",
     OnOffHandler<&Settings::serverPersistentConnections>, false},
    {"server_idle_pconn_timeout", "TIME", "1 minute", nullptr, "serverIdlePconnTimeout",
     "How long an idle persistent origin connection is kept in the pool for reuse.",
     DurationHandler<&Settings::serverIdlePconnTimeout>, false},
    {"dns_nameservers", "IP[:PORT]|[IPv6]:PORT...", nullptr, nullptr, "dnsNameservers",
     "The DNS servers to ask instead of those of /etc/resolv.conf. A port after the address (IP:PORT, "
     "[::1]:PORT) is a cuttle extension, used by the tests' DNS server. Several lines add servers.",
     DnsNameserversHandler, true},
    {"dns_timeout", "TIME", "30 seconds", nullptr, "dnsTimeout",
     "How long a DNS lookup may take, every try of every server included, before the request gets "
     "ERR_DNS_FAIL.",
     DurationHandler<&Settings::dnsTimeout>, false},
    {"positive_dns_ttl", "TIME", "6 hours", nullptr, "positiveDnsTtl",
     "How long the name cache keeps the names found for an address (the reverse lookups of srcdomain "
     "and srcdom_regex acls), and the longest the address cache keeps a host name's addresses (their "
     "records' TTL otherwise, as Squid's ipcache).",
     DurationHandler<&Settings::positiveDnsTtl>, false},
    {"negative_dns_ttl", "TIME", "1 minutes", nullptr, "negativeDnsTtl",
     "How long the name and address caches keep a lookup that found nothing or failed; also the least "
     "time the address cache keeps addresses, whatever their records' TTL.",
     DurationHandler<&Settings::negativeDnsTtl>, false},
    {"fqdncache_size", "COUNT", "1024", nullptr, "fqdncacheSize",
     "The most addresses whose names the name cache keeps; 0 keeps none (every reverse lookup asks DNS).",
     CountHandler<&Settings::fqdncacheSize>, false},
    {"ipcache_size", "COUNT", "1024", nullptr, "ipcacheSize",
     "The most host names whose addresses (or failure) the address cache keeps; 0 keeps none (every "
     "lookup of a name asks DNS). A name found in the cache is answered without a query; the cache "
     "manager's ipcache page lists it. A reconfigure empties it.",
     CountHandler<&Settings::ipcacheSize>, false},
    {"max_filedescriptors", "NUMBER", "0", nullptr, "maxFiledescriptors",
     "How many descriptors cuttle may hold: the soft limit is set to this at start, and the hard "
     "limit raised to it when cuttle starts as root. 0 keeps the limit cuttle was started with (ulimit "
     "-n, or LimitNOFILE= in the systemd unit). Read at start only: a reconfigure does not change it. "
     "cache.log says how many are available.",
     MaxFiledescriptorsHandler, false},
    {"workers", "COUNT", "1", nullptr, "workers",
     "How many event-loop threads serve requests (Squid's worker processes, as threads of one process): "
     "each accepts on its own socket of every http_port (SO_REUSEPORT: the kernel spreads new connections "
     "among them) and keeps its own origin connections, DNS resolver (the ipcache and fqdncache are one "
     "for all) and helpers; the memory cache is one for all (memory_cache_shared), and so is each "
     "cache_dir of workers that have the same cache_dir lines. Each worker reads squid.conf "
     "with ${process_number} set to its number "
     "(from 1) and ${kid_count} to COUNT, so `if ${process_number} = 1` blocks and per-worker paths work "
     "as in Squid; a cache_dir that two workers name with other cache_dir lines beside it is refused. "
     "cache.log "
     "lines carry the worker's kidN label. From 1 to 128; 0 (Squid's no-daemon mode) runs one. Read at "
     "start only: doc/tuning.md \"Workers\" says how many to run.",
     WorkersHandler, false},
    {"cpu_affinity_map", "process_numbers=P[,P...] cores=C[,C...]", nullptr, nullptr, "cpuAffinity",
     "Pins worker P (counted from 1) to core C (counted from 1, as Squid: core 1 is the kernel's CPU 0); "
     "the two lists pair up in order and must be as long. Workers not named run on any core. Read at "
     "start only.",
     CpuAffinityMapHandler, false},
    {"hosts_file", "PATH|none", "/etc/hosts", nullptr, "hostsFile",
     "A hosts file whose names are resolved without DNS; none reads no file.",
     PathHandler<&Settings::hostsFile, true>, false},
    {"shutdown_lifetime", "TIME", "30 seconds", nullptr, "shutdownLifetime",
     "On shutdown, how long cuttle lets transactions in progress finish after it stops accepting new ones.",
     DurationHandler<&Settings::shutdownLifetime>, false},
    {"coredump_dir", "PATH|none", "none", nullptr, "coredumpDir",
     "The directory cuttle moves to after start-up, so that core dumps land there; none stays in the start "
     "directory.",
     PathHandler<&Settings::coredumpDir, true>, false},
    {"cache_effective_user", "USER", "proxy", nullptr, "cacheEffectiveUser",
     "The user that cuttle serves as when started by root (Debian's Squid default). Once its ports are "
     "bound, "
     "its logs open and its pid file written, cuttle sets its groups, group and user (real, effective and "
     "saved) to this user's and keeps only the capability CAP_NET_BIND_SERVICE (so that a reconfigure can "
     "bind a port below 1024); the log files, the pid file and the directories it created for them become "
     "this user's, so that -k rotate and shutdown can rename and remove them. A user that does not exist, or "
     "root, is an error (-k parse reports it). Started by another user, cuttle stays that user and says so "
     "in cache.log.",
     CacheEffectiveUserHandler, false},
    {"cache_effective_group", "GROUP|GID", nullptr, nullptr, "cacheEffectiveGroup",
     "The only group cuttle serves with when started by root, by name or number, instead of the primary "
     "group "
     "and group memberships of cache_effective_user (as in Squid, which does not recommend it); unset, those "
     "are used. A group that does not exist is an error.",
     CacheEffectiveGroupHandler, false},
    {"error_directory", "PATH", nullptr, nullptr, "errorDirectory",
     "The directory of the error pages (Squid's ERR_* files), in one language: with it, pages are not "
     "negotiated and replies carry neither Content-Language nor Vary, as in Squid 5.7. Without it (the "
     "default) each page's language is negotiated from the request's Accept-Language over the language "
     "directories of Squid's tree (" CUTTLE_ERROR_LANGUAGES_DIR ", Debian's squid-langpack, which is Squid's "
     "/usr/share/squid/errors): the first tag listed that has a directory (q-values are not read), "
     "lowercased "
     "and with _ read as -, and no fallback from de-xx to de except through the pack's links (de-ch -> de); "
     "the reply says Content-Language: TAG and Vary: Accept-Language. A page missing in error_directory "
     "comes "
     "from error_default_language, cuttle's own templates (" ERROR_DIR_SHOWN
     "), or the tree's templates/, in "
     "that order; one found nowhere is a built-in page, and cache.log says so when the pages are read (at "
     "start-up and reconfigure, never while serving).",
     PathHandler<&Settings::errorDirectory, false>, false},
    {"error_default_language", "LANGUAGE", nullptr, nullptr, "errorDefaultLanguage",
     "The language of the pages a client gets when none of its Accept-Language tags has pages (and of "
     "deny_info pages of the admin's own), as a directory name of the language tree (de, pt-br); the reply "
     "says Content-Language: LANGUAGE. Without it: cuttle's English templates, Content-Language: en. A "
     "LANGUAGE without a directory is logged at start-up and those pages are used instead.",
     ErrorDefaultLanguageHandler, false},
    {"error_log_languages", "on|off", "on", nullptr, "errorLogLanguages",
     "Whether cache.log notes each Accept-Language tag that has no pages (WARNING: Error Pages Missing "
     "Language: TAG), as Squid 5.7 does.",
     OnOffHandler<&Settings::errorLogLanguages>, false},
    {"err_html_text", "HTML", nullptr, nullptr, "errHtmlText",
     "HTML that the %L code of the error pages shows as it is (the rest of the line, or a quoted string); "
     "without it %L shows [not available], as in Squid 5.7.",
     ErrHtmlTextHandler, false},
    {"email_err_data", "on|off", "off", nullptr, "emailErrData",
     "Whether the mailto link of the error pages (the %W code after cache_mgr) carries the error's details "
     "and the request (credentials hidden) as its subject and body. Squid 5.7's documentation says on, but "
     "its default is off, and so is cuttle's.",
     OnOffHandler<&Settings::emailErrData>, false},
    {"err_page_stylesheet", "PATH|none", "none", nullptr, "errPageStylesheet",
     "A CSS file whose text the error pages' %l code inserts (inside their <style> element), read at "
     "start-up and reconfigure; an unreadable file is logged and gives no CSS. Squid's is "
     "/etc/squid/errorpage.css; cuttle ships none, so the default is none.",
     PathHandler<&Settings::errPageStylesheet, true>, false},
    {"cache_mgr", "EMAIL", "webmaster", nullptr, "cacheMgr",
     "The address error pages give for the proxy's administrator (the %w code and the mailto link).",
     WordHandler<&Settings::cacheMgr>, false},
};

} // namespace

const std::vector<Directive>& Config::Directives()
{
    return Table;
}

const Directive* Config::FindDirective(const std::string& name)
{
    for (const auto& d : Table)
        if (name == d.name)
            return &d;
    return nullptr;
}

std::string Config::RecommendedConfig(const StateLayout& layout)
{
    return "#\n"
           "# Recommended minimum configuration (Squid's):\n"
           "#\n"
           "\n"
           "# Example rule allowing access from your local networks.\n"
           "# Adapt to list your (internal) IP networks from where browsing\n"
           "# should be allowed\n"
           "acl localnet src 0.0.0.1-0.255.255.255\t# RFC 1122 \"this\" network (LAN)\n"
           "acl localnet src 10.0.0.0/8\t\t# RFC 1918 local private network (LAN)\n"
           "acl localnet src 100.64.0.0/10\t\t# RFC 6598 shared address space (CGN)\n"
           "acl localnet src 169.254.0.0/16 \t# RFC 3927 link-local (directly plugged) machines\n"
           "acl localnet src 172.16.0.0/12\t\t# RFC 1918 local private network (LAN)\n"
           "acl localnet src 192.168.0.0/16\t\t# RFC 1918 local private network (LAN)\n"
           "acl localnet src fc00::/7       \t# RFC 4193 local private network range\n"
           "acl localnet src fe80::/10      \t# RFC 4291 link-local (directly plugged) machines\n"
           "\n"
           "acl SSL_ports port 443\n"
           "acl Safe_ports port 80\t\t# http\n"
           "acl Safe_ports port 21\t\t# ftp\n"
           "acl Safe_ports port 443\t\t# https\n"
           "acl Safe_ports port 70\t\t# gopher\n"
           "acl Safe_ports port 210\t\t# wais\n"
           "acl Safe_ports port 1025-65535\t# unregistered ports\n"
           "acl Safe_ports port 280\t\t# http-mgmt\n"
           "acl Safe_ports port 488\t\t# gss-http\n"
           "acl Safe_ports port 591\t\t# filemaker\n"
           "acl Safe_ports port 777\t\t# multiling http\n"
           "\n"
           "#\n"
           "# Recommended minimum Access Permission configuration:\n"
           "#\n"
           "# Deny requests to certain unsafe ports\n"
           "http_access deny !Safe_ports\n"
           "\n"
           "# Deny CONNECT to other than secure SSL ports\n"
           "http_access deny CONNECT !SSL_ports\n"
           "\n"
           "# Only allow cachemgr access from localhost\n"
           "http_access allow localhost manager\n"
           "http_access deny manager\n"
           "\n"
           "#\n"
           "# INSERT YOUR OWN RULE(S) HERE TO ALLOW ACCESS FROM YOUR CLIENTS\n"
           "#\n"
           "\n"
           "# Example rule allowing access from your local networks.\n"
           "# Adapt localnet in the ACL section to list your (internal) IP networks\n"
           "# from where browsing should be allowed\n"
           "#http_access allow localnet\n"
           "http_access allow localhost\n"
           "\n"
           "# And finally deny all other access to this proxy\n"
           "http_access deny all\n"
           "\n"
           "# Squid normally listens to port 3128\n"
           "http_port 3128\n"
           "\n"
           "#\n"
           "# Add any of your own refresh_pattern entries above these.\n"
           "#\n"
           "refresh_pattern ^ftp:\t\t1440\t20%\t10080\n"
           "refresh_pattern ^gopher:\t1440\t0%\t1440\n"
           "refresh_pattern -i (/cgi-bin/|\\?) 0\t0%\t0\n"
           "refresh_pattern .\t\t0\t20%\t4320\n"
           "\n"
           "# Logs and the pid file, where the user running cuttle can write them.\n" +
           std::string(layout.logDir[0] == '/'
                           ? "# (absolute paths under the installed state directory)\n"
                           : "# Relative paths are resolved against the directory cuttle starts in.\n") +
           "access_log stdio:" + layout.logDir + "/access.log squid\n" +
           std::string(layout.logDir[0] == '/' ? "# the logrotate fragment installed with cuttle renames the "
                                                 "logs; -k rotate reopens them\n"
                                                 "logfile_rotate 0\n"
                                               : "") +
           "cache_log " + layout.logDir + "/cache.log\n" + "pid_filename " + layout.runDir + "/cuttle.pid\n";
}
