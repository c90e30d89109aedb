/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/Registry.h"
#include "acl/IpNode.h"
#include "acl/ManagerNode.h"
#include "acl/MaxUserIpNode.h"
#include "acl/MethodNode.h"
#include "acl/Node.h"
#include "acl/PortNode.h"
#include "acl/DomainNode.h"
#include "acl/ExternalNode.h"
#include "acl/ExternalType.h"
#include "acl/NoteNode.h"
#include "acl/GroupNode.h"
#include "acl/NumberNode.h"
#include "acl/ProxyAuthNode.h"
#include "acl/RegexNode.h"
#include "acl/StatusNode.h"
#include "acl/TlsErrorNode.h"
#include "acl/TimeNode.h"
#include "acl/WordNode.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <stdexcept>
#include <sys/stat.h>

namespace Acl {

namespace {

/// Squid 5.7's acl types that cuttle does not implement (src/acl/AclRegs.cc,
/// including the ones of optional features: OpenSSL, auth, ident, eCAP/ICAP,
/// EUI, SNMP, delay pools).
const std::set<std::string, std::less<>> UnimplementedTypes = {
    "adaptation_service",
    "annotate_client",
    "annotate_transaction",
    "arp",
    "ca_cert",
    "client_connection_mark",
    "clientside_mark",
    "connections_encrypted",
    "dst_as",
    "eui64",
    "has",
    "ident",
    "ident_regex",
    "server_cert_fingerprint",
    "snmp_community",
    "squid_error",
    "src_as",
    "urllogin",
    "user_cert",
};

const std::set<std::string, std::less<>> ImplementedTypes = {"src",
                                                             "dst",
                                                             "port",
                                                             "method",
                                                             "localip",
                                                             "localport",
                                                             "myportname",
                                                             "proto",
                                                             "dstdomain",
                                                             "dstdom_regex",
                                                             "url_regex",
                                                             "urlpath_regex",
                                                             "browser",
                                                             "referer_regex",
                                                             "req_header",
                                                             "rep_header",
                                                             "req_mime_type",
                                                             "rep_mime_type",
                                                             "http_status",
                                                             "time",
                                                             "random",
                                                             "maxconn",
                                                             "hier_code",
                                                             "peername",
                                                             "peername_regex",
                                                             "any-of",
                                                             "all-of",
                                                             "proxy_auth",
                                                             "proxy_auth_regex",
                                                             "external",
                                                             "note",
                                                             "ext_user",
                                                             "tag",
                                                             "max_user_ip",
                                                             "srcdomain",
                                                             "srcdom_regex",
                                                             "ext_user_regex",
                                                             "ssl_error",
                                                             "at_step",
                                                             "ssl::server_name",
                                                             "ssl::server_name_regex",
                                                             "transaction_initiator"};

/// Value files larger than this are refused: a guard against a huge or
/// endless file such as /dev/zero (the config lexer has the same limit).
constexpr size_t MaxValueFileSize = 64 * 1024 * 1024;

/// Reads the values of a quoted "file" value as Squid's strtokFile does:
/// one value a line, without the white space around it, skipping empty
/// lines and lines starting with `#`. With `wholeLines` false a value is the
/// line's first word (Squid's address and port parsers stop there).
bool ReadValueFile(const std::string& path, bool wholeLines, std::vector<std::string>& values,
                   std::string& why)
{
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) {
        why = "cannot open acl value file '" + path + "' for reading: " + std::strerror(errno);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        // a directory, a FIFO (which would block) or a device such as /dev/zero
        why = "acl value file '" + path + "' is not a regular file";
        return false;
    }
    if (static_cast<uint64_t>(st.st_size) > MaxValueFileSize) {
        why = "acl value file '" + path + "' is larger than " +
              std::to_string(MaxValueFileSize / (1024 * 1024)) + " MB";
        return false;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        why = "cannot open acl value file '" + path + "' for reading";
        return false;
    }
    static const char* const space = " \t\r\n\f\v";
    std::string line;
    size_t total = 0;
    while (std::getline(in, line)) {
        total += line.size() + 1;
        if (total > MaxValueFileSize) {
            why = "acl value file '" + path + "' is larger than " +
                  std::to_string(MaxValueFileSize / (1024 * 1024)) + " MB";
            return false;
        }
        const auto start = line.find_first_not_of(space);
        if (start == std::string::npos || line[start] == '#')
            continue;
        const auto end = wholeLines ? line.find_last_not_of(space) + 1 : line.find_first_of(space, start);
        values.push_back(line.substr(start, end == std::string::npos ? std::string::npos : end - start));
    }
    if (in.bad()) {
        why = "error reading acl value file '" + path + "'";
        return false;
    }
    return true;
}

/// The first MaxListedWarnings warnings of one acl line, joined; the rest are
/// counted, so a block list of 100,000 overlapping values gives one readable
/// line, not megabytes of cache.log.
constexpr size_t MaxListedWarnings = 5;

std::string Join(const std::vector<std::string>& parts)
{
    std::string out;
    for (size_t i = 0; i < parts.size() && i < MaxListedWarnings; ++i) {
        if (!out.empty())
            out += "; ";
        out += parts[i];
    }
    if (parts.size() > MaxListedWarnings)
        out += "; and " + std::to_string(parts.size() - MaxListedWarnings) + " more warnings like these";
    return out;
}

} // namespace

bool Registry::CaseLess::operator()(const std::string& a, const std::string& b) const
{
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x)) < std::tolower(static_cast<unsigned char>(y));
    });
}

Registry::Registry()
{
    // Squid 5.7's predefined acls (src/cf.data.pre, "acl" defaults).
    predefine("all", "src", {"all"});
    nodes_.emplace("manager", std::make_unique<ManagerNode>());
    predefine("localhost", "src", {"127.0.0.1/32", "::1"});
    predefine("to_localhost", "dst", {"127.0.0.0/8", "0.0.0.0/32", "::1/128", "::/128"});
    predefine("to_linklocal", "dst", {"169.254.0.0/16", "fe80::/10"});
    predefine("CONNECT", "method", {"CONNECT"});
    // and those of an OpenSSL build, which sslproxy_cert_sign's defaults name
    predefine("ssl::certHasExpired", "ssl_error", {"X509_V_ERR_CERT_HAS_EXPIRED"});
    predefine("ssl::certNotYetValid", "ssl_error", {"X509_V_ERR_CERT_NOT_YET_VALID"});
    predefine("ssl::certDomainMismatch", "ssl_error", {"SQUID_X509_V_ERR_DOMAIN_MISMATCH"});
    predefine("ssl::certUntrusted", "ssl_error", {"ssl::certUntrusted"});
    predefine("ssl::certSelfSigned", "ssl_error", {"X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT"});
}

Registry::~Registry() = default;
Registry::Registry(Registry&&) noexcept = default;
Registry& Registry::operator=(Registry&&) noexcept = default;

void Registry::predefine(const std::string& name, const std::string& type,
                         const std::vector<std::string>& values)
{
    auto node = MakeNode(name, type);
    std::string why;
    std::vector<std::string> warnings;
    if (!node || !node->addValues(values, why, warnings))
        throw std::logic_error("bad predefined acl " + name + ": " + why);
    nodes_.emplace(name, std::move(node));
}

bool Registry::IsKnownType(const std::string& type)
{
    return ImplementedTypes.count(type) || UnimplementedTypes.count(type);
}

std::unique_ptr<Node> Registry::MakeNode(const std::string& name, const std::string& type)
{
    if (type == "src")
        return std::make_unique<IpNode>(name, IpNode::Side::Source);
    if (type == "dst")
        return std::make_unique<IpNode>(name, IpNode::Side::Destination);
    if (type == "port")
        return std::make_unique<PortNode>(name);
    if (type == "method")
        return std::make_unique<MethodNode>(name);
    if (type == "localip")
        return std::make_unique<IpNode>(name, IpNode::Side::Local);
    if (type == "localport")
        return std::make_unique<PortNode>(name, PortNode::Side::Local);
    if (type == "dstdomain")
        return std::make_unique<DomainNode>(name, DomainNode::Side::Destination);
    if (type == "srcdomain")
        return std::make_unique<DomainNode>(name, DomainNode::Side::Source);
    if (type == "ssl::server_name")
        return std::make_unique<DomainNode>(name, DomainNode::Side::ServerName);
    if (type == "http_status")
        return std::make_unique<StatusNode>(name);
    if (type == "ssl_error")
        return std::make_unique<TlsErrorNode>(name);
    if (type == "time")
        return std::make_unique<TimeNode>(name);
    if (type == "random")
        return std::make_unique<RandomNode>(name);
    if (type == "maxconn")
        return std::make_unique<MaxConnNode>(name);
    if (type == "proxy_auth" || type == "proxy_auth_regex")
        return std::make_unique<ProxyAuthNode>(name, type, type == "proxy_auth_regex");
    if (type == "max_user_ip")
        return std::make_unique<MaxUserIpNode>(name);
    if (type == "external")
        return std::make_unique<ExternalNode>(name);
    if (type == "note")
        return std::make_unique<NoteNode>(name, type, NoteNode::Subject::Note);
    if (type == "ext_user")
        return std::make_unique<NoteNode>(name, type, NoteNode::Subject::ExtUser);
    if (type == "tag")
        return std::make_unique<NoteNode>(name, type, NoteNode::Subject::Tag);
    if (type == "any-of" || type == "all-of")
        return std::make_unique<GroupNode>(name, type == "all-of");
    static const std::map<std::string, WordNode::Subject, std::less<>> words = {
        {"proto", WordNode::Subject::Protocol},     {"myportname", WordNode::Subject::PortName},
        {"hier_code", WordNode::Subject::HierCode}, {"peername", WordNode::Subject::PeerName},
        {"at_step", WordNode::Subject::BumpStep},   {"transaction_initiator", WordNode::Subject::Initiator}};
    if (const auto w = words.find(type); w != words.end())
        return std::make_unique<WordNode>(name, type, w->second);
    using Subject = RegexNode::Subject;
    static const std::map<std::string, Subject, std::less<>> regexes = {
        {"url_regex", Subject::Url},
        {"urlpath_regex", Subject::UrlPath},
        {"dstdom_regex", Subject::DstDomain},
        {"srcdom_regex", Subject::SrcDomain},
        {"ext_user_regex", Subject::ExtUser},
        {"browser", Subject::Browser},
        {"referer_regex", Subject::Referer},
        {"req_header", Subject::RequestHeader},
        {"rep_header", Subject::ReplyHeader},
        {"req_mime_type", Subject::RequestMimeType},
        {"rep_mime_type", Subject::ReplyMimeType},
        {"peername_regex", Subject::PeerName},
        {"ssl::server_name_regex", Subject::ServerName}};
    if (const auto r = regexes.find(type); r != regexes.end())
        return std::make_unique<RegexNode>(name, type, r->second);
    return nullptr;
}

Registry::ParseOutcome Registry::parse(const std::vector<std::string>& words, std::string& why,
                                       const IpNode::HostResolver* resolveHost)
{
    why.clear();
    if (words.empty() || words[0].empty()) {
        why = "missing acl name";
        return ParseOutcome::Error;
    }
    const auto& name = words[0];
    if (name.size() > MaxNameLength) {
        why = "acl name '" + name + "' is too long: at most " + std::to_string(MaxNameLength) +
              " characters are supported";
        return ParseOutcome::Error;
    }
    if (words.size() < 2) {
        why = "acl " + name + ": missing acl type";
        return ParseOutcome::Error;
    }
    std::vector<std::string> warnings;
    // Squid 5.7 (Acl.cc) takes its old names of two types, with a note
    std::string type = words[1];
    if (type == "myip" || type == "myport") {
        const std::string renamed = type == "myip" ? "localip" : "localport";
        warnings.push_back("UPGRADE: ACL '" + type + "' type has been renamed to '" + renamed +
                           "' and matches the " + (type == "myip" ? "IP" : "port") +
                           " the client connected to");
        type = renamed;
    }
    if (!IsKnownType(type)) {
        why = "acl " + name + ": invalid acl type '" + type + "'";
        return ParseOutcome::Error;
    }

    const auto existing = nodes_.find(name);
    if (existing != nodes_.end() && existing->second->typeName() != type) {
        const auto& first = existing->second->name();
        why = "acl " + name + " already exists" +
              (first == name ? "" : " (as " + first + ", names ignore case)") + " with type " +
              existing->second->typeName() + "; this line gives it type " + type;
        return ParseOutcome::Error;
    }

    if (!name.empty() && name.front() == '!')
        warnings.push_back("acl name '" + name + "' starts with '!', so no access rule can name it");

    Node* node = existing != nodes_.end() ? existing->second.get() : nullptr;
    std::unique_ptr<Node> created;
    if (!node) {
        created = MakeNode(name, type);
        if (!created)
            created = std::make_unique<UnsupportedNode>(name, type);
        node = created.get();
    }

    // Options come first (Squid's Acl::Options); "--" ends them.
    size_t i = 2;
    std::vector<std::string> options;
    for (; i < words.size(); ++i) {
        const auto& w = words[i];
        if (w == "--") {
            ++i;
            break;
        }
        if (w.size() < 2 || (w[0] != '-' && w[0] != '+'))
            break;
        if (!node->acceptsOption(w)) {
            why = "acl " + name + ": unsupported acl option " + w + " for type " + type;
            return ParseOutcome::Error;
        }
        options.push_back(w);
    }

    if (!node->isSupported() && dynamic_cast<UnsupportedNode*>(node)) {
        if (created)
            nodes_.emplace(name, std::move(created));
        why = "acl " + name + " " + node->unsupportedReason() +
              "; it is recorded, and any access rule that uses it will be refused";
        return ParseOutcome::Unsupported;
    }

    std::vector<std::string> values;
    for (; i < words.size(); ++i) {
        const auto& w = words[i];
        if (w.size() >= 2 && w.front() == '"' && w.back() == '"') {
            if (!ReadValueFile(w.substr(1, w.size() - 2), node->takesWholeFileLines(), values, why)) {
                why = "acl " + name + ": " + why;
                return ParseOutcome::Error;
            }
        } else {
            values.push_back(w);
        }
    }

    const bool wasSupported = node->isSupported();
    node->beginLine(options);
    if (auto* group = dynamic_cast<GroupNode*>(node)) {
        if (!addGroup(*group, values, why)) {
            why = "acl " + name + ": " + why;
            return ParseOutcome::Error;
        }
    } else if (auto* external = dynamic_cast<ExternalNode*>(node)) {
        if (!bindExternal(*external, values, why)) {
            why = "acl " + name + ": " + why;
            return ParseOutcome::Error;
        }
    } else {
        auto* addresses = dynamic_cast<IpNode*>(node);
        if (addresses)
            addresses->setHostResolver(resolveHost);
        const bool added = node->addValues(values, why, warnings);
        if (addresses)
            addresses->setHostResolver(nullptr);
        if (!added) {
            why = "acl " + name + ": " + why;
            return ParseOutcome::Error;
        }
    }
    if (created)
        nodes_.emplace(name, std::move(created));

    if (wasSupported && !node->isSupported()) {
        why = "acl " + name + " " + node->unsupportedReason() +
              "; it is recorded, and any access rule that uses it will be refused";
        return ParseOutcome::Unsupported;
    }
    if (node->isEmpty())
        warnings.push_back("empty acl: acl " + name + " " + type);
    why = Join(warnings);
    return ParseOutcome::Ok;
}

bool Registry::addGroup(GroupNode& group, const std::vector<std::string>& names, std::string& why) const
{
    std::vector<const Node*> members;
    for (const auto& name : names) {
        const auto* member = find(name);
        if (!member) {
            why = "acl " + name + " is not defined (an " + group.typeName() +
                  " acl names acls defined on earlier lines)";
            return false;
        }
        if (member == &group) {
            why = "an " + group.typeName() + " acl cannot name itself";
            return false;
        }
        members.push_back(member);
    }
    if (!members.empty())
        group.addGroup(std::move(members));
    return true;
}

bool Registry::bindExternal(ExternalNode& acl, const std::vector<std::string>& values, std::string& why) const
{
    if (values.empty()) {
        why = "missing the external_acl_type name";
        return false;
    }
    const auto* type = findExternalType(values[0]);
    if (!type) {
        why = "external_acl_type " + values[0] + " is not defined (it must come before the acl)";
        return false;
    }
    return acl.bind(*type, std::vector<std::string>(values.begin() + 1, values.end()), why);
}

bool Registry::defineExternalType(const std::vector<std::string>& words, std::string& why)
{
    auto type = ExternalType::Parse(words, why);
    if (!type)
        return false;
    if (findExternalType(type->name())) {
        why = "external_acl_type " + type->name() + " is already defined";
        return false;
    }
    externalTypes_.push_back(std::move(type));
    return true;
}

const ExternalType* Registry::findExternalType(const std::string& name) const
{
    for (const auto& t : externalTypes_) {
        if (t->name() == name)
            return t.get();
    }
    return nullptr;
}

const Node* Registry::find(const std::string& name) const
{
    const auto it = nodes_.find(name);
    return it == nodes_.end() ? nullptr : it->second.get();
}

} // namespace Acl
