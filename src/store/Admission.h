/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Store::Admit(): the one decision whether a fetched reply is stored,
/// and Store::Charge, the charge of a stored object still arriving. Every
/// fetcher uses them: the client that asked (Client::Connection), a
/// background revalidation and a fetch taken over from its client
/// (Client::DetachedFetch), and the reply to a POST that may answer a later
/// GET (RFC 9110 section 9.3.3).
///
///     reply head --> Admit(index, limits, spec, entry)
///                      RFC 9111 section 3 (Store::IsStorable), or negative_ttl
///                      stale at once with no validator       --> not stored
///                      Content-Length outside the size limits --> not stored
///                      memory takes it (memory_cache_mode, maximum_object_size_in_memory)
///                        --> Index::insert (replacing what the request selects; a disk
///                            copy is erased) --> a Charge
///                      else a size (or an unknown length) the disk store takes, not
///                        Vary "*", not negative --> DiskTier::store under the key or the
///                            variant key (a Disk::Writer reads the entry; a memory copy
///                            is erased) --> a Charge of nothing (cache_mem is not charged)
///     a disk hit --> Promote(): memory_cache_mode, maximum_object_size_in_memory
///                      --> the body read on the I/O threads --> Index::insert
///     body arrives --> Charge::update(entry): Index::update (cache_mem);
///                      past maximum_object_size_in_memory     --> erased; the disk store takes
///                          it from its first byte (still held) when it may, else it streams
///                          on unkept
///                      complete under minimum_object_size     --> erased
///
/// The Charge is held by the producer (Server::Forwarder), which calls
/// update() after each append and at the end.

#pragma once

#include "store/DiskTier.h"
#include "store/Entry.h"
#include "store/Freshness.h"

#include <cstdint>
#include <optional>
#include <string>

namespace Store {

class Index;

/// What decides whether a fetched reply is stored: the request's facts,
/// kept apart from the client that sent it.
struct FetchSpec {
    EntryRef stale;                       ///< the stored object a conditional request asks about, or null
    std::string staleKey;                 ///< its full key in the cache
    std::string cacheKey;                 ///< Store::MakeKey of the URL
    std::string requestHead;              ///< the client's request head (Vary selects on it)
    RequestFacts facts;                   ///< the client's caching directives
    RefreshRule rule;                     ///< the refresh_pattern that matched the URL
    bool contentLocationIsTarget = false; ///< a POST's reply names its target in Content-Location
    DiskTier* staleDisk = nullptr;        ///< the disk store that holds stale (a disk object), else null
};

/// The squid.conf limits of admission.
struct AdmissionLimits {
    int64_t negativeTtl = 0;       ///< negative_ttl, in seconds (0: errors are not kept)
    uint64_t maxObjectSize = 0;    ///< maximum_object_size_in_memory
    uint64_t minObjectSize = 0;    ///< minimum_object_size
    bool memoryTakesMisses = true; ///< memory_cache_mode always or network (disk: misses go to disk only)
    bool memoryTakesHits = true;   ///< memory_cache_mode always or disk (network: disk hits stay on disk)
};

/// The charge of a stored object to the index while its body arrives (see
/// the file comment). A default one charges nothing.
class Charge {
public:
    Charge() = default;
    /// charges the object stored under fullKey in index; disk, when given,
    /// may take it when it outgrows memory
    Charge(Index& index, std::string fullKey, const AdmissionLimits& limits, DiskTier* disk = nullptr);
    /// charges nothing: the object is stored under fullKey by the disk store
    explicit Charge(std::string fullKey) : key_(std::move(fullKey)) {}

    /// the object's full key in the index
    const std::string& key() const { return key_; }
    /// whether the object is still charged (not erased, evicted or abandoned)
    bool isCharging() const { return index_ != nullptr; }
    /// charges entry's growth (Index::update), or erases it when it passed
    /// maxObjectSize (then has the disk store take it, when it may) or
    /// completed under minObjectSize; after that, or once the index no
    /// longer keeps it, charges nothing
    void update(Entry& entry);

private:
    Index* index_ = nullptr;   ///< where the object is stored, while it is charged
    std::string key_;          ///< its full key there
    AdmissionLimits limits_;   ///< the size limits
    DiskTier* disk_ = nullptr; ///< where an object that outgrows memory may go, or null
};

/// Stores entry, whose reply head has arrived, when RFC 9111 section 3,
/// negative_ttl and the size limits allow: inserts it under the variant key
/// that spec's request selects (replacing what was there) and returns its
/// Charge, to be updated as its body arrives; or, when memory does not take
/// it and disk does, has disk store it (see the file comment); nothing when
/// it is not stored.
/// An error kept for negative_ttl keeps it from the reply's responseTime
/// (Entry::negativeUntil()).
std::optional<Charge> Admit(Index& index, const AdmissionLimits& limits, const FetchSpec& spec,
                            const EntryRef& entry, DiskTier* disk = nullptr);

/// Keeps a copy of a disk hit in memory, as Squid keeps disk hits there
/// (memory_cache_mode always or disk), when memory takes it: a body within
/// maximum_object_size_in_memory, and nothing in memory under what the
/// request selects once the body is read. The body is read once, off the
/// loop (DiskTier::readBody()), into new blocks; the disk keeps its copy.
/// hit is the disk hit's entry (its head), spec the request's.
void Promote(Index& index, const AdmissionLimits& limits, DiskTier& disk, const FetchSpec& spec,
             const Entry& hit, const StoredFileRef& file);

} // namespace Store
