/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Store::Index: the memory cache's index (key -> entry), its cache_mem
/// budget and its replacement policy.
///
/// Layout: an intrusive hash table of records, chained per bucket. A record
/// is one allocation holding its bookkeeping and its key bytes; the policy
/// node is part of it, so a cached object costs the index one malloc.
///
///     buckets_ (a power of two; at most one record per bucket on average)
///     [0] -> ObjectRecord "GET http://a/x"  -> ObjectRecord "GET http://b/" -> null
///     [1] -> MarkerRecord "GET http://c/"   {names "accept-encoding", variants [v0, v1]}
///     [2] -> ObjectRecord "GET http://c/\naccept-encoding:gzip\n"       (variant v0)
///     [3] -> ObjectRecord "GET http://c/\naccept-encoding\n"            (variant v1)
///
///     ObjectRecord: 72 bytes, then the key bytes, in one malloc
///     +------------------------+-----------------------------------+-------+-----------+
///     | Slot (24)              | PolicyNode (40)                   | entry | key bytes |
///     | chain  hash  keyLength | links  lastReference  size  refs  | (8)   | ...       |
///     | variantIndex kind where|        size = the bytes charged   |       |           |
///     +------------------------+-----------------------------------+-------+-----------+
///
///     MarkerRecord: Slot, the variants (a vector of records), names length,
///     then the key bytes and the normalised Vary names (Store::VaryNames()).
///
/// Cost per cached object (TestIndex::bytesPerCachedObject measures it with
/// malloc's own count, for a 64-byte key): the record, 72 bytes plus the key
/// in one malloc (a 144-byte chunk with glibc), one bucket pointer (8 bytes
/// at a load of 0.5 to 1), and with a heap policy one heap slot (8 bytes):
/// 152 bytes with lru, 160 with a heap policy; a Vary URL adds one marker.
/// No hash digest replaces the key: a cheap 64- or 128-bit hash could be
/// made to collide on purpose, and a collision would serve one URL's object
/// for another's (cache poisoning).
///
/// Keys are Store::MakeKey() strings. A response without Vary is an object
/// stored under its key. A response with Vary puts a marker under its key
/// (holding the Vary names, as Squid's vary marker does) and is stored under
/// its variant key (Store::MakeVariantKey(key, vary key of the request that
/// caused it)), so a lookup is two hash probes and never a walk over the
/// variants. A new response whose Vary names differ replaces the marker and
/// all its variants; a marker goes with its last variant.
///
/// Budget (cache_mem): the index charges each stored object the bytes of the
/// blocks it holds (ChargeOf(): Entry::body().blockBytes(), plus the reply
/// head's block when it is not the first body block), in flight or complete,
/// and keeps bytesHeld() <= budget() after every call. The charge is polled,
/// not pushed: the producer calls update() after it appended to (or completed,
/// or failed) a stored entry, and the index re-reads ChargeOf(), which is
/// O(1). Recomputing from the entry cannot drift the way a sum of caller-made
/// deltas could (a slice that extends the last one adds no block, a new
/// block adds its whole capacity), and costs one hash of the key per read.
/// The objects' own bookkeeping (records, Entry objects) is not charged, as
/// Squid's cache_mem does not charge StoreEntry objects: memoryFootprint()
/// reports the index's part of it.
///
/// Eviction: a complete object is evicted in the policy's order whether or
/// not readers are attached: they hold their own EntryRef and go on to the
/// end, and since the index clears Entry::isKept(), the bytes behind them are
/// released as they go. An object in flight (Entry::State::Streaming) is not
/// in the policy and is never evicted to make room for another: in-flight
/// objects have priority, as in Squid's cache_mem. When the complete objects
/// cannot make room for an object that was inserted or grew, that object is
/// not kept (refused at insert, abandoned in flight): the index forgets it
/// and clears isKept(), and its readers stream it on, unaffected. A smaller
/// setBudget() evicts complete objects first, then abandons objects in
/// flight, the largest first. An object enters the policy when update() (or
/// touch()) sees it complete.
///
/// Ownership: the index holds one EntryRef per stored object and owns
/// Entry::isKept() of the entries it stores: insert() sets it, and whatever
/// makes the index forget an entry (erase, replace, evict, abandon, failure,
/// clear, destruction) clears it.
///
/// Threading: an index is one event loop's, with no lock, until setShared()
/// makes it the one memory cache of every worker (doc/design.md "Workers").
/// Then every public method is one operation under a mutex, returning values
/// (EntryRef, strings, a stats copy), never a pointer into the index, and
/// each record remembers the thread that stored it, its owner
/// (ThisThread()). Only the owner's thread touches an entry's reference
/// count, flags, flow or body while it is stored:
/// - a lookup from another thread (find(), findVariant()) answers only a
///   complete object (Entry::IsCopyable(): its state() is atomic, complete
///   as soon as its producer completed it), with Entry::CopyOf(), made
///   under the mutex; another thread's object in flight is not found
///   (collapsed forwarding stays within a worker); findVariant() counts
///   the hit;
/// - an object another thread drops (evicts, replaces, erases) moves, with
///   the index's reference, to its owner's list of the dropped; the owner
///   clears its isKept() and lets the reference go at its next call (every
///   public method begins with it) or reap();
/// - what changes a stored complete entry does it through change(), under
///   the mutex (compactIfSmall(), a 304's head);
/// - forEachObject() shows another thread's objects only when complete;
/// - each thread has its own ReleaseObserver (its store.log), told of what
///   that thread's calls let go;
/// - a worker that ends calls leave(), which drops what it owns.

#pragma once

#include "http/RequestParser.h"
#include "store/Entry.h"
#include "store/Policy.h"
#include "store/forward.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Store {

/// Gauges and counters of an Index, for tests and the cache manager.
struct IndexStats {
    uint64_t budget = 0;        ///< cache_mem in bytes
    uint64_t bytesHeld = 0;     ///< bytes charged to the stored objects (<= budget)
    uint64_t inFlightBytes = 0; ///< of those, the bytes of objects still in flight
    size_t objects = 0;         ///< objects stored (variants included, markers not)
    size_t inFlight = 0;        ///< of those, the ones still in flight
    size_t markers = 0;         ///< Vary markers
    size_t memoryFootprint = 0; ///< bytes of the index itself (records, keys, buckets, policy)
    uint64_t inserts = 0;       ///< objects stored by insert()
    uint64_t replacements = 0;  ///< objects (or markers) an insert() replaced
    uint64_t refusals = 0;      ///< insert() calls that stored nothing
    uint64_t hits = 0;          ///< touch() calls that found their object
    uint64_t evictions = 0;     ///< complete objects evicted to make room
    uint64_t evictedBytes = 0;  ///< bytes those evictions freed from the budget
    uint64_t abandons = 0;      ///< in-flight objects no longer kept because they could not fit
    uint64_t failures = 0;      ///< objects dropped because their entry failed
    uint64_t erasures = 0;      ///< objects erased by erase()
};

/// What Index::findVariant() found.
struct Found {
    EntryRef entry;  ///< the object that answers the request; null when none does
    std::string key; ///< its full key (the key, or a variant key), for touch() and update()
    /// whether entry is a copy of another worker's object (see Index's
    /// threading), its hit counted already
    bool copied = false;
    /// whether an object was found
    explicit operator bool() const { return bool(entry); }
};

/// The memory cache's index; see the file comment.
class Index {
public:
    /// an empty index evicting in policy's order (must not be null) within
    /// budget bytes (cache_mem; 0 stores nothing)
    Index(std::unique_ptr<Policy>&& policy, uint64_t budget);
    /// forgets every object (clearing its isKept())
    ~Index();
    Index(const Index&) = delete;
    Index& operator=(const Index&) = delete;

    /// the object stored under exactly this key (an object's key or a variant
    /// key), without counting a hit; null when none, when key holds a Vary
    /// marker, or when the entry failed; another worker's, a copy
    EntryRef find(std::string_view key);
    /// the object that answers a request with requestFields for key: the
    /// object stored under key, or, when key holds a Vary marker, the variant
    /// the request's fields select (RFC 9111 section 4.1); no hit is
    /// counted, but for a copy of another worker's object
    Found findVariant(std::string_view key, const std::vector<Http::HeaderField>& requestFields);
    /// whether the object findVariant() would find is entry itself (no copy
    /// is made), or has its reply (another worker's mirror of it)
    bool selects(std::string_view key, const std::vector<Http::HeaderField>& requestFields,
                 const Entry& entry) const;
    /// whether an object (any worker's, in flight or not) is stored where
    /// findVariant() looks (no copy is made)
    bool holds(std::string_view key, const std::vector<Http::HeaderField>& requestFields) const;
    /// the normalised Vary names of the marker under key, or nullopt when key holds none
    std::optional<std::string> varyNames(std::string_view key) const;

    /// Stores entry under key (a MakeKey(), no variant part): as an object
    /// when its reply has no Vary, else as the variant that requestFields (the
    /// request that caused the reply) select. Replaces the object or variant
    /// stored there (and a marker with other Vary names, with all its
    /// variants); sets entry->isKept(); evicts complete objects for room.
    /// Returns the full key to give touch() and update(), or nullopt when
    /// nothing was stored: budget 0, no reply head yet, Vary "*", a failed
    /// entry, an entry that already released bytes (body().firstSequence() >
    /// 0), an entry stored under another key (isKept() already), or one that
    /// does not fit even after evicting every complete object. Inserting the entry
    /// already stored there is an update().
    std::optional<std::string> insert(std::string_view key, const EntryRef& entry,
                                      const std::vector<Http::HeaderField>& requestFields = {});
    /// The stored entry grew, completed or failed: charges what it holds now
    /// (ChargeOf()), moves it into the policy once complete, drops it when it
    /// failed, and evicts for room (abandoning it when even that is not
    /// enough). Call it after each append() to a stored entry, and after its
    /// complete() or fail(). Returns whether fullKey still holds entry.
    bool update(std::string_view fullKey, const Entry& entry);
    /// A hit on the object stored under fullKey: update(), then one more
    /// reference to it in the policy. Returns whether fullKey holds entry.
    bool touch(std::string_view fullKey, const Entry& entry);
    /// Runs change() under the mutex when fullKey holds entry (this thread's
    /// own), then update(); returns whether it ran. What changes a stored
    /// complete entry goes through here (see the threading above).
    bool change(std::string_view fullKey, Entry& entry, const std::function<void()>& change);
    /// When fullKey holds another worker's object of which copy is a copy
    /// (Entry::CopyOf(), the same head), makes a new whole copy of it, runs
    /// change() on that, and puts it in the object's place (this thread's
    /// from now on, at the object's place in the policy); returns whether it
    /// did. A 304 to a copy's revalidation (Store::Revalidate()) freshens
    /// the stored object so. (The copy itself may have released what its
    /// readers passed.)
    bool adopt(std::string_view fullKey, const Entry& copy, const std::function<void(Entry&)>& change);
    /// Forgets the object under key, or the marker under key with all its
    /// variants (a variant key erases that variant only). Returns the
    /// objects erased.
    size_t erase(std::string_view key);
    /// forgets every object
    void clear();

    /// told of a complete object the index lets go (evicted, replaced,
    /// erased, dropped by setBudget() or clear(); not when
    /// it is refused, nor at the index's destruction), with its full key,
    /// before its isKept() is cleared (Squid's store.log RELEASE); it must
    /// not change the index
    using ReleaseObserver = std::function<void(std::string_view fullKey, const Entry& entry)>;
    /// sets (or, with an empty one, removes) the ReleaseObserver of this thread
    void setReleaseObserver(ReleaseObserver observer);

    /// makes the index the memory cache of several threads (see the
    /// threading above); before anything is stored
    void setShared();
    /// whether setShared() was called
    bool isShared() const { return shared_; }
    /// lets go of what other threads dropped of this thread's objects
    void reap();
    /// drops every object this thread stored (without telling the
    /// observers), reaps, and removes this thread's observer: a worker ends
    void leave();
    /// the owner number of the calling thread (1, 2, ... in the order the
    /// threads first asked)
    static uint16_t ThisThread();

    /// sets cache_mem: evicts complete objects, then abandons in-flight ones
    /// (largest first), until bytesHeld() <= bytes; 0 forgets everything
    void setBudget(uint64_t bytes);
    /// cache_mem in bytes (no mutex taken)
    uint64_t budget() const { return budget_.load(std::memory_order_relaxed); }
    /// bytes charged to the stored objects, in flight or complete
    uint64_t bytesHeld() const;
    /// objects stored (variants included, markers not)
    size_t objectCount() const;
    /// the gauges and counters now
    IndexStats stats() const;
    /// calls visit(key, entry, own) for every stored object, variants
    /// included (their full keys), markers not, in no particular order;
    /// another thread's (own false) only when complete, and then visit may
    /// read its reply and body only; visit must not change the index
    void forEachObject(const std::function<void(std::string_view, const Entry&, bool own)>& visit) const;
    /// switches to another policy (reconfigure), keeping every object and the
    /// old policy's eviction order (not its aging factor)
    void setPolicy(std::unique_ptr<Policy>&& policy);
    /// the squid.conf words of the policy in force
    std::string_view policyName() const;
    /// bytes the index itself uses: records with their keys, buckets, Vary
    /// markers' variant lists and the policy's heap (not the entries)
    size_t memoryFootprint() const;

    /// the bytes an entry is charged: the blocks of its body, plus the reply
    /// head's block when that is not the block of the first body slice
    static uint64_t ChargeOf(const Entry& entry);
    /// the bytes a record of an object with a key of keyLength bytes
    /// allocates (before malloc's own rounding)
    static size_t RecordBytes(size_t keyLength);

private:
    struct Slot;
    struct ObjectRecord;
    struct MarkerRecord;
    /// frees a record of any kind
    struct SlotDeleter {
        void operator()(Slot* slot) const;
    };
    /// owns a record (bucket heads and chain links)
    using SlotPtr = std::unique_ptr<Slot, SlotDeleter>;
    /// what dropping an object counts as
    enum class Drop { Erase, Replace, Evict, Abandon, Refuse, Fail, Clear };

    /// the mutex when the index is shared, then the caller's reaping
    class Guard;

    static uint32_t HashOf(std::string_view key);
    bool isForeign(const Slot& slot) const;
    /// the object record under key (not a marker), or null
    ObjectRecord* objectAt(std::string_view key);
    /// the record under fullKey when it holds entry and is this thread's, or null
    ObjectRecord* ownRecord(std::string_view fullKey, const Entry& entry);
    /// removes this thread's ReleaseObserver (under the mutex)
    void forgetObserver();
    const ObjectRecord* variantRecord(std::string_view key,
                                      const std::vector<Http::HeaderField>& requestFields,
                                      std::string& fullKey) const;
    bool updateLocked(std::string_view fullKey, const Entry& entry);
    void clearLocked();
    size_t footprintLocked() const;
    void takeDropped(std::vector<EntryRef>& out);
    std::vector<EntryRef>& droppedOf(uint16_t owner);
    void tellReleased(std::string_view fullKey, const Entry& entry) const;
    const Slot* lookup(std::string_view key) const;
    Slot* lookup(std::string_view key);
    void link(SlotPtr&& slot);
    void destroy(Slot& slot);
    void rehash(size_t bucketCount);
    ObjectRecord& newObject(std::string_view key, bool isVariant, const EntryRef& entry);
    MarkerRecord& newMarker(std::string_view key, std::string_view names);
    std::optional<std::string> store(ObjectRecord& record);
    bool refresh(ObjectRecord& record);
    bool makeRoom(ObjectRecord& self, Drop selfDrop);
    void dropObject(ObjectRecord& record, Drop why, bool keepEmptyMarker = false);
    size_t dropSlot(Slot& slot, Drop why);

    std::unique_ptr<Policy> policy_;     ///< the eviction order of the complete objects
    std::unique_ptr<SlotPtr[]> buckets_; ///< the hash table
    size_t bucketCount_ = 0;             ///< a power of two
    size_t slots_ = 0;                   ///< records in the table (objects and markers)
    /// cache_mem; atomic: budget() reads it without the mutex (every
    /// request asks it), setBudget() writes it under the mutex
    std::atomic<uint64_t> budget_;
    uint64_t bytesHeld_ = 0;      ///< sum of the objects' charges
    uint64_t policyBytes_ = 0;    ///< of those, the complete objects' (the evictable bytes)
    uint64_t inFlightBytes_ = 0;  ///< of those, the in-flight objects'
    size_t objects_ = 0;          ///< object records
    size_t inFlight_ = 0;         ///< of those, in flight
    size_t markers_ = 0;          ///< marker records
    size_t recordBytes_ = 0;      ///< bytes of every record with its key (and names)
    size_t variantListBytes_ = 0; ///< capacity of the markers' variant lists, in bytes
    IndexStats counters_;         ///< the counters of stats() (gauges are computed)
    /// see setReleaseObserver(): by owner number (ThisThread())
    std::vector<std::pair<uint16_t, ReleaseObserver>> releaseObservers_;
    /// other threads' objects that this thread's calls dropped, by owner
    /// number, each waiting for its owner's next call
    std::vector<std::pair<uint16_t, std::vector<EntryRef>>> dropped_;
    bool shared_ = false;      ///< see setShared()
    mutable std::mutex mutex_; ///< guards everything when shared_
};

} // namespace Store
