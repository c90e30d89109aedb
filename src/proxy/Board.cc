/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "proxy/Board.h"
#include "proxy/Worker.h"
#include "store/Policy.h"

void Proxy::Board::Share::add(const Share& other)
{
    counters.add(other.counters);
    clientConnections += other.clientConnections;
    cache.budget += other.cache.budget;
    cache.bytesHeld += other.cache.bytesHeld;
    cache.objects += other.cache.objects;
    cache.inFlight += other.cache.inFlight;
    cache.hits += other.cache.hits;
    cache.evictions += other.cache.evictions;
    dns.add(other.dns);
    if (own.empty()) {
        own = other.own;
        return;
    }
    for (size_t i = 0; i < own.size() && i < other.own.size(); ++i)
        own[i].value += other.own[i].value;
}

std::shared_ptr<Store::Index> Proxy::Board::MakeSharedCache()
{
    // each worker's configure sets the policy and cache_mem (the same ones)
    auto cache = std::make_shared<Store::Index>(Store::MakePolicy("lru"), 0);
    cache->setShared();
    return cache;
}

std::shared_ptr<Disk::Shelf> Proxy::Board::diskShelf(const std::string& key)
{
    const std::lock_guard<std::mutex> lock(mutex_);
    auto& shelf = diskShelves_[key];
    if (!shelf)
        shelf = std::make_shared<Disk::Shelf>(true);
    return shelf;
}

bool Proxy::Board::postTo(unsigned number, std::function<void(Instance&)> call)
{
    const std::lock_guard<std::mutex> lock(mutex_);
    return postLocked(number, std::move(call));
}

bool Proxy::Board::postLocked(unsigned number, std::function<void(Instance&)> call)
{
    if (number < 1 || number > workers_.size() || !workers_[number - 1])
        return false;
    auto* worker = workers_[number - 1];
    worker->post([worker, call = std::move(call)] { call(worker->proxy()); });
    return true;
}

void Proxy::Board::offerFetch(const std::string& key, unsigned number)
{
    const std::lock_guard<std::mutex> lock(mutex_);
    offers_[key] = number;
}

void Proxy::Board::withdrawFetch(const std::string& key, unsigned number)
{
    const std::lock_guard<std::mutex> lock(mutex_);
    if (const auto it = offers_.find(key); it != offers_.end() && it->second == number)
        offers_.erase(it);
}

unsigned Proxy::Board::offerer(const std::string& key, unsigned number) const
{
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = offers_.find(key);
    return it == offers_.end() || it->second == number ? 0 : it->second;
}

void Proxy::Board::publish(unsigned number, const Share& share)
{
    const std::lock_guard<std::mutex> lock(mutex_);
    if (number >= 1 && number <= shares_.size())
        shares_[number - 1] = share;
}

Proxy::Board::Share Proxy::Board::others(unsigned number) const
{
    Share sum;
    const std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < shares_.size(); ++i) {
        if (i + 1 != number)
            sum.add(shares_[i]);
    }
    return sum;
}

void Proxy::Board::enroll(unsigned number, Worker* worker)
{
    const std::lock_guard<std::mutex> lock(mutex_);
    if (number >= 1 && number <= workers_.size())
        workers_[number - 1] = worker;
}

void Proxy::Board::postToOthers(unsigned number, const std::function<void(Instance&)>& call)
{
    const std::lock_guard<std::mutex> lock(mutex_);
    for (unsigned other = 1; other <= workers_.size(); ++other) {
        if (other != number)
            (void)postLocked(other, call);
    }
}
