/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::IpNode: the `src`, `dst` and `localip` acl types.

#pragma once

#include "acl/Address.h"
#include "acl/Node.h"

#include <cstdint>
#include <functional>
#include <set>
#include <tuple>

namespace Acl {

/// `acl NAME src|dst|localip VALUE...`: the client address (src), the
/// origin address (dst) or the address the client connected to (localip)
/// is in one of the listed addresses, networks or ranges.
///
/// Values, as Squid 5.7 accepts them:
///   - `1.2.3.4`, `::1`: one address
///   - `10.0.0.0/8`, `fc00::/7`: CIDR; `10.0.0.0/255.0.0.0`: IPv4 netmask
///     (deprecated; a non-contiguous one counts its leading ones, as Squid does)
///   - `a-b`, `a-b/mask`: a range; with a mask, the masked address is
///     compared with the masked ends (so `1.2.3.4-1.2.3.9/24` is 1.2.3.0/24)
///   - `all` (every address), `ipv4` (every IPv4), `ipv6` (every non-IPv4)
///   - `0.0.0.0/0`, `0/0`, `0.0.0.0/0.0.0.0`: taken as `all`, with Squid's warning
/// IPv4 values are held IPv4-mapped, so they match IPv4-mapped IPv6 clients.
///
/// As in Squid 5.7, a value that overlaps one already in the acl (the start
/// of either lies in the other) is ignored with a warning, even when it is
/// wider: `acl x src 10.1.0.0/16 10.0.0.0/8` matches 10.1.0.0/16 only.
/// A host name value is resolved when the line is parsed, as Squid does,
/// through the HostResolver the caller gives (Registry::parse()): its
/// addresses take the name's place among the values, in order. Without a
/// resolver (unit tests, fuzzers) a host name makes the acl unsupported.
///
/// Block lists of 100,000 values are common, so values are not scanned
/// linearly. Every entry, masked range included, covers one contiguous run
/// of addresses: masks are prefix masks (a non-contiguous dotted mask is cut
/// to its leading ones), and `lo <= (a & mask) <= hi`, with lo and hi
/// masked, holds exactly for lo <= a <= (hi | ~mask). The kept entries never
/// overlap (the rule above drops a later one), so they sit in a search tree
/// keyed by their first address: adding a value and matching an address
/// each take O(log n) steps. A reversed range (`a-b` with a > b) matches
/// nothing but still blocks later values holding its start, as in Squid's
/// comparison; it is kept in the tree as a point that contains nothing.
class IpNode : public Node {
public:
    /// Resolves a host name to its addresses; false with `why` when it has none.
    using HostResolver =
        std::function<bool(const std::string& host, std::vector<Address>& addresses, std::string& why)>;

    /// Which address of the transaction the acl tests.
    enum class Side { Source, Destination, Local };

    /// An empty `src`, `dst` or `localip` acl.
    IpNode(std::string name, Side side);

    /// One entry: an address matches when lo <= (address & mask) <= hi.
    struct Entry {
        Address lo;   ///< lowest masked address
        Address hi;   ///< highest masked address
        Address mask; ///< applied to the tested address first
        /// Whether `a` is in this entry.
        bool contains(const Address& a) const;
        /// Same bounds and mask.
        bool operator==(const Entry&) const = default;
    };

    /// Parses one value into entries (several for `ipv6`). Returns false with
    /// `why` on a bad value; sets `isHostName` (and returns true with no
    /// entries) when the value is a host name.
    static bool ParseValue(const std::string& value, std::vector<Entry>& entries, bool& isHostName,
                           std::string& why, std::vector<std::string>& warnings);

    /// `dst` accepts `-n` (no reverse lookups; a no-op here); `src` takes no option.
    bool acceptsOption(const std::string& option) const override;
    bool addValues(const std::vector<std::string>& values, std::string& why,
                   std::vector<std::string>& warnings) override;
    /// Sets the resolver of host name values for the next addValues() calls
    /// (nullptr: names make the acl unsupported). The Registry sets it around
    /// one line's values only.
    void setHostResolver(const HostResolver* resolver) { hostResolver_ = resolver; }
    bool isEmpty() const override { return entries_.empty() && isSupported(); }
    /// src: Checklist::srcAddr; dst: any of Checklist::dstAddrs, else dstHost when it is
    /// an address literal; an unknown address matches nothing (as a failed
    /// lookup does in Squid).
    bool match(const Checklist& facts) const override;
    bool needsDstAddress() const override { return side_ == Side::Destination; }

    /// The entries parsed so far, in order.
    const std::vector<Entry>& entries() const { return entries_; }

private:
    /// Marks "no entry" where an entry position is expected.
    static constexpr uint32_t None = UINT32_MAX;

    /// A kept entry in the search tree: a treap keyed by `first`, whose
    /// nodes also know the earliest entry below them (so an overlap is
    /// reported against the value listed first, as the linear scan did).
    struct Slot {
        Address first;            ///< the entry's lo: the address overlaps are checked at
        Address last;             ///< the last address the entry matches (hi | ~mask)
        bool empty = false;       ///< a reversed range: contains no address, not even `first`
        uint32_t order = None;    ///< the entry's position in entries_
        uint32_t earliest = None; ///< smallest `order` in this subtree
        uint32_t priority = 0;    ///< heap order of the treap (a hash of `order`)
        uint32_t left = None;     ///< subtree of smaller `first`
        uint32_t right = None;    ///< subtree of equal or greater `first`
    };

    /// The position (in entries_) of the kept entry that contains `a`, or None.
    uint32_t containing(const Address& a) const;
    /// The smallest position of a kept entry whose first address is in [lo, hi], or None.
    uint32_t earliestStartingIn(const Address& lo, const Address& hi) const;
    /// The earliest kept entry that `e` overlaps (Squid's rule), or None.
    uint32_t firstClash(const Entry& e) const;
    /// Keeps `e` unless it repeats or overlaps a kept entry (Squid's rule: warnings).
    void add(const Entry& e, const std::string& value, std::vector<std::string>& warnings);
    /// Adds `e` (which overlaps nothing kept) to entries_, texts_ and the tree.
    void keep(const Entry& e, const std::string& text);
    /// Joins two treaps, every key in `a` not above those in `b`; returns the root.
    uint32_t merge(uint32_t a, uint32_t b);
    /// Splits treap `t` into keys below `key` and the rest.
    void split(uint32_t t, const Address& key, uint32_t& below, uint32_t& rest);
    /// Recomputes tree_[t].earliest from its children.
    void update(uint32_t t);

    Side side_;
    const HostResolver* hostResolver_ = nullptr; ///< see setHostResolver()
    std::vector<Entry> entries_;
    std::vector<std::string> texts_; ///< the value each entry came from, for warnings
    std::vector<Slot> tree_;         ///< tree_[i] is the Slot of entries_[i]; linked by index
    uint32_t root_ = None;           ///< the treap's root in tree_
    /// The reversed-range entries, for the duplicate check (they never overlap anything equal).
    std::set<std::tuple<Address, Address, Address>> reversed_;
};

} // namespace Acl
