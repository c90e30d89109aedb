/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "disk/Index.h"

#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>

struct Disk::Index::Record {
    RecordPtr next;           ///< the next record of the bucket
    Record* older = nullptr;  ///< the previous record in age order
    Record* newer = nullptr;  ///< the next record in age order
    uint64_t bodyLength = 0;  ///< Location::bodyLength
    uint32_t hash = 0;        ///< HashOf(key())
    uint32_t keyLength = 0;   ///< bytes of the key, right after the record
    uint32_t slotsLength = 0; ///< Location::slotsLength
    uint32_t fileNumber = 0;  ///< Location::fileNumber

    /// the key, stored right after the record
    std::string_view key() const { return {reinterpret_cast<const char*>(this + 1), keyLength}; }
    /// where the object is
    Location location() const { return Location{fileNumber, keyLength, slotsLength, bodyLength}; }
};

void Disk::Index::RecordDeleter::operator()(Record* record) const
{
    record->~Record();
    std::free(record);
}

size_t Disk::Index::RecordBytes(size_t keyLength)
{
    return sizeof(Record) + keyLength;
}

Disk::Index::Index()
{
    rehash(64);
}

Disk::Index::~Index()
{
    // unlink the chains iteratively: a long chain must not recurse
    for (size_t i = 0; i < bucketCount_; ++i) {
        auto chain = std::move(buckets_[i]);
        while (chain)
            chain = std::move(chain->next);
    }
}

uint32_t Disk::Index::HashOf(std::string_view key)
{
    const uint64_t h = std::hash<std::string_view>{}(key);
    return uint32_t(h ^ (h >> 32));
}

Disk::Index::RecordPtr* Disk::Index::slotOf(std::string_view key, uint32_t hash) const
{
    RecordPtr* slot = &buckets_[hash & (bucketCount_ - 1)];
    while (*slot && ((*slot)->hash != hash || (*slot)->key() != key))
        slot = &(*slot)->next;
    return slot;
}

void Disk::Index::unlinkAge(Record& record)
{
    (record.older ? record.older->newer : oldest_) = record.newer;
    (record.newer ? record.newer->older : newest_) = record.older;
    record.older = record.newer = nullptr;
}

void Disk::Index::linkNewest(Record& record)
{
    record.older = newest_;
    record.newer = nullptr;
    (newest_ ? newest_->newer : oldest_) = &record;
    newest_ = &record;
}

std::optional<Disk::Location> Disk::Index::find(std::string_view key) const
{
    const auto* slot = slotOf(key, HashOf(key));
    if (!*slot)
        return std::nullopt;
    return (*slot)->location();
}

bool Disk::Index::touch(std::string_view key)
{
    auto* slot = slotOf(key, HashOf(key));
    if (!*slot)
        return false;
    unlinkAge(**slot);
    linkNewest(**slot);
    return true;
}

std::optional<Disk::Location> Disk::Index::insert(std::string_view key, const Location& where)
{
    const uint32_t hash = HashOf(key);
    auto replaced = erase(key);
    if (objects_ + 1 > bucketCount_)
        rehash(bucketCount_ * 2);
    const size_t bytes = RecordBytes(key.size());
    void* memory = std::malloc(bytes);
    if (!memory)
        throw std::bad_alloc();
    RecordPtr record(new (memory) Record);
    record->bodyLength = where.bodyLength;
    record->hash = hash;
    record->keyLength = static_cast<uint32_t>(key.size());
    record->slotsLength = where.slotsLength;
    record->fileNumber = where.fileNumber;
    std::memcpy(static_cast<char*>(memory) + sizeof(Record), key.data(), key.size());
    linkNewest(*record);
    auto& head = buckets_[hash & (bucketCount_ - 1)];
    record->next = std::move(head);
    head = std::move(record);
    ++objects_;
    recordBytes_ += bytes;
    diskBytes_ += head->location().diskBytes();
    return replaced;
}

Disk::Location Disk::Index::take(RecordPtr* slot)
{
    RecordPtr record = std::move(*slot);
    *slot = std::move(record->next);
    unlinkAge(*record);
    const auto where = record->location();
    --objects_;
    recordBytes_ -= RecordBytes(record->keyLength);
    diskBytes_ -= where.diskBytes();
    return where;
}

std::optional<Disk::Location> Disk::Index::erase(std::string_view key)
{
    auto* slot = slotOf(key, HashOf(key));
    if (!*slot)
        return std::nullopt;
    return take(slot);
}

std::string_view Disk::Index::oldestKey() const
{
    return oldest_ ? oldest_->key() : std::string_view();
}

std::optional<Disk::Location> Disk::Index::popOldest()
{
    if (!oldest_)
        return std::nullopt;
    return take(slotOf(oldest_->key(), oldest_->hash));
}

void Disk::Index::rehash(size_t bucketCount)
{
    auto fresh = std::make_unique<RecordPtr[]>(bucketCount);
    for (size_t i = 0; i < bucketCount_; ++i) {
        while (buckets_[i]) {
            RecordPtr record = std::move(buckets_[i]);
            buckets_[i] = std::move(record->next);
            auto& head = fresh[record->hash & (bucketCount - 1)];
            record->next = std::move(head);
            head = std::move(record);
        }
    }
    buckets_ = std::move(fresh);
    bucketCount_ = bucketCount;
}

size_t Disk::Index::memoryFootprint() const
{
    return sizeof(*this) + recordBytes_ + bucketCount_ * sizeof(RecordPtr);
}
