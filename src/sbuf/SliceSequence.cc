/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "sbuf/SliceSequence.h"
#include "base/TextException.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace Sbuf {

SliceSequence::SliceSequence(uint64_t start) : startOffset_(start) {}

SliceSequence::SliceSequence(const SliceSequence& other)
    : firstSeq_(other.firstSeq_), startOffset_(other.startOffset_), blockBytes_(other.blockBytes_)
{
    for (size_t i = 0; i < other.count_; ++i)
        pushBack(other.at(i).slice, other.at(i).end);
}

SliceSequence::SliceSequence(SliceSequence&& other) noexcept
{
    moveFrom(other);
}

SliceSequence& SliceSequence::operator=(const SliceSequence& other)
{
    if (this != &other) {
        SliceSequence tmp(other);
        *this = std::move(tmp);
    }
    return *this;
}

SliceSequence& SliceSequence::operator=(SliceSequence&& other) noexcept
{
    if (this != &other) {
        clear();
        moveFrom(other);
    }
    return *this;
}

SliceSequence::~SliceSequence()
{
    freeHeap();
}

void SliceSequence::freeHeap() noexcept
{
    if (onHeap())
        delete[] entries_;
    entries_ = inline_;
}

SequenceStats& SliceSequence::Counters()
{
    static thread_local SequenceStats counters;
    return counters;
}

void SliceSequence::moveFrom(SliceSequence& other) noexcept
{
    // *this is empty and uses its inline storage
    firstSeq_ = other.firstSeq_;
    startOffset_ = other.startOffset_;
    blockBytes_ = other.blockBytes_;
    if (other.onHeap()) {
        entries_ = other.entries_; // the ring changes hands; other points at its inline storage below
        capacity_ = other.capacity_;
        head_ = other.head_;
        count_ = other.count_;
    } else {
        for (size_t i = 0; i < other.count_; ++i)
            inline_[i] = std::move(other.at(i));
        entries_ = inline_;
        capacity_ = InlineCapacity;
        head_ = 0;
        count_ = other.count_;
    }
    const uint64_t otherEnd = count_ ? at(count_ - 1).end : startOffset_;
    other.entries_ = other.inline_;
    other.capacity_ = InlineCapacity;
    other.head_ = 0;
    other.firstSeq_ += other.count_;
    other.count_ = 0;
    other.startOffset_ = otherEnd;
    other.blockBytes_ = 0;
}

uint64_t SliceSequence::endOffset() const
{
    return count_ ? at(count_ - 1).end : startOffset_;
}

void SliceSequence::append(const Slice& slice)
{
    if (slice.isEmpty())
        return;
    if (count_) {
        Entry& last = at(count_ - 1);
        if (last.slice.isFollowedBy(slice)) {
            last.slice.extend(slice.length());
            last.end += slice.length();
            return;
        }
    }
    const bool newBlock = !count_ || at(count_ - 1).slice.blob() != slice.blob();
    pushBack(slice, endOffset() + slice.length());
    if (newBlock)
        blockBytes_ += slice.blob()->capacity();
}

void SliceSequence::pushBack(const Slice& slice, uint64_t end)
{
    if (count_ == capacity_)
        grow();
    Entry& e = at(count_);
    e.slice = slice;
    e.end = end;
    ++count_;
}

void SliceSequence::grow()
{
    const uint32_t newCapacity = capacity_ * 2;
    std::unique_ptr<Entry[]> bigger(new Entry[newCapacity]);
    for (size_t i = 0; i < count_; ++i)
        bigger[i] = std::move(at(i));
    freeHeap();
    entries_ = bigger.release();
    capacity_ = newCapacity;
    head_ = 0;
}

const SliceSequence::Entry& SliceSequence::entryOf(uint64_t seq) const
{
    Must2(seq >= firstSeq_ && seq < endSequence(), "slice " + std::to_string(seq) +
                                                       " is not held (held: " + std::to_string(firstSeq_) +
                                                       ".." + std::to_string(endSequence()) + ")");
    return at(seq - firstSeq_);
}

const Slice& SliceSequence::slice(uint64_t seq) const
{
    return entryOf(seq).slice;
}

uint64_t SliceSequence::sliceStart(uint64_t seq) const
{
    const Entry& e = entryOf(seq);
    return e.end - e.slice.length();
}

uint64_t SliceSequence::sliceEnd(uint64_t seq) const
{
    return entryOf(seq).end;
}

Position SliceSequence::seek(uint64_t off) const
{
    Must2(off >= startOffset_ && off <= endOffset(),
          "seek to offset " + std::to_string(off) + " outside the held bytes " +
              std::to_string(startOffset_) + ".." + std::to_string(endOffset()));
    auto& counters = Counters();
    ++counters.searches;
    // the first slice whose end is past off holds it; none means off is the end
    size_t lo = 0;
    size_t hi = count_;
    while (lo < hi) {
        ++counters.searchSteps;
        const size_t mid = lo + (hi - lo) / 2;
        if (at(mid).end > off)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (lo == count_)
        return Position{endSequence(), 0, off};
    const Entry& e = at(lo);
    return Position{firstSeq_ + lo, static_cast<size_t>(off - (e.end - e.slice.length())), off};
}

size_t SliceSequence::copyOut(uint64_t off, std::span<char> out) const
{
    const Position p = seek(off);
    size_t copied = 0;
    size_t inSlice = p.offsetInSlice;
    for (uint64_t s = p.sequence; copied < out.size() && s < endSequence(); ++s) {
        const Slice& sl = slice(s);
        const size_t n = std::min(sl.length() - inSlice, out.size() - copied);
        std::memcpy(out.data() + copied, sl.data() + inSlice, n);
        copied += n;
        inSlice = 0;
    }
    return copied;
}

size_t SliceSequence::releaseBefore(uint64_t off)
{
    size_t released = 0;
    while (count_ && at(0).end <= off) {
        Entry& e = at(0);
        if (count_ == 1 || at(1).slice.blob() != e.slice.blob())
            blockBytes_ -= e.slice.blob()->capacity(); // the last slice of this run
        startOffset_ = e.end;
        e.slice = Slice();
        head_ = (head_ + 1) & (capacity_ - 1);
        --count_;
        ++firstSeq_;
        ++released;
    }
    if (!count_)
        head_ = 0;
    return released;
}

void SliceSequence::clear()
{
    releaseBefore(endOffset());
    freeHeap();
    capacity_ = InlineCapacity;
    head_ = 0;
}

size_t SliceSequence::memoryFootprint() const
{
    return sizeof(*this) + (onHeap() ? capacity_ * sizeof(Entry) : 0);
}

} // namespace Sbuf
