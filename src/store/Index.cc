/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/Index.h"
#include "base/TextException.h"
#include "store/Key.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <limits>
#include <new>
#include <utility>

namespace {

/// buckets of a new index (grown by doubling when records outnumber them)
constexpr size_t InitialBuckets = 64;

/// what a record is
enum class Kind : uint8_t {
    Object,  ///< a response without Vary, under its key
    Variant, ///< a response with Vary, under its variant key
    Marker   ///< the Vary names of a key, and its variants
};

/// where an object record is in the budget's bookkeeping
enum class Where : uint8_t {
    InFlight, ///< charged, not in the policy (its entry is streaming)
    InPolicy, ///< charged, in the policy (complete: evictable)
    Out       ///< neither (being dropped)
};

} // namespace

/// What every record starts with: its place in the hash table and its key.
struct Store::Index::Slot {
    SlotPtr chain;             ///< the next record of the same bucket
    uint32_t hash = 0;         ///< HashOf(key())
    uint32_t keyLength = 0;    ///< bytes of the key, stored right after the record
    uint32_t variantIndex = 0; ///< a variant: its place in its marker's variants
    Kind kind = Kind::Object;  ///< what the record is
    Where where = Where::Out;  ///< an object: where its bytes are counted
    uint16_t owner = 0;        ///< an object: the thread that stored it (ThisThread())

    /// the first byte after the whole record (where the key is)
    const char* tail() const;
    /// the key
    std::string_view key() const { return {tail(), keyLength}; }
};

/// One stored object (a plain response or a variant): see the layout in Index.h.
struct Store::Index::ObjectRecord final : Slot, PolicyNode {
    EntryRef entry; ///< the object
};

/// The Vary marker of a key: the names, then the variants stored under it.
struct Store::Index::MarkerRecord final : Slot {
    std::vector<ObjectRecord*> variants; ///< not owned (each is a record of the table)
    uint32_t namesLength = 0;            ///< bytes of the names, stored after the key

    /// the normalised Vary names (Store::VaryNames())
    std::string_view names() const { return {tail() + keyLength, namesLength}; }
};

const char* Store::Index::Slot::tail() const
{
    if (kind == Kind::Marker)
        return reinterpret_cast<const char*>(static_cast<const MarkerRecord*>(this) + 1);
    return reinterpret_cast<const char*>(static_cast<const ObjectRecord*>(this) + 1);
}

void Store::Index::SlotDeleter::operator()(Slot* slot) const
{
    if (!slot)
        return;
    void* memory;
    if (slot->kind == Kind::Marker) {
        auto* marker = static_cast<MarkerRecord*>(slot);
        marker->~MarkerRecord();
        memory = marker;
    } else {
        auto* object = static_cast<ObjectRecord*>(slot);
        object->~ObjectRecord();
        memory = object;
    }
    ::operator delete(memory);
}

/// Holds the mutex of a shared index for one public method; made with
/// reaping, it also takes this thread's objects that other threads dropped
/// (clearing their isKept() under the mutex) and lets those references go
/// after the mutex.
class Store::Index::Guard {
public:
    explicit Guard(const Index& index) : lock_(index.mutex_, std::defer_lock)
    {
        if (index.shared_)
            lock_.lock();
    }
    Guard(Index& index, bool reaping) : Guard(std::as_const(index))
    {
        if (reaping && index.shared_)
            index.takeDropped(dead_);
    }
    ~Guard()
    {
        if (lock_.owns_lock())
            lock_.unlock();
        dead_.clear();
    }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

private:
    std::unique_lock<std::mutex> lock_;
    std::vector<EntryRef> dead_; ///< released after the mutex
};

uint16_t Store::Index::ThisThread()
{
    static std::atomic<uint16_t> last{0};
    thread_local const uint16_t number = uint16_t(last.fetch_add(1, std::memory_order_relaxed) + 1);
    return number;
}

Store::Index::Index(std::unique_ptr<Policy>&& policy, uint64_t budget)
    : policy_(std::move(policy)), buckets_(std::make_unique<SlotPtr[]>(InitialBuckets)),
      bucketCount_(InitialBuckets), budget_(budget)
{
    Must(policy_);
}

Store::Index::~Index()
{
    releaseObservers_.clear();
    clearLocked();
}

void Store::Index::setShared()
{
    Must(slots_ == 0);
    shared_ = true;
}

bool Store::Index::isForeign(const Slot& slot) const
{
    return shared_ && slot.owner != ThisThread();
}

void Store::Index::takeDropped(std::vector<EntryRef>& out)
{
    const auto self = ThisThread();
    for (auto it = dropped_.begin(); it != dropped_.end(); ++it) {
        if (it->first != self)
            continue;
        for (auto& entry : it->second) {
            entry->setKept(false); // readers attached go on; what is behind them is released
            out.push_back(std::move(entry));
        }
        dropped_.erase(it);
        return;
    }
}

std::vector<Store::EntryRef>& Store::Index::droppedOf(uint16_t owner)
{
    for (auto& [number, entries] : dropped_) {
        if (number == owner)
            return entries;
    }
    return dropped_.emplace_back(owner, std::vector<EntryRef>()).second;
}

void Store::Index::reap()
{
    Guard guard(*this, true);
}

void Store::Index::setReleaseObserver(ReleaseObserver observer)
{
    Guard guard(*this);
    forgetObserver();
    if (observer)
        releaseObservers_.emplace_back(ThisThread(), std::move(observer));
}

void Store::Index::forgetObserver()
{
    const auto self = ThisThread();
    const auto it = std::find_if(releaseObservers_.begin(), releaseObservers_.end(),
                                 [self](const auto& o) { return o.first == self; });
    if (it != releaseObservers_.end())
        releaseObservers_.erase(it);
}

void Store::Index::tellReleased(std::string_view fullKey, const Entry& entry) const
{
    const auto self = ThisThread();
    for (const auto& [owner, observer] : releaseObservers_) {
        if (owner == self) {
            observer(fullKey, entry);
            return;
        }
    }
}

void Store::Index::leave()
{
    Guard guard(*this, true);
    forgetObserver();
    const auto self = ThisThread();
    std::vector<ObjectRecord*> own;
    for (size_t i = 0; i < bucketCount_; ++i) {
        for (Slot* slot = buckets_[i].get(); slot; slot = slot->chain.get()) {
            if (slot->kind != Kind::Marker && slot->owner == self)
                own.push_back(static_cast<ObjectRecord*>(slot));
        }
    }
    for (auto* record : own)
        dropObject(*record, Drop::Clear);
}

size_t Store::Index::RecordBytes(size_t keyLength)
{
    return sizeof(ObjectRecord) + keyLength;
}

uint64_t Store::Index::ChargeOf(const Entry& entry)
{
    const auto& body = entry.body();
    uint64_t bytes = body.blockBytes();
    if (const auto* reply = entry.reply(); reply && reply->block) {
        const bool sharesFirstBlock =
            !body.isEmpty() && body.slice(body.firstSequence()).blob() == reply->block;
        if (!sharesFirstBlock)
            bytes += reply->block->capacity();
    }
    return bytes;
}

uint32_t Store::Index::HashOf(std::string_view key)
{
    const uint64_t h = std::hash<std::string_view>{}(key);
    return uint32_t(h ^ (h >> 32));
}

const Store::Index::Slot* Store::Index::lookup(std::string_view key) const
{
    const uint32_t hash = HashOf(key);
    for (const Slot* slot = buckets_[hash & (bucketCount_ - 1)].get(); slot; slot = slot->chain.get()) {
        if (slot->hash == hash && slot->key() == key)
            return slot;
    }
    return nullptr;
}

Store::Index::Slot* Store::Index::lookup(std::string_view key)
{
    return const_cast<Slot*>(std::as_const(*this).lookup(key));
}

void Store::Index::link(SlotPtr&& slot)
{
    if (slots_ + 1 > bucketCount_)
        rehash(bucketCount_ * 2);
    auto& head = buckets_[slot->hash & (bucketCount_ - 1)];
    slot->chain = std::move(head);
    head = std::move(slot);
    ++slots_;
}

void Store::Index::rehash(size_t bucketCount)
{
    auto buckets = std::make_unique<SlotPtr[]>(bucketCount);
    for (size_t i = 0; i < bucketCount_; ++i) {
        while (SlotPtr slot = std::move(buckets_[i])) {
            buckets_[i] = std::move(slot->chain);
            auto& head = buckets[slot->hash & (bucketCount - 1)];
            slot->chain = std::move(head);
            head = std::move(slot);
        }
    }
    buckets_ = std::move(buckets);
    bucketCount_ = bucketCount;
}

void Store::Index::destroy(Slot& slot)
{
    SlotPtr* link = &buckets_[slot.hash & (bucketCount_ - 1)];
    while (link->get() != &slot) {
        Must(*link);
        link = &(*link)->chain;
    }
    SlotPtr owned = std::move(*link);
    *link = std::move(owned->chain);
    --slots_;
    if (owned->kind == Kind::Marker) {
        auto& marker = static_cast<MarkerRecord&>(*owned);
        recordBytes_ -= sizeof(MarkerRecord) + marker.keyLength + marker.namesLength;
        variantListBytes_ -= marker.variants.capacity() * sizeof(ObjectRecord*);
        --markers_;
    } else {
        recordBytes_ -= sizeof(ObjectRecord) + owned->keyLength;
    }
    // owned goes here, with its EntryRef: the entry may be freed now
}

Store::Index::ObjectRecord& Store::Index::newObject(std::string_view key, bool isVariant,
                                                    const EntryRef& entry)
{
    Must(key.size() <= std::numeric_limits<uint32_t>::max());
    const size_t bytes = sizeof(ObjectRecord) + key.size();
    auto* record = new (::operator new(bytes)) ObjectRecord();
    SlotPtr owner(record);
    record->hash = HashOf(key);
    record->keyLength = uint32_t(key.size());
    record->kind = isVariant ? Kind::Variant : Kind::Object;
    record->entry = entry;
    std::memcpy(reinterpret_cast<char*>(record + 1), key.data(), key.size());
    link(std::move(owner));
    recordBytes_ += bytes;
    return *record;
}

Store::Index::MarkerRecord& Store::Index::newMarker(std::string_view key, std::string_view names)
{
    Must(key.size() + names.size() <= std::numeric_limits<uint32_t>::max());
    const size_t bytes = sizeof(MarkerRecord) + key.size() + names.size();
    auto* marker = new (::operator new(bytes)) MarkerRecord();
    SlotPtr owner(marker);
    marker->hash = HashOf(key);
    marker->keyLength = uint32_t(key.size());
    marker->namesLength = uint32_t(names.size());
    marker->kind = Kind::Marker;
    auto* tail = reinterpret_cast<char*>(marker + 1);
    std::memcpy(tail, key.data(), key.size());
    std::memcpy(tail + key.size(), names.data(), names.size());
    link(std::move(owner));
    recordBytes_ += bytes;
    ++markers_;
    return *marker;
}

Store::Index::ObjectRecord* Store::Index::objectAt(std::string_view key)
{
    Slot* slot = lookup(key);
    return slot && slot->kind != Kind::Marker ? static_cast<ObjectRecord*>(slot) : nullptr;
}

Store::Index::ObjectRecord* Store::Index::ownRecord(std::string_view fullKey, const Entry& entry)
{
    auto* record = objectAt(fullKey);
    return record && record->entry.getRaw() == &entry && !isForeign(*record) ? record : nullptr;
}

Store::EntryRef Store::Index::find(std::string_view key)
{
    Guard guard(*this, true);
    const auto* found = objectAt(key);
    if (!found)
        return nullptr;
    const auto& record = *found;
    if (isForeign(record))
        return Entry::IsCopyable(*record.entry) ? Entry::CopyOf(*record.entry) : nullptr;
    return record.entry->hasFailed() ? nullptr : record.entry;
}

const Store::Index::ObjectRecord*
Store::Index::variantRecord(std::string_view key, const std::vector<Http::HeaderField>& requestFields,
                            std::string& fullKey) const
{
    const Slot* slot = lookup(key);
    if (!slot)
        return nullptr;
    if (slot->kind == Kind::Marker) {
        const auto varyKey = VaryKey(static_cast<const MarkerRecord&>(*slot).names(), requestFields);
        if (!varyKey)
            return nullptr;
        fullKey = MakeVariantKey(key, *varyKey);
        slot = lookup(fullKey);
        if (!slot)
            return nullptr;
    } else {
        fullKey.assign(key);
    }
    return static_cast<const ObjectRecord*>(slot);
}

Store::Found Store::Index::findVariant(std::string_view key,
                                       const std::vector<Http::HeaderField>& requestFields)
{
    Guard guard(*this, true);
    std::string fullKey;
    const auto* record = variantRecord(key, requestFields, fullKey);
    if (!record)
        return {};
    if (!isForeign(*record)) {
        if (record->entry->hasFailed())
            return {};
        return {record->entry, std::move(fullKey)};
    }
    if (!Entry::IsCopyable(*record->entry))
        return {}; // in flight (or failed) in another worker
    auto copy = Entry::CopyOf(*record->entry);
    ++counters_.hits;
    if (record->where == Where::InPolicy) // else it counts when it enters the policy
        policy_->touch(const_cast<ObjectRecord&>(*record));
    else
        ++const_cast<ObjectRecord*>(record)->references;
    return {std::move(copy), std::move(fullKey), true};
}

bool Store::Index::selects(std::string_view key, const std::vector<Http::HeaderField>& requestFields,
                           const Entry& entry) const
{
    Guard guard(*this);
    std::string fullKey;
    const auto* record = variantRecord(key, requestFields, fullKey);
    if (!record)
        return false;
    if (record->entry.getRaw() == &entry)
        return true;
    // another worker's mirror of the stored entry (Proxy::Collapsing): the
    // same reply; a stored reply changes only under the mutex (change())
    const auto* stored = record->entry->reply();
    const auto* mine = entry.reply();
    return stored && mine && stored->isSameAs(*mine);
}

bool Store::Index::holds(std::string_view key, const std::vector<Http::HeaderField>& requestFields) const
{
    Guard guard(*this);
    std::string fullKey;
    return variantRecord(key, requestFields, fullKey) != nullptr;
}

std::optional<std::string> Store::Index::varyNames(std::string_view key) const
{
    Guard guard(*this);
    const Slot* slot = lookup(key);
    if (!slot || slot->kind != Kind::Marker)
        return std::nullopt;
    return std::string(static_cast<const MarkerRecord&>(*slot).names());
}

std::optional<std::string> Store::Index::insert(std::string_view key, const EntryRef& entry,
                                                const std::vector<Http::HeaderField>& requestFields)
{
    Guard guard(*this, true);
    Must(entry);
    Must(key.find('\n') == std::string_view::npos); // a MakeKey(), not a variant key
    // without its head, whether the reply varies is unknown; bytes already
    // released cannot be served again; Vary "*" never matches (RFC 9111 section 4.1)
    const std::string names = entry->reply() ? VaryNamesOf(entry->reply()->fields()) : std::string("*");
    if (budget_ == 0 || entry->hasFailed() || entry->body().firstSequence() != 0 || IsVaryAny(names)) {
        ++counters_.refusals;
        return std::nullopt;
    }

    std::string fullKey = FullKeyOf(key, names, requestFields);
    if (const Slot* same = lookup(fullKey); same && same->kind != Kind::Marker) {
        if (static_cast<const ObjectRecord*>(same)->entry == entry)
            return updateLocked(fullKey, *entry) ? std::optional<std::string>(std::move(fullKey))
                                                 : std::nullopt;
    }
    if (entry->isKept()) { // stored under another key: one record per entry
        ++counters_.refusals;
        return std::nullopt;
    }

    if (names.empty()) {
        if (Slot* old = lookup(key))
            dropSlot(*old, Drop::Replace);
        return store(newObject(key, false, entry));
    }

    // a Vary response: a marker under key, the object under its variant key
    MarkerRecord* marker = nullptr;
    if (Slot* old = lookup(key)) {
        if (old->kind == Kind::Marker && static_cast<MarkerRecord*>(old)->names() == names)
            marker = static_cast<MarkerRecord*>(old);
        else
            dropSlot(*old, Drop::Replace); // other Vary names: Squid replaces the marker too
    }
    if (!marker)
        marker = &newMarker(key, names);
    if (Slot* old = lookup(fullKey))
        dropObject(static_cast<ObjectRecord&>(*old), Drop::Replace, true);
    const size_t capacity = marker->variants.capacity();
    if (marker->variants.size() == capacity) // grow before the record exists: push_back cannot throw
        marker->variants.reserve(capacity ? 2 * capacity : 1);
    variantListBytes_ += (marker->variants.capacity() - capacity) * sizeof(ObjectRecord*);
    auto& record = newObject(fullKey, true, entry);
    marker->variants.push_back(&record);
    record.variantIndex = uint32_t(marker->variants.size() - 1);
    return store(record);
}

std::optional<std::string> Store::Index::store(ObjectRecord& record)
{
    ++objects_;
    record.owner = ThisThread();
    record.entry->setKept(true);
    record.references = 1;
    record.size = ChargeOf(*record.entry);
    bytesHeld_ += record.size;
    if (record.entry->isComplete()) {
        record.where = Where::InPolicy;
        policyBytes_ += record.size;
        policy_->add(record);
    } else {
        record.where = Where::InFlight;
        inFlightBytes_ += record.size;
        ++inFlight_;
    }
    std::string fullKey(record.key());
    if (!makeRoom(record, Drop::Refuse)) {
        ++counters_.refusals;
        return std::nullopt;
    }
    ++counters_.inserts;
    return fullKey;
}

bool Store::Index::update(std::string_view fullKey, const Entry& entry)
{
    Guard guard(*this, true);
    return updateLocked(fullKey, entry);
}

bool Store::Index::updateLocked(std::string_view fullKey, const Entry& entry)
{
    auto* record = ownRecord(fullKey, entry);
    return record && refresh(*record);
}

bool Store::Index::touch(std::string_view fullKey, const Entry& entry)
{
    Guard guard(*this, true);
    auto* found = ownRecord(fullKey, entry);
    if (!found || !refresh(*found))
        return false;
    auto& record = *found;
    ++counters_.hits;
    if (record.where == Where::InPolicy)
        policy_->touch(record);
    else
        ++record.references; // a collapsed hit on an object in flight counts when it enters the policy
    return true;
}

bool Store::Index::change(std::string_view fullKey, Entry& entry, const std::function<void()>& change)
{
    Guard guard(*this, true);
    auto* record = ownRecord(fullKey, entry);
    if (!record)
        return false;
    change();
    (void)refresh(*record);
    return true;
}

bool Store::Index::adopt(std::string_view fullKey, const Entry& copy,
                         const std::function<void(Entry&)>& change)
{
    Guard guard(*this, true);
    auto* found = objectAt(fullKey);
    if (!copy.isCopy() || !found || !isForeign(*found) || !Entry::IsCopyable(*found->entry))
        return false;
    auto& record = *found;
    if (record.entry->reply()->head != copy.reply()->head)
        return false; // not the object copied (replaced since)
    auto fresh = Entry::CopyOf(*record.entry);
    change(*fresh);
    droppedOf(record.owner).push_back(std::move(record.entry));
    record.owner = ThisThread();
    fresh->setKept(true);
    record.entry = std::move(fresh);
    if (record.where == Where::InPolicy)
        policy_->touch(record);
    return refresh(record);
}

bool Store::Index::refresh(ObjectRecord& record)
{
    if (record.entry->hasFailed()) {
        dropObject(record, Drop::Fail);
        return false;
    }
    const uint64_t size = ChargeOf(*record.entry);
    if (size != record.size) {
        auto& part = record.where == Where::InPolicy ? policyBytes_ : inFlightBytes_;
        part = part - record.size + size;
        bytesHeld_ = bytesHeld_ - record.size + size;
        record.size = size; // a heap key computed with the old size is refreshed by the next touch
    }
    if (record.where == Where::InFlight && record.entry->isComplete()) {
        --inFlight_;
        inFlightBytes_ -= record.size;
        record.where = Where::InPolicy;
        policyBytes_ += record.size;
        policy_->add(record);
    }
    return makeRoom(record, Drop::Abandon);
}

bool Store::Index::makeRoom(ObjectRecord& self, Drop selfDrop)
{
    if (bytesHeld_ <= budget_)
        return true;
    // Held bytes were within the budget before self was stored or grew, so
    // dropping self alone always makes room. Evicting complete objects first
    // is preferred, unless even all of them would not be enough: then self
    // goes without flushing the cache for nothing.
    const uint64_t excess = bytesHeld_ - budget_;
    const uint64_t evictable = policyBytes_ - (self.where == Where::InPolicy ? self.size : 0);
    if (excess > evictable) {
        dropObject(self, selfDrop);
        return false;
    }
    bool selfKept = true;
    while (bytesHeld_ > budget_) {
        auto* victim = static_cast<ObjectRecord*>(policy_->evict());
        Must(victim); // policyBytes_ >= excess
        victim->where = Where::Out;
        policyBytes_ -= victim->size;
        if (victim == &self)
            selfKept = false;
        dropObject(*victim, Drop::Evict);
    }
    return selfKept;
}

void Store::Index::dropObject(ObjectRecord& record, Drop why, bool keepEmptyMarker)
{
    // complete objects only (an eviction took its victim out of the policy already)
    const bool complete = record.where == Where::InPolicy || why == Drop::Evict;
    if (complete && why != Drop::Refuse)
        tellReleased(record.key(), *record.entry);
    switch (record.where) {
    case Where::InPolicy:
        policy_->remove(record);
        policyBytes_ -= record.size;
        break;
    case Where::InFlight:
        inFlightBytes_ -= record.size;
        --inFlight_;
        break;
    case Where::Out:
        break;
    }
    record.where = Where::Out;
    bytesHeld_ -= record.size;
    --objects_;
    switch (why) {
    case Drop::Erase:
        ++counters_.erasures;
        break;
    case Drop::Replace:
        ++counters_.replacements;
        break;
    case Drop::Evict:
        ++counters_.evictions;
        counters_.evictedBytes += record.size;
        break;
    case Drop::Abandon:
        ++counters_.abandons;
        break;
    case Drop::Refuse: // insert() counts it
        break;
    case Drop::Fail:
        ++counters_.failures;
        break;
    case Drop::Clear:
        break;
    }
    // readers attached go on with their own references; what is behind them
    // is released (by the owner, for another thread's object)
    if (isForeign(record))
        droppedOf(record.owner).push_back(std::move(record.entry));
    else
        record.entry->setKept(false);

    MarkerRecord* emptyMarker = nullptr;
    if (record.kind == Kind::Variant) {
        Slot* slot = lookup(BaseKey(record.key()));
        Must(slot && slot->kind == Kind::Marker);
        auto& marker = static_cast<MarkerRecord&>(*slot);
        auto& variants = marker.variants;
        Must(record.variantIndex < variants.size() && variants[record.variantIndex] == &record);
        variants[record.variantIndex] = variants.back();
        variants[record.variantIndex]->variantIndex = record.variantIndex;
        variants.pop_back();
        if (variants.empty() && !keepEmptyMarker)
            emptyMarker = &marker;
    }
    destroy(record);
    if (emptyMarker)
        destroy(*emptyMarker);
}

size_t Store::Index::dropSlot(Slot& slot, Drop why)
{
    if (slot.kind != Kind::Marker) {
        dropObject(static_cast<ObjectRecord&>(slot), why);
        return 1;
    }
    auto& marker = static_cast<MarkerRecord&>(slot);
    const size_t count = marker.variants.size();
    while (!marker.variants.empty())
        dropObject(*marker.variants.back(), why, true);
    destroy(marker);
    return count;
}

size_t Store::Index::erase(std::string_view key)
{
    Guard guard(*this, true);
    Slot* slot = lookup(key);
    return slot ? dropSlot(*slot, Drop::Erase) : 0;
}

void Store::Index::clear()
{
    Guard guard(*this, true);
    clearLocked();
}

void Store::Index::clearLocked()
{
    // bucket by bucket, without recursion down the chains
    for (size_t i = 0; i < bucketCount_; ++i) {
        while (SlotPtr slot = std::move(buckets_[i])) {
            buckets_[i] = std::move(slot->chain);
            if (slot->kind == Kind::Marker)
                continue;
            auto& record = static_cast<ObjectRecord&>(*slot);
            if (record.where == Where::InPolicy) {
                tellReleased(record.key(), *record.entry);
                policy_->remove(record);
            }
            if (isForeign(record))
                droppedOf(record.owner).push_back(std::move(record.entry));
            else
                record.entry->setKept(false);
        }
    }
    slots_ = objects_ = inFlight_ = markers_ = 0;
    bytesHeld_ = policyBytes_ = inFlightBytes_ = 0;
    recordBytes_ = variantListBytes_ = 0;
}

void Store::Index::setBudget(uint64_t bytes)
{
    Guard guard(*this, true);
    budget_ = bytes;
    if (budget_ == 0) {
        clearLocked(); // cache_mem 0: nothing is kept, not even an empty object
        return;
    }
    while (bytesHeld_ > budget_ && policy_->count() > 0) {
        auto* victim = static_cast<ObjectRecord*>(policy_->evict());
        victim->where = Where::Out;
        policyBytes_ -= victim->size;
        dropObject(*victim, Drop::Evict);
    }
    if (bytesHeld_ <= budget_)
        return;
    // only objects in flight are left: the largest stop being kept first (a
    // walk over the table, on reconfigure only)
    std::vector<ObjectRecord*> inFlight;
    for (size_t i = 0; i < bucketCount_; ++i) {
        for (Slot* slot = buckets_[i].get(); slot; slot = slot->chain.get()) {
            if (slot->kind != Kind::Marker && slot->where == Where::InFlight)
                inFlight.push_back(static_cast<ObjectRecord*>(slot));
        }
    }
    std::sort(inFlight.begin(), inFlight.end(),
              [](const ObjectRecord* a, const ObjectRecord* b) { return a->size > b->size; });
    for (auto* record : inFlight) {
        if (bytesHeld_ <= budget_)
            break;
        dropObject(*record, Drop::Abandon);
    }
}

void Store::Index::setPolicy(std::unique_ptr<Policy>&& policy)
{
    Guard guard(*this);
    Must(policy);
    // the old eviction order becomes the new policy's order of use (least valuable first)
    while (auto* node = policy_->victim()) {
        policy_->remove(*node);
        policy->add(*node);
    }
    policy_ = std::move(policy);
}

std::string_view Store::Index::policyName() const
{
    Guard guard(*this);
    return policy_->name(); // a literal of the policy's class: it outlives a setPolicy()
}

uint64_t Store::Index::bytesHeld() const
{
    Guard guard(*this);
    return bytesHeld_;
}

size_t Store::Index::objectCount() const
{
    Guard guard(*this);
    return objects_;
}

size_t Store::Index::memoryFootprint() const
{
    Guard guard(*this);
    return footprintLocked();
}

size_t Store::Index::footprintLocked() const
{
    return recordBytes_ + variantListBytes_ + bucketCount_ * sizeof(SlotPtr) + policy_->memoryFootprint();
}

Store::IndexStats Store::Index::stats() const
{
    Guard guard(*this);
    IndexStats out = counters_;
    out.budget = budget_;
    out.bytesHeld = bytesHeld_;
    out.inFlightBytes = inFlightBytes_;
    out.objects = objects_;
    out.inFlight = inFlight_;
    out.markers = markers_;
    out.memoryFootprint = footprintLocked();
    return out;
}

void Store::Index::forEachObject(
    const std::function<void(std::string_view, const Entry&, bool own)>& visit) const
{
    Guard guard(*this);
    for (size_t b = 0; b < bucketCount_; ++b) {
        for (const Slot* slot = buckets_[b].get(); slot; slot = slot->chain.get()) {
            if (slot->kind == Kind::Marker)
                continue;
            const bool own = !isForeign(*slot);
            if (own || static_cast<const ObjectRecord*>(slot)->entry->isComplete())
                visit(slot->key(), *static_cast<const ObjectRecord*>(slot)->entry, own);
        }
    }
}
