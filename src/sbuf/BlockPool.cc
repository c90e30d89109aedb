/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "sbuf/BlockPool.h"
#include "base/TextException.h"

#include <bit>
#include <cerrno>
#include <cstring>
#include <new>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

#if defined(CUTTLE_SANITIZERS)
#include <sanitizer/asan_interface.h>
// A free block stays in the pool, so ASan would not see a read through a
// dangling slice: poison free blocks (all but the free-list link) instead.
#define CUTTLE_POISON(addr, size) ASAN_POISON_MEMORY_REGION((addr), (size))
#define CUTTLE_UNPOISON(addr, size) ASAN_UNPOISON_MEMORY_REGION((addr), (size))
#else
#define CUTTLE_POISON(addr, size) ((void)(addr), (void)(size))
#define CUTTLE_UNPOISON(addr, size) ((void)(addr), (void)(size))
#endif

namespace Sbuf {

BlockPool::BlockPool(size_t maxFreeBytesPerClass) : maxFreeBytesPerClass_(maxFreeBytesPerClass) {}

BlockPool::~BlockPool()
{
    for (size_t i = 0; i < ClassCount; ++i)
        shrinkFreeList(i, 0);
    dropReserveChunk();
    if (!arenaBase_)
        return;
    // blocks of the arena still in use are the caller's bug: leak the arena
    // rather than unmap it under them
    if (arenaFreeBytes() == arenaCarved_) {
        CUTTLE_UNPOISON(arenaBase_, arenaSize_);
        (void)::munmap(arenaBase_, arenaSize_);
    }
}

void BlockPool::reserveArena(size_t bytes, bool lock)
{
    Must2(!arenaBase_, "the block pool has an arena already");
    const size_t size = (bytes + MaxBlockSize - 1) / MaxBlockSize * MaxBlockSize;
    if (size == 0)
        return;
    // populating more than the machine has would end in the OOM killer, not an error
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long pageSize = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && pageSize > 0 && size / uint64_t(pageSize) >= uint64_t(pages))
        Throw("cannot lock " + std::to_string(size) + " bytes of memory: the machine has " +
              std::to_string(uint64_t(pages) * uint64_t(pageSize)) + " bytes in all");
    void* p =
        ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED)
        Throw("cannot map " + std::to_string(size) + " bytes of memory: " + std::strerror(errno));
    if (lock && ::mlock(p, size) != 0) {
        const int error = errno;
        (void)::munmap(p, size);
        Throw("cannot lock " + std::to_string(size) + " bytes of memory: " + std::strerror(error) +
              " (raise RLIMIT_MEMLOCK, e.g. LimitMEMLOCK= in the systemd unit, or grant CAP_IPC_LOCK)");
    }
    arenaBase_ = static_cast<char*>(p);
    arenaSize_ = size;
    arenaCarved_ = 0;
    arenaLocked_ = lock;
}

char* BlockPool::carveArena(size_t classIndex)
{
    const size_t csize = ClassSize(classIndex);
    if (!arenaBase_ || !IsMapped(classIndex) || arenaSize_ - arenaCarved_ < csize)
        return nullptr;
    char* block = arenaBase_ + arenaCarved_;
    arenaCarved_ += csize;
    return block;
}

void BlockPool::setPageReserve(size_t bytes, size_t ceiling)
{
    reserveCeiling_ = ceiling;
    if (bytes == pageReserveBytes()) {
        updateReserveRoom();
        return;
    }
    dropReserveChunk();
    reserve_.reset();
    if (bytes == 0)
        return;
    reserve_ = std::make_unique<PageReserve>(bytes, reserveRoom());
    reserve_->start();
}

size_t BlockPool::reserveRoom() const
{
    const size_t held = sumOfMappedClasses(&ClassStats::bytesMapped) + reserveLeft_;
    return reserveCeiling_ > held ? reserveCeiling_ - held : 0;
}

void BlockPool::updateReserveRoom()
{
    if (reserve_)
        reserve_->setRoom(reserveRoom());
}

char* BlockPool::carveReserve(size_t classIndex)
{
    const size_t csize = ClassSize(classIndex);
    if (!reserve_ || !IsMapped(classIndex))
        return nullptr;
    if (reserveLeft_ < csize) {
        // the classes are powers of two no larger than a chunk, so a chunk
        // left short is one a larger class came to after smaller ones
        dropReserveChunk();
        reserveNext_ = reserve_->take();
        if (!reserveNext_)
            return nullptr;
        reserveLeft_ = PageReserve::ChunkSize;
        // the chunk is the pool's now: less room for the ready ones
        updateReserveRoom();
    }
    char* block = reserveNext_;
    reserveNext_ += csize;
    reserveLeft_ -= csize;
    stats_[classIndex].bytesMapped += csize;
    return block;
}

void BlockPool::dropReserveChunk()
{
    if (reserveLeft_ > 0)
        (void)::munmap(reserveNext_, reserveLeft_);
    reserveNext_ = nullptr;
    reserveLeft_ = 0;
}

size_t BlockPool::ClassIndex(size_t size)
{
    Must2(size <= MaxBlockSize, "a block of " + std::to_string(size) +
                                    " bytes was requested, over the largest size class of " +
                                    std::to_string(MaxBlockSize) + " bytes");
    if (size <= MinBlockSize)
        return 0;
    // bit_width(size - 1) is log2 of the smallest power of two >= size
    return std::bit_width(size - 1) - std::bit_width(MinBlockSize - 1);
}

size_t BlockPool::maxFreeBlocks(size_t classIndex) const
{
    const size_t blocks = maxFreeBytesPerClass_ / ClassSize(classIndex);
    return blocks ? blocks : 1;
}

char* BlockPool::allocate(size_t size)
{
    const size_t ci = ClassIndex(size);
    const size_t csize = ClassSize(ci);
    ClassStats& st = stats_[ci];
    char* block;
    if (FreeBlock* afb = arenaFree_[ci]) {
        arenaFree_[ci] = afb->next;
        --st.arenaBlocksFree;
        block = reinterpret_cast<char*>(afb);
        CUTTLE_UNPOISON(block, csize);
    } else if (FreeBlock* fb = freeLists_[ci]) {
        freeLists_[ci] = fb->next;
        --st.blocksFree;
        st.bytesFree -= csize;
        block = reinterpret_cast<char*>(fb);
        CUTTLE_UNPOISON(block, csize);
    } else if ((block = carveArena(ci))) {
        // populated at start-up: no fault, no zeroing
    } else if ((block = carveReserve(ci))) {
        // populated by the reserve's thread: no fault here
        ++st.systemAllocations;
    } else {
        block = systemAllocate(ci);
        ++st.systemAllocations;
    }
    ++st.allocations;
    ++st.blocksInUse;
    st.bytesInUse += csize;
    return block;
}

void BlockPool::release(char* block, size_t capacity)
{
    if (!block)
        return;
    const size_t ci = ClassIndex(capacity);
    const size_t csize = ClassSize(ci);
    ClassStats& st = stats_[ci];
    Must(st.blocksInUse > 0);
    --st.blocksInUse;
    st.bytesInUse -= csize;
    if (isInArena(block)) {
        // the arena is never given back: no cap applies
        auto* fb = reinterpret_cast<FreeBlock*>(block);
        fb->next = arenaFree_[ci];
        arenaFree_[ci] = fb;
        CUTTLE_POISON(block + sizeof(FreeBlock), csize - sizeof(FreeBlock));
        ++st.arenaBlocksFree;
        return;
    }
    if (IsMapped(ci) && freeMappedBytes() + csize > maxFreeMappedBytes_) {
        // Over the pool-wide cap on free mapped memory: first give back the
        // free blocks of other mapped classes, smallest first (what an auto
        // read size left behind as it grew), so that RSS holds what is in use
        // plus about the cap; a class keeps one free block of its own, so a
        // steady stream of one size never maps and unmaps per read.
        for (size_t j = 0; j < ClassCount && freeMappedBytes() + csize > maxFreeMappedBytes_; ++j) {
            if (j != ci && IsMapped(j))
                shrinkFreeList(j, 0);
        }
        if (freeMappedBytes() + csize > maxFreeMappedBytes_ && st.blocksFree > 0) {
            systemRelease(block, ci);
            return;
        }
    }
    if (st.blocksFree >= maxFreeBlocks(ci)) {
        systemRelease(block, ci);
        return;
    }
    auto* fb = reinterpret_cast<FreeBlock*>(block);
    fb->next = freeLists_[ci];
    freeLists_[ci] = fb;
    CUTTLE_POISON(block + sizeof(FreeBlock), csize - sizeof(FreeBlock));
    ++st.blocksFree;
    st.bytesFree += csize;
}

size_t BlockPool::arenaFreeBytes() const
{
    size_t bytes = 0;
    for (size_t i = 0; i < ClassCount; ++i)
        bytes += stats_[i].arenaBlocksFree * ClassSize(i);
    return bytes;
}

size_t BlockPool::sumOfMappedClasses(uint64_t ClassStats::*field) const
{
    size_t bytes = 0;
    for (size_t i = 0; i < ClassCount; ++i) {
        if (IsMapped(i))
            bytes += stats_[i].*field;
    }
    return bytes;
}

size_t BlockPool::freeMappedBytes() const
{
    return sumOfMappedClasses(&ClassStats::bytesFree);
}

void BlockPool::setMaxFreeMappedBytes(size_t bytes)
{
    maxFreeMappedBytes_ = bytes;
    for (size_t i = 0; i < ClassCount && freeMappedBytes() > maxFreeMappedBytes_; ++i) {
        if (IsMapped(i))
            shrinkFreeList(i, 0);
    }
}

void BlockPool::trim()
{
    for (size_t i = 0; i < ClassCount; ++i) {
        if (IsMapped(i))
            shrinkFreeList(i, 0);
    }
}

void BlockPool::setMaxFreeBytesPerClass(size_t bytes)
{
    maxFreeBytesPerClass_ = bytes;
    for (size_t i = 0; i < ClassCount; ++i)
        shrinkFreeList(i, maxFreeBlocks(i));
}

BlockPool::Stats BlockPool::stats() const
{
    Stats all;
    all.perClass = stats_;
    for (const auto& c : stats_) {
        all.total.blocksInUse += c.blocksInUse;
        all.total.blocksFree += c.blocksFree;
        all.total.bytesInUse += c.bytesInUse;
        all.total.bytesFree += c.bytesFree;
        all.total.bytesMapped += c.bytesMapped;
        all.total.allocations += c.allocations;
        all.total.systemAllocations += c.systemAllocations;
        all.total.arenaBlocksFree += c.arenaBlocksFree;
    }
    all.arenaBytes = arenaSize_;
    all.arenaCarvedBytes = arenaCarved_;
    all.arenaFreeBytes = arenaFreeBytes();
    if (reserve_) {
        all.reserve = reserve_->stats();
        all.reserveBytes = reserve_->bytes();
        all.reserveReadyBytes = all.reserve.readyBytes + reserveLeft_;
    }
    return all;
}

char* BlockPool::systemAllocate(size_t classIndex)
{
    const size_t csize = ClassSize(classIndex);
    if (!IsMapped(classIndex))
        return static_cast<char*>(::operator new(csize));
    // MAP_POPULATE: the block's pages are faulted in by this one call, not
    // one trap per 4 KB page as reads fill it (a kept 512 MiB object took
    // 262,000 page faults: 0.92 -> 0.69 CPU-s per GiB stored)
    void* p =
        ::mmap(nullptr, csize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED)
        throw std::bad_alloc();
    stats_[classIndex].bytesMapped += csize;
    updateReserveRoom();
    return static_cast<char*>(p);
}

void BlockPool::systemRelease(char* block, size_t classIndex)
{
    const size_t csize = ClassSize(classIndex);
    CUTTLE_UNPOISON(block, csize);
    if (!IsMapped(classIndex)) {
        ::operator delete(block);
        return;
    }
    // munmap of a range we mapped cannot fail short of a bug; there is nothing
    // better to do with an error than to keep the accounting honest
    if (::munmap(block, csize) == 0)
        stats_[classIndex].bytesMapped -= csize;
    updateReserveRoom();
}

void BlockPool::shrinkFreeList(size_t classIndex, size_t keep)
{
    ClassStats& st = stats_[classIndex];
    const size_t csize = ClassSize(classIndex);
    while (st.blocksFree > keep) {
        FreeBlock* fb = freeLists_[classIndex];
        freeLists_[classIndex] = fb->next;
        --st.blocksFree;
        st.bytesFree -= csize;
        systemRelease(reinterpret_cast<char*>(fb), classIndex);
    }
}

BlockPool& DefaultPool()
{
    thread_local BlockPool pool;
    return pool;
}

} // namespace Sbuf
