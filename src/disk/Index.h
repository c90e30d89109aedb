/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Disk::Index: what one cache_dir holds, in memory: key -> the file
/// number and sizes of its store file, and the least-recently-used order
/// that cache_swap_low/high evict in.
///
/// Layout: an intrusive hash table of records chained per bucket, and a
/// doubly linked list through the same records, oldest first. A record is
/// one allocation holding its fields and its key bytes:
///
///     +--------------------------------------------------------------+-----------+
///     | next (8) | older (8) | newer (8) | bodyLength (8)            | key bytes |
///     | hash (4) | keyLength (4) | slotsLength (4) | fileNumber (4)  | ...       |
///     +--------------------------------------------------------------+-----------+
///     48 bytes, then the key
///
/// Cost per object beyond its key (TestIndex::bytesPerObject measures it
/// with malloc's own count): the 48-byte record with malloc's header and
/// rounding, and one bucket pointer (8 bytes at a load of 0.5 to 1): 64 to
/// 80 bytes (75 measured with 100,000 objects of 64-byte keys), within the
/// budget of 100 (doc/design.md "Budgets"). The reply
/// head stays on disk; a hit reads it from the file.
///
/// Threading: the event loop only; the I/O threads never see it.

#pragma once

#include "disk/Format.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
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
    Index();
    ~Index();
    Index(const Index&) = delete;
    Index& operator=(const Index&) = delete;

    /// the object stored under key, or nothing
    std::optional<Location> find(std::string_view key) const;
    /// makes the object under key the most recently used; false when none
    bool touch(std::string_view key);
    /// stores an object under key as the most recently used, replacing
    /// (and returning) the one there
    std::optional<Location> insert(std::string_view key, const Location& where);
    /// forgets the object under key and returns where it was
    std::optional<Location> erase(std::string_view key);
    /// the key of the least recently used object ("" when none)
    std::string_view oldestKey() const;
    /// forgets the least recently used object and returns where it was
    std::optional<Location> popOldest();

    /// objects stored
    size_t objectCount() const { return objects_; }
    /// what the objects cost the cache_dir (Location::diskBytes())
    uint64_t diskBytes() const { return diskBytes_; }
    /// bytes the index itself uses: records with their keys, and buckets
    size_t memoryFootprint() const;
    /// the bytes a record with a key of keyLength bytes allocates (before malloc's rounding)
    static size_t RecordBytes(size_t keyLength);

private:
    struct Record;
    /// frees a record
    struct RecordDeleter {
        void operator()(Record* record) const;
    };
    using RecordPtr = std::unique_ptr<Record, RecordDeleter>;

    static uint32_t HashOf(std::string_view key);
    RecordPtr* slotOf(std::string_view key, uint32_t hash) const;
    void unlinkAge(Record& record);
    void linkNewest(Record& record);
    Location take(RecordPtr* slot);
    void rehash(size_t bucketCount);

    std::unique_ptr<RecordPtr[]> buckets_; ///< the hash table (a power of two)
    size_t bucketCount_ = 0;               ///< its size
    size_t objects_ = 0;                   ///< records
    size_t recordBytes_ = 0;               ///< bytes of the records with their keys
    uint64_t diskBytes_ = 0;               ///< sum of Location::diskBytes()
    Record* oldest_ = nullptr;             ///< the head of the age list
    Record* newest_ = nullptr;             ///< its tail
};

} // namespace Disk
