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
/// through without being kept). A second thread can pay that price on the
/// other core while the loop reads and writes.
///
/// How: the helper thread keeps up to `bytes` of populated mappings ready,
/// in chunks of ChunkSize. take() is the loop's side: it pops a ready chunk
/// without waiting (nullptr when there is none: the pool then maps its own
/// block as before, so the reserve can only help) and wakes the helper to
/// make another. The helper starts at the first take(), so a pool that never
/// asks has no thread (and when the system refuses a thread, take() gives
/// nothing, as with no reserve), and gives every ready chunk
/// back when no take() came for a second, so an idle proxy's RSS is
/// what its objects hold. The helper blocks every signal: the loop's
/// signalfd must see them all.
///
///   loop thread                      helper thread
///   pool.allocate(1 MB)              while ready < bytes:
///    -> carve from the current chunk     mmap(ChunkSize, MAP_POPULATE)
///    -> chunk used up: take()  <-------  ready.push()
///                                    idle for a second: munmap all ready
///
/// Threading: take() and stats() are for one thread (the pool's); the
/// helper touches only the ready list, the flags and the counters, under
/// the mutex.

#pragma once

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
    static constexpr unsigned DefaultIdleMilliseconds =
        1000; ///< ready chunks go back after this long without a take()

    /// counters of the reserve's work
    struct Stats {
        uint64_t chunksMade = 0;    ///< chunks the helper mapped and populated
        uint64_t chunksTaken = 0;   ///< take() calls that got a ready chunk
        uint64_t takesMissed = 0;   ///< take() calls that found none ready
        uint64_t chunksDropped = 0; ///< ready chunks given back while idle (or at the end)
        uint64_t readyBytes = 0;    ///< bytes ready now
    };

    /// a reserve of up to bytes (rounded up to whole chunks, at least one)
    /// whose ready chunks go back after idleMilliseconds without a take()
    explicit PageReserve(size_t bytes, unsigned idleMilliseconds = DefaultIdleMilliseconds);
    /// stops the helper and unmaps the chunks no one took
    ~PageReserve();
    PageReserve(const PageReserve&) = delete;
    PageReserve& operator=(const PageReserve&) = delete;

    /// a populated mapping of ChunkSize bytes, now the caller's to unmap (in
    /// whole or in page-aligned pieces), or nullptr when none is ready; never
    /// waits. Starts the helper on the first call and wakes it on every call.
    char* take();
    /// the reserve's target in bytes
    size_t bytes() const { return chunks_ * ChunkSize; }
    /// a snapshot of the counters
    Stats stats();

private:
    void run();
    void startHelper();

    const size_t chunks_;             ///< how many chunks the helper keeps ready
    const unsigned idleMilliseconds_; ///< how long ready chunks wait for a take()
    bool helperFailed_ = false;       ///< the thread could not be made: take() gives nothing
    std::mutex mutex_;                ///< guards everything below but helper_
    std::condition_variable wake_;    ///< take() and the destructor signal the helper
    std::vector<char*> ready_;        ///< populated chunks, none taken yet
    bool stopping_ = false;           ///< the destructor asks the helper to end
    bool demanded_ = false;           ///< a take() came since the helper last looked
    Stats stats_;                     ///< counters (readyBytes computed in stats())
    std::thread helper_;              ///< started at the first take()
};

} // namespace Sbuf
