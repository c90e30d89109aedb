/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "sbuf/BlockPool.h"
#include "base/TextException.h"
#include "sbuf/MemBlob.h"
#include "sbuf/tests/Residency.h"

#include <cppunit/extensions/HelperMacros.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using SbufTest::isResident;

constexpr size_t MB = 1024 * 1024;

/// VmRSS of this process in bytes, from /proc/self/status
size_t residentBytes()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0)
            return std::stoul(line.substr(6)) * 1024; // the value is in kB
    }
    return 0;
}

/// waits up to 10 s for the pool's page reserve to hold bytes ready
bool reserveReady(Sbuf::BlockPool& pool, uint64_t bytes)
{
    for (int i = 0; i < 2000; ++i) {
        if (pool.stats().reserve.readyBytes == bytes)
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
}

/// whether the page at p is mapped (mincore fails with ENOMEM when not)
bool isMapped(char* p)
{
    unsigned char v = 0;
    return ::mincore(p, 1, &v) == 0;
}

} // namespace

/// Tests of Sbuf::BlockPool.
class TestBlockPool : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestBlockPool);
    CPPUNIT_TEST(sizeClassesRoundUpToPowersOfTwo);
    CPPUNIT_TEST(oversizeRequestIsRefused);
    CPPUNIT_TEST(allocationLandsInItsClass);
    CPPUNIT_TEST(freedBlockIsReused);
    CPPUNIT_TEST(freeListIsCapped);
    CPPUNIT_TEST(onlyBigBlocksAreMapped);
    CPPUNIT_TEST(trimReturnsEveryFreeMappedBlock);
    CPPUNIT_TEST(loweringCapShrinksFreeLists);
    CPPUNIT_TEST(totalsSumTheClasses);
    CPPUNIT_TEST(freeMappedBlocksAreCappedAcrossClasses);
    CPPUNIT_TEST(residentSizeDropsAfterBurst);
    CPPUNIT_TEST(defaultPoolIsPerThreadSingleton);
    CPPUNIT_TEST(arenaIsPopulatedAtOnce);
    CPPUNIT_TEST(mappedClassesAreCarvedFromArena);
    CPPUNIT_TEST(arenaBlocksComeBackWhateverTheCaps);
    CPPUNIT_TEST(exhaustedArenaFallsBackToSystem);
    CPPUNIT_TEST(secondArenaIsRefused);
    CPPUNIT_TEST(arenaOverPhysicalMemoryIsRefused);
    CPPUNIT_TEST(failedLockKeepsNoArena);
    CPPUNIT_TEST(reserveFillsFromTheStart);
    CPPUNIT_TEST(mappedClassesAreCarvedFromReadyChunks);
    CPPUNIT_TEST(ceilingBoundsTheReserve);
    CPPUNIT_TEST(smallClassesNeverTakeFromReserve);
    CPPUNIT_TEST(largerClassLeavesChunkTailToSystem);
    CPPUNIT_TEST(reserveCanBeTurnedOff);
    CPPUNIT_TEST(freeBlockIsPoisonedUnderSanitizers);
    CPPUNIT_TEST_SUITE_END();

public:
    /// every request gets the smallest power of two >= it, 256 B at least
    void sizeClassesRoundUpToPowersOfTwo()
    {
        using Sbuf::BlockPool;
        CPPUNIT_ASSERT_EQUAL(size_t(0), BlockPool::ClassIndex(0));
        CPPUNIT_ASSERT_EQUAL(size_t(0), BlockPool::ClassIndex(1));
        CPPUNIT_ASSERT_EQUAL(size_t(0), BlockPool::ClassIndex(256));
        CPPUNIT_ASSERT_EQUAL(size_t(1), BlockPool::ClassIndex(257));
        CPPUNIT_ASSERT_EQUAL(size_t(14), BlockPool::ClassIndex(4 * MB));
        CPPUNIT_ASSERT_EQUAL(BlockPool::ClassCount - 1, BlockPool::ClassIndex(BlockPool::MaxBlockSize));
        for (size_t size = 1; size <= BlockPool::MaxBlockSize; size = size * 3 / 2 + 1) {
            const size_t r = BlockPool::RoundUp(size);
            CPPUNIT_ASSERT(r >= size);
            CPPUNIT_ASSERT(r >= BlockPool::MinBlockSize);
            CPPUNIT_ASSERT((r & (r - 1)) == 0);
            CPPUNIT_ASSERT(r == BlockPool::MinBlockSize || r / 2 < size);
        }
        for (size_t i = 0; i < BlockPool::ClassCount; ++i) {
            CPPUNIT_ASSERT_EQUAL(i, BlockPool::ClassIndex(BlockPool::ClassSize(i)));
            if (i > 0) {
                CPPUNIT_ASSERT_EQUAL(i, BlockPool::ClassIndex(BlockPool::ClassSize(i - 1) + 1));
            }
        }
    }

    /// a request over 4 MB throws, saying what was asked and what the limit is
    void oversizeRequestIsRefused()
    {
        Sbuf::BlockPool pool;
        try {
            pool.allocate(4 * MB + 1);
            CPPUNIT_FAIL("allocate(4 MB + 1) did not throw");
        } catch (const TextException& e) {
            const std::string msg = e.message();
            CPPUNIT_ASSERT(msg.find("4194305") != std::string::npos);
            CPPUNIT_ASSERT(msg.find("4194304") != std::string::npos);
        }
        CPPUNIT_ASSERT_THROW(Sbuf::MemBlob::Make(pool, 5 * MB), TextException);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.stats().total.blocksInUse);
    }

    /// an allocation is counted in use in its class, with the class's bytes
    void allocationLandsInItsClass()
    {
        Sbuf::BlockPool pool;
        char* b = pool.allocate(300);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), pool.classStats(1).blocksInUse);
        CPPUNIT_ASSERT_EQUAL(uint64_t(512), pool.classStats(1).bytesInUse);
        std::memset(b, 'x', 512); // the whole class is usable (ASan checks)
        pool.release(b, 512);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.classStats(1).blocksInUse);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), pool.classStats(1).blocksFree);
    }

    /// a released block comes back on the next request of its class, with no system call
    void freedBlockIsReused()
    {
        Sbuf::BlockPool pool;
        char* a = pool.allocate(64 * 1024);
        pool.release(a, 64 * 1024);
        char* b = pool.allocate(40000);
        CPPUNIT_ASSERT(a == b);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), pool.classStats(8).allocations);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), pool.classStats(8).systemAllocations);
        pool.release(b, 64 * 1024);
    }

    /// a class keeps at most maxFreeBytesPerClass of free blocks; the rest go back at once
    void freeListIsCapped()
    {
        Sbuf::BlockPool pool(2 * MB);
        pool.setMaxFreeMappedBytes(SIZE_MAX); // the per-class caps alone
        CPPUNIT_ASSERT_EQUAL(size_t(2), pool.maxFreeBlocks(classOf(MB)));
        CPPUNIT_ASSERT_EQUAL(size_t(1), pool.maxFreeBlocks(classOf(4 * MB)));
        std::vector<char*> blocks;
        for (int i = 0; i < 4; ++i)
            blocks.push_back(pool.allocate(MB));
        CPPUNIT_ASSERT_EQUAL(uint64_t(4 * MB), pool.classStats(classOf(MB)).bytesMapped);
        for (char* b : blocks)
            pool.release(b, MB);
        const auto& st = pool.classStats(classOf(MB));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), st.blocksFree);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), st.blocksInUse);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2 * MB), st.bytesMapped);
    }

    /// blocks of 64 KB and up are mapped (and counted so); smaller ones are not
    void onlyBigBlocksAreMapped()
    {
        Sbuf::BlockPool pool;
        char* small = pool.allocate(32 * 1024);
        char* big = pool.allocate(64 * 1024);
        CPPUNIT_ASSERT(!Sbuf::BlockPool::IsMapped(classOf(32 * 1024)));
        CPPUNIT_ASSERT(Sbuf::BlockPool::IsMapped(classOf(64 * 1024)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.classStats(classOf(32 * 1024)).bytesMapped);
        CPPUNIT_ASSERT_EQUAL(uint64_t(64 * 1024), pool.stats().total.bytesMapped);
        pool.release(small, 32 * 1024);
        pool.release(big, 64 * 1024);
    }

    /// trim() unmaps every free big block and leaves small free blocks and blocks in use
    void trimReturnsEveryFreeMappedBlock()
    {
        Sbuf::BlockPool pool;
        pool.setMaxFreeMappedBytes(SIZE_MAX); // the per-class caps alone
        char* kept = pool.allocate(MB);
        char* small = pool.allocate(1000);
        char* a = pool.allocate(MB);
        char* b = pool.allocate(128 * 1024);
        pool.release(a, MB);
        pool.release(b, 128 * 1024);
        pool.release(small, 1000);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2 * MB + 128 * 1024), pool.stats().total.bytesMapped);
        pool.trim();
        const auto st = pool.stats();
        CPPUNIT_ASSERT_EQUAL(uint64_t(MB), st.total.bytesMapped);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), st.total.blocksInUse);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), st.total.blocksFree); // the small one
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), st.perClass[classOf(1000)].blocksFree);
        pool.release(kept, MB);
    }

    /// lowering the cap gives back the free blocks over the new cap at once
    void loweringCapShrinksFreeLists()
    {
        Sbuf::BlockPool pool(8 * MB);
        pool.setMaxFreeMappedBytes(SIZE_MAX); // the per-class caps alone
        std::vector<char*> blocks;
        for (int i = 0; i < 8; ++i)
            blocks.push_back(pool.allocate(MB));
        for (char* b : blocks)
            pool.release(b, MB);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), pool.classStats(classOf(MB)).blocksFree);
        pool.setMaxFreeBytesPerClass(3 * MB);
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), pool.classStats(classOf(MB)).blocksFree);
        CPPUNIT_ASSERT_EQUAL(uint64_t(3 * MB), pool.stats().total.bytesMapped);
    }

    /// the totals are the sums of the classes
    void freeMappedBlocksAreCappedAcrossClasses()
    {
        // an auto-sized connection growing 64 KB .. 1 MB, one block of each
        // size released in turn, leaves at most the cap free, and always the
        // last size's own block (its steady state needs no mmap per block)
        Sbuf::BlockPool pool;
        for (size_t size = 64 * 1024; size <= 1024 * 1024; size *= 2)
            pool.release(pool.allocate(size), size);
        CPPUNIT_ASSERT(pool.freeMappedBytes() <= Sbuf::BlockPool::DefaultMaxFreeMappedBytes);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1),
                             pool.classStats(Sbuf::BlockPool::ClassIndex(1024 * 1024)).blocksFree);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.classStats(Sbuf::BlockPool::ClassIndex(64 * 1024)).blocksFree);
        // a steady stream of 4 MB blocks keeps one free 4 MB block, over the cap
        const auto before = pool.classStats(Sbuf::BlockPool::ClassIndex(4 * 1024 * 1024)).systemAllocations;
        for (int i = 0; i < 10; ++i)
            pool.release(pool.allocate(4 * 1024 * 1024), 4 * 1024 * 1024);
        CPPUNIT_ASSERT_EQUAL(before + 1,
                             pool.classStats(Sbuf::BlockPool::ClassIndex(4 * 1024 * 1024)).systemAllocations);
        CPPUNIT_ASSERT_EQUAL(size_t(4 * 1024 * 1024), pool.freeMappedBytes());
        // lowering the cap gives back what is over it
        pool.setMaxFreeMappedBytes(0);
        CPPUNIT_ASSERT_EQUAL(size_t(0), pool.freeMappedBytes());
    }

    void totalsSumTheClasses()
    {
        Sbuf::BlockPool pool;
        std::vector<std::pair<char*, size_t>> blocks;
        for (size_t size = 100; size <= 4 * MB; size *= 3)
            blocks.emplace_back(pool.allocate(size), size);
        pool.release(blocks.back().first, blocks.back().second);
        blocks.pop_back();
        const auto st = pool.stats();
        uint64_t inUse = 0, bytes = 0, freeBlocks = 0;
        for (const auto& c : st.perClass) {
            inUse += c.blocksInUse;
            bytes += c.bytesInUse;
            freeBlocks += c.blocksFree;
        }
        CPPUNIT_ASSERT_EQUAL(inUse, st.total.blocksInUse);
        CPPUNIT_ASSERT_EQUAL(bytes, st.total.bytesInUse);
        CPPUNIT_ASSERT_EQUAL(freeBlocks, st.total.blocksFree);
        CPPUNIT_ASSERT_EQUAL(uint64_t(blocks.size()), st.total.blocksInUse);
        for (auto& [b, size] : blocks)
            pool.release(b, size);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.stats().total.bytesInUse);
    }

    /// 64 MB of touched 1 MB blocks, released and trimmed, leave the process:
    /// RSS drops by most of it (under ASan, whose allocator skews RSS, the
    /// mapped-bytes statistic is checked instead)
    void residentSizeDropsAfterBurst()
    {
        Sbuf::BlockPool pool(128 * MB);       // the free list alone would keep them all
        pool.setMaxFreeMappedBytes(SIZE_MAX); // the per-class caps alone
        const size_t before = residentBytes();
        std::vector<Sbuf::MemBlobRef> blobs;
        for (int i = 0; i < 64; ++i) {
            blobs.push_back(Sbuf::MemBlob::Make(pool, MB));
            auto space = blobs.back()->reserveSpace();
            std::memset(space.data(), 'b', space.size());
            blobs.back()->commit(space.size());
        }
        const size_t peak = residentBytes();
        CPPUNIT_ASSERT_EQUAL(uint64_t(64 * MB), pool.stats().total.bytesMapped);
        blobs.clear();
        CPPUNIT_ASSERT_EQUAL(uint64_t(64), pool.classStats(classOf(MB)).blocksFree);
        pool.trim();
        const size_t after = residentBytes();
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.stats().total.bytesMapped);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.stats().total.blocksFree);
#if !defined(CUTTLE_SANITIZERS)
        CPPUNIT_ASSERT(peak >= before + 60 * MB);
        CPPUNIT_ASSERT(after + 56 * MB <= peak);
#else
        (void)before;
        (void)peak;
        (void)after;
#endif
    }

    /// reserveArena() rounds up to the largest class and its pages are
    /// resident before any block is taken (populated by the kernel at once)
    void arenaIsPopulatedAtOnce()
    {
        Sbuf::BlockPool pool;
        const size_t before = residentBytes();
        pool.reserveArena(30 * MB, false);
        const size_t after = residentBytes();
        CPPUNIT_ASSERT_EQUAL(size_t(32 * MB), pool.arenaBytes());
        CPPUNIT_ASSERT(!pool.isArenaLocked());
        const auto stats = pool.stats();
        CPPUNIT_ASSERT_EQUAL(uint64_t(32 * MB), stats.arenaBytes);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), stats.arenaCarvedBytes);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), stats.total.bytesMapped); // the arena is counted apart
#if !defined(CUTTLE_SANITIZERS)
        CPPUNIT_ASSERT(after >= before + 30 * MB);
#else
        (void)before;
        (void)after;
#endif
    }

    /// a mapped class is carved from the arena, in order from its front; a
    /// small class still comes from operator new
    void mappedClassesAreCarvedFromArena()
    {
        Sbuf::BlockPool pool;
        pool.reserveArena(8 * MB, false);
        char* first = pool.allocate(MB);
        char* second = pool.allocate(64 * 1024);
        char* small = pool.allocate(1024);
        CPPUNIT_ASSERT(pool.isInArena(first));
        CPPUNIT_ASSERT(pool.isInArena(second));
        CPPUNIT_ASSERT(!pool.isInArena(small));
        CPPUNIT_ASSERT(second == first + MB);
        CPPUNIT_ASSERT_EQUAL(uint64_t(MB + 64 * 1024), pool.stats().arenaCarvedBytes);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.classStats(classOf(MB)).systemAllocations);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), pool.classStats(classOf(MB)).blocksInUse);
        pool.release(first, MB);
        pool.release(second, 64 * 1024);
        pool.release(small, 1024);
    }

    /// a freed arena block goes onto its class's arena list and is taken
    /// again first, whatever the free caps say, and trim() leaves it
    void arenaBlocksComeBackWhateverTheCaps()
    {
        Sbuf::BlockPool pool(0); // no free block kept outside the arena
        pool.setMaxFreeMappedBytes(0);
        pool.reserveArena(4 * MB, false);
        std::vector<char*> blocks;
        for (int i = 0; i < 4; ++i)
            blocks.push_back(pool.allocate(MB));
        for (char* b : blocks)
            pool.release(b, MB);
        pool.trim();
        const auto& st = pool.classStats(classOf(MB));
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), st.arenaBlocksFree);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), st.blocksFree);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4 * MB), pool.stats().arenaFreeBytes);
        CPPUNIT_ASSERT_EQUAL(size_t(0), pool.freeMappedBytes()); // no cap sees them
        char* again = pool.allocate(MB);
        CPPUNIT_ASSERT(again == blocks.back()); // the list is last in, first out
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), st.arenaBlocksFree);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), st.systemAllocations);
        pool.release(again, MB);
    }

    /// once carved out, a class with no free arena block maps from the
    /// system as without an arena, and that block follows the caps
    void exhaustedArenaFallsBackToSystem()
    {
        Sbuf::BlockPool pool;
        pool.reserveArena(4 * MB, false);
        std::vector<char*> blocks;
        for (int i = 0; i < 4; ++i)
            blocks.push_back(pool.allocate(MB));
        char* outside = pool.allocate(MB);
        CPPUNIT_ASSERT(!pool.isInArena(outside));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), pool.classStats(classOf(MB)).systemAllocations);
        CPPUNIT_ASSERT_EQUAL(uint64_t(MB), pool.stats().total.bytesMapped);
        pool.release(outside, MB);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), pool.classStats(classOf(MB)).blocksFree);
        pool.trim();
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.stats().total.bytesMapped);
        for (char* b : blocks)
            pool.release(b, MB);
    }

    /// a pool has at most one arena
    void secondArenaIsRefused()
    {
        Sbuf::BlockPool pool;
        pool.reserveArena(4 * MB, false);
        CPPUNIT_ASSERT_THROW(pool.reserveArena(4 * MB, false), TextException);
        CPPUNIT_ASSERT_EQUAL(size_t(4 * MB), pool.arenaBytes());
    }

    /// an arena as large as the machine's memory is refused before anything
    /// is mapped (populating it would end in the OOM killer)
    void arenaOverPhysicalMemoryIsRefused()
    {
        Sbuf::BlockPool pool;
        const size_t physical = size_t(::sysconf(_SC_PHYS_PAGES)) * size_t(::sysconf(_SC_PAGESIZE));
        try {
            pool.reserveArena(physical, false);
            CPPUNIT_FAIL("an arena of all the machine's memory was made");
        } catch (const TextException& e) {
            CPPUNIT_ASSERT(std::string(e.what()).find("bytes in all") != std::string::npos);
        }
        CPPUNIT_ASSERT_EQUAL(size_t(0), pool.arenaBytes());
    }

    /// a lock the system refuses (RLIMIT_MEMLOCK of 0 for an unprivileged
    /// process) throws, naming the remedy, and leaves no arena; checked in a
    /// child that drops CAP_IPC_LOCK's effect by lowering its limit as a non-root user
    void failedLockKeepsNoArena()
    {
// AddressSanitizer and ThreadSanitizer make mlock() succeed without locking anything
#if !defined(CUTTLE_SANITIZERS) && !defined(CUTTLE_TSAN)
        const pid_t child = ::fork();
        CPPUNIT_ASSERT(child >= 0);
        if (child == 0) {
            struct rlimit zero = {0, 0};
            if (::setrlimit(RLIMIT_MEMLOCK, &zero) != 0)
                ::_exit(3);
            if (::geteuid() == 0 && ::setuid(65534) != 0) // root's CAP_IPC_LOCK ignores the limit
                ::_exit(4);
            Sbuf::BlockPool pool;
            try {
                pool.reserveArena(4 * MB, true);
            } catch (const TextException& e) {
                const std::string what = e.what();
                ::_exit(pool.arenaBytes() == 0 && what.find("RLIMIT_MEMLOCK") != std::string::npos ? 0 : 2);
            }
            ::_exit(1);
        }
        int status = 0;
        CPPUNIT_ASSERT_EQUAL(child, ::waitpid(child, &status, 0));
        CPPUNIT_ASSERT(WIFEXITED(status));
        CPPUNIT_ASSERT_EQUAL(0, WEXITSTATUS(status));
#endif
    }

    /// DefaultPool() returns the same pool on one thread
    void defaultPoolIsPerThreadSingleton()
    {
        CPPUNIT_ASSERT(&Sbuf::DefaultPool() == &Sbuf::DefaultPool());
    }

    /// under ASan, reading a block that went back to the free list is reported
    /// (the pool poisons free blocks); checked in a child process
    void freeBlockIsPoisonedUnderSanitizers()
    {
#if defined(CUTTLE_SANITIZERS)
        Sbuf::BlockPool pool;
        char* block = pool.allocate(1000);
        block[100] = 'x';
        pool.release(block, 1000);
        const pid_t child = ::fork();
        CPPUNIT_ASSERT(child >= 0);
        if (child == 0) {
            const int devNull = ::open("/dev/null", O_WRONLY);
            ::dup2(devNull, 2);
            volatile char c = block[100];
            (void)c;
            ::_exit(0);
        }
        int status = 0;
        CPPUNIT_ASSERT_EQUAL(child, ::waitpid(child, &status, 0));
        CPPUNIT_ASSERT(!(WIFEXITED(status) && WEXITSTATUS(status) == 0));
        char* again = pool.allocate(1000);
        CPPUNIT_ASSERT(again == block);
        again[100] = 'y'; // allocated again: usable
        pool.release(again, 1000);
#endif
    }

    /// a page reserve fills as soon as it is set, before any block is asked
    /// for: right after start is when the loop is quiet
    void reserveFillsFromTheStart()
    {
        Sbuf::BlockPool pool;
        pool.setPageReserve(8 * MB, 64 * MB);
        CPPUNIT_ASSERT_EQUAL(size_t(8 * MB), pool.pageReserveBytes());
        CPPUNIT_ASSERT(reserveReady(pool, 8 * MB));
        const auto st = pool.stats();
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), st.reserve.chunksMade);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8 * MB), st.reserveReadyBytes);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), st.total.bytesMapped);
    }

    /// a mapped class is carved from a ready chunk, in order from its front,
    /// and counted as mapped; the taken chunk is made again once the pool
    /// has been quiet
    void mappedClassesAreCarvedFromReadyChunks()
    {
        Sbuf::BlockPool pool;
        pool.setPageReserve(4 * MB, 64 * MB);
        CPPUNIT_ASSERT(reserveReady(pool, 4 * MB));
        char* first = pool.allocate(MB);
        char* second = pool.allocate(MB);
        CPPUNIT_ASSERT(second == first + MB);
        CPPUNIT_ASSERT(isResident(first, 2 * MB));
        const auto st = pool.stats();
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), st.reserve.chunksTaken);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), st.perClass[classOf(MB)].systemAllocations);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2 * MB), st.perClass[classOf(MB)].bytesMapped);
        CPPUNIT_ASSERT(reserveReady(pool, 4 * MB));
        CPPUNIT_ASSERT_EQUAL(uint64_t(6 * MB), pool.stats().reserveReadyBytes); // 2 MB left in the chunk
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), pool.stats().reserve.chunksMade);
        pool.release(first, MB);
        pool.release(second, MB);
        pool.trim();
        CPPUNIT_ASSERT(!isMapped(first));
        CPPUNIT_ASSERT(!isMapped(second));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.stats().total.bytesMapped);
    }

    /// the ready chunks and the pool's mapped blocks together stay under the
    /// ceiling (cache_mem): a pool that holds it all has no reserve ready,
    /// and one that gives blocks back gets it again
    void ceilingBoundsTheReserve()
    {
        Sbuf::BlockPool pool(0);
        pool.setPageReserve(16 * MB, 8 * MB);
        CPPUNIT_ASSERT(reserveReady(pool, 8 * MB));
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), pool.stats().reserve.chunksMade);
        std::vector<char*> blocks = allocateMegabytes(pool, 6); // both chunks taken
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), pool.stats().reserve.chunksTaken);
        // quiet again, but the pool holds the ceiling: nothing is made
        std::this_thread::sleep_for(
            std::chrono::milliseconds(2 * Sbuf::PageReserve::DefaultQuietMilliseconds));
        auto st = pool.stats();
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), st.reserve.chunksMade);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), st.reserve.readyBytes);
        for (char* b : blocks)
            pool.release(b, MB); // no free-list room: each goes back to the system
        pool.trim();
        CPPUNIT_ASSERT(reserveReady(pool, 4 * MB)); // 2 MB of the last chunk still held
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), pool.stats().reserve.chunksMade);
    }

    /// blocks under 64 KB come from operator new: the reserve is not asked
    /// however many are in use
    void smallClassesNeverTakeFromReserve()
    {
        Sbuf::BlockPool pool;
        pool.setPageReserve(4 * MB, 64 * MB);
        std::vector<char*> small;
        for (int i = 0; i < 160; ++i)
            small.push_back(pool.allocate(32 * 1024)); // 5 MB
        const auto st = pool.stats();
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), st.reserve.takesMissed + st.reserve.chunksTaken);
        for (char* b : small)
            pool.release(b, 32 * 1024);
    }

    /// a class larger than what is left of the chunk in use takes a new
    /// chunk, and the old chunk's tail goes back to the system at once
    void largerClassLeavesChunkTailToSystem()
    {
        Sbuf::BlockPool pool;
        pool.setPageReserve(8 * MB, 64 * MB);
        CPPUNIT_ASSERT(reserveReady(pool, 8 * MB));
        char* one = pool.allocate(MB);
        CPPUNIT_ASSERT(isMapped(one + MB)); // the chunk's tail, not carved yet
        char* four = pool.allocate(4 * MB);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), pool.stats().reserve.chunksTaken);
        CPPUNIT_ASSERT(!isMapped(one + MB));
        CPPUNIT_ASSERT(!isMapped(one + 3 * MB));
        CPPUNIT_ASSERT(four != one + MB);
        std::memset(four, 'x', 4 * MB);
        pool.release(one, MB);
        pool.release(four, 4 * MB);
    }

    /// setPageReserve(0, ...) ends the helper and its memory: blocks are
    /// mapped from the system again
    void reserveCanBeTurnedOff()
    {
        Sbuf::BlockPool pool;
        pool.setPageReserve(4 * MB, 64 * MB);
        CPPUNIT_ASSERT(reserveReady(pool, 4 * MB));
        pool.setPageReserve(0, 64 * MB);
        CPPUNIT_ASSERT_EQUAL(size_t(0), pool.pageReserveBytes());
        const auto st = pool.stats();
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), st.reserveBytes);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), st.reserveReadyBytes);
        char* block = pool.allocate(2 * MB);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), pool.classStats(classOf(2 * MB)).systemAllocations);
        pool.release(block, 2 * MB);
    }

private:
    static size_t classOf(size_t size)
    {
        return Sbuf::BlockPool::ClassIndex(size);
    }
    /// n blocks of 1 MB from pool
    static std::vector<char*> allocateMegabytes(Sbuf::BlockPool& pool, int n)
    {
        std::vector<char*> blocks;
        for (int i = 0; i < n; ++i)
            blocks.push_back(pool.allocate(MB));
        return blocks;
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestBlockPool);
