/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Comm::Resolver: asynchronous name lookups on the event loop (c-ares),
/// with squid.conf's hosts_file answered first.
///
///     resolve(host, port, cb) -> Lookup (handle; destroying it cancels cb)
///       IP literal ........................ answered at once (from the loop)
///       name in hosts_file ................ answered at once (from the loop)
///       name in the address cache (Squid's ipcache) answered at once: the
///         records' TTL capped by positive_dns_ttl, failures negative_dns_ttl,
///         at most ipcache_size names
///       otherwise: one c-ares query per distinct name in flight (A and AAAA,
///       ares_getaddrinfo), shared by every lookup of that name
///       every lookup also has its own deadline (Options::timeout)
///     resolveAddress(address, cb) -> Lookup: the address's names (reverse DNS,
///       Squid's fqdncache): hosts_file first, then the name cache (answers
///       kept positive_dns_ttl, failures negative_dns_ttl, at most
///       fqdncache_size of them), then one PTR query per address in flight
///
/// - The callback NEVER runs inside resolve(): every answer, even one known
///   at once, is delivered by a deferred call of the loop (Loop::defer()). It never runs
///   after its Lookup was cancelled or destroyed.
/// - Loop integration (Loop.h): c-ares tells which sockets it wants watched
///   (ARES_OPT_SOCK_STATE_CB); each is watched once with Loop::watch() and
///   its readiness fed to ares_process_fd(); ares_timeout() feeds one Timer.
///   The loop is edge-triggered, so a readable edge is drained before the
///   handler returns (see Resolver.cc: c-ares 1.18 reads every queued UDP
///   datagram per call but only one piece of a TCP answer).
/// - Ownership: the Resolver owns the c-ares channel, its sockets'
///   Registrations and every Timer; a Lookup owns nothing but its claim on
///   the callback. The Loop must outlive the Resolver, and the Resolver must
///   outlive its Lookups (as the Loop outlives its handles).
/// - Threads: one Resolver per Loop, used from the loop's thread only; its
///   caches (Comm::DnsCache) may be shared by every worker's resolver.

#pragma once

#include "comm/Address.h"
#include "comm/DnsCache.h"
#include "comm/Loop.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

struct ares_addrinfo; // c-ares's answers; only Resolver.cc includes ares.h
struct hostent;

namespace Comm {

class Resolver;

/// The move-only handle of one lookup: destroying or cancelling it means its
/// callback will not run. An empty handle (default-made, moved from, or whose
/// answer was delivered) does nothing.
class Lookup {
public:
    /// an empty handle
    Lookup() = default;
    /// takes over the other handle
    Lookup(Lookup&& other) noexcept;
    /// cancels the held lookup, then takes over the other one
    Lookup& operator=(Lookup&& other) noexcept;
    Lookup(const Lookup&) = delete;
    Lookup& operator=(const Lookup&) = delete;
    /// cancels
    ~Lookup() { cancel(); }

    /// the callback will not run; idempotent
    void cancel();
    /// whether the callback is still due to run
    bool isPending() const;

private:
    friend class Resolver;
    Lookup(Resolver* resolver, uint64_t id) : resolver_(resolver), id_(id) {}

    Resolver* resolver_ = nullptr; ///< null when empty
    uint64_t id_ = 0;              ///< the resolver's id of the lookup
};

/// Asynchronous host name lookups for one Loop.
class Resolver {
public:
    /// what squid.conf says about DNS
    struct Options {
        /// dns_nameservers: "IP" or "IP:PORT" (a cuttle extension), IPv6 as
        /// "::1", "[::1]" or "[::1]:5353"; empty: c-ares reads /etc/resolv.conf
        std::vector<std::string> nameservers;
        /// hosts_file; "none" (or empty) disables it
        std::string hostsFile = "/etc/hosts";
        /// dns_timeout: a lookup gives up after this long
        Milliseconds timeout{30000};
        /// positive_dns_ttl: how long the name cache keeps an address's names
        Milliseconds positiveTtl{6 * 3600 * 1000};
        /// negative_dns_ttl: how long it keeps a failed reverse lookup
        Milliseconds negativeTtl{60 * 1000};
        /// fqdncache_size: the most addresses the name cache keeps (0: none)
        size_t nameCacheSize = 1024;
        /// ipcache_size: the most names the address cache keeps (0: none)
        size_t addressCacheSize = 1024;
    };

    /// the outcome of one lookup
    using Answer = DnsAnswer;

    /// receives the answer of a lookup, from the loop
    using Callback = std::function<void(const Answer&)>;

    /// counters, for tests and the cache manager
    struct Stats {
        uint64_t lookups = 0;             ///< resolve() calls
        uint64_t literals = 0;            ///< answered as IP literals
        uint64_t fromHostsFile = 0;       ///< answered from hosts_file
        uint64_t dnsQueries = 0;          ///< c-ares lookups started (lookups of a name in flight share one)
        uint64_t fromDns = 0;             ///< lookups answered with addresses from DNS
        uint64_t notFound = 0;            ///< lookups answered isNotFound by DNS
        uint64_t failures = 0;            ///< lookups that failed otherwise (timeouts included)
        uint64_t timeouts = 0;            ///< lookups ended by their own deadline
        uint64_t addressLookups = 0;      ///< resolveAddress() calls (also counted in lookups)
        uint64_t nameCacheHits = 0;       ///< of them, answered from the name cache
        uint64_t negativeNameHits = 0;    ///< of those, with a kept failure (no name)
        uint64_t addressCacheHits = 0;    ///< resolve() calls answered from the address cache
        uint64_t negativeAddressHits = 0; ///< of them, with a kept failure (no address)

        /// adds another resolver's counts (workers N: the manager's pages
        /// speak for the process)
        void add(const Stats& other);
    };

    /// Starts c-ares with the options and reads the hosts file; keeps its
    /// answers in cache (shared with other workers' resolvers), or in one
    /// of its own when cache is null. Throws TextException when c-ares
    /// cannot start or a nameserver is not an IP address (an unreadable
    /// hosts file is only logged, as Squid does).
    Resolver(Loop& loop, const Options& options, std::shared_ptr<DnsCache> cache = nullptr);
    /// cancels every lookup (no callback runs) and closes c-ares's sockets
    ~Resolver();
    Resolver(const Resolver&) = delete;
    Resolver& operator=(const Resolver&) = delete;

    /// Starts resolving host (a name, or an IP literal such as "192.0.2.1",
    /// "::1" or "[::1]") for port. cb runs later from the loop, never from
    /// inside resolve(), exactly once unless the returned Lookup is cancelled
    /// or destroyed first.
    Lookup resolve(const std::string& host, uint16_t port, Callback cb);

    /// Starts finding the names of `address` (its port is ignored): cb gets
    /// an Answer whose names hold them, or an error (isNotFound when the
    /// address has no name). Called back as resolve()'s callbacks are.
    Lookup resolveAddress(const Address& address, Callback cb);

    /// The names of `address` known without asking DNS (hosts_file, or the
    /// name cache's unexpired answer), or nullopt: then resolveAddress()
    /// asks DNS. Counted as a lookup (Stats::addressLookups) when known;
    /// resolveAddress() counts the others, so each request counts once.
    std::optional<Answer> knownNames(const Address& address);
    /// Calls visit(address text, names, error, time left) for each
    /// unexpired entry of the name cache (the manager's fqdncache page).
    void forEachCachedName(const std::function<void(const std::string&, const std::vector<std::string>&,
                                                    const std::string&, Milliseconds)>& visit) const;

    /// Calls visit(name, addresses, error, time left) for each unexpired
    /// entry of the address cache (the manager's ipcache page).
    void forEachCachedAddress(const std::function<void(const std::string&, const std::vector<Address>&,
                                                       const std::string&, Milliseconds)>& visit) const;
    /// Applies new options (after a reconfigure): re-reads the hosts file and
    /// restarts c-ares; names in flight are asked again of the new servers.
    /// Throws as the constructor does, keeping the old options.
    void reconfigure(const Options& options);

    /// the counters so far
    const Stats& stats() const { return stats_; }
    /// lookups whose callback is still due
    size_t pendingLookups() const { return lookups_.size(); }
    /// c-ares lookups in flight (a cancelled Lookup's query stays until c-ares ends it)
    size_t queriesInFlight() const { return queries_.size(); }
    /// descriptors of c-ares currently watched on the loop
    size_t watchedSockets() const;
    /// how many names the hosts file gave
    size_t hostsFileNames() const { return hosts_.byName.size(); }
    /// addresses whose names the name cache holds
    size_t cachedNames() const { return cache_->size(DnsCache::Kind::Names); }
    /// names whose addresses the address cache holds
    size_t cachedAddresses() const { return cache_->size(DnsCache::Kind::Addresses); }

    /// what a hosts file says, both ways
    struct HostsTable {
        /// lowercase name (without a trailing dot) -> its addresses (port 0)
        std::unordered_map<std::string, std::vector<Address>> byName;
        /// address (Address::host() text) -> the names of its first line
        std::unordered_map<std::string, std::vector<std::string>> byAddress;
    };
    /// what the hosts file gave, by name (the manager's ipcache page)
    const std::unordered_map<std::string, std::vector<Address>>& hostsFile() const { return hosts_.byName; }

    /// Parses hosts-file text (address, names..., `#` comments; lines whose
    /// address is not an IP literal are skipped) into a table, each name's
    /// addresses in file order without repeats, and each address's names as
    /// its first line gives them (the first is its canonical name).
    static HostsTable ParseHosts(const std::string& text);

private:
    friend class Lookup;
    class Channel;
    struct Query;

    /// one lookup whose callback is still due
    struct Pending {
        Callback callback;       ///< emptied when delivered
        uint16_t port = 0;       ///< the port the answer's addresses get
        bool isFinished = false; ///< answer is set; timer now delivers it
        Answer answer;
        Timer timer; ///< the deadline, then the delivery
    };

    /// c-ares's ares_getaddrinfo() callback; arg is the Query
    static void OnAddrInfo(void* arg, int status, int timeouts, ::ares_addrinfo* result);
    /// c-ares's ares_gethostbyaddr() callback; arg is the Query
    static void OnHostByAddr(void* arg, int status, int timeouts, ::hostent* result);
    /// finishes every lookup waiting for query, then forgets the query
    void answerQuery(Query& query, int status, ::ares_addrinfo* result);
    /// the same for a reverse query, whose answer the name cache keeps
    void answerReverse(Query& query, int status, const ::hostent* result);
    /// whether c-ares ended query without an answer to give: the Resolver
    /// goes, or reconfigure() restarts the query on the new channel
    bool isAnswerless(Query& query, int status);
    /// finishes every lookup waiting for query with base (its addresses
    /// given each lookup's port), then forgets the query
    void answerWaiters(Query& query, const Answer& base);
    /// registers lookup `id` as a waiter of the query under key, starting it if new
    void join(const std::string& key, const Address* reverse, uint64_t id);
    /// keeps answer for the address text `key` in the name cache
    void rememberNames(const std::string& key, const Answer& answer);
    /// asks c-ares (the current channel) about query's name
    void startQuery(Query& query);
    /// records the answer of a lookup and schedules its delivery
    void finish(uint64_t id, Answer&& answer);
    /// calls the lookup's callback (from a Timer of the loop)
    void deliver(uint64_t id);
    /// forgets a lookup: its callback will not run
    void cancel(uint64_t id);
    /// whether a lookup's callback is still due
    bool isPending(uint64_t id) const { return lookups_.count(id) != 0; }
    /// reads and parses a hosts file; "none" or a problem (logged) gives nothing
    static HostsTable LoadHostsFile(const std::string& path);

    Loop& loop_;
    Options options_;
    HostsTable hosts_;                              ///< hosts_file, port 0
    std::shared_ptr<DnsCache> cache_;               ///< the name and address caches (shared by the workers)
    std::unordered_map<uint64_t, Pending> lookups_; ///< by Lookup id
    std::unordered_map<std::string, std::unique_ptr<Query>> queries_; ///< by lowercase name
    std::unique_ptr<Channel> channel_; ///< after queries_: destroyed (ending its queries) before them
    uint64_t nextId_ = 1;
    bool isRestarting_ = false; ///< reconfigure() is destroying the old channel
    bool isDestroying_ = false; ///< ~Resolver is destroying the channel
    Stats stats_;
};

} // namespace Comm
