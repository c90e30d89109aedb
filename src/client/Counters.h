/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Client::Counters: what the client side counts for the cache
/// manager (Squid's client_http.* counters and its per-client table). Each
/// transaction is counted once, when it is logged (Connection::logTransaction()),
/// with plain increments on the loop thread (doc/design.md "The cache manager").

#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>

namespace Log {
struct AccessRecord;
}

namespace Client {

/// The client side's counters (see the file comment).
struct Counters {
    /// What one client address did.
    struct PerClient {
        uint64_t requests = 0;                 ///< transactions logged
        uint64_t hits = 0;                     ///< of those, hits
        std::map<std::string, uint64_t> codes; ///< transactions by result code (%Ss)
    };

    uint64_t requests = 0;    ///< transactions logged (client_http.requests)
    uint64_t hits = 0;        ///< of those, answered from the cache (a result code with HIT)
    uint64_t memHits = 0;     ///< of the hits, TCP_MEM_HIT (a memory cache hit)
    uint64_t diskHits = 0;    ///< of the hits, TCP_HIT (a cache_dir hit)
    uint64_t errors = 0;      ///< of those, answered with a status of 400 or more
    uint64_t bytesIn = 0;     ///< request head bytes consumed
    uint64_t bytesOut = 0;    ///< bytes written to clients (%<st)
    uint64_t hitBytesOut = 0; ///< of those, for hits
    uint64_t aborted = 0;     ///< transactions whose client left before the reply ended (status 0 or ABORTED)
    std::unordered_map<std::string, PerClient> perClient; ///< by client address

    /// Counts one logged transaction.
    void count(const Log::AccessRecord& record);
};

} // namespace Client
