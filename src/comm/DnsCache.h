/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Comm::DnsCache: what Comm::Resolver keeps of its answers, Squid's
/// ipcache (a name's addresses) and fqdncache (an address's names).
///
/// One Resolver per loop; with `workers N` every worker's resolver shares
/// the process's one DnsCache (Proxy::Board), so a name one worker looked up
/// is known to all (doc/design.md "Workers"). Every method takes the one
/// mutex for the whole operation and returns copies, never a pointer into
/// the cache; a lookup is one hash probe under it.
#pragma once

#include "comm/Address.h"
#include "comm/Loop.h"

#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace Comm {

/// the outcome of one lookup (Resolver::Answer)
struct DnsAnswer {
    /// IPv4 and IPv6 addresses, each with the port asked for; empty on error
    std::vector<Address> addresses;
    /// why there are no addresses ("Name not found", "DNS server timed out", ...)
    std::string error;
    /// the name does not exist or has no address (NXDOMAIN, NODATA)
    bool isNotFound = false;
    /// Resolver::resolveAddress(): the address's names, the canonical one
    /// first (empty on error); addresses then holds the address asked about
    std::vector<std::string> names;
};

/// The resolver's caches; see the file comment.
class DnsCache {
public:
    /// which of the two caches
    enum class Kind {
        Addresses, ///< a name's addresses (port 0), by lowercase name
        Names      ///< an address's names, by its Address::host() text
    };
    /// what visit() gets of each unexpired entry: key, answer, time left
    using Visitor = std::function<void(const std::string&, const DnsAnswer&, Milliseconds)>;

    DnsCache() = default;
    DnsCache(const DnsCache&) = delete;
    DnsCache& operator=(const DnsCache&) = delete;

    /// the answer kept under key, unless it expired by now
    std::optional<DnsAnswer> find(Kind kind, const std::string& key, Clock::time_point now) const;
    /// keeps answer under key until now + ttl, within limit entries (0 keeps
    /// nothing): a full cache first drops what expired, else one entry
    /// (Squid's caches drop their least recently used)
    void remember(Kind kind, const std::string& key, const DnsAnswer& answer, Clock::time_point now,
                  Milliseconds ttl, size_t limit);
    /// calls visit for each entry unexpired at now (the manager's ipcache
    /// and fqdncache pages); visit must not use the cache
    void forEach(Kind kind, Clock::time_point now, const Visitor& visit) const;
    /// forgets everything (a reconfigure: Squid purges both caches)
    void clear();
    /// entries held, expired ones included
    size_t size(Kind kind) const;

private:
    /// one entry: an answer and when it expires
    struct Kept {
        DnsAnswer answer;          ///< names or addresses, or error and isNotFound
        Clock::time_point expires; ///< now + ttl when remembered
    };
    /// one of the two caches, by key
    using Map = std::unordered_map<std::string, Kept>;

    Map& map(Kind kind) { return kind == Kind::Names ? names_ : addresses_; }
    const Map& map(Kind kind) const { return kind == Kind::Names ? names_ : addresses_; }

    mutable std::mutex mutex_; ///< guards what follows
    Map addresses_;            ///< Kind::Addresses
    Map names_;                ///< Kind::Names
};

} // namespace Comm
