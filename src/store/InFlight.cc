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

Store::EntryRef Store::InFlight::joinableMiss(const std::string& key) const
{
    auto entry = pendingMiss(key);
    if (!entry && remote_)
        entry = remote_->mirror(key);
    return entry;
}

void Store::InFlight::setPendingMiss(const std::string& key, const EntryRef& entry)
{
    misses_[key] = entry;
    if (remote_)
        remote_->notePending(key, entry);
}

namespace {

/// whether a and b are one stored object: the same entry, or two entries
/// the disk store made of one file (each lookup of a disk object makes its
/// own, with the file's head and times and no body bytes in memory)
bool SameStoredObject(const Store::EntryRef& a, const Store::EntryRef& b)
{
    if (a == b)
        return true;
    if (!a || !b || !a->reply() || !b->reply() || a->body().endOffset() != 0 || b->body().endOffset() != 0)
        return false;
    const auto& x = *a->reply();
    const auto& y = *b->reply();
    return x.requestTime == y.requestTime && x.responseTime == y.responseTime &&
           x.contentLength == y.contentLength && x.head == y.head;
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

void Store::InFlight::setPendingRevalidation(const std::string& fullKey, const EntryRef& stale,
                                             const EntryRef& reply)
{
    revalidations_[fullKey] = Revalidation{stale, reply};
}

void Store::InFlight::forget(const EntryRef& fetch, const std::string& cacheKey, const std::string& staleKey)
{
    if (!fetch)
        return;
    if (const auto it = misses_.find(cacheKey); it != misses_.end() && it->second == fetch) {
        misses_.erase(it);
        if (remote_)
            remote_->noteForgotten(cacheKey);
    }
    if (const auto it = revalidations_.find(staleKey);
        it != revalidations_.end() && it->second.reply == fetch)
        revalidations_.erase(it);
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
        for (const auto& [key, entry] : misses_)
            remote_->noteForgotten(key);
    }
    misses_.clear();
    revalidations_.clear();
    detached_.clear();
    detachedCount_ = 0;
}
