/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Sbuf::PageReserve: memory whose pages a helper thread has already
/// faulted in, for the block pool's mapped classes.
///
/// Why: a fresh anonymous page costs the thread that first touches it a
/// fault, a page clear and, in a virtual machine whose host took the page
/// back (free page reporting, ballooning), a fault in the host too. Keeping
/// a 512 MiB object in memory touched 512 MiB of fresh pages on the event
/// loop, which then ran out of CPU before the client or the origin did
/// (0.7-1.0 CPU-s per GB stored against 0.45 for the same object streamed
/// through without being kept). Populating those pages on a second thread
/// *while the object arrives* did not help on a 2-core machine either: the
/// helper took the CPU the client and the origin needed (0.80x of the
/// uncached rate, against 0.94x when the pages were there before).
///
/// How: the helper keeps up to `bytes` of populated mappings ready, in
/// chunks of ChunkSize, and makes them only while the loop is quiet: once
/// no take() has come for quietMilliseconds (so right after start, and
/// after a burst of growth). take() is the loop's side: it pops a ready
/// chunk without waiting (nullptr when there is none, or when the helper
/// holds the lock that instant: the pool then maps its own block as
/// before, so the reserve can only help). setRoom() bounds what is held:
/// the ready chunks never exceed the room the pool last gave (cache_mem
/// minus what the pool holds), and chunks over it go back when the loop is
/// quiet. The helper runs at SCHED_IDLE, so it only takes CPU no one else
/// wants, and blocks every signal: the loop's signalfd must see them all.
///
///   loop thread                      helper thread (SCHED_IDLE)
///   pool.allocate(1 MB)              while quiet and ready < min(bytes, room):
///    -> carve from the current chunk     mmap(ChunkSize, MAP_POPULATE)
///    -> chunk used up: take()  <-------  ready.push()
///                                    a take() came: wait until quiet again
///
/// Threading: start(), take(), setRoom() and stats() are for one thread
/// (the pool's); the helper touches only the ready list, the flags and the
/// counters, under the mutex.

#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace Sbuf {

/// Populated memory made ahead of need by a helper thread (see the file comment).
class PageReserve {
public:
    static constexpr size_t ChunkSize = 4 * 1024 * 1024; ///< the size of every ready mapping
    static constexpr unsigned DefaultQuietMilliseconds =
        250; ///< the helper makes chunks only after this long without a take()

    /// counters of the reserve's work
    struct Stats {
        uint64_t chunksMade = 0;    ///< chunks the helper mapped and populated
        uint64_t chunksTaken = 0;   ///< take() calls that got a ready chunk
        uint64_t takesMissed = 0;   ///< take() calls that found none ready
        uint64_t chunksDropped = 0; ///< ready chunks given back (over the room, or at the end)
        uint64_t readyBytes = 0;    ///< bytes ready now
    };

    /// a reserve of up to bytes (rounded up to whole chunks, at least one)
    /// and room bytes (see setRoom()) whose chunks are made once
    /// quietMilliseconds have passed without a take(); no thread until start()
    PageReserve(size_t bytes, size_t room, unsigned quietMilliseconds = DefaultQuietMilliseconds);
    /// stops the helper and unmaps the chunks no one took
    ~PageReserve();
    PageReserve(const PageReserve&) = delete;
    PageReserve& operator=(const PageReserve&) = delete;

    /// starts the helper, which fills the reserve as soon as the loop is
    /// quiet; when the system refuses a thread (RLIMIT_NPROC, say), the
    /// reserve stays empty and take() gives nothing. Call it once the
    /// process is what it will stay (after daemonizing's fork, for one).
    void start();
    /// whether start() made the helper
    bool isRunning() const { return helper_.joinable(); }
    /// a populated mapping of ChunkSize bytes, now the caller's to unmap (in
    /// whole or in page-aligned pieces), or nullptr when none is ready;
    /// never waits, not even for the lock. Tells the helper that the loop
    /// is busy: no chunk is made until it is quiet again.
    char* take();
    /// the most bytes the ready chunks may hold from now on (rounded down to
    /// whole chunks); the helper gives back what is over it when the loop
    /// is quiet. Never waits: when the helper holds the lock that instant,
    /// it applies the bound the next time it wakes.
    void setRoom(size_t bytes);
    /// the reserve's target in bytes
    size_t bytes() const { return chunks_ * ChunkSize; }
    /// a snapshot of the counters
    Stats stats();

private:
    using Clock = std::chrono::steady_clock;

    void run();

    const size_t chunks_;              ///< how many chunks the helper keeps ready at most
    const unsigned quietMilliseconds_; ///< how long after a take() the helper waits
    std::mutex mutex_;                 ///< guards everything below but roomChunks_ and helper_
    std::condition_variable wake_;     ///< take() and the destructor signal the helper
    std::vector<char*> ready_;         ///< populated chunks, none taken yet
    std::atomic<size_t> roomChunks_;   ///< setRoom()'s bound, in whole chunks
    bool stopping_ = false;            ///< the destructor asks the helper to end
    Clock::time_point lastTake_{};     ///< when the last take() came
    Stats stats_;                      ///< counters (readyBytes computed in stats())
    std::thread helper_;               ///< started by start()
};

} // namespace Sbuf
