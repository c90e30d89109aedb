/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Proxy::Board: what the workers know of each other (doc/design.md
/// "Workers"): where to post a call to each, and what each last published
/// for the cache manager. A worker publishes its counts 10 ms after
/// something was counted (at most a hundred times a second), and once a
/// second besides; a manager page, served by whichever worker took the connection,
/// adds the others' last counts to its own fresh ones, so the totals speak
/// for the whole process. A worker that erases a stored object has the
/// others erase theirs through postToOthers(). Thread-safe: one mutex, taken
/// once per publication, manager page and erasure. The board also holds
/// what the workers share outright, each with its own mutex: the DNS cache
/// (Comm::DnsCache), the memory cache (Store::Index) and the disk stores'
/// shelves (Disk::Shelf).
#pragma once

#include "comm/DnsCache.h"
#include "comm/Resolver.h"
#include "disk/Shelf.h"
#include "mgr/Figures.h"
#include "store/Index.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace Proxy {

class Instance;
class Worker;

/// The workers' published counts; see the file comment.
class Board {
public:
    /// What one worker publishes.
    struct Share {
        Mgr::Counters counters;       ///< its traffic counters
        size_t clientConnections = 0; ///< client connections open
        /// its memory cache's totals, with memory_cache_shared off (a
        /// shared cache's are the process's already: none are published)
        Store::IndexStats cache;
        Comm::Resolver::Stats dns;       ///< its resolver's counts (the ipcache and fqdncache pages)
        std::vector<Mgr::OwnFigure> own; ///< cuttle's own figures (the mem page), each worker's in one order

        /// adds another worker's share (Mgr::Counters::add() for the counters)
        void add(const Share& other);
    };

    /// a board for `workers` workers, numbered from 1
    explicit Board(unsigned workers) : shares_(workers), workers_(workers, nullptr) {}
    /// how many workers it is for
    unsigned workerCount() const { return static_cast<unsigned>(shares_.size()); }

    /// worker `number` can take calls from now on (nullptr: no longer).
    /// A worker leaves only once no worker's loop runs any more (main.cc).
    void enroll(unsigned number, Worker* worker);
    /// posts call(that worker's proxy) to every enrolled worker but `number`
    void postToOthers(unsigned number, const std::function<void(Instance&)>& call);
    /// posts call(that worker's proxy) to worker `number`, when enrolled; whether it was
    bool postTo(unsigned number, std::function<void(Instance&)> call);

    /// worker `number` offers a fetch under the remote key `key`
    /// (Store::InFlight), which the other workers may join (Proxy::Collapsing)
    void offerFetch(const std::string& key, unsigned number);
    /// worker `number` no longer offers a fetch under key
    void withdrawFetch(const std::string& key, unsigned number);
    /// the worker other than `number` that offers a fetch under key (when
    /// its relay is asked, the fetch may be gone: Collapsing::relay()), or 0
    unsigned offerer(const std::string& key, unsigned number) const;

    /// worker `number` publishes its share (replacing the last one)
    void publish(unsigned number, const Share& share);
    /// the sum of the last shares of every worker but `number`
    Share others(unsigned number) const;
    /// the memory cache every worker stores in (Store::Index::setShared())
    const std::shared_ptr<Store::Index>& cache() const { return cache_; }
    /// the DNS cache every worker's resolver uses
    const std::shared_ptr<Comm::DnsCache>& dnsCache() const { return dnsCache_; }
    /// the shelf of the cache_dir lines `key` (Disk::Shelf::KeyOf()), made
    /// shared and empty for the first worker that asks (its Disk::Cache
    /// fills it), the same one for the others
    std::shared_ptr<Disk::Shelf> diskShelf(const std::string& key);

private:
    mutable std::mutex mutex_;     ///< guards what follows
    std::vector<Share> shares_;    ///< by worker number - 1
    std::vector<Worker*> workers_; ///< by worker number - 1; null: not enrolled
    std::map<std::string, std::shared_ptr<Disk::Shelf>> diskShelves_; ///< see diskShelf()
    std::unordered_map<std::string, unsigned> offers_;                ///< key -> worker number (offerFetch())
    const std::shared_ptr<Comm::DnsCache> dnsCache_ = std::make_shared<Comm::DnsCache>(); ///< see dnsCache()
    const std::shared_ptr<Store::Index> cache_ = MakeSharedCache();                       ///< see cache()

    static std::shared_ptr<Store::Index> MakeSharedCache();
    /// postTo() with mutex_ held
    bool postLocked(unsigned number, std::function<void(Instance&)> call);
};

} // namespace Proxy
