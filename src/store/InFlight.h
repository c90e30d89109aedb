/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Store::InFlight: the fetches others may join (collapsed_forwarding).
///
/// Three kinds are registered. Two, each until its reply head arrives (or it
/// fails): a pending miss, under the cache key of the object it fetches, and
/// a pending revalidation, a conditional request about a stale stored
/// object, under that object's full key (with its Vary variant). A request
/// that finds one waits for its reply instead of asking the origin itself.
/// A fetch that failed, or whose head has arrived (then the index has the
/// answer), is not offered to new joiners. The third: the fetches no client
/// owns (Client::DetachedFetch: background revalidations, fetches taken
/// over), by cache key, from their start until they are done, so that a
/// stale object is revalidated in the background once at a time.
///
/// Ownership: it holds references to the entries only; whoever started the
/// fetch forgets it (forget()) when its head arrived or it ended.
///
/// With several workers, pending misses are joined across them too
/// (RemoteMisses, which Proxy::Collapsing implements): this worker's are
/// announced, and a miss no local fetch serves may join another worker's
/// through a local mirror entry that the other worker feeds
/// (doc/design.md "Workers").

#pragma once

#include "store/Entry.h"

#include <string>
#include <unordered_map>

namespace Store {

/// What the workers share of their pending misses (see the file comment).
class RemoteMisses {
public:
    virtual ~RemoteMisses() = default;
    /// this worker registered entry as its pending miss for key
    virtual void notePending(const std::string& key, const EntryRef& entry) = 0;
    /// this worker's pending miss for key is forgotten (its head arrived, or it ended)
    virtual void noteForgotten(const std::string& key) = 0;
    /// a local entry that another worker's pending miss for key will feed
    /// (registered here as the pending miss for key), or null when no other
    /// worker has one
    virtual EntryRef mirror(const std::string& key) = 0;
};

/// The fetches in flight that other requests may join (see the file comment).
class InFlight {
public:
    /// announces this worker's pending misses to remote, which may mirror
    /// other workers' (null: none; one worker)
    void setRemote(RemoteMisses* remote) { remote_ = remote; }
    /// the in-flight miss for key, this worker's or (a mirror of) another's,
    /// whose reply head has not arrived yet, or null
    EntryRef joinableMiss(const std::string& key) const;

    /// the in-flight miss for key whose reply head has not arrived yet, or null
    EntryRef pendingMiss(const std::string& key) const;
    /// registers entry as the in-flight miss for key
    void setPendingMiss(const std::string& key, const EntryRef& entry);

    /// the conditional request in flight about the stale stored object
    /// `stale` (stored under fullKey) whose reply head has not arrived yet,
    /// or null (also when another object is stored under fullKey now)
    EntryRef pendingRevalidation(const std::string& fullKey, const EntryRef& stale) const;
    /// registers reply as the conditional request in flight about `stale`
    void setPendingRevalidation(const std::string& fullKey, const EntryRef& stale, const EntryRef& reply);

    /// forgets fetch wherever it is registered (a pending miss under
    /// cacheKey, a pending revalidation under staleKey); others stay
    void forget(const EntryRef& fetch, const std::string& cacheKey, const std::string& staleKey);

    /// a fetch of cacheKey that no client owns started
    void addDetached(const std::string& cacheKey);
    /// such a fetch is done
    void forgetDetached(const std::string& cacheKey);
    /// whether a fetch of cacheKey that no client owns is under way
    bool isDetached(const std::string& cacheKey) const { return detached_.count(cacheKey) != 0; }

    /// registered fetches of the three kinds
    size_t size() const { return misses_.size() + revalidations_.size() + detachedCount_; }
    /// forgets everything (at shutdown)
    void clear();

private:
    /// a conditional request others may wait for, and the stale object it asks about
    struct Revalidation {
        EntryRef stale; ///< the stored object being revalidated
        EntryRef reply; ///< where the origin's answer goes
    };

    std::unordered_map<std::string, EntryRef> misses_;            ///< see pendingMiss()
    std::unordered_map<std::string, Revalidation> revalidations_; ///< see pendingRevalidation()
    std::unordered_map<std::string, size_t> detached_;            ///< see isDetached(): how many per key
    size_t detachedCount_ = 0;                                    ///< the sum of detached_'s counts
    RemoteMisses* remote_ = nullptr;                              ///< see setRemote()
};

} // namespace Store
