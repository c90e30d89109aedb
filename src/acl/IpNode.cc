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

/// The last address an entry matches: its masked high end with the host bits set.
Address LastAddress(const IpNode::Entry& e)
{
    auto bytes = e.hi.bytes();
    for (size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = uint8_t(bytes[i] | ~e.mask.bytes()[i]);
    return Address(bytes);
}

/// A well-spread 32-bit hash of `n` (the last step of splitmix64): treap
/// priorities that do not depend on the addresses listed.
uint32_t Mix(uint64_t n)
{
    n = (n ^ (n >> 30)) * 0xbf58476d1ce4e5b9ULL;
    n = (n ^ (n >> 27)) * 0x94d049bb133111ebULL;
    return uint32_t(n ^ (n >> 31));
}

} // namespace

bool IpNode::Entry::contains(const Address& a) const
{
    const auto m = a.masked(mask);
    return lo <= m && m <= hi;
}

IpNode::IpNode(std::string name, Side side)
    : Node(std::move(name), side == Side::Source  ? "src"
                            : side == Side::Local ? "localip"
                                                  : "dst"),
      side_(side)
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
            if (!hostResolver_) {
                markUnsupported("(" + typeName() + ") names the host '" + value +
                                "', which cuttle resolves only when it reads squid.conf to run");
                continue;
            }
            if (value.find('/') != std::string::npos) {
                why = "'" + value + "': cuttle takes no netmask after a host name";
                return false;
            }
            std::vector<Address> addresses;
            if (!(*hostResolver_)(value, addresses, why)) {
                why = "cannot resolve the host '" + value + "': " + why;
                return false;
            }
            for (const auto& a : addresses)
                add(Entry{a, a, Address::PrefixMask(128)}, value + " (" + a.toString() + ")", warnings);
            continue;
        }
        for (const auto& e : parsed)
            add(e, value, warnings);
    }
    return true;
}

void IpNode::add(const Entry& e, const std::string& value, std::vector<std::string>& warnings)
{
    // Squid 5.7 keeps src/dst values in a splay tree whose comparison
    // (aclIpNetworkCompare2) calls two values equal when the start
    // of one lies in the other, and drops a value equal to one
    // already there: a later value that overlaps an earlier one is
    // ignored, wholly. Matching the union instead would make an
    // `allow` rule match more than Squid's.
    //
    // A kept entry equal to `e` is the only kept one `e` overlaps (kept
    // entries do not overlap each other), so the earliest clash is the
    // duplicate when there is one. Reversed ranges overlap nothing equal
    // to them and are looked up apart.
    const auto clash = firstClash(e);
    const bool duplicate = (clash != None && entries_[clash] == e) ||
                           (e.hi < e.lo && reversed_.count(std::make_tuple(e.lo, e.hi, e.mask)));
    if (duplicate) {
        warnings.push_back("'" + value + "' is already in acl " + name() + "; ignored");
        return;
    }
    if (clash != None) {
        warnings.push_back("'" + value + "' overlaps '" + texts_[clash] + "', which is already in acl " +
                           name() +
                           ", so it is ignored, as Squid 5.7 does: the acl does not match addresses of '" +
                           value + "' outside '" + texts_[clash] + "'; list them without overlaps");
        return;
    }
    keep(e, value);
}

uint32_t IpNode::firstClash(const Entry& e) const
{
    // Squid's rule: f.contains(e.lo) || e.contains(f.lo). The first part is
    // the kept entry holding e.lo; the second, for a non-empty e, the kept
    // entries starting within e's addresses.
    const auto holder = containing(e.lo);
    if (e.hi < e.lo)
        return holder;
    return std::min(holder, earliestStartingIn(e.lo, LastAddress(e)));
}

void IpNode::keep(const Entry& e, const std::string& text)
{
    const auto order = uint32_t(entries_.size());
    entries_.push_back(e);
    texts_.push_back(text);
    if (e.hi < e.lo)
        reversed_.emplace(e.lo, e.hi, e.mask);

    Slot slot;
    slot.first = e.lo;
    slot.last = LastAddress(e);
    slot.empty = e.hi < e.lo;
    slot.order = order;
    slot.earliest = order;
    slot.priority = Mix(order);
    tree_.push_back(slot);
    uint32_t below = None;
    uint32_t rest = None;
    split(root_, e.lo, below, rest);
    root_ = merge(merge(below, order), rest);
}

void IpNode::update(const uint32_t t)
{
    auto& s = tree_[t];
    s.earliest = s.order;
    if (s.left != None)
        s.earliest = std::min(s.earliest, tree_[s.left].earliest);
    if (s.right != None)
        s.earliest = std::min(s.earliest, tree_[s.right].earliest);
}

uint32_t IpNode::merge(const uint32_t a, const uint32_t b)
{
    if (a == None)
        return b;
    if (b == None)
        return a;
    if (tree_[a].priority > tree_[b].priority) {
        const auto joined = merge(tree_[a].right, b);
        tree_[a].right = joined;
        update(a);
        return a;
    }
    const auto joined = merge(a, tree_[b].left);
    tree_[b].left = joined;
    update(b);
    return b;
}

void IpNode::split(const uint32_t t, const Address& key, uint32_t& below, uint32_t& rest)
{
    if (t == None) {
        below = rest = None;
        return;
    }
    uint32_t l = None;
    uint32_t r = None;
    if (tree_[t].first < key) {
        split(tree_[t].right, key, l, r);
        tree_[t].right = l;
        below = t;
        rest = r;
    } else {
        split(tree_[t].left, key, l, r);
        tree_[t].left = r;
        below = l;
        rest = t;
    }
    update(t);
}

uint32_t IpNode::containing(const Address& a) const
{
    // The entry with the greatest first address not above `a`. A reversed
    // range there means no entry holds `a`: one that did would start at or
    // before it and hold its start, and the two could not both be kept.
    uint32_t candidate = None;
    for (auto t = root_; t != None;) {
        if (tree_[t].first <= a) {
            candidate = t;
            t = tree_[t].right;
        } else {
            t = tree_[t].left;
        }
    }
    if (candidate == None || tree_[candidate].empty || tree_[candidate].last < a)
        return None;
    return tree_[candidate].order;
}

uint32_t IpNode::earliestStartingIn(const Address& lo, const Address& hi) const
{
    auto t = root_;
    while (t != None && (tree_[t].first < lo || hi < tree_[t].first))
        t = tree_[t].first < lo ? tree_[t].right : tree_[t].left;
    if (t == None)
        return None;
    // t is in range: its left subtree holds keys below t's (so not above hi),
    // its right subtree keys at or above t's (so not below lo).
    auto best = tree_[t].order;
    for (auto u = tree_[t].left; u != None;) {
        if (lo <= tree_[u].first) {
            best = std::min(best, tree_[u].order);
            if (tree_[u].right != None)
                best = std::min(best, tree_[tree_[u].right].earliest);
            u = tree_[u].left;
        } else {
            u = tree_[u].right;
        }
    }
    for (auto u = tree_[t].right; u != None;) {
        if (tree_[u].first <= hi) {
            best = std::min(best, tree_[u].order);
            if (tree_[u].left != None)
                best = std::min(best, tree_[tree_[u].left].earliest);
            u = tree_[u].right;
        } else {
            u = tree_[u].left;
        }
    }
    return best;
}

bool IpNode::match(const Checklist& facts) const
{
    Address a;
    if (side_ == Side::Source) {
        a = facts.srcAddr;
    } else if (side_ == Side::Local) {
        a = facts.localAddr;
    } else if (!facts.dstAddrs.empty()) {
        return std::any_of(facts.dstAddrs.begin(), facts.dstAddrs.end(),
                           [this](const Address& d) { return containing(d) != None; });
    } else if (const auto literal = Address::Parse(facts.dstHost)) {
        a = *literal;
    }
    if (!a.isSet())
        return false;
    return containing(a) != None;
}

} // namespace Acl
