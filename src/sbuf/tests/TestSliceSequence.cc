/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "sbuf/SliceSequence.h"
#include "base/TextException.h"
#include "sbuf/BlockPool.h"

#include <cppunit/extensions/HelperMacros.h>

#include <bit>
#include <random>
#include <string>
#include <utility>

namespace {

/// a new blob of capacity bytes, all published, filled with c
Sbuf::MemBlobRef filledBlob(Sbuf::BlockPool& pool, size_t size, char c)
{
    auto blob = Sbuf::MemBlob::Make(pool, size);
    blob->append(std::string(size, c));
    return blob;
}

/// blockBytes() computed the slow way: the capacity of each run of held
/// slices in one block
uint64_t runBlockBytes(const Sbuf::SliceSequence& seq)
{
    uint64_t bytes = 0;
    for (uint64_t s = seq.firstSequence(); s < seq.endSequence(); ++s) {
        if (s == seq.firstSequence() || seq.slice(s - 1).blob() != seq.slice(s).blob())
            bytes += seq.slice(s).blob()->capacity();
    }
    return bytes;
}

} // namespace

/// Tests of Sbuf::SliceSequence.
class TestSliceSequence : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestSliceSequence);
    CPPUNIT_TEST(emptyStartsAtGivenOffset);
    CPPUNIT_TEST(appendTracksOffsets);
    CPPUNIT_TEST(adjacentBytesExtendLastSlice);
    CPPUNIT_TEST(twoSlicesUseNoHeap);
    CPPUNIT_TEST(seekFindsEveryOffset);
    CPPUNIT_TEST(seekIsLogarithmic);
    CPPUNIT_TEST(seekOutsideThrows);
    CPPUNIT_TEST(releaseDropsWholeSlicesOnly);
    CPPUNIT_TEST(blockFreedWithItsLastSlice);
    CPPUNIT_TEST(sequenceNumbersAreNeverReused);
    CPPUNIT_TEST(ringWrapsAround);
    CPPUNIT_TEST(copySharesBlocks);
    CPPUNIT_TEST(moveTakesSlices);
    CPPUNIT_TEST(copyOutSpansSlices);
    CPPUNIT_TEST(blockBytesCountEachBlockOnce);
    CPPUNIT_TEST(blockBytesFollowAppendsAndReleases);
    CPPUNIT_TEST_SUITE_END();

public:
    /// an empty sequence holds nothing from its start offset
    void emptyStartsAtGivenOffset()
    {
        const Sbuf::SliceSequence seq(500);
        CPPUNIT_ASSERT(seq.isEmpty());
        CPPUNIT_ASSERT_EQUAL(uint64_t(500), seq.startOffset());
        CPPUNIT_ASSERT_EQUAL(uint64_t(500), seq.endOffset());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), seq.endSequence());
        const auto p = seq.seek(500);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), p.sequence);
    }

    /// each slice's end is the previous end plus its length
    void appendTracksOffsets()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq(10);
        seq.append(Sbuf::Slice(filledBlob(pool, 100, 'a')));
        seq.append(Sbuf::Slice(filledBlob(pool, 300, 'b'), 50, 200));
        seq.append(Sbuf::Slice()); // ignored
        CPPUNIT_ASSERT_EQUAL(size_t(2), seq.sliceCount());
        CPPUNIT_ASSERT_EQUAL(uint64_t(310), seq.endOffset());
        CPPUNIT_ASSERT_EQUAL(uint64_t(300), seq.length());
        CPPUNIT_ASSERT_EQUAL(uint64_t(10), seq.sliceStart(0));
        CPPUNIT_ASSERT_EQUAL(uint64_t(110), seq.sliceEnd(0));
        CPPUNIT_ASSERT_EQUAL(uint64_t(110), seq.sliceStart(1));
        CPPUNIT_ASSERT_EQUAL(uint64_t(310), seq.sliceEnd(1));
        CPPUNIT_ASSERT_EQUAL(size_t(200), seq.slice(1).length());
    }

    /// reads committed into one block one after another stay one slice
    void adjacentBytesExtendLastSlice()
    {
        Sbuf::BlockPool pool;
        auto blob = Sbuf::MemBlob::Make(pool, 4096);
        Sbuf::SliceSequence seq;
        for (int read = 0; read < 4; ++read) {
            const size_t at = blob->size();
            blob->append(std::string(1000, char('0' + read)));
            seq.append(Sbuf::Slice(blob, at, 1000));
        }
        CPPUNIT_ASSERT_EQUAL(size_t(1), seq.sliceCount());
        CPPUNIT_ASSERT_EQUAL(uint64_t(4000), seq.endOffset());
        CPPUNIT_ASSERT_EQUAL(size_t(4000), seq.slice(0).length());
        // a gap (bytes skipped, as chunk framing is) starts a new slice of the same block
        blob->append("xxyy");
        seq.append(Sbuf::Slice(blob, 4002, 2));
        CPPUNIT_ASSERT_EQUAL(size_t(2), seq.sliceCount());
        CPPUNIT_ASSERT_EQUAL(std::string("yy"), std::string(seq.slice(1).view()));
    }

    /// one or two slices live inline; the heap ring appears only for a third
    void twoSlicesUseNoHeap()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        const size_t bare = seq.memoryFootprint();
        CPPUNIT_ASSERT_EQUAL(sizeof(Sbuf::SliceSequence), bare);
        CPPUNIT_ASSERT(bare <= 128);
        seq.append(Sbuf::Slice(filledBlob(pool, 10, 'a')));
        seq.append(Sbuf::Slice(filledBlob(pool, 10, 'b')));
        CPPUNIT_ASSERT_EQUAL(bare, seq.memoryFootprint());
        seq.append(Sbuf::Slice(filledBlob(pool, 10, 'c')));
        CPPUNIT_ASSERT(seq.memoryFootprint() > bare);
        CPPUNIT_ASSERT_EQUAL(std::string("a"), std::string(seq.slice(0).view().substr(0, 1)));
        CPPUNIT_ASSERT_EQUAL(std::string("c"), std::string(seq.slice(2).view().substr(0, 1)));
        seq.clear();
        CPPUNIT_ASSERT_EQUAL(bare, seq.memoryFootprint());
    }

    /// seek() maps every held offset to the slice and offset that hold it
    void seekFindsEveryOffset()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq(7);
        for (int i = 0; i < 9; ++i)
            seq.append(Sbuf::Slice(filledBlob(pool, 1 + i * 3, char('a' + i))));
        for (uint64_t off = seq.startOffset(); off < seq.endOffset(); ++off) {
            const auto p = seq.seek(off);
            CPPUNIT_ASSERT_EQUAL(off, p.offset);
            CPPUNIT_ASSERT(seq.sliceStart(p.sequence) <= off && off < seq.sliceEnd(p.sequence));
            CPPUNIT_ASSERT_EQUAL(off - seq.sliceStart(p.sequence), uint64_t(p.offsetInSlice));
            CPPUNIT_ASSERT_EQUAL(char('a' + p.sequence), seq.slice(p.sequence).data()[p.offsetInSlice]);
        }
        const auto end = seq.seek(seq.endOffset());
        CPPUNIT_ASSERT_EQUAL(seq.endSequence(), end.sequence);
        CPPUNIT_ASSERT_EQUAL(size_t(0), end.offsetInSlice);
    }

    /// a seek over n slices probes at most ceil(log2(n + 1)) entries
    void seekIsLogarithmic()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        auto blob = filledBlob(pool, 256, 'z');
        const size_t n = 4096;
        for (size_t i = 0; i < n; ++i)
            seq.append(Sbuf::Slice(blob, i % 2 ? 0 : 128, 100)); // never adjacent: one slice each
        CPPUNIT_ASSERT_EQUAL(n, seq.sliceCount());
        std::mt19937_64 rng(42);
        const uint64_t seeks = 1000;
        const uint64_t maxSteps = std::bit_width(n + 1);
        const uint64_t searchesBefore = Sbuf::SliceSequence::stats().searches; // this thread's counters
        for (uint64_t i = 0; i < seeks; ++i) {
            const uint64_t before = seq.stats().searchSteps;
            const auto p = seq.seek(rng() % (seq.endOffset() + 1));
            CPPUNIT_ASSERT(seq.stats().searchSteps - before <= maxSteps);
            (void)p;
        }
        CPPUNIT_ASSERT_EQUAL(seeks, seq.stats().searches - searchesBefore);
    }

    /// seeking to a released or not yet appended offset is a bug
    void seekOutsideThrows()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        seq.append(Sbuf::Slice(filledBlob(pool, 100, 'a')));
        seq.append(Sbuf::Slice(filledBlob(pool, 100, 'b')));
        seq.releaseBefore(100);
        CPPUNIT_ASSERT_THROW(seq.seek(99), TextException);
        CPPUNIT_ASSERT_THROW(seq.seek(201), TextException);
        CPPUNIT_ASSERT_NO_THROW(seq.seek(100));
    }

    /// releaseBefore drops the slices that end at or before the offset, and no other
    void releaseDropsWholeSlicesOnly()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        for (int i = 0; i < 5; ++i)
            seq.append(Sbuf::Slice(filledBlob(pool, 100, 'a')));
        CPPUNIT_ASSERT_EQUAL(size_t(0), seq.releaseBefore(99));
        CPPUNIT_ASSERT_EQUAL(size_t(1), seq.releaseBefore(100));
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), seq.startOffset());
        CPPUNIT_ASSERT_EQUAL(size_t(1), seq.releaseBefore(250));
        CPPUNIT_ASSERT_EQUAL(uint64_t(200), seq.startOffset());
        CPPUNIT_ASSERT_EQUAL(size_t(3), seq.sliceCount());
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), pool.stats().total.blocksInUse);
        CPPUNIT_ASSERT_EQUAL(size_t(3), seq.releaseBefore(1000));
        CPPUNIT_ASSERT(seq.isEmpty());
        CPPUNIT_ASSERT_EQUAL(uint64_t(500), seq.startOffset());
        CPPUNIT_ASSERT_EQUAL(uint64_t(500), seq.endOffset());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.stats().total.blocksInUse);
    }

    /// a block with two slices goes back to the pool only when both are released
    void blockFreedWithItsLastSlice()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        {
            auto a = filledBlob(pool, 256, 'a');
            seq.append(Sbuf::Slice(a, 0, 100));
            seq.append(Sbuf::Slice(a, 110, 100)); // after a gap: a second slice of a
            seq.append(Sbuf::Slice(filledBlob(pool, 256, 'b')));
        }
        CPPUNIT_ASSERT_EQUAL(size_t(3), seq.sliceCount());
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), pool.stats().total.blocksInUse);
        seq.releaseBefore(100);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), pool.stats().total.blocksInUse);
        seq.releaseBefore(200);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), pool.stats().total.blocksInUse);
        CPPUNIT_ASSERT_EQUAL(1u, seq.slice(2).blob()->refCount());
    }

    /// slice numbers keep growing across releases: a number names one slice for ever
    void sequenceNumbersAreNeverReused()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        seq.append(Sbuf::Slice(filledBlob(pool, 10, 'a')));
        seq.append(Sbuf::Slice(filledBlob(pool, 10, 'b')));
        seq.releaseBefore(20);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), seq.firstSequence());
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), seq.endSequence());
        seq.append(Sbuf::Slice(filledBlob(pool, 10, 'c')));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), seq.firstSequence());
        CPPUNIT_ASSERT_EQUAL('c', seq.slice(2).data()[0]);
        CPPUNIT_ASSERT_THROW(seq.slice(0), TextException);
        CPPUNIT_ASSERT_THROW(seq.slice(3), TextException);
    }

    /// appending and releasing many times wraps the ring without losing order
    void ringWrapsAround()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        auto blob = filledBlob(pool, 256, 'r');
        uint64_t appended = 0;
        for (int round = 0; round < 200; ++round) {
            for (int i = 0; i < 3; ++i, ++appended)
                seq.append(Sbuf::Slice(blob, appended % 2 ? 0 : 100, 1 + appended % 50));
            seq.releaseBefore(seq.sliceStart(seq.endSequence() - 2)); // keep the last two
            for (uint64_t s = seq.firstSequence(); s < seq.endSequence(); ++s) {
                CPPUNIT_ASSERT_EQUAL(size_t(1 + s % 50), seq.slice(s).length());
                if (s + 1 < seq.endSequence()) {
                    CPPUNIT_ASSERT_EQUAL(seq.sliceEnd(s), seq.sliceStart(s + 1));
                }
            }
        }
        CPPUNIT_ASSERT_EQUAL(appended, seq.endSequence());
        CPPUNIT_ASSERT(seq.sliceCount() < 10);
        CPPUNIT_ASSERT(seq.memoryFootprint() < sizeof(seq) + 1024);
    }

    /// a copy shares the blocks (one more reference each) and keeps numbers and offsets
    void copySharesBlocks()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq(5);
        for (int i = 0; i < 3; ++i)
            seq.append(Sbuf::Slice(filledBlob(pool, 10, 'a')));
        seq.releaseBefore(15);
        const Sbuf::SliceSequence copy(seq);
        CPPUNIT_ASSERT_EQUAL(seq.firstSequence(), copy.firstSequence());
        CPPUNIT_ASSERT_EQUAL(seq.startOffset(), copy.startOffset());
        CPPUNIT_ASSERT_EQUAL(seq.endOffset(), copy.endOffset());
        CPPUNIT_ASSERT(seq.slice(2).data() == copy.slice(2).data());
        CPPUNIT_ASSERT_EQUAL(2u, copy.slice(2).blob()->refCount());
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), pool.stats().total.blocksInUse);
    }

    /// a move takes the slices; the source is left empty at its old end
    void moveTakesSlices()
    {
        Sbuf::BlockPool pool;
        for (const int slices : {2, 5}) { // inline and heap storage
            Sbuf::SliceSequence seq;
            for (int i = 0; i < slices; ++i)
                seq.append(Sbuf::Slice(filledBlob(pool, 10, char('a' + i))));
            Sbuf::SliceSequence moved(std::move(seq));
            CPPUNIT_ASSERT_EQUAL(size_t(slices), moved.sliceCount());
            CPPUNIT_ASSERT_EQUAL(char('a' + slices - 1), moved.slice(slices - 1).data()[0]);
            CPPUNIT_ASSERT(seq.isEmpty()); // NOLINT(bugprone-use-after-move)
            CPPUNIT_ASSERT_EQUAL(uint64_t(10 * slices), seq.startOffset());
            Sbuf::SliceSequence assigned;
            assigned = std::move(moved);
            CPPUNIT_ASSERT_EQUAL(uint64_t(10 * slices), assigned.endOffset());
            CPPUNIT_ASSERT_EQUAL(uint64_t(slices), pool.stats().total.blocksInUse);
            seq.append(Sbuf::Slice(filledBlob(pool, 10, 'z')));
            CPPUNIT_ASSERT_EQUAL(uint64_t(slices), seq.firstSequence());
        }
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.stats().total.blocksInUse);
    }

    /// copyOut joins bytes across slice boundaries and stops at the end
    void copyOutSpansSlices()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq(100);
        for (const char* part : {"HTTP/1.1 200 OK\r\nCont", "ent-Length: 5\r\n", "\r\nhello"})
            seq.append(Sbuf::Slice(Sbuf::MemBlob::MakeCopy(pool, part)));
        char buf[64];
        CPPUNIT_ASSERT_EQUAL(size_t(15), seq.copyOut(117, std::span<char>(buf, 15)));
        CPPUNIT_ASSERT_EQUAL(std::string("Content-Length:"), std::string(buf, 15));
        const size_t n = seq.copyOut(130, std::span<char>(buf, sizeof(buf)));
        CPPUNIT_ASSERT_EQUAL(size_t(seq.endOffset() - 130), n);
        CPPUNIT_ASSERT_EQUAL(std::string("h: 5\r\n\r\nhello"), std::string(buf, n));
        CPPUNIT_ASSERT_EQUAL(size_t(0), seq.copyOut(seq.endOffset(), std::span<char>(buf, sizeof(buf))));
    }

    /// a block is charged its whole capacity once, however many reads filled
    /// it and however few bytes it holds; it is uncharged with its last slice
    void blockBytesCountEachBlockOnce()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        auto a = Sbuf::MemBlob::Make(pool, 4096);
        for (int read = 0; read < 3; ++read) { // three reads into one block
            const size_t from = a->size();
            a->append("0123456789");
            seq.append(Sbuf::Slice(a, from, 10));
        }
        CPPUNIT_ASSERT_EQUAL(uint64_t(4096), seq.blockBytes());
        auto b = filledBlob(pool, 300, 'b'); // a 512 B block
        seq.append(Sbuf::Slice(b, 0, 100));
        seq.append(Sbuf::Slice(b, 200, 100)); // not adjacent: a second slice, same block
        CPPUNIT_ASSERT_EQUAL(size_t(3), seq.sliceCount());
        CPPUNIT_ASSERT_EQUAL(uint64_t(4096 + 512), seq.blockBytes());
        seq.releaseBefore(30);
        CPPUNIT_ASSERT_EQUAL(uint64_t(512), seq.blockBytes());
        seq.releaseBefore(130); // b still has a held slice
        CPPUNIT_ASSERT_EQUAL(uint64_t(512), seq.blockBytes());
        Sbuf::SliceSequence copy(seq);
        CPPUNIT_ASSERT_EQUAL(uint64_t(512), copy.blockBytes());
        Sbuf::SliceSequence moved(std::move(copy));
        CPPUNIT_ASSERT_EQUAL(uint64_t(512), moved.blockBytes());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), copy.blockBytes()); // NOLINT(bugprone-use-after-move)
        seq.clear();
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), seq.blockBytes());
    }

    /// over random reads, slices and releases, blockBytes() always equals the
    /// capacities of the runs of held slices, and 0 once everything is gone
    void blockBytesFollowAppendsAndReleases()
    {
        Sbuf::BlockPool pool;
        Sbuf::SliceSequence seq;
        std::mt19937 rng(7);
        Sbuf::MemBlobRef open;
        for (int step = 0; step < 2000; ++step) {
            if (!open || open->isFull() || rng() % 8 == 0)
                open = Sbuf::MemBlob::Make(pool, 256u << (rng() % 5));
            const size_t n = std::min<size_t>(1 + rng() % 300, open->spaceSize());
            const size_t from = open->size();
            open->commit(n);
            const size_t skip = rng() % 4 == 0 ? std::min<size_t>(n - 1, 3) : 0; // framing left out
            seq.append(Sbuf::Slice(open, from + skip, n - skip));
            if (rng() % 3 == 0)
                seq.releaseBefore(seq.startOffset() + rng() % (seq.length() + 1));
            CPPUNIT_ASSERT_EQUAL(runBlockBytes(seq), seq.blockBytes());
        }
        open = nullptr;
        seq.releaseBefore(seq.endOffset());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), seq.blockBytes());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.stats().total.blocksInUse);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestSliceSequence);
