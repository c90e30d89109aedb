/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "disk/Index.h"
#include "base/TextException.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

struct Disk::Index::Record {
    RecordPtr next;                     ///< the next record of the bucket
    Store::PolicyLinks<Record> links{}; ///< owned by the policy
    uint64_t lastReference = 0;         ///< the policy's clock at the last use
    uint64_t bodyLength = 0;            ///< Location::bodyLength
    Store::KeyHash hash;                ///< Store::HashKey() of the key
    uint32_t keyLength : 31 = 0;        ///< Location::keyLength
    uint32_t keyKept : 1 = 0;           ///< whether the key follows the record (a variant's)
    uint32_t slotsLength = 0;           ///< Location::slotsLength
    uint32_t fileNumber = 0;            ///< Location::fileNumber
    uint32_t references = 1;            ///< uses: the store, then one per touch()

    /// the key of a variant, "" for any other
    std::string_view variantKey() const
    {
        return keyKept ? std::string_view(reinterpret_cast<const char*>(this + 1), keyLength)
                       : std::string_view();
    }
    /// where the object is
    Location location() const { return Location{fileNumber, keyLength, slotsLength, bodyLength}; }
    /// the size heap GDSF divides by: the file's, as Squid's swap_file_sz
    uint64_t policySize() const { return location().fileSize(); }
};

namespace {

/// whether the record of key keeps it (Disk::Cache forgets an evicted variant by its key)
bool KeepsKey(std::string_view key)
{
    return Store::BaseKey(key).size() != key.size();
}

} // namespace

void Disk::Index::RecordDeleter::operator()(Record* record) const
{
    record->~Record();
    std::free(record);
}

size_t Disk::Index::RecordBytes(std::string_view key)
{
    return sizeof(Record) + (KeepsKey(key) ? key.size() : 0);
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

Disk::Index::RecordPtr& Disk::Index::bucketOf(const Store::KeyHash& hash) const
{
    return buckets_[hash.a >> bucketShift_];
}

Disk::Index::RecordPtr* Disk::Index::slotOf(const Store::KeyHash& hash) const
{
    RecordPtr* slot = &bucketOf(hash);
    while (*slot && !((*slot)->hash == hash))
        slot = &(*slot)->next;
    return slot;
}

std::optional<Disk::Location> Disk::Index::find(std::string_view key) const
{
    const auto* slot = slotOf(Store::HashKey(key));
    if (!*slot)
        return std::nullopt;
    return (*slot)->location();
}

bool Disk::Index::touch(std::string_view key)
{
    auto* slot = slotOf(Store::HashKey(key));
    if (!*slot)
        return false;
    policy_->touch(**slot);
    return true;
}

std::optional<Disk::Location> Disk::Index::insert(std::string_view key, const Location& where)
{
    const auto hash = Store::HashKey(key);
    auto replaced = erase(hash);
    if (objects_ + 1 > bucketCount_)
        rehash(bucketCount_ * 2);
    const size_t bytes = RecordBytes(key);
    void* memory = std::malloc(bytes);
    if (!memory)
        throw std::bad_alloc();
    RecordPtr record(new (memory) Record);
    record->bodyLength = where.bodyLength;
    record->hash = hash;
    record->keyLength = static_cast<uint32_t>(key.size());
    record->slotsLength = where.slotsLength;
    record->fileNumber = where.fileNumber;
    if (KeepsKey(key)) {
        record->keyKept = 1;
        std::memcpy(static_cast<char*>(memory) + sizeof(Record), key.data(), key.size());
    }
    policy_->add(*record);
    auto& head = bucketOf(record->hash);
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
    recordBytes_ -= sizeof(Record) + record->variantKey().size();
    diskBytes_ -= where.diskBytes();
    return where;
}

std::optional<Disk::Location> Disk::Index::erase(std::string_view key)
{
    return erase(Store::HashKey(key));
}

std::optional<Disk::Location> Disk::Index::erase(const Store::KeyHash& hash)
{
    auto* slot = slotOf(hash);
    if (!*slot)
        return std::nullopt;
    policy_->remove(**slot);
    return take(slot);
}

std::optional<Disk::Index::Evicted> Disk::Index::evict()
{
    auto* victim = policy_->evict();
    if (!victim)
        return std::nullopt;
    Evicted evicted{victim->hash, std::string(victim->variantKey()), {}};
    evicted.where = take(slotOf(evicted.hash));
    return evicted;
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
    auto old = std::move(buckets_);
    const size_t oldCount = bucketCount_;
    buckets_ = std::make_unique<RecordPtr[]>(bucketCount);
    bucketCount_ = bucketCount;
    bucketShift_ = 64 - unsigned(std::countr_zero(bucketCount));
    for (size_t i = 0; i < oldCount; ++i) {
        while (old[i]) {
            RecordPtr record = std::move(old[i]);
            old[i] = std::move(record->next);
            auto& head = bucketOf(record->hash);
            record->next = std::move(head);
            head = std::move(record);
        }
    }
}

size_t Disk::Index::memoryFootprint() const
{
    return sizeof(*this) + recordBytes_ + bucketCount_ * sizeof(RecordPtr) + policy_->memoryFootprint();
}
