/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::IpNode: the `src` and `dst` acl types.

#pragma once

#include "acl/Address.h"
#include "acl/Node.h"

namespace Acl {

/// `acl NAME src|dst VALUE...`: the client address (src) or the origin
/// address (dst) is in one of the listed addresses, networks or ranges.
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
/// A host name value (Squid resolves it when parsing) makes the acl
/// unsupported until cuttle resolves names at parse time.
class IpNode : public Node {
public:
    /// Which address of the transaction the acl tests.
    enum class Side { Source, Destination };

    /// An empty `src` or `dst` acl.
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
    bool isEmpty() const override { return entries_.empty() && isSupported(); }
    /// src: Checklist::srcAddr; dst: Checklist::dstAddr, else dstHost when it is
    /// an address literal; an unknown address matches nothing (as a failed
    /// lookup does in Squid).
    bool match(const Checklist& facts) const override;
    bool needsDstAddress() const override { return side_ == Side::Destination; }

    /// The entries parsed so far, in order.
    const std::vector<Entry>& entries() const { return entries_; }

private:
    Side side_;
    std::vector<Entry> entries_;
    std::vector<std::string> texts_; ///< the value each entry came from, for warnings
};

} // namespace Acl
