/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "sbuf/Cursor.h"
#include "base/TextException.h"
#include "sbuf/BlockPool.h"

#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <climits>
#include <random>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

namespace {

/// the byte at absolute offset off of the test pattern
char patternAt(uint64_t off)
{
    return char('a' + (off * 7 + off / 251) % 26);
}

/// appends blocks holding blockSize bytes of the pattern each (one slice per
/// block) until seq holds total bytes
void appendPattern(Sbuf::BlockPool& pool, Sbuf::SliceSequence& seq, uint64_t total, size_t blockSize)
{
    while (seq.endOffset() < total) {
        auto blob = Sbuf::MemBlob::Make(pool, blockSize);
        const size_t n = std::min<uint64_t>(blockSize, total - seq.endOffset());
        for (size_t i = 0; i < n; ++i)
            blob->space()[i] = patternAt(seq.endOffset() + i);
        blob->commit(n);
        seq.append(Sbuf::Slice(blob));
    }
}

/// the bytes an iovec points at
std::string joined(const struct iovec* iov, size_t n)
{
    std::string s;
    for (size_t i = 0; i < n; ++i)
        s.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
    return s;
}

/// whether s is the pattern starting at absolute offset from
bool isPattern(const std::string& s, uint64_t from)
{
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != patternAt(from + i))
            return false;
    }
    return true;
}

} // namespace

/// Tests of Sbuf::Cursor over a Sbuf::SliceSequence.
class TestCursor : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestCursor);
    CPPUNIT_TEST(twoCursorsShareOneBlock);
    CPPUNIT_TEST(releaseBehindSlowestFreesExactlyUnneededBlocks);
    CPPUNIT_TEST(forwardMovesNeverSearch);
    CPPUNIT_TEST(gatherRespectsIovMax);
    CPPUNIT_TEST(gatherRespectsMaxBytes);
    CPPUNIT_TEST(shareTakesReferencesNotCopies);
    CPPUNIT_TEST(gatherStopsAtEnd);
    CPPUNIT_TEST(partialWriteResumesMidSlice);
    CPPUNIT_TEST(writevThroughPipeDeliversEveryByteOnce);
    CPPUNIT_TEST(cursorAtEndSeesExtendedLastSlice);
    CPPUNIT_TEST(cursorAtEndSeesNextSlice);
    CPPUNIT_TEST(lateJoinerSeeks);
    CPPUNIT_TEST(advancePastEndThrows);
    CPPUNIT_TEST(cursorBehindReleasedBytesThrows);
    CPPUNIT_TEST(streamWithSlowAndFastReadersStaysConsistent);
    CPPUNIT_TEST_SUITE_END();

    Sbuf::SequenceStats base_; ///< this thread's search counters when the test started

public:
    void setUp() override { base_ = Sbuf::SliceSequence::stats(); }

    /// searches since the test started
    uint64_t searches() const { return Sbuf::SliceSequence::stats().searches - base_.searches; }
    /// search steps since the test started
    uint64_t searchSteps() const { return Sbuf::SliceSequence::stats().searchSteps - base_.searchSteps; }

    /// two readers point their iovecs at the same block bytes: no copy, no extra reference
    void twoCursorsShareOneBlock()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        appendPattern(pool, seq, 1000, 4096);
        const Sbuf::MemBlobRef blob = seq.slice(0).blob();
        CPPUNIT_ASSERT_EQUAL(2u, blob->refCount()); // the sequence's slice and ours
        Sbuf::Cursor a(seq), b(seq);
        b.advance(seq, 10);
        struct iovec ia[4], ib[4];
        CPPUNIT_ASSERT_EQUAL(size_t(1), a.gather(seq, ia, 4, SIZE_MAX));
        CPPUNIT_ASSERT_EQUAL(size_t(1), b.gather(seq, ib, 4, SIZE_MAX));
        CPPUNIT_ASSERT(ia[0].iov_base == blob->data());
        CPPUNIT_ASSERT(ib[0].iov_base == blob->data() + 10);
        CPPUNIT_ASSERT_EQUAL(2u, blob->refCount());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), pool.stats().total.blocksInUse);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.copyStats().bodyCopies);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.copyStats().bodyBytesCopied);
    }

    /// releasing behind the slowest cursor frees the blocks wholly behind it, and no other
    void releaseBehindSlowestFreesExactlyUnneededBlocks()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        appendPattern(pool, seq, 8 * 4096, 4096); // eight blocks, one slice each
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), pool.stats().total.blocksInUse);
        Sbuf::Cursor fast(seq), slow(seq);
        fast.advance(seq, 5 * 4096 + 100);
        slow.advance(seq, 2 * 4096 + 10);
        auto slowest = [&] { return std::min(fast.offset(), slow.offset()); };
        seq.releaseBefore(slowest());
        CPPUNIT_ASSERT_EQUAL(uint64_t(6), pool.stats().total.blocksInUse);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2 * 4096), seq.startOffset());
        slow.advance(seq, 4096 - 10); // exactly at the start of block 3
        seq.releaseBefore(slowest());
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), pool.stats().total.blocksInUse);
        // both cursors still read the right bytes after the releases
        struct iovec iov[8];
        size_t bytes = 0;
        slow.gather(seq, iov, 8, 50, &bytes);
        CPPUNIT_ASSERT(isPattern(joined(iov, 1), slow.offset()));
        const size_t n = fast.gather(seq, iov, 8, SIZE_MAX, &bytes);
        CPPUNIT_ASSERT_EQUAL(uint64_t(bytes), fast.available(seq));
        CPPUNIT_ASSERT(isPattern(joined(iov, n), fast.offset()));
        slow.advance(seq, slow.available(seq));
        fast.advance(seq, fast.available(seq));
        seq.releaseBefore(slowest());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.stats().total.blocksInUse);
    }

    /// gather/advance to the end never searches; one seek searches in O(log n)
    void forwardMovesNeverSearch()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        appendPattern(pool, seq, 1000 * 300, 300); // 1000 slices of 512 B blocks, 300 B used
        CPPUNIT_ASSERT_EQUAL(size_t(1000), seq.sliceCount());
        Sbuf::Cursor c(seq);
        std::mt19937 rng(7);
        struct iovec iov[16];
        std::string got;
        while (!c.isAtEnd(seq)) {
            size_t bytes = 0;
            const size_t n = c.gather(seq, iov, 16, SIZE_MAX, &bytes);
            const size_t took = std::min<size_t>(bytes, 1 + rng() % 2000); // what a writev took
            std::string all = joined(iov, n);
            got += all.substr(0, took);
            c.advance(seq, took);
        }
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), searches());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), searchSteps());
        CPPUNIT_ASSERT_EQUAL(size_t(300000), got.size());
        CPPUNIT_ASSERT(isPattern(got, 0));
        c.seek(seq, 123457);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), searches());
        CPPUNIT_ASSERT(searchSteps() <= 10); // ceil(log2(1001))
        CPPUNIT_ASSERT_EQUAL(uint64_t(123457 / 300), c.sequence());
        CPPUNIT_ASSERT_EQUAL(size_t(123457 % 300), c.offsetInSlice());
    }

    /// gather fills at most IOV_MAX entries, whatever maxIov says
    void gatherRespectsIovMax()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        appendPattern(pool, seq, (IOV_MAX + 10) * 256, 256);
        std::vector<struct iovec> iov(IOV_MAX + 100);
        Sbuf::Cursor c(seq);
        size_t bytes = 0;
        CPPUNIT_ASSERT_EQUAL(size_t(IOV_MAX), c.gather(seq, iov.data(), iov.size(), SIZE_MAX, &bytes));
        CPPUNIT_ASSERT_EQUAL(size_t(IOV_MAX * 256), bytes);
        CPPUNIT_ASSERT_EQUAL(size_t(3), c.gather(seq, iov.data(), 3, SIZE_MAX, &bytes));
        CPPUNIT_ASSERT_EQUAL(size_t(3 * 256), bytes);
    }

    /// gather stops at maxBytes, cutting the last entry short
    void gatherRespectsMaxBytes()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        appendPattern(pool, seq, 10 * 256, 256);
        Sbuf::Cursor c(seq);
        c.advance(seq, 100);
        struct iovec iov[10];
        size_t bytes = 0;
        const size_t n = c.gather(seq, iov, 10, 500, &bytes);
        CPPUNIT_ASSERT_EQUAL(size_t(3), n); // 156 + 256 + 88
        CPPUNIT_ASSERT_EQUAL(size_t(500), bytes);
        CPPUNIT_ASSERT_EQUAL(size_t(156), iov[0].iov_len);
        CPPUNIT_ASSERT_EQUAL(size_t(88), iov[2].iov_len);
        CPPUNIT_ASSERT(isPattern(joined(iov, n), 100));
        CPPUNIT_ASSERT_EQUAL(size_t(0), c.gather(seq, iov, 10, 0, &bytes));
        CPPUNIT_ASSERT_EQUAL(size_t(0), bytes);
    }

    /// share() hands out the bytes after the cursor as slices of the same
    /// blocks (one more reference each), within maxBytes, without moving
    void shareTakesReferencesNotCopies()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        appendPattern(pool, seq, 3 * 256, 256);
        Sbuf::Cursor c(seq);
        c.advance(seq, 100);
        std::vector<Sbuf::Slice> out;
        CPPUNIT_ASSERT_EQUAL(size_t(500), c.share(seq, out, 500));
        CPPUNIT_ASSERT_EQUAL(size_t(3), out.size()); // 156 + 256 + 88
        CPPUNIT_ASSERT(out[0].data() == seq.slice(0).data() + 100);
        CPPUNIT_ASSERT_EQUAL(uint32_t(2), seq.slice(1).blob()->refCount());
        std::string bytes;
        for (const auto& s : out)
            bytes.append(s.view());
        CPPUNIT_ASSERT(isPattern(bytes, 100));
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), c.offset());
        out.clear();
        CPPUNIT_ASSERT_EQUAL(size_t(668), c.share(seq, out, SIZE_MAX)); // to the end
        c.advance(seq, 668);
        CPPUNIT_ASSERT_EQUAL(size_t(0), c.share(seq, out, SIZE_MAX));
    }

    /// gather stops at the end of the sequence and gives nothing at the end
    void gatherStopsAtEnd()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        appendPattern(pool, seq, 2 * 256 + 17, 256);
        Sbuf::Cursor c(seq);
        struct iovec iov[10];
        size_t bytes = 0;
        CPPUNIT_ASSERT_EQUAL(size_t(3), c.gather(seq, iov, 10, SIZE_MAX, &bytes));
        CPPUNIT_ASSERT_EQUAL(size_t(2 * 256 + 17), bytes);
        c.advance(seq, bytes);
        CPPUNIT_ASSERT(c.isAtEnd(seq));
        CPPUNIT_ASSERT_EQUAL(size_t(0), c.gather(seq, iov, 10, SIZE_MAX, &bytes));
        CPPUNIT_ASSERT_EQUAL(size_t(0), bytes);
    }

    /// a write that took part of a slice leaves the cursor inside it; the next gather starts there
    void partialWriteResumesMidSlice()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        appendPattern(pool, seq, 4 * 1024, 1024);
        Sbuf::Cursor c(seq);
        c.advance(seq, 1024 + 300); // the kernel took slice 0 and 300 bytes of slice 1
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.sequence());
        CPPUNIT_ASSERT_EQUAL(size_t(300), c.offsetInSlice());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1324), c.offset());
        struct iovec iov[4];
        const size_t n = c.gather(seq, iov, 4, SIZE_MAX);
        CPPUNIT_ASSERT_EQUAL(size_t(3), n);
        CPPUNIT_ASSERT(iov[0].iov_base == seq.slice(1).data() + 300);
        CPPUNIT_ASSERT_EQUAL(size_t(724), iov[0].iov_len);
        c.advance(seq, 724); // exactly to the end of slice 1
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), c.sequence());
        CPPUNIT_ASSERT_EQUAL(size_t(0), c.offsetInSlice());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), searches());
    }

    /// real writev(2)s into a small non-blocking pipe: partial writes, advance
    /// by what the kernel took, and the reader gets every byte once, in order
    void writevThroughPipeDeliversEveryByteOnce()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        const uint64_t total = 300 * 1000;
        appendPattern(pool, seq, total, 3000); // 4 KB blocks, 3000 bytes used: not page aligned
        int fds[2];
        CPPUNIT_ASSERT_EQUAL(0, ::pipe2(fds, O_NONBLOCK));
        ::fcntl(fds[1], F_SETPIPE_SZ, 4096);
        Sbuf::Cursor c(seq);
        std::string got;
        std::vector<char> buf(10000);
        int partial = 0;
        while (got.size() < total) {
            struct iovec iov[64];
            size_t bytes = 0;
            const size_t n = c.gather(seq, iov, 64, SIZE_MAX, &bytes);
            if (n) {
                const ssize_t w = ::writev(fds[1], iov, n);
                if (w > 0) {
                    partial += size_t(w) < bytes;
                    c.advance(seq, w);
                }
            }
            const ssize_t r = ::read(fds[0], buf.data(), buf.size());
            if (r > 0)
                got.append(buf.data(), r);
        }
        ::close(fds[0]);
        ::close(fds[1]);
        CPPUNIT_ASSERT(partial > 0);
        CPPUNIT_ASSERT(c.isAtEnd(seq));
        CPPUNIT_ASSERT(isPattern(got, 0));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), searches());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.copyStats().bodyCopies);
    }

    /// a cursor that caught up, then more bytes committed into the same block: it reads them
    void cursorAtEndSeesExtendedLastSlice()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        auto blob = Sbuf::MemBlob::Make(pool, 4096);
        blob->append("first");
        seq.append(Sbuf::Slice(blob, 0, 5));
        Sbuf::Cursor c(seq);
        c.advance(seq, 5);
        CPPUNIT_ASSERT(c.isAtEnd(seq));
        blob->append("second");
        seq.append(Sbuf::Slice(blob, 5, 6)); // extends slice 0
        CPPUNIT_ASSERT_EQUAL(size_t(1), seq.sliceCount());
        struct iovec iov[4];
        size_t n = c.gather(seq, iov, 4, SIZE_MAX);
        CPPUNIT_ASSERT_EQUAL(std::string("second"), joined(iov, n));
        // extended again and then followed by a new block before the reader looks
        blob->append("third");
        seq.append(Sbuf::Slice(blob, 11, 5));
        auto other = Sbuf::MemBlob::Make(pool, 256);
        other->append("fourth");
        seq.append(Sbuf::Slice(other));
        n = c.gather(seq, iov, 4, SIZE_MAX);
        CPPUNIT_ASSERT_EQUAL(std::string("secondthirdfourth"), joined(iov, n));
        c.advance(seq, 8);
        n = c.gather(seq, iov, 4, SIZE_MAX);
        CPPUNIT_ASSERT_EQUAL(std::string("irdfourth"), joined(iov, n));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), searches());
    }

    /// a cursor that caught up reads the next appended slice from its start
    void cursorAtEndSeesNextSlice()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        appendPattern(pool, seq, 256, 256);
        Sbuf::Cursor c(seq);
        c.advance(seq, 256);
        appendPattern(pool, seq, 512, 256);
        struct iovec iov[4];
        const size_t n = c.gather(seq, iov, 4, SIZE_MAX);
        CPPUNIT_ASSERT_EQUAL(size_t(1), n);
        CPPUNIT_ASSERT(iov[0].iov_base == seq.slice(1).data());
        CPPUNIT_ASSERT(isPattern(joined(iov, n), 256));
    }

    /// a late joiner (or a Range) seeks to its offset and reads from there
    void lateJoinerSeeks()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        appendPattern(pool, seq, 10000, 1000);
        Sbuf::Cursor c;
        c.seek(seq, 4321);
        struct iovec iov[2];
        size_t bytes = 0;
        const size_t n = c.gather(seq, iov, 2, SIZE_MAX, &bytes);
        CPPUNIT_ASSERT_EQUAL(size_t(2), n);
        CPPUNIT_ASSERT_EQUAL(size_t(679 + 1000), bytes);
        CPPUNIT_ASSERT(isPattern(joined(iov, n), 4321));
    }

    /// advancing past what is held is a bug and leaves the cursor alone
    void advancePastEndThrows()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        appendPattern(pool, seq, 1000, 256);
        Sbuf::Cursor c(seq);
        c.advance(seq, 900);
        CPPUNIT_ASSERT_THROW(c.advance(seq, 101), TextException);
        CPPUNIT_ASSERT_EQUAL(uint64_t(900), c.offset());
        CPPUNIT_ASSERT_NO_THROW(c.advance(seq, 100));
    }

    /// a cursor whose bytes were released (a bug of the releaser) is refused, not read
    void cursorBehindReleasedBytesThrows()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        appendPattern(pool, seq, 1000, 256);
        Sbuf::Cursor c(seq);
        seq.releaseBefore(512);
        struct iovec iov[4];
        CPPUNIT_ASSERT_THROW(c.gather(seq, iov, 4, SIZE_MAX), TextException);
        CPPUNIT_ASSERT_THROW(c.advance(seq, 1), TextException);
    }

    /// the streaming proxy's loop, at random: short reads into an open block
    /// (extending the last slice), new blocks, three readers taking partial
    /// writes, release behind the slowest after each step. Every reader gets
    /// every byte once and in order, never searches, and the sequence holds
    /// no block wholly behind the slowest reader.
    void streamWithSlowAndFastReadersStaysConsistent()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        std::mt19937 rng(11);
        Sbuf::MemBlobRef open;
        std::vector<Sbuf::Cursor> readers(3, Sbuf::Cursor(seq));
        const uint64_t total = 300000;
        struct iovec iov[8];
        while (seq.endOffset() < total ||
               std::any_of(readers.begin(), readers.end(),
                           [&](const Sbuf::Cursor& c) { return !c.isAtEnd(seq); })) {
            if (seq.endOffset() < total && rng() % 2) {
                if (!open || open->isFull())
                    open = Sbuf::MemBlob::Make(pool, 256u << (rng() % 6));
                const size_t n =
                    std::min<uint64_t>({1 + rng() % 3000, open->spaceSize(), total - seq.endOffset()});
                const size_t from = open->size();
                for (size_t i = 0; i < n; ++i)
                    open->space()[i] = patternAt(seq.endOffset() + i);
                open->commit(n);
                seq.append(Sbuf::Slice(open, from, n));
            }
            for (size_t r = 0; r < readers.size(); ++r) {
                if (rng() % (r + 1)) // reader 0 always writes, the others less often
                    continue;
                Sbuf::Cursor& c = readers[r];
                size_t bytes = 0;
                const size_t n = c.gather(seq, iov, 1 + rng() % 8, 1 + rng() % 20000, &bytes);
                const std::string got = joined(iov, n);
                CPPUNIT_ASSERT_EQUAL(bytes, got.size());
                CPPUNIT_ASSERT(isPattern(got, c.offset()));
                c.advance(seq, bytes ? rng() % (bytes + 1) : 0); // the kernel took some
            }
            uint64_t slowest = UINT64_MAX;
            for (const auto& c : readers)
                slowest = std::min(slowest, c.offset());
            seq.releaseBefore(slowest);
            CPPUNIT_ASSERT(seq.isEmpty() || seq.sliceEnd(seq.firstSequence()) > slowest);
        }
        CPPUNIT_ASSERT_EQUAL(total, seq.endOffset());
        for (const auto& c : readers)
            CPPUNIT_ASSERT_EQUAL(total, c.offset());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), searches());
        open = nullptr;
        CPPUNIT_ASSERT(seq.isEmpty());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.stats().total.blocksInUse);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestCursor);
