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
/// With several workers, pending misses and revalidations are joined across
/// them too (RemoteFetches, which Proxy::Collapsing implements): this
/// worker's are announced under a remote key (a miss's cache key; a
/// revalidation's RevalidationKey()), and a request no local fetch serves
/// may join another worker's through a local mirror entry, registered here
/// as any pending fetch, that the other worker feeds (doc/design.md
/// "Workers").

#pragma once

#include "store/Entry.h"

#include <string>
#include <unordered_map>

namespace Store {

/// What the workers share of their pending fetches (see the file comment).
class RemoteFetches {
public:
    virtual ~RemoteFetches() = default;
    /// this worker offers a pending fetch under remoteKey
    virtual void notePending(const std::string& remoteKey) = 0;
    /// this worker's fetch under remoteKey is no longer offered (it ended,
    /// or its reply is not stored)
    virtual void noteForgotten(const std::string& remoteKey) = 0;
    /// a new local entry that another worker's fetch offered under
    /// remoteKey will feed, or null when no other worker offers one; the
    /// mirror forgets itself here (InFlight::forget()) under the cache key
    /// (a miss) or the stale object's full key (a revalidation)
    virtual EntryRef mirror(const std::string& remoteKey, const std::string& cacheKey,
                            const std::string& staleKey) = 0;
};

/// The fetches in flight that other requests may join (see the file comment).
class InFlight {
public:
    /// announces this worker's pending fetches to remote, which may mirror
    /// other workers' (null: none; one worker)
    void setRemote(RemoteFetches* remote) { remote_ = remote; }
    /// pendingMiss(), else a mirror of another worker's (registered as the
    /// pending miss for key)
    EntryRef joinableMiss(const std::string& key);
    /// pendingRevalidation(), else a mirror of another worker's conditional
    /// request about the same stored object (registered as the pending
    /// revalidation of stale)
    EntryRef joinableRevalidation(const std::string& fullKey, const EntryRef& stale);
    /// the fetch this worker offers under remoteKey, or null (what a mirror
    /// of another worker asks for): one whose reply head has not arrived,
    /// or whose stored reply is arriving, held whole from its first byte
    EntryRef offered(const std::string& remoteKey) const;
    /// withdraws the offers of fetches that ended or are not stored (each
    /// worker once a second: Proxy::Instance::publish())
    void sweepOffered();
    /// the remote key of a revalidation of stale, stored under fullKey: the
    /// key and the stored reply's times (each worker's lookup of one stored
    /// object, a copy or a disk object's entry, has the same)
    static std::string RevalidationKey(const std::string& fullKey, const Entry& stale);

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
    /// the fetches announced to remote_, by remote key
    std::unordered_map<std::string, EntryRef> offered_;
    RemoteFetches* remote_ = nullptr; ///< see setRemote()

    void offer(const std::string& remoteKey, const EntryRef& fetch);
    /// whether fetch is still offered (see offered())
    static bool IsOffered(const Entry& fetch);
};

} // namespace Store
