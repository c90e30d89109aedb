/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "comm/DnsCache.h"

std::optional<Comm::DnsAnswer> Comm::DnsCache::find(Kind kind, const std::string& key,
                                                    Clock::time_point now) const
{
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto& cache = map(kind);
    const auto found = cache.find(key);
    if (found == cache.end() || found->second.expires <= now)
        return std::nullopt;
    return found->second.answer;
}

void Comm::DnsCache::remember(Kind kind, const std::string& key, const DnsAnswer& answer,
                              Clock::time_point now, Milliseconds ttl, size_t limit)
{
    if (limit == 0)
        return;
    const std::lock_guard<std::mutex> lock(mutex_);
    auto& cache = map(kind);
    if (cache.size() >= limit && !cache.count(key)) {
        for (auto it = cache.begin(); it != cache.end();)
            it = it->second.expires <= now ? cache.erase(it) : std::next(it);
        if (cache.size() >= limit)
            cache.erase(cache.begin());
    }
    cache[key] = Kept{answer, now + ttl};
}

void Comm::DnsCache::forEach(Kind kind, Clock::time_point now, const Visitor& visit) const
{
    const std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [key, kept] : map(kind)) {
        if (kept.expires > now)
            visit(key, kept.answer, std::chrono::duration_cast<Milliseconds>(kept.expires - now));
    }
}

void Comm::DnsCache::clear()
{
    const std::lock_guard<std::mutex> lock(mutex_);
    addresses_.clear();
    names_.clear();
}

size_t Comm::DnsCache::size(Kind kind) const
{
    const std::lock_guard<std::mutex> lock(mutex_);
    return map(kind).size();
}
