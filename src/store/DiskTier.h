/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Store::DiskTier: what the cache transaction's decisions
/// (Store::LookUp(), Store::Admit()) need of the disk store behind
/// cache_dir, which implements it (Disk::Cache; doc/design.md "The disk
/// store"). The store part stays below the disk part: it names only this
/// interface. Store::StoredFile is a disk hit's body: an open file and the
/// range of it that is the body, sent to the client with sendfile(2)
/// (Store::BodyWriter::setFileBody()).

#pragma once

#include "base/RefCount.h"
#include "sbuf/Slice.h"
#include "store/forward.h"

#include <cerrno>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <sys/uio.h>
#include <unistd.h>
#include <vector>

namespace Store {

/// what ReadCachedAt() found
enum class CachedRead {
    Read,    ///< all the bytes, from the page cache
    Cold,    ///< some are not in the page cache: reading them would wait for the disk
    Unknown, ///< the file system cannot tell (nothing read)
    Failed   ///< the end of the file, or an error
};

/// Reads exactly size bytes of file fd at offset without ever waiting for
/// the disk (preadv2 with RWF_NOWAIT, retried on EINTR and short reads): a
/// disk hit's head (Disk::Cache::open()) and the last byte of each sendfile()
/// (BodyWriter) are read this way, and warmed off the loop when Cold.
inline CachedRead ReadCachedAt(int fd, char* into, size_t size, uint64_t offset)
{
    while (size) {
        iovec iov{into, size};
        const ssize_t n = ::preadv2(fd, &iov, 1, static_cast<off_t>(offset), RWF_NOWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return CachedRead::Cold;
        if (n < 0 && errno == EOPNOTSUPP)
            return CachedRead::Unknown;
        if (n <= 0)
            return CachedRead::Failed;
        into += n;
        size -= size_t(n);
        offset += uint64_t(n);
    }
    return CachedRead::Read;
}

/// The body of a disk hit: bytes [offset, offset + length) of an open file.
class StoredFile final : public RefCountable {
public:
    /// takes ownership of fd
    StoredFile(int fd, uint64_t offset, uint64_t length) : fd_(fd), offset_(offset), length_(length) {}
    ~StoredFile() override
    {
        if (fd_ >= 0)
            ::close(fd_);
    }
    StoredFile(const StoredFile&) = delete;
    StoredFile& operator=(const StoredFile&) = delete;

    /// the open file (owned)
    int fd() const { return fd_; }
    /// where the body starts in it
    uint64_t offset() const { return offset_; }
    /// the body's bytes
    uint64_t length() const { return length_; }

private:
    int fd_;
    uint64_t offset_;
    uint64_t length_;
};

/// An object found in the disk store: its reply head (a complete entry with
/// no body bytes in memory) and its body's file.
struct DiskObject {
    EntryRef entry;     ///< the reply head (Entry::reply()), complete, empty body; null: cold
    StoredFileRef file; ///< the body; when cold, the front of the file (warm() it, then find() again)
};

/// A span of an object's parts held in the disk store, to serve by offset.
struct DiskPart {
    EntryRef entry;      ///< the whole object's reply head, complete, empty body
    StoredFileRef file;  ///< the span's bytes
    uint64_t offset = 0; ///< the object offset of the span's first byte
};

/// The disk store, as the cache's decisions see it.
class DiskTier {
public:
    virtual ~DiskTier() = default;
    /// the object stored under key (a MakeKey(), or a variant key),
    /// opened and checked; nothing when none (or its file failed the
    /// checks). Counts a hit in the disk store. Unless mayWait, a file
    /// whose front (its reply head) is not in the page cache is not read:
    /// the object comes back cold (no entry), for the caller to warm().
    virtual std::optional<DiskObject> find(const std::string& key, bool mayWait) = 0;
    /// the Vary names (VaryNames()) of the variants stored under key (a
    /// MakeKey()), or nothing when none is
    virtual std::optional<std::string> varyNames(const std::string& key) const = 0;
    /// whether a cache_dir takes an object of this body size (nullopt: unknown)
    virtual bool admits(std::optional<uint64_t> size) const = 0;
    /// starts storing entry (its head arrived, no body byte released) under
    /// key (a variant key for a Vary reply: it replaces an object under its
    /// base key, and variants of other Vary names); false when no cache_dir takes it
    virtual bool store(const std::string& key, const EntryRef& entry, std::optional<uint64_t> size) = 0;
    /// forgets the object under key (its file is removed), and every variant
    /// when key is a MakeKey(); whether there was one
    virtual bool erase(const std::string& key) = 0;
    /// reads the whole of file (a disk hit's body) into new blocks on the
    /// I/O threads, then calls done on the loop with their slices (none when
    /// the read failed)
    virtual void readBody(const StoredFileRef& file,
                          std::function<void(std::vector<Sbuf::Slice>&&)> done) = 0;
    /// replaces the stored reply head of the object under key with reply's
    /// (a 304 freshened it: FreshenStored()), without rewriting its body
    virtual void freshen(const std::string& key, const Reply& reply) = 0;
    /// reads bytes [offset, offset + length) of file (offsets in the file)
    /// on an I/O thread, so that they are in the page cache, then calls
    /// done on the loop: a hit whose next bytes are cold
    /// (BodyWriter::Result::Cold) sends them once they are warm, and
    /// sendfile() does not wait for the disk on the loop
    virtual void warm(const StoredFileRef& file, uint64_t offset, uint64_t length,
                      std::function<void()> done) = 0;

    /* parts of objects (doc/caching.md "Partial objects") */

    /// Starts writing entry (a 206 of facts.range, its head arrived, its
    /// body from its first byte) into the file of the object under key,
    /// whose whole reply head is whole (Parts::WholeReplyOf()); parts under
    /// another validator are dropped. When the parts cover the object it
    /// becomes a stored object. False when no cache_dir takes the object.
    virtual bool storePart(const std::string& key, const EntryRef& entry, const PartFacts& facts,
                           std::unique_ptr<Reply> whole) = 0;
    /// the whole reply head of the object whose parts are held under key
    /// (with some bytes written), or null
    virtual std::unique_ptr<Reply> partHead(const std::string& key) = 0;
    /// the held span of the object under key that holds [first, end), opened; nothing when none does
    virtual std::optional<DiskPart> findPart(const std::string& key, uint64_t first, uint64_t end) = 0;
};

} // namespace Store
