/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "disk/Index.h"
#include "base/TextException.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <utility>
#include <vector>

struct Disk::Index::Record {
    RecordPtr next;                     ///< the next record of the bucket
    Store::PolicyLinks<Record> links{}; ///< owned by the policy
    uint64_t lastReference = 0;         ///< the policy's clock at the last use
    uint64_t bodyLength = 0;            ///< Location::bodyLength
    uint32_t keyLength = 0;             ///< bytes of the key, right after the record
    uint32_t slotsLength = 0;           ///< Location::slotsLength
    uint32_t fileNumber = 0;            ///< Location::fileNumber
    uint32_t references = 1;            ///< uses: the store, then one per touch()

    /// the key, stored right after the record
    std::string_view key() const { return {reinterpret_cast<const char*>(this + 1), keyLength}; }
    /// where the object is
    Location location() const { return Location{fileNumber, keyLength, slotsLength, bodyLength}; }
    /// the size heap GDSF divides by: the file's, as Squid's swap_file_sz
    uint64_t policySize() const { return location().fileSize(); }
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

Disk::Index::Index(Store::PolicyKind kind) : policy_(Store::MakePolicy<Record>(kind))
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

size_t Disk::Index::HashOf(std::string_view key)
{
    return std::hash<std::string_view>{}(key);
}

Disk::Index::RecordPtr* Disk::Index::slotOf(std::string_view key) const
{
    RecordPtr* slot = &buckets_[HashOf(key) & (bucketCount_ - 1)];
    while (*slot && (*slot)->key() != key)
        slot = &(*slot)->next;
    return slot;
}

std::optional<Disk::Location> Disk::Index::find(std::string_view key) const
{
    const auto* slot = slotOf(key);
    if (!*slot)
        return std::nullopt;
    return (*slot)->location();
}

bool Disk::Index::touch(std::string_view key)
{
    auto* slot = slotOf(key);
    if (!*slot)
        return false;
    policy_->touch(**slot);
    return true;
}

std::optional<Disk::Location> Disk::Index::insert(std::string_view key, const Location& where)
{
    auto replaced = erase(key);
    if (objects_ + 1 > bucketCount_)
        rehash(bucketCount_ * 2);
    const size_t bytes = RecordBytes(key.size());
    void* memory = std::malloc(bytes);
    if (!memory)
        throw std::bad_alloc();
    RecordPtr record(new (memory) Record);
    record->bodyLength = where.bodyLength;
    record->keyLength = static_cast<uint32_t>(key.size());
    record->slotsLength = where.slotsLength;
    record->fileNumber = where.fileNumber;
    std::memcpy(static_cast<char*>(memory) + sizeof(Record), key.data(), key.size());
    policy_->add(*record);
    auto& head = buckets_[HashOf(key) & (bucketCount_ - 1)];
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
    const auto where = record->location();
    --objects_;
    recordBytes_ -= RecordBytes(record->keyLength);
    diskBytes_ -= where.diskBytes();
    return where;
}

std::optional<Disk::Location> Disk::Index::erase(std::string_view key)
{
    auto* slot = slotOf(key);
    if (!*slot)
        return std::nullopt;
    policy_->remove(**slot);
    return take(slot);
}

std::string_view Disk::Index::victimKey() const
{
    const auto* victim = policy_->victim();
    return victim ? victim->key() : std::string_view();
}

std::optional<Disk::Location> Disk::Index::evict()
{
    auto* victim = policy_->evict();
    if (!victim)
        return std::nullopt;
    return take(slotOf(victim->key()));
}

void Disk::Index::orderByFileNumber()
{
    // the file numbers beside the pointers: the sort reads no record
    std::vector<std::pair<uint32_t, Record*>> records;
    records.reserve(objects_);
    for (size_t i = 0; i < bucketCount_; ++i) {
        for (Record* record = buckets_[i].get(); record; record = record->next.get())
            records.emplace_back(record->fileNumber, record);
    }
    std::sort(records.begin(), records.end());
    // the old policy only points at the records: dropping it unlinks nothing that lives on
    auto fresh = Store::MakePolicy<Record>(policy_->name());
    Must(fresh);
    policy_ = std::move(fresh);
    for (const auto& [fileNumber, record] : records)
        policy_->add(*record);
}

void Disk::Index::rehash(size_t bucketCount)
{
    auto fresh = std::make_unique<RecordPtr[]>(bucketCount);
    for (size_t i = 0; i < bucketCount_; ++i) {
        while (buckets_[i]) {
            RecordPtr record = std::move(buckets_[i]);
            buckets_[i] = std::move(record->next);
            auto& head = fresh[HashOf(record->key()) & (bucketCount - 1)];
            record->next = std::move(head);
            head = std::move(record);
        }
    }
    buckets_ = std::move(fresh);
    bucketCount_ = bucketCount;
}

size_t Disk::Index::memoryFootprint() const
{
    return sizeof(*this) + recordBytes_ + bucketCount_ * sizeof(RecordPtr) + policy_->memoryFootprint();
}
