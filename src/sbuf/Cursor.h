/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Sbuf::Cursor: one reader's position in a SliceSequence, and the
/// gather/advance pair that feeds writev(2) without copying.
///
/// A client write is: n = cursor.gather(body, iov, IOV_MAX, limit);
/// w = writev(fd, iov, n); cursor.advance(body, w). gather() points the
/// iovec at the held blocks; advance() moves by what the kernel took, possibly
/// into the middle of a slice, stepping from slice to slice in O(1) (no
/// search). Only seek() (a late joiner, a Range) searches, in O(log n).

#pragma once

#include "sbuf/SliceSequence.h"

#include <cstddef>
#include <vector>
#include <cstdint>

struct iovec;

namespace Sbuf {

/// One reader's position in a SliceSequence: the slice's sequence number,
/// the offset in that slice, and the absolute offset. A cursor owns nothing;
/// it stays valid while the slices from its offset on are held (the store
/// releases only behind the slowest cursor).
class Cursor {
public:
    /// at absolute offset 0, slice 0 (the start of a fresh sequence)
    Cursor() = default;
    /// at the first byte held by seq (no search)
    explicit Cursor(const SliceSequence& seq);

    /// moves to absolute offset off by binary search; off must be held or be
    /// the end offset, else throws
    void seek(const SliceSequence& seq, uint64_t off);

    /// fills up to maxIov entries of iov (maxIov <= IOV_MAX) with the bytes
    /// after the cursor, at most maxBytes in total, without copying; stops at
    /// the end of seq. Returns the number of entries filled (0 at the end) and,
    /// when bytes is not null, stores their total length there; when copied
    /// is not null, adds how many of them lie below their block's
    /// MemBlob::copiedEnd() (bytes some code copied in user space).
    size_t gather(const SliceSequence& seq, struct iovec* iov, size_t maxIov, size_t maxBytes,
                  size_t* bytes = nullptr, size_t* copied = nullptr) const;
    /// appends to out the bytes after the cursor, at most maxBytes, as
    /// slices that share their blocks (a reference each, no byte copied), for
    /// a reader that hands them to another thread; returns the bytes taken.
    /// Does not move the cursor.
    size_t share(const SliceSequence& seq, std::vector<Slice>& out, size_t maxBytes) const;
    /// moves forward by n bytes (what writev took), possibly into the middle
    /// of a slice; n must not pass the end. O(1) amortised: no search.
    void advance(const SliceSequence& seq, size_t n);

    /// the absolute offset of the next byte to read
    uint64_t offset() const { return pos_.offset; }
    /// the sequence number of the slice the cursor is in
    uint64_t sequence() const { return pos_.sequence; }
    /// bytes into that slice
    size_t offsetInSlice() const { return pos_.offsetInSlice; }
    /// the whole position
    const Position& position() const { return pos_; }
    /// bytes held after the cursor
    uint64_t available(const SliceSequence& seq) const { return seq.endOffset() - pos_.offset; }
    /// whether every byte appended so far has been read
    bool isAtEnd(const SliceSequence& seq) const { return pos_.offset >= seq.endOffset(); }

private:
    /// the O(1) fix-up after appends (an extended last slice) and releases
    Position normalized(const SliceSequence& seq) const;

    Position pos_; ///< where the next byte to read is
};

} // namespace Sbuf
