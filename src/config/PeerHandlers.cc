/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The cache hierarchy's directives: cache_peer, cache_peer_access,
/// forward_max_tries, connect_retries, icp_port and udp_incoming_address (Squid
/// 5.7's cache_cf.cc parse_peer() rules).

#include "cuttle.h"
#include "config/Handlers.h"

#include <arpa/inet.h>
#include <string_view>

namespace {

using namespace Config;
using namespace Config::Handlers;

/// Options Squid 5.7 takes that cuttle refuses, and why: each would change
/// where a request goes, or what reaches the peer, were it ignored.
const std::vector<std::pair<std::string_view, const char*>> RefusedOptions = {
    {"htcp", "HTCP is not implemented (ICP is)"},
    {"multicast-responder", "multicast ICP is not implemented"},
    {"multicast-siblings", "multicast ICP is not implemented"},
    {"forceddomain=", "forceddomain= is not implemented"},
    {"front-end-https", "front-end-https is not implemented"},
    {"auth-no-keytab", "login=NEGOTIATE is not implemented"},
    {"tls-crlfile=", "certificate revocation lists are not implemented"},
    {"sslcrlfile=", "certificate revocation lists are not implemented"},
    {"sslversion=", "use tls-min-version= (Squid 5.7 deprecates sslversion=)"},
};

/// Options Squid 5.7 takes that cuttle accepts with no effect, and why that
/// is safe (doc/differences.md "Peers").
const std::vector<std::string_view> NoEffectOptions = {
    "background-ping", // every query cuttle sends is for a request
    "no-delay",        // delay pools are refused
    "no-tproxy",       // tproxy is refused
    "ttl=",            // multicast only
};

bool StartsWith(std::string_view word, std::string_view prefix)
{
    return word.substr(0, prefix.size()) == prefix;
}

/// Squid's xatoi-like count for option values; false on anything else.
bool OptionCount(const DirectiveCall& call, const std::string& word, size_t eq, unsigned& value)
{
    if (ParseCount(word.substr(eq + 1), value))
        return true;
    call.error("bad cache_peer option '" + word + "': a count is expected");
    return false;
}

bool ParseCarpKey(const DirectiveCall& call, const std::string& list, CachePeer::CarpKey& key)
{
    size_t start = 0;
    while (start <= list.size()) {
        const size_t comma = std::min(list.find(',', start), list.size());
        const auto part = list.substr(start, comma - start);
        if (part == "scheme")
            key.scheme = true;
        else if (part == "host")
            key.host = true;
        else if (part == "port")
            key.port = true;
        else if (part == "path")
            key.path = true;
        else if (part == "params")
            key.params = true;
        else {
            call.error("invalid carp-key '" + part + "': use scheme, host, port, path, params");
            return false;
        }
        start = comma + 1;
    }
    return true;
}

bool ParseLogin(const DirectiveCall& call, const std::string& value, CachePeer& peer)
{
    if (value == "PASS")
        peer.login = CachePeer::Login::Pass;
    else if (value == "PASSTHRU")
        peer.login = CachePeer::Login::PassThru;
    else if (value == "PROXYPASS")
        peer.login = CachePeer::Login::ProxyPass;
    else if (StartsWith(value, "NEGOTIATE")) {
        call.error("cache_peer login=NEGOTIATE is not implemented (no Kerberos)");
        return false;
    } else if (!value.empty() && value[0] == '*') {
        peer.login = CachePeer::Login::UserSuffix;
        peer.loginText = value.substr(1);
    } else if (!value.empty()) {
        peer.login = CachePeer::Login::Fixed;
        peer.loginText = value;
    } else {
        call.error("cache_peer login= needs a value");
        return false;
    }
    return true;
}

/// Squid 5.7's older names of a cache_peer's TLS options, and the tls_outgoing_options key each is
const std::pair<std::string_view, const char*> SslAliases[] = {
    {"sslcert=", "cert"},     {"sslkey=", "key"},       {"sslcipher=", "cipher"}, {"ssloptions=", "options"},
    {"sslcafile=", "cafile"}, {"sslcapath=", "capath"}, {"sslflags=", "flags"},
};

/// One TLS option of a cache_peer line (tls, tls-KEY=VALUE, tls-domain=,
/// tls-default-ca, and Squid's ssl names): Unknown when the word is none
/// of them (nor a tls-KEY= that tls_outgoing_options does not take: those
/// are refused by RefusedOptions, or unknown)
TlsOption ParseTlsPeerOption(const DirectiveCall& call, const std::string& word, CachePeer& peer)
{
    if (word == "tls" || word == "ssl") {
        peer.tls = true;
        return TlsOption::Parsed;
    }
    if (word == "tls-no-npn")
        return TlsOption::Parsed; // cuttle sends no NPN extension
    const size_t eq = word.find('=');
    const std::string value = eq == std::string::npos ? std::string() : word.substr(eq + 1);
    if (StartsWith(word, "tls-domain=") || StartsWith(word, "ssldomain=")) {
        peer.tlsDomain = value;
        return TlsOption::Parsed;
    }
    std::string key;
    if (word == "tls-default-ca")
        return ParseTlsOutgoingOption(call, "cache_peer", "default-ca", "on", peer.tlsOptions);
    if (StartsWith(word, "tls-") && eq != std::string::npos)
        key = word.substr(4, eq - 4);
    for (const auto& [alias, name] : SslAliases)
        if (StartsWith(word, alias))
            key = name;
    if (key.empty())
        return TlsOption::Unknown;
    return ParseTlsOutgoingOption(call, "cache_peer", key, value, peer.tlsOptions);
}

/// One option word of a cache_peer line; false (after an error) when refused or bad.
bool ParseOption(const DirectiveCall& call, const std::string& word, CachePeer& peer)
{
    const size_t eq = word.find('=');
    const std::string value = eq == std::string::npos ? std::string() : word.substr(eq + 1);
    unsigned n = 0;
    if (word == "no-query")
        peer.noQuery = true;
    else if (word == "closest-only")
        peer.closestOnly = true;
    else if (word == "allow-miss")
        peer.allowMiss = true;
    else if (StartsWith(word, "basetime=")) {
        if (!OptionCount(call, word, word.find('='), peer.basetime))
            return false;
    } else if (word == "default")
        peer.defaultParent = true;
    else if (word == "proxy-only")
        peer.proxyOnly = true;
    else if (word == "round-robin")
        peer.roundRobin = true;
    else if (word == "weighted-round-robin")
        peer.weightedRoundRobin = true;
    else if (word == "carp")
        peer.carp = true;
    else if (word == "sourcehash")
        peer.sourceHash = true;
    else if (word == "userhash")
        peer.userHash = true;
    else if (word == "originserver")
        peer.originServer = true;
    else if (word == "no-digest")
        peer.noDigest = true;
    else if (word == "no-netdb-exchange")
        peer.noNetdbExchange = true;
    else if (StartsWith(word, "name="))
        peer.name = value;
    else if (StartsWith(word, "carp-key="))
        return ParseCarpKey(call, value, peer.carpKey);
    else if (StartsWith(word, "login="))
        return ParseLogin(call, value, peer);
    else if (StartsWith(word, "weight=")) {
        if (!OptionCount(call, word, eq, n))
            return false;
        peer.weight = std::max(n, 1u); // Squid makes a weight under 1 one
    } else if (StartsWith(word, "connect-timeout=")) {
        if (!OptionCount(call, word, eq, n))
            return false;
        peer.connectTimeout = std::chrono::seconds(n);
    } else if (StartsWith(word, "connect-fail-limit=")) {
        if (!OptionCount(call, word, eq, n))
            return false;
        peer.connectFailLimit = n < 1 ? 10 : n; // Squid's: under 1 means its default
    } else if (StartsWith(word, "max-conn=")) {
        if (!OptionCount(call, word, eq, n))
            return false;
        peer.maxConn = n;
    } else if (StartsWith(word, "standby=")) {
        if (!OptionCount(call, word, eq, n))
            return false;
        peer.standby = n;
    } else if (StartsWith(word, "connection-auth=")) {
        if (value != "on" && value != "off" && value != "auto") {
            call.error("bad cache_peer option '" + word + "': use on, off or auto");
            return false;
        }
    } else if (const auto tls = ParseTlsPeerOption(call, word, peer); tls != TlsOption::Unknown) {
        return tls == TlsOption::Parsed;
    } else {
        for (const auto opt : NoEffectOptions)
            if (word == opt || (opt.back() == '=' && StartsWith(word, opt)))
                return true;
        for (const auto& [opt, why] : RefusedOptions)
            if (word == opt || StartsWith(word, std::string(opt) + (opt.back() == '=' ? "" : "=")) ||
                StartsWith(word, std::string(opt) + "-")) {
                call.error("cache_peer option '" + word + "' is refused: " + why);
                return false;
            }
        // Squid 5.7 only logs an unknown option; cuttle does not guess what it meant
        call.error("unknown cache_peer option '" + word + "'");
        return false;
    }
    return true;
}

bool ParsePort(const DirectiveCall& call, const std::string& word, const char* what, bool allowZero,
               uint16_t& port)
{
    unsigned n = 0;
    if (!ParseCount(word, n) || n > 65535 || (!allowZero && n == 0)) {
        call.error(std::string("bad cache_peer ") + what + " '" + word + "'");
        return false;
    }
    port = static_cast<uint16_t>(n);
    return true;
}

} // namespace

void Config::Handlers::CachePeerHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 4))
        return;
    const auto args = call.args();
    CachePeer peer;
    peer.origin = call.line.file + ":" + std::to_string(call.line.line);
    peer.host = args[0];
    if (args[1] == "parent")
        peer.type = CachePeer::Type::Parent;
    else if (args[1] == "sibling")
        peer.type = CachePeer::Type::Sibling;
    else if (args[1] == "multicast") {
        call.error("cache_peer type 'multicast' is not implemented: multicast ICP is not");
        return;
    } else {
        call.error("bad cache_peer type '" + args[1] + "': use parent, sibling or multicast");
        return;
    }
    if (!ParsePort(call, args[2], "HTTP port", false, peer.httpPort) ||
        !ParsePort(call, args[3], "ICP port", true, peer.icpPort))
        return;
    for (size_t i = 4; i < args.size(); ++i)
        if (!ParseOption(call, args[i], peer))
            return;
    if (peer.name.empty())
        peer.name = peer.host;
    if (!peer.tls) {
        for (size_t i = 4; i < args.size(); ++i)
            if (StartsWith(args[i], "tls-") || StartsWith(args[i], "ssl")) {
                call.warning("cache_peer " + peer.name + ": " + args[i] +
                             " without tls: the connections to it are not encrypted");
                break;
            }
    }
    if (peer.carpKey.isSet() && !peer.carp) {
        call.error("carp-key specified on non-carp peer " + peer.name);
        return;
    }
    for (const auto& other : call.settings.cachePeers)
        if (other.name == peer.name) {
            call.error("cache_peer " + peer.name + " specified twice");
            return;
        }
    call.settings.cachePeers.push_back(std::move(peer));
}

void Config::Handlers::CachePeerAccessHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 2))
        return;
    const auto args = call.args();
    for (auto& peer : call.settings.cachePeers) {
        if (peer.name != args[0])
            continue;
        std::string why;
        if (!peer.access.parse({args.begin() + 1, args.end()}, call.settings.acls, why))
            call.error("bad cache_peer_access: " + why);
        else if (!why.empty())
            call.warning("cache_peer_access: " + why);
        return;
    }
    call.error("No cache_peer '" + args[0] + "'");
}

void Config::Handlers::ForwardMaxTriesHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    unsigned n = 0;
    if (!ParseCount(call.line.words[1], n) || n < 1) {
        call.error("bad forward_max_tries '" + call.line.words[1] + "': a count of at least 1 is expected");
        return;
    }
    WarnExtra(call, 2);
    call.settings.forwardMaxTries = n;
}

void Config::Handlers::ConnectRetriesHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    unsigned n = 0;
    if (!ParseCount(call.line.words[1], n)) {
        call.error("bad connect_retries '" + call.line.words[1] + "': a count from 0 to 10 is expected");
        return;
    }
    WarnExtra(call, 2);
    // Squid 5.7 (parse_connect_retries): more than 10 is 10, with a warning
    if (n > 10) {
        call.warning("connect_retries " + call.line.words[1] + " is too high; using 10");
        n = 10;
    }
    call.settings.connectRetries = n;
}

void Config::Handlers::IcpPortHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    unsigned n = 0;
    if (!ParseCount(call.line.words[1], n) || n > 65535) {
        call.error("bad " + call.line.words[0] + " '" + call.line.words[1] +
                   "': a port from 0 to 65535 is expected");
        return;
    }
    WarnExtra(call, 2);
    call.settings.icpPort = n;
}

void Config::Handlers::UdpIncomingAddressHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    const auto& word = call.line.words[1];
    in_addr v4{};
    in6_addr v6{};
    if (word != "any_addr" && ::inet_pton(AF_INET, word.c_str(), &v4) != 1 &&
        ::inet_pton(AF_INET6, word.c_str(), &v6) != 1) {
        call.error("bad udp_incoming_address '" + word + "': an IP address is expected");
        return;
    }
    WarnExtra(call, 2);
    call.settings.udpIncomingAddress = word == "any_addr" ? "" : word;
}
