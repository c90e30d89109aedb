/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/IpNode.h"
#include "acl/AccessList.h"

#include <algorithm>
#include <cctype>

namespace Acl {

namespace {

bool IsAllDigits(const std::string& s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

/// A DNS name as Squid would hand to getaddrinfo: letters, digits, '.', '-',
/// '_', with at least one letter, and not an address literal.
bool IsHostName(const std::string& s)
{
    if (s.empty() || s.front() == '-' || s.front() == '.')
        return false;
    bool hasLetter = false;
    for (const unsigned char c : s) {
        if (std::isalpha(c))
            hasLetter = true;
        else if (!std::isdigit(c) && c != '.' && c != '-' && c != '_')
            return false;
    }
    return hasLetter;
}

IpNode::Entry Everything()
{
    const auto zero = Address::PrefixMask(0);
    return IpNode::Entry{zero, zero, zero};
}

} // namespace

bool IpNode::Entry::contains(const Address& a) const
{
    const auto m = a.masked(mask);
    return lo <= m && m <= hi;
}

IpNode::IpNode(std::string name, Side side)
    : Node(std::move(name), side == Side::Source ? "src" : "dst"), side_(side)
{}

bool IpNode::acceptsOption(const std::string& option) const
{
    return side_ == Side::Destination && option == "-n";
}

bool IpNode::ParseValue(const std::string& value, std::vector<Entry>& entries, bool& isHostName,
                        std::string& why, std::vector<std::string>& warnings)
{
    isHostName = false;
    if (value == "all") {
        entries.push_back(Everything());
        return true;
    }
    if (value == "0.0.0.0/0" || value == "0/0" || value == "0.0.0.0/0.0.0.0") {
        // Squid 5.7 rewrites these old spellings (which would cover IPv4 only) to `all`.
        warnings.push_back("'" + value + "' needs to be replaced by the term 'all'; using 'all' instead");
        entries.push_back(Everything());
        return true;
    }
    if (value == "ipv4") {
        const auto mask = Address::PrefixMask(96);
        const auto net = Address::Parse("::ffff:0.0.0.0").value();
        entries.push_back(Entry{net, net, mask});
        return true;
    }
    if (value == "ipv6") {
        // Every address outside ::ffff:0:0/96 (Squid lists the allocated blocks; same effect for real
        // traffic).
        const auto full = Address::PrefixMask(128);
        entries.push_back(
            Entry{Address::Parse("::").value(), Address::Parse("::fffe:ffff:ffff").value(), full});
        entries.push_back(Entry{Address::Parse("::1:0:0:0").value(),
                                Address::Parse("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff").value(), full});
        return true;
    }

    std::string addrPart = value;
    std::string maskPart;
    bool hasMask = false;
    if (const auto slash = value.find('/'); slash != std::string::npos) {
        addrPart = value.substr(0, slash);
        maskPart = value.substr(slash + 1);
        hasMask = true;
    }

    std::string first = addrPart;
    std::string second;
    if (const auto dash = addrPart.find('-'); dash != std::string::npos) {
        first = addrPart.substr(0, dash);
        second = addrPart.substr(dash + 1);
    }

    const auto lo = Address::ParseLenient(first);
    if (!lo) {
        if (IsHostName(addrPart)) {
            isHostName = true;
            return true;
        }
        why = "bad IP address '" + value + "'";
        return false;
    }
    Address hi = *lo;
    if (addrPart.find('-') != std::string::npos) {
        const auto parsedHi = Address::ParseLenient(second);
        if (!parsedHi || parsedHi->isIpv4() != lo->isIpv4()) {
            why = "bad IP address range '" + value + "'";
            return false;
        }
        hi = *parsedHi;
    }

    Address mask = Address::PrefixMask(128);
    if (hasMask) {
        const unsigned family = lo->isIpv4() ? 32 : 128;
        const unsigned offset = lo->isIpv4() ? 96 : 0;
        if (IsAllDigits(maskPart) && maskPart.size() <= 3 && std::stoul(maskPart) <= family) {
            mask = Address::PrefixMask(offset + std::stoul(maskPart));
        } else if (lo->isIpv4() && !IsAllDigits(maskPart) && Address::Parse(maskPart) &&
                   Address::Parse(maskPart)->isIpv4()) {
            // Squid takes the leading ones of a dotted mask, contiguous or not.
            auto bytes = Address::Parse(maskPart)->bytes();
            std::fill(bytes.begin(), bytes.begin() + 12, 0xff);
            const auto bits = Address(bytes).leadingOnes();
            mask = Address::PrefixMask(bits);
            warnings.push_back("netmasks are deprecated, use CIDR masks instead: '" + value +
                               "' is taken as /" + std::to_string(bits - 96));
        } else {
            why = "unknown netmask '" + maskPart + "' in '" + value + "'";
            return false;
        }
    }

    const Entry entry{lo->masked(mask), hi.masked(mask), mask};
    if (entry.lo != *lo || entry.hi != hi)
        warnings.push_back("netmask masks away part of the specified IP in '" + value + "'");
    entries.push_back(entry);
    return true;
}

bool IpNode::addValues(const std::vector<std::string>& values, std::string& why,
                       std::vector<std::string>& warnings)
{
    for (const auto& value : values) {
        std::vector<Entry> parsed;
        bool isHostName = false;
        if (!ParseValue(value, parsed, isHostName, why, warnings))
            return false;
        if (isHostName) {
            markUnsupported("(" + typeName() + ") names the host '" + value +
                            "', which Squid resolves when parsing and cuttle does not implement yet");
            continue;
        }
        for (const auto& e : parsed) {
            if (std::find(entries_.begin(), entries_.end(), e) != entries_.end()) {
                warnings.push_back("'" + value + "' is already in acl " + name() + "; ignored");
                continue;
            }
            // Squid 5.7 keeps src/dst values in a splay tree whose comparison
            // (aclIpNetworkCompare2) calls two values equal when the start
            // of one lies in the other, and drops a value equal to one
            // already there: a later value that overlaps an earlier one is
            // ignored, wholly. Matching the union instead would make an
            // `allow` rule match more than Squid's.
            const auto clash = std::find_if(entries_.begin(), entries_.end(), [&e](const Entry& f) {
                return f.contains(e.lo) || e.contains(f.lo);
            });
            if (clash != entries_.end()) {
                warnings.push_back(
                    "'" + value + "' overlaps '" + texts_[clash - entries_.begin()] +
                    "', which is already in acl " + name() +
                    ", so it is ignored, as Squid 5.7 does: the acl does not match addresses of '" + value +
                    "' outside '" + texts_[clash - entries_.begin()] + "'; list them without overlaps");
                continue;
            }
            entries_.push_back(e);
            texts_.push_back(value);
        }
    }
    return true;
}

bool IpNode::match(const Checklist& facts) const
{
    Address a;
    if (side_ == Side::Source) {
        a = facts.srcAddr;
    } else if (facts.dstAddr.isSet()) {
        a = facts.dstAddr;
    } else if (const auto literal = Address::Parse(facts.dstHost)) {
        a = *literal;
    }
    if (!a.isSet())
        return false;
    return std::any_of(entries_.begin(), entries_.end(), [&a](const Entry& e) { return e.contains(a); });
}

} // namespace Acl
