/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Sbuf::MemBlob: a refcounted block of bytes, filled from the front,
/// never changed once published.
///
/// Layout
///
///     MemBlob (heap object, 40 B)         block from BlockPool (capacity B)
///     +-----------------------+           +----------------------+-------------+
///     | vptr, refcount        |    data_->| published: size()    | space       |
///     | pool_  data_          |---------->| (read-only forever)  | spaceSize() |
///     | capacity_  size_      |           +----------------------+-------------+
///     +-----------------------+           0                  size_        capacity_
///
/// Filling (Envoy's reserve/commit): the writer asks for the space after the
/// published bytes (reserveSpace(), or space() + spaceSize()), read(2)s into
/// it, then commit(n)s what the read returned. Committed bytes are published:
/// no one may change them again, so any number of Slices may point
/// at them with no copy and no lock. A short read leaves the rest of the space
/// open for the next read; the block is full when spaceSize() is 0.
///
/// Ownership and sharing: a MemBlob is reached only through MemBlobRef
/// (RefCount<MemBlob>). Slices and the writer each hold one reference;
/// when the last goes, the block goes back to the pool it came from. Only one
/// writer may fill a blob (the one that made it, e.g. the origin side).
///
/// Threading: a blob belongs to one event loop, as does its pool. The count is
/// plain unless CUTTLE_ATOMIC_REFCOUNT is defined (see base/RefCount.h); even
/// then, only published bytes may be read from another thread.

#pragma once

#include "base/RefCount.h"
#include "sbuf/forward.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace Sbuf {

/// A refcounted block of fixed capacity from a BlockPool: bytes are appended
/// at the end and never changed once committed.
class MemBlob final : public RefCountable {
public:
    /// a new empty blob of capacity BlockPool::RoundUp(minCapacity) from pool;
    /// throws TextException when minCapacity > BlockPool::MaxBlockSize
    static MemBlobRef Make(BlockPool& pool, size_t minCapacity);
    /// a new blob from pool holding a copy of bytes (for small non-body data
    /// such as serialized headers; body bytes sent from it count as copies,
    /// see copiedEnd())
    static MemBlobRef MakeCopy(BlockPool& pool, std::string_view bytes);
    /// a new empty blob of exactly this capacity, made with its bytes in the
    /// same allocation as the MemBlob itself and from no pool (pool() must not
    /// be called): for a small object kept for long, where rounding up to a
    /// size class would waste up to half the block (Store::Entry::compactIfSmall()).
    /// The allocation also holds trailerBytes more for the caller (trailer()).
    static MemBlobRef MakeExact(size_t capacity, size_t trailerBytes = 0);
    /// frees what MakeExact() or Make() allocated (an exact blob is larger than the class)
    static void operator delete(void* p) { ::operator delete(p); }

    /// gives the block back to its pool
    ~MemBlob() override;
    MemBlob(const MemBlob&) = delete;
    MemBlob& operator=(const MemBlob&) = delete;

    /// the first byte of the block
    const char* data() const { return data_; }
    /// the published bytes
    std::string_view view() const { return {data_, size_}; }
    /// bytes published so far
    size_t size() const { return size_; }
    /// the block size (a pool size class)
    size_t capacity() const { return capacity_; }
    /// whether nothing has been published
    bool isEmpty() const { return size_ == 0; }
    /// whether no space is left
    bool isFull() const { return size_ == capacity_; }

    /// the first unpublished byte, where the next read goes
    char* space() { return data_ + size_; }
    /// bytes left after the published ones
    size_t spaceSize() const { return capacity_ - size_; }
    /// the unpublished space, for read(2)/recv(2); then commit() what arrived
    std::span<char> reserveSpace() { return {space(), spaceSize()}; }
    /// publishes the next n bytes of space (after a read returned n);
    /// throws when n > spaceSize()
    void commit(size_t n);
    /// copies bytes into the space and publishes them; returns how many fit
    /// (less than bytes.size() when the block fills up)
    size_t append(std::string_view bytes);
    /// The published bytes below this offset may have been copied in by
    /// append() (a user-space copy); those above it came through commit()
    /// (a read). Store::BodyWriter counts body bytes it sends from below it
    /// in CopyStats, so that a body copied on its way is seen (doc/design.md).
    size_t copiedEnd() const { return copiedEnd_; }

    /// the pool the block came from; must not be called for a MakeExact() blob
    BlockPool& pool() const { return *pool_; }
    /// whether the block came from a pool (false: a MakeExact() blob)
    bool isPooled() const { return pool_ != nullptr; }
    /// the trailerBytes a MakeExact() blob was made with, after the block
    /// and aligned for uint32_t: never part of the published bytes, for the
    /// caller's own data that should live as long as the blob (the field
    /// index of a compacted object's head)
    std::byte* trailer() const;

private:
    MemBlob(BlockPool* pool, char* data, size_t capacity);

    uint32_t copiedEnd_ = 0; ///< see copiedEnd()
    BlockPool* pool_;        ///< where the block goes back to; null for a MakeExact() blob
    char* data_;             ///< the block; owned
    uint32_t capacity_;      ///< the block size (at most 4 MB)
    uint32_t size_ = 0;      ///< published bytes, from data_
};

} // namespace Sbuf
