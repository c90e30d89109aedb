/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Sbuf::BlockPool: the size-classed pool that MemBlob bytes come from,
/// and Sbuf::CopyStats, the counter of user-space body copies.
///
/// Size classes are the powers of two from 256 B (class 0) to 4 MB (class 14).
/// A request is rounded up to its class; a request over 4 MB is refused with a
/// TextException. Blocks under 64 KB come from operator new; blocks of 64 KB
/// and up come from mmap(2) and go back with munmap(2), so the resident size
/// drops after a burst (doc/design.md "Budgets"; MADV_FREE would not lower it).
///
/// A freed block goes onto its class's free list unless the list is at its
/// cap (maxFreeBytesPerClass / class size, at least one block), in which case
/// it goes back to the system at once. The free blocks of the mapped classes
/// together are also capped (setMaxFreeMappedBytes(), 1 MB by default, one
/// block of a class always allowed), so the blocks an auto-sized connection
/// used on its way up do not stay resident. trim() gives every free mmap'ed
/// block back. The free list is intrusive: a free block stores the next pointer in
/// its first bytes, so the pool allocates nothing to keep it.
///
/// Threading: a pool belongs to one event loop (one thread) and is not
/// locked. It must outlive every block taken from it. DefaultPool() is the
/// calling thread's own pool.

#pragma once

#include "sbuf/forward.h"
#include "sbuf/PageReserve.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace Sbuf {

/// Counts of body bytes copied in user space. Body bytes should travel from
/// read(2) to writev(2) without a copy. Store::BodyWriter counts, as it sends
/// them, body bytes that sit below their block's MemBlob::copiedEnd() (put
/// there by MemBlob::append or MakeCopy, not by a read); the tunnel counts
/// its fallback copies. Tests assert the count stays 0 on the plain paths.
struct CopyStats {
    uint64_t bodyCopies = 0;        ///< writes (or tunnel copies) that carried copied body bytes
    uint64_t bodyBytesCopied = 0;   ///< the copied body bytes they carried
    uint64_t compactions = 0;       ///< the one permitted copy: a small kept body compacted once
    uint64_t compactedBytes = 0;    ///< bytes those compactions copied
    uint64_t workerCopies = 0;      ///< hits on another worker's object, copied (Store::Entry::CopyOf())
    uint64_t workerBytesCopied = 0; ///< the head and body bytes those copies made

    /// records one user-space copy of n body bytes
    void countBodyCopy(size_t n)
    {
        ++bodyCopies;
        bodyBytesCopied += n;
    }
    /// records one copy of another worker's object of n bytes
    void countWorkerCopy(size_t n)
    {
        ++workerCopies;
        workerBytesCopied += n;
    }
    /// records one compaction of a small kept body of n bytes
    void countCompaction(size_t n)
    {
        ++compactions;
        compactedBytes += n;
    }
};

/// Statistics of one size class (or, in PoolStats::total, of all of them).
struct ClassStats {
    uint64_t blocksInUse = 0; ///< blocks handed out and not yet released
    uint64_t blocksFree = 0;  ///< blocks on the free list
    uint64_t bytesInUse = 0;  ///< blocksInUse times the class size
    uint64_t bytesFree = 0;   ///< blocksFree times the class size
    uint64_t bytesMapped = 0; ///< bytes of this class held from mmap (in use + free); 0 for small classes
    uint64_t allocations = 0; ///< allocate() calls served, from the free list or the system
    uint64_t systemAllocations = 0; ///< of those, the ones that went to the system (new or mmap)
    uint64_t arenaBlocksFree = 0;   ///< blocks of the arena on this class's arena free list
                                    ///< (not counted in blocksFree, which no cap sees)
};

/// A pool of blocks in size classes 256 B .. 4 MB.
class BlockPool {
public:
    static constexpr size_t MinBlockSize = 256;             ///< the smallest class
    static constexpr size_t MaxBlockSize = 4 * 1024 * 1024; ///< the largest class
    static constexpr size_t ClassCount = 15;                ///< classes 256 B, 512 B, ..., 4 MB
    static constexpr size_t MmapThreshold = 64 * 1024;      ///< classes from here up use mmap
    static constexpr size_t DefaultMaxFreeBytesPerClass = 4 * 1024 * 1024; ///< default free-list cap
    static constexpr size_t DefaultMaxFreeMappedBytes =
        1024 * 1024; ///< default pool-wide cap on free mmap'ed bytes

    /// statistics of the whole pool
    struct Stats {
        std::array<ClassStats, ClassCount> perClass{}; ///< indexed by class index
        ClassStats total;                              ///< sums over all classes
        uint64_t arenaBytes = 0;                       ///< the arena's size (0: none)
        uint64_t arenaCarvedBytes = 0;                 ///< bytes of the arena carved into blocks so far
        uint64_t arenaFreeBytes = 0;    ///< bytes of carved arena blocks on the arena free lists
        uint64_t reserveBytes = 0;      ///< the page reserve's target (0: none)
        uint64_t reserveReadyBytes = 0; ///< populated bytes of the reserve not carved yet
        PageReserve::Stats reserve;     ///< the page reserve's counters
    };

    /// a pool whose free list of each class holds at most
    /// max(1, maxFreeBytesPerClass / class size) blocks
    explicit BlockPool(size_t maxFreeBytesPerClass = DefaultMaxFreeBytesPerClass);
    /// returns every free block to the system; blocks still in use are a bug
    /// of the caller (they are leaked, not freed under a user)
    ~BlockPool();
    BlockPool(const BlockPool&) = delete;
    BlockPool& operator=(const BlockPool&) = delete;

    /// the class index for a request of size bytes (0 for 0..256);
    /// throws TextException when size > MaxBlockSize
    static size_t ClassIndex(size_t size);
    /// the block size of a class
    static size_t ClassSize(size_t classIndex) { return MinBlockSize << classIndex; }
    /// the block size a request of size bytes gets; throws when size > MaxBlockSize
    static size_t RoundUp(size_t size) { return ClassSize(ClassIndex(size)); }
    /// whether blocks of this class come from mmap
    static bool IsMapped(size_t classIndex) { return ClassSize(classIndex) >= MmapThreshold; }

    /// a block of at least size bytes (exactly RoundUp(size)); its bytes are
    /// uninitialised; throws when size > MaxBlockSize or the system refuses
    char* allocate(size_t size);
    /// gives back a block that allocate() returned for a request of the same
    /// class (capacity is the block size, or any size of the same class)
    void release(char* block, size_t capacity);

    /// returns every free mmap'ed block to the system (small free blocks stay)
    void trim();
    /// changes the free-list cap; lists over the new cap shrink at once
    void setMaxFreeBytesPerClass(size_t bytes);
    /// the free-list cap in blocks for a class
    size_t maxFreeBlocks(size_t classIndex) const;
    /// caps the free blocks of all mapped classes together at about bytes:
    /// a released mapped block over the cap first evicts other mapped
    /// classes' free blocks, and goes back to the system unless its own
    /// class has no free block (one is always kept, so a steady stream of one
    /// block size does not map and unmap per block)
    void setMaxFreeMappedBytes(size_t bytes);
    /// the cap setMaxFreeMappedBytes() set
    size_t maxFreeMappedBytes() const { return maxFreeMappedBytes_; }
    /// bytes of free blocks of the mapped classes (64 KB and up), arena blocks aside
    size_t freeMappedBytes() const;

    /// maps bytes (rounded up to MaxBlockSize) as the pool's arena, every page
    /// populated by the kernel now, and mlock()s it when lock is set; blocks of
    /// the mapped classes then come from it first. Throws TextException, naming
    /// the system's reason, when there is an arena already, when the mapping
    /// fails, or when the lock fails (the mapping is undone: nothing is kept)
    void reserveArena(size_t bytes, bool lock);
    /// the arena's size in bytes (0: no arena)
    size_t arenaBytes() const { return arenaSize_; }
    /// bytes of carved arena blocks on the arena free lists
    size_t arenaFreeBytes() const;
    /// whether the arena is locked in memory
    bool isArenaLocked() const { return arenaLocked_; }
    /// whether block lies in the arena
    bool isInArena(const char* block) const
    {
        return arenaBase_ && block >= arenaBase_ && block < arenaBase_ + arenaSize_;
    }

    /// has a helper thread keep about bytes of populated memory ready for the
    /// mapped classes (PageReserve), made while the loop is quiet, and never
    /// so much that the pool's mapped memory (blocks in use and free) and the
    /// ready chunks together pass ceiling; 0 bytes turns it off. Blocks that
    /// neither the arena nor a free list can give are carved from the
    /// reserve's chunks when one is ready. Starts the helper thread.
    void setPageReserve(size_t bytes, size_t ceiling);
    /// the page reserve's target in bytes (0: none)
    size_t pageReserveBytes() const { return reserve_ ? reserve_->bytes() : 0; }

    /// statistics of one class
    const ClassStats& classStats(size_t classIndex) const { return stats_[classIndex]; }
    /// statistics of every class and their totals
    Stats stats() const;

    /// this loop's counter of user-space body copies
    CopyStats& copyStats() { return copyStats_; }
    /// this loop's counter of user-space body copies
    const CopyStats& copyStats() const { return copyStats_; }

private:
    /// a free block's first bytes
    struct FreeBlock {
        FreeBlock* next; ///< the next free block of the same class
    };

    char* systemAllocate(size_t classIndex);
    char* carveArena(size_t classIndex);
    char* carveReserve(size_t classIndex);
    /// how many bytes the reserve may hold ready: the ceiling less the
    /// mapped blocks (in use and free) and the chunk being carved
    size_t reserveRoom() const;
    /// tells the reserve its room (after the pool's mapped memory changed)
    void updateReserveRoom();
    /// the sum of one statistic over the mapped classes (64 KB and up)
    size_t sumOfMappedClasses(uint64_t ClassStats::*field) const;
    /// unmaps what is left of the reserve chunk being carved
    void dropReserveChunk();
    void systemRelease(char* block, size_t classIndex);
    void shrinkFreeList(size_t classIndex, size_t keep);

    size_t maxFreeBytesPerClass_;                           ///< free-list cap, in bytes per class
    size_t maxFreeMappedBytes_ = DefaultMaxFreeMappedBytes; ///< cap on free mapped bytes, all classes
    std::array<FreeBlock*, ClassCount> freeLists_{};        ///< singly linked free blocks, per class
    std::array<FreeBlock*, ClassCount> arenaFree_{};        ///< free blocks of the arena, per class
    char* arenaBase_ = nullptr;                             ///< the arena's first byte; null: no arena
    size_t arenaSize_ = 0;                                  ///< the arena's size
    size_t arenaCarved_ = 0;                                ///< bytes carved from the front so far
    bool arenaLocked_ = false;                              ///< whether mlock() holds the arena
    std::unique_ptr<PageReserve> reserve_;                  ///< populated memory made ahead; null: none
    size_t reserveCeiling_ = 0;   ///< mapped bytes held plus the reserve's ready ones stay under this
    char* reserveNext_ = nullptr; ///< the next byte to carve of the reserve chunk in use
    size_t reserveLeft_ = 0;      ///< bytes left in that chunk
    std::array<ClassStats, ClassCount> stats_{}; ///< per-class statistics
    CopyStats copyStats_;                        ///< body copies counted on this loop
};

/// The calling thread's pool (one per event loop thread), created on first use
/// and destroyed when the thread exits.
BlockPool& DefaultPool();

} // namespace Sbuf
