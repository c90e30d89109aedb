/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/InFlight.h"

Store::EntryRef Store::InFlight::pendingMiss(const std::string& key) const
{
    // a fetch that failed has nothing more to tell a new joiner (it would wait forever)
    const auto it = misses_.find(key);
    return it == misses_.end() || it->second->hasFailed() ? EntryRef() : it->second;
}

Store::EntryRef Store::InFlight::joinableMiss(const std::string& key)
{
    auto entry = pendingMiss(key);
    if (!entry && remote_) {
        entry = remote_->mirror(key, key, std::string());
        if (entry)
            misses_[key] = entry; // a mirror is not offered again
    }
    return entry;
}

void Store::InFlight::setPendingMiss(const std::string& key, const EntryRef& entry)
{
    misses_[key] = entry;
    offer(key, entry);
}

void Store::InFlight::offer(const std::string& remoteKey, const EntryRef& fetch)
{
    if (!remote_)
        return;
    offered_[remoteKey] = fetch;
    remote_->notePending(remoteKey);
}

Store::EntryRef Store::InFlight::offered(const std::string& remoteKey) const
{
    const auto it = offered_.find(remoteKey);
    return it == offered_.end() || !IsOffered(*it->second) ? EntryRef() : it->second;
}

std::string Store::InFlight::RevalidationKey(const std::string& fullKey, const Entry& stale)
{
    const auto* reply = stale.reply();
    return fullKey + '\n' + std::to_string(reply ? reply->requestTime : 0) + ' ' +
           std::to_string(reply ? reply->responseTime : 0);
}

namespace {

/// whether a and b are one stored object: the same entry, or two entries
/// made of one: the disk store's of one file (each lookup of a disk object
/// makes its own, with the file's head and times and no body bytes in
/// memory), or copies of another worker's memory object (Entry::CopyOf(),
/// one per lookup) and that object
bool SameStoredObject(const Store::EntryRef& a, const Store::EntryRef& b)
{
    if (a == b)
        return true;
    if (!a || !b || !a->reply() || !b->reply() || a->body().endOffset() != b->body().endOffset())
        return false;
    if (a->body().endOffset() != 0 && !a->isCopy() && !b->isCopy())
        return false;
    return a->reply()->isSameAs(*b->reply());
}

} // namespace

Store::EntryRef Store::InFlight::pendingRevalidation(const std::string& fullKey, const EntryRef& stale) const
{
    const auto it = revalidations_.find(fullKey);
    if (it == revalidations_.end() || !SameStoredObject(it->second.stale, stale))
        return EntryRef(); // another object is stored there now
    const auto& reply = it->second.reply;
    return reply->hasFailed() || reply->reply() ? EntryRef() : reply;
}

Store::EntryRef Store::InFlight::joinableRevalidation(const std::string& fullKey, const EntryRef& stale)
{
    auto entry = pendingRevalidation(fullKey, stale);
    if (!entry && remote_ && stale) {
        entry = remote_->mirror(RevalidationKey(fullKey, *stale), std::string(), fullKey);
        if (entry)
            revalidations_[fullKey] = Revalidation{stale, entry}; // a mirror is not offered again
    }
    return entry;
}

void Store::InFlight::setPendingRevalidation(const std::string& fullKey, const EntryRef& stale,
                                             const EntryRef& reply)
{
    revalidations_[fullKey] = Revalidation{stale, reply};
    offer(RevalidationKey(fullKey, *stale), reply);
}

void Store::InFlight::forget(const EntryRef& fetch, const std::string& cacheKey, const std::string& staleKey)
{
    if (!fetch)
        return;
    // what is offered to other workers stays offered while a stored reply
    // arrives (offered(), sweepOffered())
    if (const auto it = misses_.find(cacheKey); it != misses_.end() && it->second == fetch)
        misses_.erase(it);
    if (const auto it = revalidations_.find(staleKey);
        it != revalidations_.end() && it->second.reply == fetch)
        revalidations_.erase(it);
}

void Store::InFlight::sweepOffered()
{
    if (!remote_)
        return;
    for (auto it = offered_.begin(); it != offered_.end();) {
        if (IsOffered(*it->second)) {
            ++it;
            continue;
        }
        remote_->noteForgotten(it->first);
        it = offered_.erase(it);
    }
}

bool Store::InFlight::IsOffered(const Entry& fetch)
{
    // before its head; then while a stored reply arrives whole from its
    // first byte (a mirror reads it from there: Proxy::Collapsing)
    if (fetch.hasFailed())
        return false;
    if (!fetch.reply())
        return true;
    return fetch.isKept() && !fetch.isComplete() && fetch.body().startOffset() == 0 &&
           fetch.body().firstSequence() == 0;
}

void Store::InFlight::addDetached(const std::string& cacheKey)
{
    ++detached_[cacheKey];
    ++detachedCount_;
}

void Store::InFlight::forgetDetached(const std::string& cacheKey)
{
    const auto it = detached_.find(cacheKey);
    if (it == detached_.end())
        return;
    --detachedCount_;
    if (--it->second == 0)
        detached_.erase(it);
}

void Store::InFlight::clear()
{
    if (remote_) {
        for (const auto& [key, fetch] : offered_)
            remote_->noteForgotten(key);
    }
    offered_.clear();
    misses_.clear();
    revalidations_.clear();
    detached_.clear();
    detachedCount_ = 0;
}
