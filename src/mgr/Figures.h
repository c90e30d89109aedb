/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Mgr::Figures: what the manager pages show, as plain data.
///
/// The parts count (Client::Counters, Server::Context, Comm::Resolver's and
/// Store::Index's stats, Sbuf::BlockPool's); Proxy::Instance copies those
/// figures into one Figures when a page is asked for (src/proxy/Manager.cc),
/// and Mgr::RenderPage() formats it. Nothing here is read on the request
/// path. Mgr::Counters is the part of it that is sampled once a minute for
/// the 5min and 60min pages (Mgr::History).

#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

namespace Mgr {

/// The traffic counters, as Squid 5.7's `counters` page names them.
struct Counters {
    double sampleTime = 0;              ///< when they were read, seconds since the epoch
    uint64_t clientRequests = 0;        ///< client_http.requests: transactions logged
    uint64_t clientHits = 0;            ///< client_http.hits: of those, answered from the cache
    uint64_t clientMemHits = 0;         ///< client_http.mem_hits: of the hits, from the memory cache
    uint64_t clientDiskHits = 0;        ///< client_http.disk_hits: of the hits, from a cache_dir
    uint64_t clientErrors = 0;          ///< client_http.errors: answered with a status of 400 or more
    uint64_t clientBytesIn = 0;         ///< client_http.kbytes_in, in bytes: request heads read
    uint64_t clientBytesOut = 0;        ///< client_http.kbytes_out, in bytes: reply bytes written
    uint64_t clientHitBytesOut = 0;     ///< client_http.hit_kbytes_out, in bytes
    uint64_t serverRequests = 0;        ///< server.all.requests: requests sent to origins
    uint64_t serverErrors = 0;          ///< server.all.errors: forwardings that failed
    uint64_t serverBytesIn = 0;         ///< server.all.kbytes_in, in bytes: read from origins
    uint64_t serverBytesOut = 0;        ///< server.all.kbytes_out, in bytes: sent to origins
    uint64_t abortedRequests = 0;       ///< aborted_requests: clients that left before their reply ended
    uint64_t pageFaults = 0;            ///< page_faults: major faults (getrusage)
    uint64_t selectLoops = 0;           ///< select_loops: event loop iterations
    uint64_t dnsQueries = 0;            ///< DNS queries sent (the resolver's)
    uint64_t acceptedConnections = 0;   ///< syscalls.sock.accepts
    uint64_t icpPacketsSent = 0;        ///< icp.pkts_sent
    uint64_t icpPacketsReceived = 0;    ///< icp.pkts_recv
    uint64_t icpQueriesSent = 0;        ///< icp.queries_sent
    uint64_t icpRepliesSent = 0;        ///< icp.replies_sent
    uint64_t icpQueriesReceived = 0;    ///< icp.queries_recv
    uint64_t icpRepliesReceived = 0;    ///< icp.replies_recv
    uint64_t icpQueryTimeouts = 0;      ///< icp.query_timeouts
    uint64_t icpBytesSent = 0;          ///< icp.kbytes_sent, in bytes
    uint64_t icpBytesReceived = 0;      ///< icp.kbytes_recv, in bytes
    uint64_t icpQueryBytesSent = 0;     ///< icp.q_kbytes_sent, in bytes
    uint64_t icpReplyBytesSent = 0;     ///< icp.r_kbytes_sent, in bytes
    uint64_t icpQueryBytesReceived = 0; ///< icp.q_kbytes_recv, in bytes
    uint64_t icpReplyBytesReceived = 0; ///< icp.r_kbytes_recv, in bytes
    uint64_t icpTimesUsed = 0;          ///< icp.times_used
    double cpuTime = 0;                 ///< cpu_time: user + system seconds

    /// Adds another worker's counts (doc/design.md "Workers"); sampleTime,
    /// pageFaults and cpuTime are the whole process's already and stay.
    void add(const Counters& other);
};

/// Counters sampled once a minute, the last hour of them (Squid's CountHist).
class History {
public:
    /// Adds a sample (the newest); keeps 61 of them.
    void sample(const Counters& counters);
    /// the sample taken `minutes` samples before the newest (the oldest when
    /// there are fewer), or nullptr when none was taken yet
    const Counters* minutesAgo(size_t minutes) const;
    /// how many samples are kept
    size_t size() const { return samples_.size(); }

private:
    std::deque<Counters> samples_; ///< newest first
};

/// One client transaction in progress (active_requests).
struct ActiveRequest {
    int fd = -1;           ///< the client socket
    std::string peer;      ///< client address:port
    std::string local;     ///< listening address:port
    std::string uri;       ///< the request's URL
    std::string logType;   ///< its result code so far
    std::string user;      ///< its user, or empty
    std::string state;     ///< what the connection does now (Squid's "FD desc")
    uint64_t requests = 0; ///< requests on the connection so far
    double start = 0;      ///< when the request began, seconds since the epoch
};

/// What one client address did (client_list).
struct ClientTally {
    std::string address;                                 ///< the client's address
    size_t connections = 0;                              ///< its open connections
    uint64_t requests = 0;                               ///< its transactions
    uint64_t hits = 0;                                   ///< of those, hits
    std::vector<std::pair<std::string, uint64_t>> codes; ///< transactions by result code
};

/// One object of the memory cache (objects, vm_objects).
struct StoredObject {
    std::string key;           ///< the cache key (method SP URL, maybe a variant part)
    std::string keyDigest;     ///< where Squid prints its MD5 key (Store::KeyDigest())
    bool complete = false;     ///< all of it arrived (STORE_OK; else STORE_PENDING)
    uint64_t bytes = 0;        ///< body bytes held
    size_t readers = 0;        ///< clients reading it
    int64_t lastModified = -1; ///< its Last-Modified, or -1
    int64_t expires = -1;      ///< its Expires, or -1
};

/// One cache_dir (storedir).
struct StoreDir {
    std::string type;           ///< ufs, aufs, diskd or rock, as squid.conf says
    std::string path;           ///< its directory
    unsigned l1 = 0;            ///< first-level subdirectories
    unsigned l2 = 0;            ///< second-level subdirectories
    uint64_t maxBytes = 0;      ///< MBYTES, in bytes
    uint64_t usedBytes = 0;     ///< what its objects take
    size_t objects = 0;         ///< objects stored
    bool noStore = false;       ///< no-store (Squid's read-only)
    bool full = false;          ///< storing stopped: the disk said it is full
    bool rebuilding = false;    ///< its index is being rebuilt from its files
    std::string policy = "lru"; ///< its cache_replacement_policy ("lru", "heap GDSF", ...)
    size_t partialObjects = 0;  ///< objects whose parts it holds (doc/caching.md "Partial objects")
    uint64_t fsBlockSize = 0;   ///< the filesystem's block size (statvfs), 0 when unknown
    uint64_t fsUsedKb = 0;      ///< the filesystem's space in use, KB
    uint64_t fsTotalKb = 0;     ///< the filesystem's size, KB
    uint64_t fsInodesUsed = 0;  ///< its inodes in use
    uint64_t fsInodesTotal = 0; ///< its inodes
};

/// One host name the resolver knows (ipcache, fqdncache).
struct HostEntry {
    std::string name;                   ///< the name
    std::vector<std::string> addresses; ///< its addresses (none: a failure kept negative_dns_ttl)
    bool fromHostsFile = true;          ///< hosts_file's (flag H), else the address cache's
    int64_t ttl = -1;                   ///< seconds left in the address cache; -1: hosts_file's
};

/// A size class of the block pool (cuttle's own figures, mem).
struct BlockClass {
    size_t size = 0;      ///< bytes per block
    size_t inUse = 0;     ///< blocks in use
    size_t free = 0;      ///< blocks kept for reuse
    size_t arenaFree = 0; ///< free blocks in the locked arena
};

/// One of cuttle's own figures: a `NAME: VALUE` line of the mem page and a
/// cuttle_NAME metric.
struct OwnFigure {
    const char* name = ""; ///< e.g. "body_copies" (a literal)
    uint64_t value = 0;    ///< its value
    bool counter = false;  ///< it only grows (else it is a gauge)
};

/// Everything the pages show (see the file comment).
struct Figures {
    std::string version;          ///< cuttle's version
    std::string serviceName;      ///< -n NAME
    double startTime = 0;         ///< when the proxy started, seconds since the epoch
    double now = 0;               ///< when the figures were read
    Counters counters;            ///< the traffic counters now
    size_t clientConnections = 0; ///< client connections open now

    // resources
    uint64_t maxRssKb = 0; ///< the largest resident set, KB
    size_t fdMax = 0;      ///< the descriptor limit
    size_t fdInUse = 0;    ///< descriptors open
    int fdLargest = 0;     ///< the largest open descriptor

    // the memory cache
    uint64_t cacheBudget = 0;          ///< cache_mem, bytes
    uint64_t cacheBytes = 0;           ///< bytes held by stored objects
    size_t cacheObjects = 0;           ///< objects stored
    size_t cacheInFlight = 0;          ///< of those, still arriving
    uint64_t cacheHits = 0;            ///< lookups that found their object
    uint64_t cacheEvictions = 0;       ///< objects evicted for room
    std::string cachePolicy;           ///< memory_replacement_policy
    std::vector<StoredObject> objects; ///< every stored object
    size_t diskObjects = 0;            ///< objects in the cache_dirs
    std::vector<StoreDir> storeDirs;   ///< each cache_dir

    // the resolver
    uint64_t dnsLookups = 0;          ///< names asked for
    uint64_t dnsLiterals = 0;         ///< of those, address literals
    uint64_t dnsHostsFile = 0;        ///< answered from hosts_file
    uint64_t dnsAnswered = 0;         ///< answered from DNS
    uint64_t dnsNotFound = 0;         ///< answered "no such name"
    uint64_t dnsFailures = 0;         ///< failed (timeouts included)
    std::vector<HostEntry> hosts;     ///< hosts_file's names, then the address cache's (ipcache)
    uint64_t addressCacheHits = 0;    ///< names answered from the address cache
    uint64_t negativeAddressHits = 0; ///< of those, a kept failure
    /// the resolver's name cache (fqdncache): address, its names (none: a
    /// failed lookup kept negative_dns_ttl), seconds left
    struct CachedName {
        std::string address;
        std::vector<std::string> names;
        int64_t ttl = 0;
    };
    std::vector<CachedName> cachedNames;
    uint64_t addressLookups = 0;   ///< names of addresses asked for (srcdomain)
    uint64_t nameCacheHits = 0;    ///< of them, answered from the name cache
    uint64_t negativeNameHits = 0; ///< of those, a kept failure

    // the client side
    std::vector<ActiveRequest> active; ///< requests in progress
    std::vector<ClientTally> clients;  ///< per client address

    // cuttle's own
    std::vector<BlockClass> blockClasses; ///< the block pool by size class
    uint64_t blockBytesInUse = 0;         ///< bytes of blocks in use
    uint64_t blockBytesFree = 0;          ///< bytes of free blocks kept
    /// origin reads by the space offered (request_buffer_size `auto` sizes
    /// them): (a power of two, reads offered from it up to the next), ascending
    std::vector<std::pair<size_t, uint64_t>> readSizes;
    std::vector<OwnFigure> own; ///< cuttle's other figures, in the order shown
};

} // namespace Mgr
