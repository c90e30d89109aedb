/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "config/Loosening.h"

#include <sstream>

namespace {

using Config::SquidOnlyRule;

/// The audit of every Squid 5.7 directive cuttle does not implement
/// (SquidDirectives.cc less Directives.cc). Directives without a row are
/// tuning, logging, ports or services cuttle does not open (HTCP,
/// SNMP, ftp_port: nothing arrives there), caching details and
/// messages: ignoring them changes no access decision and no destination.
const std::vector<SquidOnlyRule> Rules = {
    // access rules
    // what is forwarded
    {"adaptation_access", true, nullptr, "requests it sends to an ICAP/eCAP filter would not be filtered"},
    {"icap_access", true, nullptr, "requests it sends to an ICAP filter would not be filtered"},
    {"delay_pools", true, "0", "the bandwidth limits of its pools would not apply"},
    {"client_delay_pools", true, "0", "the client bandwidth limits of its pools would not apply"},
    {"response_delay_pool", true, nullptr, "the response bandwidth limit of its pool would not apply"},
    // where traffic goes
    {"htcp_port", true, "0",
     "HTCP is not implemented (ICP is: icp_port): the peers' HTCP queries would go unanswered"},
    {"neighbor_type_domain", true, nullptr,
     "it makes a peer a parent or a sibling for some domains only, and cuttle gives each peer one type: "
     "requests for those domains would go to the peer as its cache_peer line says"},
    {"clientside_tos", true, nullptr,
     "shaping or firewall rules that select on the TOS/DSCP byte would not see it"},
    {"mark_client_packet", true, nullptr,
     "shaping or firewall rules that select on the mark would not see it"},
    {"mark_client_connection", true, nullptr,
     "shaping or firewall rules that select on the mark would not see it"},
    {"qos_flows", true, nullptr,
     "shaping or firewall rules that select on its marks or TOS would not see them"},
    {"append_domain", true, nullptr,
     "single-label host names would resolve otherwise, or not at all: requests could reach another host"},
    {"wccp_router", true, nullptr, "the router would not send traffic through cuttle, so past its rules"},
    {"wccp2_router", true, nullptr, "the router would not send traffic through cuttle, so past its rules"},
    // the process
    {"chroot", true, "none", "cuttle would run outside the directory it confines Squid to"},
    {"umask", true, nullptr,
     "files cuttle creates (logs, pid file) would get the umask it inherited, which may let others read "
     "them"},

    // accepted: they act only through a refused directive, or only make Squid stricter than cuttle is
    {"url_rewrite_timeout", false, nullptr,
     "a rewriter request times out after 60 s and the request fails (ERR_GATEWAY_FAILURE)"},
    {"url_rewrite_host_header", false, nullptr,
     "a rewritten request always carries the new URL's host in Host, as Squid's default (on)"},
    {"delay_class", false, nullptr, "it has no effect without delay_pools, which cuttle refuses"},
    {"delay_access", false, nullptr, "it has no effect without delay_pools, which cuttle refuses"},
    {"delay_parameters", false, nullptr, "it has no effect without delay_pools, which cuttle refuses"},
    {"delay_initial_bucket_level", false, nullptr,
     "it has no effect without delay_pools, which cuttle refuses"},
    {"client_delay_access", false, nullptr,
     "it has no effect without client_delay_pools, which cuttle refuses"},
    {"client_delay_parameters", false, nullptr,
     "it has no effect without client_delay_pools, which cuttle refuses"},
    {"client_delay_initial_bucket_level", false, nullptr,
     "it has no effect without client_delay_pools, which cuttle refuses"},
    {"response_delay_pool_access", false, nullptr,
     "it has no effect without response_delay_pool, which cuttle refuses"},
    {"ident_lookup_access", false, nullptr, "ident acls are refused wherever a rule uses them"},
    {"note", false, nullptr,
     "it only annotates transactions (access.log, adaptation); the note acls cuttle has match the notes "
     "helpers return"},
    {"http_upgrade_request_protocols", false, nullptr,
     "Squid forwards no Upgrade unless this allows it: it can only allow more"},
    {"on_unsupported_protocol", false, nullptr,
     "its default answers with an error; only its tunnel action lets more through"},
    {"request_entities", false, nullptr, "its only effect is to let GET and HEAD bodies through"},
    {"uri_whitespace", false, nullptr,
     "cuttle's request parser refuses a URI with whitespace, the strictest choice (deny)"},
    {"relaxed_header_parser", false, nullptr,
     "cuttle's request parser is strict (RFC 9112), as this directive's off; only malformed replies "
     "may be taken where off refuses them"},
    {"proxy_protocol_access", false, nullptr,
     "it applies only to http_port require-proxy-header, which cuttle refuses"},
    {"spoof_client_ip", false, nullptr, "it applies only to http_port tproxy, which cuttle refuses"},
    {"collapsed_forwarding_access", false, nullptr,
     "a collapsed request gets what a cache hit would, which the cache rules already allow"},
    {"delay_pool_uses_indirect_client", false, nullptr,
     "it has no effect without delay_pools, which cuttle refuses"},
    {"tproxy_uses_indirect_client", false, nullptr,
     "it applies only to http_port tproxy, which cuttle refuses"},
    {"adaptation_uses_indirect_client", false, nullptr,
     "it has no effect without adaptation_access or icap_access (refused)"},
    {"auth_schemes", true, nullptr, "requests would be offered and allowed schemes it excludes"},
    {"icap_service", false, nullptr,
     "a service filters nothing without adaptation_access or icap_access (refused)"},
    {"ecap_service", false, nullptr, "a service filters nothing without adaptation_access (refused)"},
    {"adaptation_service_set", false, nullptr, "a set filters nothing without adaptation_access (refused)"},
    {"adaptation_service_chain", false, nullptr,
     "a chain filters nothing without adaptation_access (refused)"},
    {"icap_class", false, nullptr, "a class filters nothing without icap_access (refused)"},
};

/// Whether `args` is `form`: words split by blanks, `*` any one word, `...` the rest.
bool Matches(const std::string& form, const std::vector<std::string>& args)
{
    std::istringstream in(form);
    std::string want;
    size_t i = 0;
    while (in >> want) {
        if (want == "...")
            return true;
        if (i >= args.size() || (want != "*" && want != args[i]))
            return false;
        ++i;
    }
    return i == args.size();
}

} // namespace

const std::vector<SquidOnlyRule>& Config::SquidOnlyRules()
{
    return Rules;
}

const SquidOnlyRule* Config::FindSquidOnlyRule(const std::string& name)
{
    for (const auto& r : Rules)
        if (name == r.name)
            return &r;
    return nullptr;
}

bool Config::IsHarmless(const SquidOnlyRule& rule, const std::vector<std::string>& args)
{
    if (!rule.harmless)
        return false;
    std::istringstream in(rule.harmless);
    std::string form;
    while (std::getline(in, form, '|'))
        if (Matches(form, args))
            return true;
    return false;
}

const char* Config::LooseningDirectiveReason(const std::string& name)
{
    const SquidOnlyRule* r = FindSquidOnlyRule(name);
    return r && r->refused ? r->why : nullptr;
}

std::vector<std::pair<std::string, std::string>> Config::LooseningDirectives()
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& r : Rules)
        if (r.refused)
            out.emplace_back(r.name, r.why);
    return out;
}
