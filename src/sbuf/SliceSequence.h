/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Sbuf::SliceSequence: the body of a store entry as a sequence of
/// slices over refcounted blocks, with O(1) forward moves and O(log n) seeks.
///
/// Layout
///
///     released (seq 5, 6)   held
///     .....................|<-- slice 7 -->|<-- slice 8 -->|<------ slice 9 ------>|
///     blocks:              [blob A 100..4K ][blob B 0..4K   ][blob C 0..9K           ]
///     absolute offsets:    startOffset()    end[7]          end[8]         end[9] = endOffset()
///
///     storage: entries_ -> inline_[2]  (one or two slices: no heap at all)
///                      or -> heap ring [cap = 2^k], head_ .. head_+count_-1
///     each entry = { Slice (blob ref, offset, length), absolute end offset }
///
/// Each held slice carries its absolute end offset, so finding the slice of
/// an offset is a binary search over the ring (seek(), O(log n), counted in
/// stats().searches/searchSteps), and a Cursor moving forward steps from its
/// slice to the next in O(1) without any search. Slices are numbered by a
/// sequence number that grows by one per appended slice and is never reused;
/// releasing slices from the front only raises firstSequence(), so a Cursor
/// (which remembers a sequence number) stays valid. The sequence starts at
/// any absolute offset (default 0), so a body may start after a header.
///
/// append() of bytes that directly follow the last slice in the same blob
/// extends that slice instead of adding one (a block filled by several reads
/// stays one slice, one iovec). A Cursor copes with that in O(1).
///
/// Ownership and sharing: the sequence holds one reference to each block
/// through its slices, and counts the bytes of those blocks (blockBytes(),
/// what cache_mem charges: a 4 KB block holding 100 body bytes costs 4 KB). releaseBefore(off) drops whole
/// slices that end at or before off (the store calls it with the slowest cursor's offset when the entry is
/// not kept); a block goes back to its pool when its last slice and last other reference go. Slices are
/// shared, never copied; the bytes are never copied. Cursors do not own anything: they are positions.
///
/// Threading: one event loop thread, like the blocks (see sbuf/MemBlob.h).

#pragma once

#include "sbuf/Slice.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace Sbuf {

/// Where an absolute offset lies: the slice (by sequence number) and the
/// offset in it. The end of the sequence is {endSequence(), 0, endOffset()}.
struct Position {
    uint64_t sequence = 0;    ///< sequence number of the slice
    size_t offsetInSlice = 0; ///< bytes into that slice
    uint64_t offset = 0;      ///< the absolute offset
};

/// Counters of the searches of every sequence of this thread (a sequence
/// does not carry its own: a cached object's Entry holds one), for tests and
/// the cache manager.
struct SequenceStats {
    uint64_t searches = 0;    ///< seek() calls that searched (binary search)
    uint64_t searchSteps = 0; ///< probes those searches made in total
};

/// The body of an entry: slices in offset order, inline storage for two and
/// a ring buffer beyond, plus the absolute offset of the first slice held.
class SliceSequence {
public:
    /// an empty sequence whose first byte will have absolute offset start
    explicit SliceSequence(uint64_t start = 0);
    /// shares every slice of other (no byte is copied)
    SliceSequence(const SliceSequence& other);
    /// takes every slice of other, which becomes empty at other's end offset
    SliceSequence(SliceSequence&& other) noexcept;
    /// shares every slice of other
    SliceSequence& operator=(const SliceSequence& other);
    /// takes every slice of other
    SliceSequence& operator=(SliceSequence&& other) noexcept;
    /// drops every slice
    ~SliceSequence();

    /// adds slice at the end (empty slices are ignored); when slice starts in
    /// the same blob right where the last slice ends, extends the last slice
    void append(const Slice& slice);

    /// absolute offset of the first byte still held
    uint64_t startOffset() const { return startOffset_; }
    /// absolute offset one past the last byte appended
    uint64_t endOffset() const;
    /// bytes held (endOffset() - startOffset())
    uint64_t length() const { return endOffset() - startOffset_; }
    /// whether no slice is held
    bool isEmpty() const { return count_ == 0; }
    /// slices held
    size_t sliceCount() const { return count_; }
    /// sequence number of the first slice held (the next one's, when empty)
    uint64_t firstSequence() const { return firstSeq_; }
    /// sequence number the next appended slice will get
    uint64_t endSequence() const { return firstSeq_ + count_; }

    /// the held slice with sequence number seq; throws unless it is held
    const Slice& slice(uint64_t seq) const;
    /// absolute offset where the held slice seq starts; throws unless held
    uint64_t sliceStart(uint64_t seq) const;
    /// absolute offset where the held slice seq ends; throws unless held
    uint64_t sliceEnd(uint64_t seq) const;

    /// the position of absolute offset off by binary search (counted in
    /// stats()); off must be in [startOffset(), endOffset()], else throws
    Position seek(uint64_t off) const;

    /// copies up to out.size() held bytes from absolute offset off into out and
    /// returns how many; off must be held or be the end offset. For the few
    /// permitted copies (a header section that straddles two blocks) and
    /// tests; it seeks once, and a body copy must be counted in CopyStats.
    size_t copyOut(uint64_t off, std::span<char> out) const;

    /// drops the whole slices that end at or before absolute offset off and
    /// returns how many went; startOffset() becomes the start of the first
    /// slice kept (or endOffset() when none is kept)
    size_t releaseBefore(uint64_t off);
    /// drops every slice; startOffset() becomes endOffset()
    void clear();

    /// the search counters of this thread's sequences (a test compares them before and after)
    static const SequenceStats& stats() { return Counters(); }
    /// bytes this object uses (itself plus its heap ring, if any), not
    /// counting the blocks its slices refer to
    size_t memoryFootprint() const;
    /// bytes of the blocks the held slices are in (their capacities, not the
    /// bytes the slices cover), for cache_mem accounting: a block is counted
    /// once per run of consecutive held slices in it (exact when each block's
    /// slices are adjacent, as for a body read block after block; otherwise an
    /// upper bound). O(1), kept up to date by append() and releaseBefore().
    uint64_t blockBytes() const { return blockBytes_; }

private:
    friend class Cursor; // gather() and advance() step through the ring unchecked

    /// a held slice and its absolute end offset
    struct Entry {
        Slice slice;      ///< the bytes
        uint64_t end = 0; ///< absolute offset one past its last byte
    };

    static constexpr uint32_t InlineCapacity = 2; ///< slices held without a heap ring

    Entry& at(size_t i) { return entries_[(head_ + i) & (capacity_ - 1)]; }
    const Entry& at(size_t i) const { return entries_[(head_ + i) & (capacity_ - 1)]; }
    const Entry& entryOf(uint64_t seq) const;
    void pushBack(const Slice& slice, uint64_t end);
    void grow();
    void moveFrom(SliceSequence& other) noexcept;
    /// whether entries_ is a heap ring
    bool onHeap() const { return entries_ != inline_; }
    /// frees the heap ring, if any (its slices go with it); entries_ becomes inline_
    void freeHeap() noexcept;
    /// this thread's search counters
    static SequenceStats& Counters();

    Entry inline_[InlineCapacity]; ///< storage while capacity_ == InlineCapacity
    Entry* entries_ = inline_;     ///< inline_, or a heap ring (owned) once more than two slices are held
    uint32_t capacity_ = InlineCapacity; ///< ring size, a power of two
    uint32_t head_ = 0;                  ///< ring index of the first slice held
    uint32_t count_ = 0;                 ///< slices held
    uint64_t firstSeq_ = 0;              ///< sequence number of the first slice held
    uint64_t startOffset_ = 0;           ///< absolute offset of the first byte held
    uint64_t blockBytes_ = 0;            ///< see blockBytes()
};

} // namespace Sbuf
