/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Disk::Cache: the disk store, every cache_dir of squid.conf with its
/// index, the I/O threads and the objects being written
/// (doc/design.md "The disk store", doc/caching.md "The disk cache").
///
///     Cache
///       shelf_: Shelf (Disk/Shelf.h), shared with other workers' Caches of
///               the same cache_dir lines: dirs[i]: Layout (paths), Index
///               (key -> file), bytes, full flag; the variants; the figures
///       pool_: IoPool (the I/O threads)
///       writers_: one Writer per object being stored (a reader of its entry)
///
///     store(key, entry)  picks a cache_dir (store_dir_select_algorithm, its
///                        min-size/max-size, no-store, full) and starts a Writer
///     writer committed   Index::insert (the old file of the key is removed),
///                        then cache_swap_high evicts down to cache_swap_low in
///                        the order of the cache_dir's cache_replacement_policy
///     Vary replies       stored under their variant keys; the shelf keeps, per
///                        MakeKey(), their Vary names and keys (find() of the variant
///                        a request selects); a plain object replaces its variants,
///                        a variant replaces the plain object and variants of other names
///     open(key)          the object's file, checked (Disk::Format), for a hit;
///                        Index::touch() tells the policy
///     freshen(key, head) a 304's merged head replaces the stored one on an I/O
///                        thread (Disk::RewriteHead(); the body is not rewritten)
///     at start           each cache_dir's index is rebuilt by ScanJobs on the
///                        I/O threads (Disk/Rebuild.h) of the Cache that made
///                        the shelf; until its scans end, a
///                        cache_dir stores nothing and finds what is scanned so far;
///                        then its policy's order starts from the order of storing
///                        (Index::orderByFileNumber())
///
/// A full disk (ENOSPC, EDQUOT) stops storing in that cache_dir, said once
/// in cache.log; hits go on. A disk slower than the objects arriving sheds
/// them: while the I/O threads are MaxBacklog jobs behind, store() refuses
/// new objects (as Squid's aufs does past its queue's limit), so that a
/// burst of small misses, each holding its blocks until written, cannot
/// grow memory without bound; after a burst that put them MaxBacklog / 4
/// behind, the allocator's free pages go back to the kernel once no object
/// is being written (Base::ReleaseFreeHeap()).
///
/// Threading: the loop; the I/O threads run only the jobs. The shelf's
/// state is read and changed under Shelf::Guard (a mutex when shared), never
/// across a file's reading or a Writer's making.

#pragma once

#include "comm/Descriptor.h"
#include "config/Settings.h"
#include "disk/Index.h"
#include "disk/IoPool.h"
#include "disk/Layout.h"
#include "disk/PartWriter.h"
#include "disk/Rebuild.h"
#include "disk/Shelf.h"
#include "disk/Writer.h"
#include "store/DiskTier.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace Disk {

/// the kind of Store policy that a cache_replacement_policy or
/// memory_replacement_policy line names
Store::PolicyKind PolicyKindOf(Config::ReplacementPolicy policy);

/// A stored object opened for a hit: its file and what precedes the body.
struct Hit {
    Comm::Descriptor file; ///< open for reading
    /// the file's front (header, key, head) is not in the page cache, and
    /// open() was told not to wait for the disk: nothing else is set but
    /// file and bodyOffset (the front's size)
    bool cold = false;
    std::string head;        ///< the reply head as stored
    Meta meta;               ///< what the file's header says
    uint64_t bodyOffset = 0; ///< where the body starts in file
    uint64_t bodyLength = 0; ///< its bytes
};

/// a complete entry with no body of the reply head stored as head, with
/// those times and a body of bodyLength; null when head does not parse
Store::EntryRef EntryOfHead(std::string_view head, int64_t requestTime, int64_t responseTime,
                            uint64_t bodyLength);

/// The disk store; see the file comment.
class Cache final : public Store::DiskTier, public WriterOwner, public PartWriterOwner {
public:
    /// the cache_dirs of settings, with `threads` I/O threads (0: one per
    /// cache_dir, at least 2), on shelf (null: a shelf of its own). The
    /// first Cache on a shelf makes its cache_dirs (checked: Layout::check())
    /// and rebuilds their indexes; the others join them.
    Cache(Comm::Loop& loop, const Config::Settings& settings, std::shared_ptr<Shelf> shelf = nullptr,
          unsigned threads = 0);
    /// abandons the objects being written and waits for the I/O threads
    ~Cache() override;
    Cache(const Cache&) = delete;
    Cache& operator=(const Cache&) = delete;

    /// Starts storing entry (its reply head arrived, no body byte was
    /// released) under key, in the cache_dir that store_dir_select_algorithm
    /// picks among those that take an object of size (nullopt: unknown
    /// until it ends); false when none does.
    bool store(const std::string& key, const Store::EntryRef& entry, std::optional<uint64_t> size) override;
    /// jobs the I/O threads may be behind (submitted, not finished) before
    /// store() refuses new objects (a small object holds about 20 KB until
    /// written: some 20 MB)
    static constexpr size_t MaxBacklog = 1024;
    /// whether some cache_dir would take an object of size (store() would start)
    bool admits(std::optional<uint64_t> size) const override;
    /// open() as a Store::DiskObject: the reply head parsed into a complete
    /// entry with no body in memory, and the body's file
    std::optional<Store::DiskObject> find(const std::string& key, bool mayWait) override;
    /// whether an object is stored under key (no file is opened)
    bool contains(const std::string& key) const;
    /// Opens the object stored under key and checks its file (header, size,
    /// key and head); a file that fails is forgotten and removed. Counts a
    /// hit and makes it the most recently used.
    std::optional<Hit> open(const std::string& key, bool mayWait = true);
    /// forgets the object under key and removes its file, and every variant
    /// when key is a MakeKey(); whether there was one
    bool erase(const std::string& key) override;
    /// the Vary names of the variants stored under key, or nothing
    std::optional<std::string> varyNames(const std::string& key) const override;
    /// reads file into blocks of the default pool on an I/O thread, then done
    void readBody(const Store::StoredFileRef& file,
                  std::function<void(std::vector<Sbuf::Slice>&&)> done) override;
    /// replaces the reply head of the object under key with reply's (and
    /// its times), on an I/O thread; skipped while a replacement of it is out
    void freshen(const std::string& key, const Store::Reply& reply) override;
    /// preads the range into a scratch buffer on an I/O thread (the page
    /// cache keeps it), then done
    void warm(const Store::StoredFileRef& file, uint64_t offset, uint64_t length,
              std::function<void()> done) override;
    /// what cache_store_log hears: an action (SWAPOUT when an object is
    /// committed, RELEASE when one is removed, evicted or replaced) on the
    /// object whose key has that hash, in cache_dir dir (its place in
    /// squid.conf) and file fileNumber; entry is its reply. A SWAPOUT tells
    /// the key (fullKey); a RELEASE has neither key nor reply (the index
    /// keeps the hash, the head is on disk), as Squid's lines for an entry
    /// without its memory object.
    using StoreObserver =
        std::function<void(std::string_view action, const Store::KeyHash& hash, std::string_view fullKey,
                           int dir, uint32_t fileNumber, const Store::Entry& entry)>;
    /// sets the StoreObserver
    void setStoreObserver(StoreObserver observer) { storeObserver_ = std::move(observer); }
    /// waits for every job and finishes it (shutdown, tests)
    void drain() { pool_.drain(); }
    /// the figures now (of every Cache on the shelf)
    CacheStats stats() const;
    /// the shelf it stores on
    const Shelf& shelf() const { return *shelf_; }

    void noteCommitted(Writer& writer) override;
    void noteAbandoned(Writer& writer, int error) override;
    /// keeps the file as the first part of its object when it could have
    /// more (a 200 of known length with a strong validator: a download the
    /// client left, to be resumed with a Range), else removes it
    void noteStoppedShort(Writer& writer) override;

    /// parts (Disk/PartWriter.h): starts a PartWriter into the object's
    /// .tmp file, made in the cache_dir that store_dir_select_algorithm
    /// picks for the object's length on its first part
    bool storePart(const std::string& key, const Store::EntryRef& entry, const Store::PartFacts& facts,
                   std::unique_ptr<Store::Reply> whole) override;
    std::unique_ptr<Store::Reply> partHead(const std::string& key) override;
    std::optional<Store::DiskPart> findPart(const std::string& key, uint64_t first, uint64_t end) override;
    void notePartWritten(PartWriter& writer) override;
    /// objects with parts held (on the shelf: every worker's)
    size_t partObjectCount() const;

private:
    using Dir = Shelf::Dir;

    /// an object being written and its cache_dir
    struct Writing {
        std::unique_ptr<Writer> writer; ///< the writer
        Dir* dir;                       ///< where it writes
        uint64_t counted;               ///< the size counted in dir's writingBytes (0: unknown)
    };

    // under the shelf's Guard
    bool takes(const Dir& dir, std::optional<uint64_t> size) const;
    bool eraseExact(const std::string& key);
    void noteStored(const std::string& key);
    void forgetVariant(std::string_view key);
    Dir* pick(std::optional<uint64_t> size);
    void removeFile(Dir& dir, const Store::KeyHash& hash, uint32_t fileNumber);
    int placeOf(const Dir& dir) const;
    void evict(Dir& dir);
    void release(Writer& writer);
    bool eraseLocked(const std::string& key);
    /// whether dir's index still holds key in file number (nothing replaced
    /// or removed it since a lookup outside the Guard)
    static bool Holds(const Dir& dir, const std::string& key, uint32_t number);

    /// indexes the store file just committed at where in dir under key
    /// (replacing older copies), tells cache_store_log (entry: its reply,
    /// if known) and evicts past cache_swap_high; under the shelf's Guard
    void indexStored(Dir& dir, const std::string& key, const Location& where, const Store::Entry* entry);
    /// when error says the disk is full (ENOSPC, EDQUOT) and dir still
    /// stores: dir stores nothing more until the next start, said in
    /// cache.log, and true. Under the Guard.
    bool noteFull(Dir& dir, int error);
    /// removes the file at path on an I/O thread
    void removeLater(std::string path);
    /// gives up the parts under key (the file goes once no PartWriter
    /// writes into it); whether there were any. Under the Guard.
    bool dropPartLocked(const std::string& key);
    /// whether dir may hold the parts of one more object of length bytes
    /// (the objects whose parts it holds take at most half of it), after
    /// dropping those least recently used that no one writes. Under the Guard.
    bool makeRoomForPart(Dir& dir, uint64_t length);
    /// removes a part object no writer writes into any more, and its file. Under the Guard.
    void forgetPart(PartObject& object);
    /// stops this Cache's PartWriters (it stops) and uncounts them from their objects
    void stopPartWriters();
    /// makes the file of object, whose spans cover it, a store file. Under the Guard.
    void commitPart(PartObject& object);
    /// the commit of the parts under key ended (error: its errno, or 0):
    /// indexes the store file it made, as noteCommitted() a Writer's
    void notePartCommitted(const std::string& key, int error);

    Writing& writingOf(const Writer& writer);
    /// raises the block pool's cap on free mapped bytes while objects are
    /// being written (writing), puts it back when none is (doc/design.md
    /// "The disk store")
    void keepBlocksForWriters(bool writing);
    void noteScanned(Dir& dir, ScanResult&& result);

    Comm::Loop& loop_;
    IoPool pool_;
    const std::shared_ptr<Shelf> shelf_; ///< the cache_dirs, perhaps other workers' too
    std::vector<Writing> writers_;       ///< every object this Cache is writing
    /// the block pool's cap on free mapped bytes before writers_ raised it
    /// (keepBlocksForWriters()); empty: not raised
    std::optional<size_t> poolFreeCapBefore_;
    uint64_t maximumObjectSize_;                ///< maximum_object_size
    unsigned swapLow_;                          ///< cache_swap_low
    unsigned swapHigh_;                         ///< cache_swap_high
    Config::StoreDirSelect select_;             ///< store_dir_select_algorithm
    Comm::Clock::time_point nextBusyWarning_{}; ///< store() says it refuses at most once a minute
    bool behind_ = false; ///< the I/O threads fell MaxBacklog / 4 jobs behind since the writers last ran out
    StoreObserver storeObserver_;                          ///< cache_store_log, or empty
    std::vector<std::unique_ptr<PartWriter>> partWriters_; ///< the parts being written
    bool stopping_ = false; ///< the destructor runs: writers finishing tell no one
};

} // namespace Disk
