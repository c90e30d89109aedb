/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Proxy::Board: what each worker last told the others for the cache
/// manager (doc/design.md "Workers"). A worker publishes its own counts once
/// a second; a manager page, served by whichever worker took the
/// connection, adds the others' last counts to its own fresh ones, so the
/// totals speak for the whole process (at most a second late for the other
/// workers). Thread-safe: one mutex, taken once a second per worker and once
/// per manager page.
#pragma once

#include "mgr/Figures.h"

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace Proxy {

/// The workers' published counts; see the file comment.
class Board {
public:
    /// What one worker publishes.
    struct Share {
        Mgr::Counters counters;       ///< its traffic counters
        size_t clientConnections = 0; ///< client connections open
        uint64_t cacheBudget = 0;     ///< its memory cache's cache_mem
        uint64_t cacheBytes = 0;      ///< bytes its memory cache holds
        size_t cacheObjects = 0;      ///< objects its memory cache holds
        size_t cacheInFlight = 0;     ///< of those, still arriving
        uint64_t cacheHits = 0;       ///< its memory cache's hits
        uint64_t cacheEvictions = 0;  ///< objects its memory cache evicted

        /// adds another worker's share (Mgr::Counters::add() for the counters)
        void add(const Share& other);
    };

    /// a board for `workers` workers, numbered from 1
    explicit Board(unsigned workers) : shares_(workers) {}

    /// worker `number` publishes its share (replacing the last one)
    void publish(unsigned number, const Share& share);
    /// the sum of the last shares of every worker but `number`
    Share others(unsigned number) const;

private:
    mutable std::mutex mutex_;  ///< guards shares_
    std::vector<Share> shares_; ///< by worker number - 1
};

} // namespace Proxy
