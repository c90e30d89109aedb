/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/WordNode.h"
#include "acl/AccessList.h"

#include <algorithm>
#include <cctype>

namespace Acl {

namespace {

/// Squid 5.7's AnyP::ProtocolType names (src/anyp/ProtocolType.cc).
const std::set<std::string, std::less<>> ProtocolNames = {
    "NONE", "HTTP", "FTP", "HTTPS", "COAP", "COAPS", "GOPHER", "WAIS",           "CACHE_OBJECT",
    "ICP",  "HTCP", "URN", "WHOIS", "ICY",  "TLS",   "SSL",    "AUTHORITY_FORM", "UNKNOWN"};

/// Squid 5.7's hier_code names (src/hier_code.h), as access.log shows them.
const std::set<std::string, std::less<>> HierCodes = {
    "HIER_NONE",      "HIER_DIRECT",    "SIBLING_HIT",       "PARENT_HIT",          "DEFAULT_PARENT",
    "SINGLE_PARENT",  "FIRSTUP_PARENT", "FIRST_PARENT_MISS", "CLOSEST_PARENT_MISS", "CLOSEST_PARENT",
    "CLOSEST_DIRECT", "NO_DIRECT_FAIL", "SOURCE_FASTEST",    "ROUNDROBIN_PARENT",   "CD_PARENT_HIT",
    "CD_SIBLING_HIT", "CARP",           "ANY_OLD_PARENT",    "USERHASH_PARENT",     "SOURCEHASH_PARENT",
    "PINNED",         "ORIGINAL_DST",   "STANDBY_POOL"};

/// Squid 5's at_step names (src/acl/AtStepData.cc)
const std::set<std::string, std::less<>> BumpSteps = {"SslBump1", "SslBump2", "SslBump3",
                                                      "GeneratingCONNECT"};

/// Squid 5's transaction_initiator names (src/acl/TransactionInitiator.cc)
const std::set<std::string, std::less<>> Initiators = {
    "esi", "certificate-fetching", "cache-digest", "htcp", "icp", "icmp", "asn", "internal", "client", "all"};

std::string Uppercase(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return text;
}

} // namespace

WordNode::WordNode(std::string name, std::string typeName, Subject subject)
    : Node(std::move(name), std::move(typeName)), subject_(subject)
{}

std::string WordNode::ProtocolName(const std::string& scheme)
{
    return scheme.empty() ? std::string("NONE") : Uppercase(scheme);
}

bool WordNode::addValues(const std::vector<std::string>& values, std::string& why,
                         std::vector<std::string>& warnings)
{
    for (const auto& value : values) {
        switch (subject_) {
        case Subject::Protocol: {
            auto upper = Uppercase(value);
            if (!ProtocolNames.count(upper)) {
                warnings.push_back("ignoring unknown protocol '" + value + "' (as Squid does)");
                continue;
            }
            words_.insert(std::move(upper));
            break;
        }
        case Subject::HierCode:
            if (!HierCodes.count(value)) {
                why = "no such hier_code '" + value + "'";
                return false;
            }
            words_.insert(value);
            break;
        case Subject::BumpStep:
        case Subject::Initiator:
            if (!(subject_ == Subject::BumpStep ? BumpSteps : Initiators).count(value)) {
                why = "no such " +
                      std::string(subject_ == Subject::BumpStep ? "at_step" : "transaction_initiator") +
                      " '" + value + "'";
                return false;
            }
            words_.insert(value);
            break;
        case Subject::PortName:
        case Subject::PeerName:
            words_.insert(value);
            break;
        }
    }
    return true;
}

bool WordNode::match(const Checklist& facts) const
{
    switch (subject_) {
    case Subject::Protocol:
        return words_.count(ProtocolName(facts.urlScheme)) != 0;
    case Subject::PortName:
        return words_.count(facts.portName) != 0;
    case Subject::HierCode:
        return !facts.hierCode.empty() && words_.count(facts.hierCode) != 0;
    case Subject::PeerName:
        return !facts.peerName.empty() && words_.count(facts.peerName) != 0;
    case Subject::BumpStep:
        return facts.sslBumpStep > 0 && words_.count("SslBump" + std::to_string(facts.sslBumpStep)) != 0;
    case Subject::Initiator:
        return words_.count("client") != 0 || words_.count("all") != 0;
    }
    return false;
}

} // namespace Acl
