/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "disk/Cache.h"
#include "base/Heap.h"
#include "base/TextException.h"
#include "log/CacheLog.h"
#include "http/ReplyParser.h"
#include "sbuf/BlockPool.h"
#include "sbuf/MemBlob.h"
#include "store/Entry.h"
#include "store/Key.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <span>
#include <sys/stat.h>
#include <unistd.h>

namespace {

/// removes one file, on an I/O thread
class RemoveJob final : public Disk::IoJob {
public:
    explicit RemoveJob(std::string path) : path_(std::move(path)) {}
    void run() noexcept override { (void)::unlink(path_.c_str()); }
    void finish() override {}

private:
    std::string path_;
};

/// replaces the reply head of one store file (Disk::RewriteHead()), on an I/O thread
class HeadJob final : public Disk::IoJob {
public:
    using Done = std::function<void(Disk::Rewrite, int error)>;
    HeadJob(std::string path, std::string key, std::string head, int64_t requestTime, int64_t responseTime,
            Done done)
        : path_(std::move(path)), key_(std::move(key)), head_(std::move(head)), requestTime_(requestTime),
          responseTime_(responseTime), done_(std::move(done))
    {}
    void run() noexcept override
    {
        Comm::Descriptor file(::open(path_.c_str(), O_RDWR | O_CLOEXEC));
        if (!file.isOpen()) {
            error_ = errno; // removed meanwhile (replaced, evicted, purged)
            return;
        }
        result_ = Disk::RewriteHead(file.get(), key_, head_, requestTime_, responseTime_, error_);
    }
    void finish() override { done_(result_, error_); }

private:
    std::string path_;
    std::string key_;
    std::string head_;
    int64_t requestTime_;
    int64_t responseTime_;
    Done done_;
    Disk::Rewrite result_ = Disk::Rewrite::Failed;
    int error_ = 0;
};

/// reads a range of a disk hit's file into nowhere, on an I/O thread, so
/// that the page cache holds it (Disk::Cache::warm())
class WarmJob final : public Disk::IoJob {
public:
    WarmJob(Store::StoredFileRef file, uint64_t offset, uint64_t length, std::function<void()> done)
        : file_(std::move(file)), fd_(file_->fd()), offset_(offset), length_(length), done_(std::move(done))
    {}
    void run() noexcept override
    {
        // the file's descriptor was taken on the loop (its refcount is the loop's)
        thread_local std::vector<char> scratch(256 * 1024);
        for (uint64_t at = offset_, end = offset_ + length_; at < end;) {
            const size_t n = size_t(std::min<uint64_t>(end - at, scratch.size()));
            if (!Disk::ReadAt(fd_, scratch.data(), n, at))
                return; // sendfile() will say what is wrong
            at += n;
        }
    }
    void finish() override
    {
        file_ = nullptr;
        done_();
    }

private:
    Store::StoredFileRef file_;
    int fd_;
    uint64_t offset_;
    uint64_t length_;
    std::function<void()> done_;
};

/// reads a disk hit's body into blocks, on an I/O thread (Disk::Cache::readBody())
class ReadJob final : public Disk::IoJob {
public:
    using Done = std::function<void(std::vector<Sbuf::Slice>&&)>;
    /// blocks to fill, each with the span of it to read into
    struct Part {
        Sbuf::MemBlobRef blob;
        std::span<char> into;
    };
    ReadJob(Store::StoredFileRef file, std::vector<Part>&& parts, Done done)
        : file_(std::move(file)), fd_(file_->fd()), offset_(file_->offset()), parts_(std::move(parts)),
          done_(std::move(done))
    {}
    void run() noexcept override
    {
        // the file's descriptor and offset were taken on the loop (its refcount is the loop's)
        uint64_t at = offset_;
        for (const auto& part : parts_) {
            if (!Disk::ReadAt(fd_, part.into.data(), part.into.size(), at)) {
                failed_ = true;
                return;
            }
            at += part.into.size();
        }
    }
    void finish() override
    {
        std::vector<Sbuf::Slice> body;
        if (!failed_) {
            for (auto& part : parts_) {
                part.blob->commit(part.into.size());
                body.emplace_back(std::move(part.blob), 0, part.into.size());
            }
        }
        parts_.clear();
        file_ = nullptr;
        done_(std::move(body));
    }

private:
    Store::StoredFileRef file_;
    int fd_;
    uint64_t offset_;
    std::vector<Part> parts_;
    Done done_;
    bool failed_ = false;
};

} // namespace

Store::PolicyKind Disk::PolicyKindOf(Config::ReplacementPolicy policy)
{
    switch (policy) {
    case Config::ReplacementPolicy::HeapGdsf:
        return Store::PolicyKind::HeapGdsf;
    case Config::ReplacementPolicy::HeapLfuda:
        return Store::PolicyKind::HeapLfuda;
    case Config::ReplacementPolicy::HeapLru:
        return Store::PolicyKind::HeapLru;
    case Config::ReplacementPolicy::Lru:
        break;
    }
    return Store::PolicyKind::Lru;
}

Disk::Cache::Cache(Comm::Loop& loop, const Config::Settings& settings, std::shared_ptr<Shelf> shelf,
                   unsigned threads)
    : loop_(loop),
      pool_(loop,
            threads ? threads : std::max<unsigned>(2, static_cast<unsigned>(settings.cacheDirs.size()))),
      shelf_(shelf ? std::move(shelf) : std::make_shared<Shelf>()),
      maximumObjectSize_(settings.maximumObjectSize), swapLow_(settings.cacheSwapLow),
      swapHigh_(settings.cacheSwapHigh), select_(settings.storeDirSelect)
{
    const Shelf::Guard guard(*shelf_);
    if (shelf_->made)
        return; // another worker's Cache made the cache_dirs and rebuilds their indexes
    std::vector<std::unique_ptr<Dir>> dirs;
    for (const auto& config : settings.cacheDirs) {
        auto dir = std::make_unique<Dir>(config);
        if (const auto unusable = dir->layout.check(!config.noStore); !unusable.empty())
            Throw("cache_dir " + unusable + " (" + config.origin + ")");
        dirs.push_back(std::move(dir));
    }
    shelf_->dirs = std::move(dirs);
    shelf_->made = true;
    // the indexes are rebuilt from the files, off the loop (Disk/Rebuild.h)
    for (auto& dir : shelf_->dirs) {
        dir->scanning = dir->layout.l1();
        Dir* scanned = dir.get();
        for (unsigned a = 0; a < dir->layout.l1(); ++a) {
            pool_.submit(std::make_unique<ScanJob>(dir->layout, a, [this, scanned](ScanResult&& result) {
                noteScanned(*scanned, std::move(result));
            }));
        }
    }
}

void Disk::Cache::noteScanned(Dir& dir, ScanResult&& result)
{
    const Shelf::Guard guard(*shelf_);
    for (auto& found : result.objects) {
        dir.nextFile = std::max(dir.nextFile, found.where.fileNumber + 1);
        // two files of one key (a replacement a stop interrupted): the later one stays
        if (const auto other = dir.index.find(found.key);
            other && other->fileNumber > found.where.fileNumber) {
            removeFile(dir, Store::HashKey(found.key), found.where.fileNumber);
            continue;
        }
        if (const auto replaced = dir.index.insert(found.key, found.where))
            removeFile(dir, Store::HashKey(found.key), replaced->fileNumber);
        noteStored(found.key);
    }
    if (result.removed)
        debugs(47, 1,
               "cache_dir " << dir.config.path << ": removed " << result.removed
                            << " temporary or torn files");
    std::vector<ScannedObject>().swap(result.objects); // before the heap goes back, below
    if (--dir.scanning)
        return;
    dir.index.orderByFileNumber(); // the scans' order is no order of use (doc/design.md "Rebuild")
    debugs(47, 1,
           "cache_dir " << dir.config.path << ": rebuilt its index: " << dir.index.objectCount()
                        << " objects, " << dir.index.diskBytes() / 1024 << " KB");
    evict(dir);
    // the scans' keys and lists, as big as the index, are free now but kept
    // by the allocator: hand them back once every cache_dir is rebuilt
    const auto& dirs = shelf_->dirs;
    if (std::none_of(dirs.begin(), dirs.end(), [](const auto& d) { return d->scanning != 0; }))
        Base::ReleaseFreeHeap();
}

Disk::Cache::~Cache()
{
    stopping_ = true;
    stopPartWriters();
    for (auto& w : writers_)
        w.writer->abandon();
    pool_.drain();
    keepBlocksForWriters(false);
}

bool Disk::Cache::takes(const Dir& dir, std::optional<uint64_t> size) const
{
    if (dir.config.noStore || dir.full || dir.scanning)
        return false;
    const uint64_t limit = std::min(maximumObjectSize_, dir.config.maxSize.value_or(maximumObjectSize_));
    if (size && (*size > limit || *size < dir.config.minSize))
        return false;
    return true;
}

bool Disk::Cache::admits(std::optional<uint64_t> size) const
{
    const Shelf::Guard guard(*shelf_);
    const auto& dirs = shelf_->dirs;
    return std::any_of(dirs.begin(), dirs.end(), [&](const auto& dir) { return takes(*dir, size); });
}

Disk::Cache::Dir* Disk::Cache::pick(std::optional<uint64_t> size)
{
    auto& dirs = shelf_->dirs;
    if (dirs.empty())
        return nullptr;
    if (select_ == Config::StoreDirSelect::RoundRobin) {
        for (size_t tried = 0; tried < dirs.size(); ++tried) {
            Dir& dir = *dirs[shelf_->nextDir++ % dirs.size()];
            if (takes(dir, size))
                return &dir;
        }
        return nullptr;
    }
    // least-load: the most room left, objects being written counted
    Dir* best = nullptr;
    int64_t bestRoom = 0;
    for (auto& dir : dirs) {
        if (!takes(*dir, size))
            continue;
        const int64_t room = int64_t(dir->config.maxBytes) -
                             int64_t(dir->index.diskBytes() + dir->writingBytes + dir->partBytes);
        if (!best || room > bestRoom) {
            best = dir.get();
            bestRoom = room;
        }
    }
    return best;
}

bool Disk::Cache::store(const std::string& key, const Store::EntryRef& entry, std::optional<uint64_t> size)
{
    {
        const Shelf::Guard guard(*shelf_);
        dropPartLocked(key); // the whole object makes its parts useless
    }
    // the writer needs the body from its first byte
    if (!entry->reply() || entry->body().startOffset() != 0 || entry->body().firstSequence() != 0)
        return false;
    const size_t backlog = pool_.stats().pending;
    behind_ = behind_ || backlog >= MaxBacklog / 4;
    if (backlog >= MaxBacklog) {
        {
            const Shelf::Guard guard(*shelf_);
            ++shelf_->counters.busy;
        }
        if (loop_.now() >= nextBusyWarning_) {
            debugs(47, 1,
                   "WARNING: the disk store is "
                       << MaxBacklog << " jobs behind: new objects are not stored until it catches up");
            nextBusyWarning_ = loop_.now() + std::chrono::minutes(1);
        }
        return false;
    }
    Dir* dir = nullptr;
    uint32_t number = 0;
    {
        const Shelf::Guard guard(*shelf_);
        dir = pick(size);
        if (!dir)
            return false;
        number = dir->nextFile++;
        dir->writingBytes += size.value_or(0);
        ++shelf_->counters.writing;
    }
    // a Dir's config and layout never change once made
    const uint64_t limit = std::min(maximumObjectSize_, dir->config.maxSize.value_or(maximumObjectSize_));
    auto writer = std::make_unique<Writer>(*this, pool_, entry, key, number, dir->layout.tempPathOf(number),
                                           dir->layout.pathOf(number), limit);
    writers_.push_back(Writing{std::move(writer), dir, size.value_or(0)});
    keepBlocksForWriters(true);
    debugs(20, 3, "storing " << key << " in " << dir->layout.pathOf(number));
    return true;
}

Disk::Cache::Writing& Disk::Cache::writingOf(const Writer& writer)
{
    for (auto& w : writers_) {
        if (w.writer.get() == &writer)
            return w;
    }
    Throw("a disk writer its cache does not know");
}

void Disk::Cache::noteCommitted(Writer& writer)
{
    auto& w = writingOf(writer);
    Dir& dir = *w.dir;
    const Shelf::Guard guard(*shelf_);
    const Location where{writer.fileNumber(), static_cast<uint32_t>(writer.key().size()),
                         writer.slotsLength(), writer.bodyLength()};
    indexStored(dir, writer.key(), where, writer.entry());
    release(writer);
}

void Disk::Cache::indexStored(Dir& dir, const std::string& key, const Location& where,
                              const Store::Entry* entry)
{
    ++shelf_->counters.stored;
    const auto hash = Store::HashKey(key);
    if (const auto replaced = dir.index.insert(key, where))
        removeFile(dir, hash, replaced->fileNumber);
    // another cache_dir may hold an older copy
    for (auto& other : shelf_->dirs) {
        if (other.get() != &dir) {
            if (const auto old = other->index.erase(key))
                removeFile(*other, hash, old->fileNumber);
        }
    }
    noteStored(key);
    // parts of it that a 206 racing the whole object began are of no use now
    dropPartLocked(key);
    if (storeObserver_ && entry)
        storeObserver_("SWAPOUT", hash, key, placeOf(dir), where.fileNumber, *entry);
    evict(dir);
}

bool Disk::Cache::noteFull(Dir& dir, int error)
{
    if ((error != ENOSPC && error != EDQUOT) || dir.full)
        return false;
    dir.full = true;
    debugs(47, 0,
           "WARNING: cache_dir "
               << dir.config.path << ": " << std::strerror(error)
               << "; storing in it stopped until the next start, its objects are still served");
    return true;
}

void Disk::Cache::noteAbandoned(Writer& writer, int error)
{
    auto& w = writingOf(writer);
    const Shelf::Guard guard(*shelf_);
    ++shelf_->counters.abandoned;
    if (!noteFull(*w.dir, error) && error) {
        debugs(47, 1,
               "ERROR: cache_dir " << w.dir->config.path << ": cannot write " << writer.key() << ": "
                                   << std::strerror(error));
    }
    release(writer);
}

void Disk::Cache::release(Writer& writer)
{
    auto& w = writingOf(writer);
    shelf_->counters.bytesWritten += writer.written();
    --shelf_->counters.writing;
    w.dir->writingBytes -= std::min(w.dir->writingBytes, w.counted);
    // the writer is inside its own call: destroy it from the loop
    Writer* gone = &writer;
    loop_.callSoon([this, gone] {
        const auto it = std::find_if(writers_.begin(), writers_.end(),
                                     [gone](const Writing& each) { return each.writer.get() == gone; });
        if (it != writers_.end())
            writers_.erase(it);
        if (writers_.empty()) {
            keepBlocksForWriters(false);
            // what a long backlog held (blocks, entries, writers) is free
            // now but kept by the allocator: hand it back once per burst
            if (behind_) {
                behind_ = false;
                Base::ReleaseFreeHeap();
            }
        }
    });
}

void Disk::Cache::keepBlocksForWriters(bool writing)
{
    // doc/design.md "The disk store" ("Blocks"): a writer gives its blocks
    // back a job at a time, up to 2 x MaxPendingBytes at once; over the
    // pool's free cap they would be unmapped and the next reads would map
    // (and fault in) fresh ones, a page fault per 4 KB stored
    auto& blocks = Sbuf::DefaultPool();
    if (writing && !poolFreeCapBefore_) {
        poolFreeCapBefore_ = blocks.maxFreeMappedBytes();
        blocks.setMaxFreeMappedBytes(*poolFreeCapBefore_ + 2 * Writer::MaxPendingBytes);
    } else if (!writing && poolFreeCapBefore_) {
        blocks.setMaxFreeMappedBytes(*poolFreeCapBefore_); // what the writers kept is unmapped now
        poolFreeCapBefore_.reset();
    }
}

int Disk::Cache::placeOf(const Dir& dir) const
{
    const auto& dirs = shelf_->dirs;
    for (size_t i = 0; i < dirs.size(); ++i) {
        if (dirs[i].get() == &dir)
            return static_cast<int>(i);
    }
    return -1;
}

void Disk::Cache::removeFile(Dir& dir, const Store::KeyHash& hash, uint32_t fileNumber)
{
    if (storeObserver_) {
        const auto released = MakeRef<Store::Entry>(1); // no reply: its head is on disk
        storeObserver_("RELEASE", hash, "", placeOf(dir), fileNumber, *released);
    }
    pool_.submit(std::make_unique<RemoveJob>(dir.layout.pathOf(fileNumber)));
}

void Disk::Cache::evict(Dir& dir)
{
    // the objects whose parts it holds take their room too (their files
    // grow to their whole length)
    const uint64_t high = dir.config.maxBytes / 100 * swapHigh_;
    if (dir.index.diskBytes() + dir.partBytes <= high)
        return;
    const uint64_t low = dir.config.maxBytes / 100 * swapLow_;
    while (dir.index.diskBytes() + dir.partBytes > low) {
        const auto evicted = dir.index.evict();
        if (!evicted)
            break;
        if (!evicted->variantKey.empty())
            forgetVariant(evicted->variantKey);
        ++shelf_->counters.evictions;
        removeFile(dir, evicted->hash, evicted->where.fileNumber);
    }
}

bool Disk::Cache::contains(const std::string& key) const
{
    const Shelf::Guard guard(*shelf_);
    const auto& dirs = shelf_->dirs;
    return std::any_of(dirs.begin(), dirs.end(), [&](const auto& dir) { return bool(dir->index.find(key)); });
}

bool Disk::Cache::Holds(const Dir& dir, const std::string& key, uint32_t number)
{
    const auto where = dir.index.find(key);
    return where && where->fileNumber == number;
}

std::optional<Disk::Hit> Disk::Cache::open(const std::string& key, bool mayWait)
{
    // the index is asked under the Guard, the file read outside it: another
    // worker may replace, evict or purge the object meanwhile (its file is
    // then removed, or a new one named), which the second look tells
    for (size_t place = 0;; ++place) {
        Dir* dir = nullptr;
        std::optional<Location> where;
        {
            const Shelf::Guard guard(*shelf_);
            if (place >= shelf_->dirs.size())
                return std::nullopt;
            dir = shelf_->dirs[place].get();
            where = dir->index.find(key);
        }
        if (!where)
            continue;
        const auto path = dir->layout.pathOf(where->fileNumber);
        Hit hit;
        hit.file = Comm::Descriptor(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
        // the header, key and head: a few KB at the file's start
        std::string front(where->fileSize() - where->bodyLength, '\0');
        struct stat st {};
        std::optional<Meta> meta;
        if (hit.file.isOpen()) {
            using Store::CachedRead;
            auto read = mayWait ? CachedRead::Unknown
                                : Store::ReadCachedAt(hit.file.get(), front.data(), front.size(), 0);
            if (read == CachedRead::Cold) {
                hit.cold = true;
                hit.bodyOffset = front.size();
                return hit;
            }
            if (read == CachedRead::Unknown)
                read = ReadAt(hit.file.get(), front.data(), front.size(), 0) ? CachedRead::Read
                                                                             : CachedRead::Failed;
            if (read == CachedRead::Read)
                meta = DecodeHeader(front);
        }
        const bool whole = meta && ::fstat(hit.file.get(), &st) == 0 &&
                           uint64_t(st.st_size) == meta->fileSize() &&
                           meta->bodyLength == where->bodyLength && FrontMatches(*meta, front);
        if (whole && KeyIn(*meta, front) != key) {
            debugs(47, 2,
                   "cache_dir " << dir->config.path << ": " << path << " holds another key of the same hash");
            continue; // a key sharing the hash of key (Index.h): key is not stored
        }
        const Shelf::Guard guard(*shelf_);
        if (!whole) {
            if (!Holds(*dir, key, where->fileNumber) || dir->rewriting.count(where->fileNumber))
                return std::nullopt; // replaced or removed meanwhile, or read while its head was being
                                     // replaced
            debugs(47, 1,
                   "WARNING: cache_dir " << dir->config.path << ": " << path
                                         << " is torn or partial; removed");
            ++shelf_->counters.refused;
            dir->index.erase(key);
            forgetVariant(key);
            removeFile(*dir, Store::HashKey(key), where->fileNumber);
            return std::nullopt;
        }
        hit.head = std::string(HeadIn(*meta, front));
        hit.meta = *meta;
        hit.bodyOffset = meta->bodyOffset();
        hit.bodyLength = meta->bodyLength;
        if (Holds(*dir, key, where->fileNumber))
            dir->index.touch(key);
        ++shelf_->counters.hits;
        return hit;
    }
}

void Disk::Cache::freshen(const std::string& key, const Store::Reply& reply)
{
    const Shelf::Guard guard(*shelf_);
    for (auto& dir : shelf_->dirs) {
        const auto where = dir->index.find(key);
        if (!where)
            continue;
        const uint32_t number = where->fileNumber;
        // one rewrite of a file at a time: a second would write the slot the first names
        if (!dir->rewriting.insert(number).second) {
            debugs(20, 3, "not freshening " << key << " on disk: its head is being replaced already");
            return;
        }
        Dir* in = dir.get();
        pool_.submit(std::make_unique<HeadJob>(
            in->layout.pathOf(number), key, std::string(reply.head), reply.requestTime, reply.responseTime,
            [this, in, number, key](Rewrite result, int error) {
                {
                    const Shelf::Guard later(*shelf_);
                    in->rewriting.erase(number);
                    if (result == Rewrite::Done)
                        ++shelf_->counters.freshened;
                }
                debugs(20, 3,
                       "freshening " << key << " on disk: "
                                     << (result == Rewrite::Done         ? "done"
                                         : result == Rewrite::NoRoom     ? "the new head outgrew its room"
                                         : result == Rewrite::NotThisKey ? "the file is another's"
                                                                         : std::strerror(error)));
            }));
        return;
    }
}

void Disk::Cache::readBody(const Store::StoredFileRef& file,
                           std::function<void(std::vector<Sbuf::Slice>&&)> done)
{
    // the blocks are made here: the pool is the loop's
    std::vector<ReadJob::Part> parts;
    for (uint64_t left = file->length(); left;) {
        auto blob = Sbuf::MemBlob::Make(Sbuf::DefaultPool(), std::min<uint64_t>(left, 64 * 1024));
        const auto space = blob->reserveSpace();
        const size_t n = std::min<uint64_t>(left, space.size());
        parts.push_back(ReadJob::Part{std::move(blob), space.first(n)});
        left -= n;
    }
    {
        const Shelf::Guard guard(*shelf_);
        ++shelf_->counters.bodiesRead;
    }
    pool_.submit(std::make_unique<ReadJob>(file, std::move(parts), std::move(done)));
}

void Disk::Cache::warm(const Store::StoredFileRef& file, uint64_t offset, uint64_t length,
                       std::function<void()> done)
{
    {
        const Shelf::Guard guard(*shelf_);
        ++shelf_->counters.warmed;
    }
    pool_.submit(std::make_unique<WarmJob>(file, offset, length, std::move(done)));
}

bool Disk::Cache::eraseExact(const std::string& key)
{
    bool erased = false;
    for (auto& dir : shelf_->dirs) {
        if (const auto where = dir->index.erase(key)) {
            removeFile(*dir, Store::HashKey(key), where->fileNumber);
            erased = true;
        }
    }
    return erased;
}

bool Disk::Cache::erase(const std::string& key)
{
    const Shelf::Guard guard(*shelf_);
    const bool parts = dropPartLocked(key);
    return eraseLocked(key) || parts;
}

void Disk::Cache::removeLater(std::string path)
{
    pool_.submit(std::make_unique<RemoveJob>(std::move(path)));
}

bool Disk::Cache::eraseLocked(const std::string& key)
{
    auto& variants = shelf_->variants;
    bool erased = eraseExact(key);
    if (Store::BaseKey(key) != key) {
        forgetVariant(key);
        return erased;
    }
    if (const auto it = variants.find(key); it != variants.end()) {
        const auto keys = std::move(it->second.keys);
        variants.erase(it);
        for (const auto& variant : keys)
            erased = eraseExact(variant) || erased;
    }
    return erased;
}

void Disk::Cache::noteStored(const std::string& key)
{
    // one kind of object per URL, as the memory index keeps it (Store::Index::insert())
    const std::string base(Store::BaseKey(key));
    if (base == key) {
        // a plain object replaces the variants
        if (const auto it = shelf_->variants.find(key); it != shelf_->variants.end()) {
            const auto keys = std::move(it->second.keys);
            shelf_->variants.erase(it);
            for (const auto& variant : keys)
                eraseExact(variant);
        }
        return;
    }
    auto names = Store::VaryNamesOfVariantKey(key);
    auto& variants = shelf_->variants[base];
    if (variants.names != names) {
        // other Vary names replace the variants (and the plain object)
        const auto keys = std::move(variants.keys);
        variants.keys.clear();
        variants.names = std::move(names);
        for (const auto& variant : keys)
            eraseExact(variant);
    }
    if (std::find(variants.keys.begin(), variants.keys.end(), key) == variants.keys.end())
        variants.keys.push_back(key);
    eraseExact(base);
}

void Disk::Cache::forgetVariant(std::string_view key)
{
    const auto base = Store::BaseKey(key);
    if (base == key)
        return;
    auto& variants = shelf_->variants;
    const auto it = variants.find(std::string(base));
    if (it == variants.end())
        return;
    auto& keys = it->second.keys;
    keys.erase(std::remove(keys.begin(), keys.end(), key), keys.end());
    if (keys.empty())
        variants.erase(it);
}

std::optional<std::string> Disk::Cache::varyNames(const std::string& key) const
{
    const Shelf::Guard guard(*shelf_);
    const auto& variants = shelf_->variants;
    const auto it = variants.find(key);
    return it == variants.end() ? std::nullopt : std::optional<std::string>(it->second.names);
}

Store::EntryRef Disk::EntryOfHead(std::string_view head, int64_t requestTime, int64_t responseTime,
                                  uint64_t bodyLength)
{
    auto block = Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), head);
    Http::ReplyParser parser(block->size() + 1);
    if (parser.parse(block->view()) != Http::ParseResult::Done)
        return nullptr;
    auto reply = std::make_unique<Store::Reply>();
    reply->block = block;
    reply->head = block->view().substr(0, parser.headSize());
    reply->status = parser.statusCode();
    reply->setReason(parser.reason());
    reply->versionMajor = parser.versionMajor();
    reply->versionMinor = parser.versionMinor();
    reply->setFields(parser.fields());
    reply->requestTime = requestTime;
    reply->responseTime = responseTime;
    // the body's length is known exactly: it is sent with a Content-Length
    reply->contentLength = bodyLength;
    auto entry = MakeRef<Store::Entry>(1);
    entry->setReply(std::move(reply));
    entry->complete();
    return entry;
}

std::optional<Store::DiskObject> Disk::Cache::find(const std::string& key, bool mayWait)
{
    auto hit = open(key, mayWait);
    if (!hit)
        return std::nullopt;
    if (hit->cold) // the front of the file, to warm
        return Store::DiskObject{nullptr,
                                 MakeRef<Store::StoredFile>(hit->file.release(), 0, hit->bodyOffset)};
    auto entry = EntryOfHead(hit->head, hit->meta.requestTime, hit->meta.responseTime, hit->bodyLength);
    if (!entry) {
        erase(key); // a head cuttle stored but cannot parse again: not served
        return std::nullopt;
    }
    Store::DiskObject found;
    found.entry = std::move(entry);
    found.file = MakeRef<Store::StoredFile>(hit->file.release(), hit->bodyOffset, hit->bodyLength);
    return found;
}

Disk::CacheStats Disk::Cache::stats() const
{
    const Shelf::Guard guard(*shelf_);
    auto s = shelf_->counters;
    for (const auto& dir : shelf_->dirs) {
        s.dirs.push_back(DirStats{dir->config.path, dir->config.type, dir->config.maxBytes,
                                  dir->index.diskBytes(), dir->index.objectCount(), dir->full,
                                  dir->scanning != 0, std::string(dir->index.policyName())});
        for (const auto& [key, object] : shelf_->parts)
            s.dirs.back().partialObjects += object->dir == dir.get();
    }
    return s;
}
