/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Disk::Index: what one cache_dir holds, in memory: key -> the file
/// number and sizes of its store file, and the order that cache_swap_low/high
/// evict in, cache_replacement_policy's (Store::BasicPolicy).
///
/// Layout: an intrusive hash table of records chained per bucket; the
/// replacement policy links the same records (its fields are part of each).
/// A record is one allocation; it holds its key's 128-bit Store::HashKey(),
/// not the key (as Squid's index holds an MD5), but for a Vary variant,
/// whose key follows the record (Disk::Cache needs it when it is evicted):
///
///     +------------------------------------------------------------------+-------------+
///     | next (8) | policy links (16) | lastReference (8) | bodyLength (8)  | variant key |
///     | hash (16) | keyLength (4) | slotsLength (4) | fileNumber (4)      | bytes, or   |
///     | references (4)                                                   | none        |
///     +------------------------------------------------------------------+-------------+
///     72 bytes
///
/// Two keys may share a hash: the index then holds one of them (storing one
/// replaces the other), and whoever reads a file compares the key in it
/// (Disk::Cache::open(), the head rewrite); a hash names the wrong file at
/// worst, never serves it.
///
/// The policy links are a list's prev/next (lru) or a heap slot's key and
/// index (the heap policies), which also keep an array of record pointers (8
/// bytes per object). The bucket of a hash is its top bits (FNV-1a's low
/// bits mix only the input's low bits).
///
/// Cost per object (TestIndex::bytesPerObject measures it with malloc's own
/// count): the 72-byte record with malloc's header and rounding to 16 (80
/// bytes), one bucket pointer (8 bytes at a load of 1, 16 at 0.5) and, with
/// a heap policy, its slot in the heap array (8 to 16 bytes): 88 to 96 bytes
/// with lru and 96 to 112 with a heap policy, whatever the key's length,
/// within the budget of 100 beyond the key (doc/design.md "Budgets").
/// The reply head stays on disk; a hit reads it from the file.
///
/// Threading: the event loops of the Caches on its Shelf, under the
/// shelf's Guard (Disk/Shelf.h); the I/O threads never see it.

#pragma once

#include "disk/Format.h"
#include "store/Key.h"
#include "store/Policy.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace Disk {

/// Where an object's store file is and what it holds.
struct Location {
    uint32_t fileNumber = 0;  ///< Layout::pathOf(fileNumber)
    uint32_t keyLength = 0;   ///< bytes of its key
    uint32_t slotsLength = 0; ///< bytes of its reply head's two slots (Meta::slotsLength())
    uint64_t bodyLength = 0;  ///< bytes of its body

    /// the file's size (Meta::fileSize())
    uint64_t fileSize() const { return HeaderSize + keyLength + slotsLength + bodyLength; }
    /// what the file costs the cache_dir: its size in whole 4 KB blocks
    uint64_t diskBytes() const { return (fileSize() + 4095) & ~uint64_t(4095); }
};

/// One cache_dir's objects; see the file comment.
class Index {
public:
    /// an empty index evicting in the order of a policy of kind
    explicit Index(Store::PolicyKind kind = Store::PolicyKind::Lru);
    ~Index();
    Index(const Index&) = delete;
    Index& operator=(const Index&) = delete;

    /// the object stored under key, or nothing
    std::optional<Location> find(std::string_view key) const;
    /// tells the policy that the object under key was used (a hit); false when none
    bool touch(std::string_view key);
    /// stores an object under key, used once and now, replacing (and
    /// returning) the one there
    std::optional<Location> insert(std::string_view key, const Location& where);
    /// forgets the object under key and returns where it was
    std::optional<Location> erase(std::string_view key);
    /// an object the policy let go
    struct Evicted {
        Store::KeyHash hash; ///< its key's
        std::string
            variantKey; ///< its key when it is a Vary variant's (Store::BaseKey() is not the key), else ""
        Location where; ///< its file
    };
    /// evicts the policy's victim (which ages GDSF and LFUDA); nothing when empty
    std::optional<Evicted> evict();
    /// the squid.conf words of the policy ("lru", "heap GDSF", ...)
    std::string_view policyName() const { return policy_->name(); }
    /// Starts the policy's order again from the file numbers: every object
    /// enters a new policy of the same kind, the lowest number (stored
    /// first) as the least recently used, keeping its reference count (the
    /// order after a rebuild, whose scans report the files in no useful order).
    void orderByFileNumber();

    /// objects stored
    size_t objectCount() const { return objects_; }
    /// what the objects cost the cache_dir (Location::diskBytes())
    uint64_t diskBytes() const { return diskBytes_; }
    /// bytes the index itself uses: records with their keys, buckets, the policy's heap
    size_t memoryFootprint() const;
    /// the bytes the record of key allocates (before malloc's rounding)
    static size_t RecordBytes(std::string_view key);

private:
    struct Record;
    /// frees a record
    struct RecordDeleter {
        void operator()(Record* record) const;
    };
    using RecordPtr = std::unique_ptr<Record, RecordDeleter>;

    std::optional<Location> erase(const Store::KeyHash& hash);
    RecordPtr& bucketOf(const Store::KeyHash& hash) const;
    RecordPtr* slotOf(const Store::KeyHash& hash) const;
    Location take(RecordPtr* slot);
    void rehash(size_t bucketCount);

    std::unique_ptr<RecordPtr[]> buckets_;               ///< the hash table (a power of two)
    size_t bucketCount_ = 0;                             ///< its size
    unsigned bucketShift_ = 64;                          ///< 64 - log2(bucketCount_)
    size_t objects_ = 0;                                 ///< records
    size_t recordBytes_ = 0;                             ///< bytes of the records with their variant keys
    uint64_t diskBytes_ = 0;                             ///< sum of Location::diskBytes()
    std::unique_ptr<Store::BasicPolicy<Record>> policy_; ///< the eviction order of every record
};

} // namespace Disk
