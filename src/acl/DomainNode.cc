/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/DomainNode.h"
#include "acl/AccessList.h"
#include "base/Text.h"

#include <algorithm>

namespace Acl {

namespace {

std::string Reversed(std::string_view text)
{
    return std::string(text.rbegin(), text.rend());
}

} // namespace

DomainNode::DomainNode(std::string name, Side side)
    : Node(std::move(name), side == Side::Source       ? "srcdomain"
                            : side == Side::ServerName ? "ssl::server_name"
                                                       : "dstdomain"),
      side_(side)
{}

bool DomainNode::addValues(const std::vector<std::string>& values, std::string& why,
                           std::vector<std::string>& warnings)
{
    // a block list comes as one call: size the tables once
    hosts_.reserve(hosts_.size() + values.size());
    domains_.reserve(domains_.size() + values.size());
    for (const auto& value : values) {
        if (!add(AsciiLowercase(value), why, warnings))
            return false;
    }
    return true;
}

bool DomainNode::add(const std::string& value, std::string& why, std::vector<std::string>& warnings)
{
    if (value.empty() || value == ".") {
        why = "empty domain name '" + value + "'";
        return false;
    }
    const bool isDomain = value.front() == '.';
    const std::string_view base = isDomain ? std::string_view(value).substr(1) : std::string_view(value);
    if ((isDomain ? domains_ : hosts_).count(base))
        return true; // a repeated value: Squid drops it silently

    // inside an earlier domain: Squid keeps the wider one and warns
    for (auto dot = base.find('.'); dot != std::string_view::npos; dot = base.find('.', dot + 1)) {
        const auto parent = base.substr(dot + 1);
        if (domains_.count(parent)) {
            warnings.push_back("'" + value + "' is a subdomain of '." + std::string(parent) + "': remove '" +
                               value + "' from the acl (it is ignored)");
            return true;
        }
    }
    // the same name as an earlier value of the other kind, or a domain over
    // an earlier value: Squid's splay tree cannot hold it, so it is fatal there
    if ((isDomain ? hosts_ : domains_).count(base)) {
        const std::string other = isDomain ? std::string(base) : "." + std::string(base);
        why = "'" + value + "' and '" + other + "' overlap: remove one of them (Squid 5.7 refuses this too)";
        return false;
    }
    if (isDomain) {
        const auto prefix = Reversed(value); // ".example.com" -> "moc.elpmaxe."
        const auto it = reversed_.lower_bound(prefix);
        if (it != reversed_.end() && it->compare(0, prefix.size(), prefix) == 0) {
            why = "'" + Reversed(*it) + "' is a subdomain of '" + value +
                  "', which comes after it: remove '" + Reversed(*it) + "' (Squid 5.7 refuses this order)";
            return false;
        }
    }

    names_.push_back(std::string(base));
    (isDomain ? domains_ : hosts_).insert(names_.back());
    reversed_.insert(Reversed(value));
    return true;
}

bool DomainNode::matchesHost(std::string_view host) const
{
    if (hosts_.count(host) || domains_.count(host))
        return true;
    for (auto dot = host.find('.'); dot != std::string_view::npos; dot = host.find('.', dot + 1)) {
        if (domains_.count(host.substr(dot + 1)))
            return true;
    }
    return false;
}

bool IsServerNameOption(const std::string& option)
{
    return option == "--client-requested" || option == "--server-provided" || option == "--consensus";
}

ServerNameSource ServerNameOption(const std::string& option)
{
    return option == "--client-requested"  ? ServerNameSource::ClientRequested
           : option == "--server-provided" ? ServerNameSource::ServerProvided
                                           : ServerNameSource::Default;
}

bool DomainNode::acceptsOption(const std::string& option) const
{
    if (side_ == Side::ServerName)
        return IsServerNameOption(option);
    return side_ == Side::Destination && option == "-n";
}

void DomainNode::beginLine(const std::vector<std::string>& options)
{
    // the source applies to the acl, as Squid's ACLServerNameData keeps one
    for (const auto& o : options) {
        if (IsServerNameOption(o))
            source_ = ServerNameOption(o);
    }
}

bool DomainNode::match(const Checklist& facts) const
{
    if (side_ == Side::Source) {
        const auto name = facts.addressName(facts.srcAddr);
        return name && matchesHost(*name);
    }
    if (side_ == Side::ServerName) {
        const auto names = facts.tlsServerNames(source_);
        return std::any_of(names.begin(), names.end(),
                           [this](const std::string& n) { return matchesHost(n); });
    }
    return !facts.dstHost.empty() && matchesHost(facts.dstHost);
}

} // namespace Acl
