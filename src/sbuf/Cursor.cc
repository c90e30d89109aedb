/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "sbuf/Cursor.h"
#include "base/TextException.h"

#include <algorithm>
#include <climits>

#include <sys/uio.h>

namespace Sbuf {

Cursor::Cursor(const SliceSequence& seq) : pos_{seq.firstSequence(), 0, seq.startOffset()} {}

void Cursor::seek(const SliceSequence& seq, uint64_t off)
{
    pos_ = seq.seek(off);
}

Position Cursor::normalized(const SliceSequence& seq) const
{
    Position p = pos_;
    Must2(p.offset >= seq.startOffset(), "a cursor at offset " + std::to_string(p.offset) +
                                             " is behind the released bytes (held from " +
                                             std::to_string(seq.startOffset()) + ")");
    Must(p.offset <= seq.endOffset());
    Must(p.sequence >= seq.firstSequence() && p.sequence <= seq.endSequence());
    // A cursor that reached the end sits at (next sequence number, 0). If the
    // last slice was then extended in place, its offset lies in that slice,
    // one sequence number back: the only fix-up needed, O(1).
    if (p.sequence == seq.endSequence()) {
        if (p.offset < seq.endOffset()) {
            --p.sequence;
            p.offsetInSlice = p.offset - seq.sliceStart(p.sequence);
        }
    } else if (p.offset < seq.sliceStart(p.sequence)) {
        --p.sequence;
        p.offsetInSlice = p.offset - seq.sliceStart(p.sequence);
    }
    return p;
}

size_t Cursor::gather(const SliceSequence& seq, struct iovec* iov, size_t maxIov, size_t maxBytes,
                      size_t* bytes, size_t* copied) const
{
    const Position p = normalized(seq);
    maxIov = std::min<size_t>(maxIov, IOV_MAX);
    size_t n = 0;
    size_t total = 0;
    size_t off = p.offsetInSlice;
    // normalized() checked the position: walk the ring directly, with no
    // bounds check and no out-of-line call per iovec
    for (size_t i = p.sequence - seq.firstSeq_; n < maxIov && total < maxBytes && i < seq.count_; ++i) {
        const Slice& slice = seq.at(i).slice;
        const size_t take = std::min(slice.length() - off, maxBytes - total);
        const size_t at = slice.offset() + off;
        if (copied && slice.blob()->copiedEnd() > at)
            *copied += std::min(take, slice.blob()->copiedEnd() - at);
        iov[n].iov_base = const_cast<char*>(slice.blob()->data() + at);
        iov[n].iov_len = take;
        ++n;
        total += take;
        off = 0;
    }
    if (bytes)
        *bytes = total;
    return n;
}

size_t Cursor::share(const SliceSequence& seq, std::vector<Slice>& out, size_t maxBytes) const
{
    const Position p = normalized(seq);
    size_t total = 0;
    size_t off = p.offsetInSlice;
    for (size_t i = p.sequence - seq.firstSeq_; total < maxBytes && i < seq.count_; ++i) {
        const Slice& slice = seq.at(i).slice;
        const size_t take = std::min(slice.length() - off, maxBytes - total);
        if (take)
            out.push_back(slice.sub(off, take));
        total += take;
        off = 0;
    }
    return total;
}

void Cursor::advance(const SliceSequence& seq, size_t n)
{
    Must2(n <= available(seq), "advance by " + std::to_string(n) + " bytes past the end (" +
                                   std::to_string(available(seq)) + " available)");
    Position p = normalized(seq);
    p.offset += n;
    // n <= available(): the walk stays within the held slices
    for (size_t i = p.sequence - seq.firstSeq_; n; ++i) {
        const size_t left = seq.at(i).slice.length() - p.offsetInSlice;
        if (n < left) {
            p.offsetInSlice += n;
            break;
        }
        n -= left;
        ++p.sequence;
        p.offsetInSlice = 0;
    }
    pos_ = p;
}

} // namespace Sbuf
