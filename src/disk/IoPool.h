/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Disk::IoPool: a small pool of I/O threads that keeps the disk off
/// the event loop (doc/design.md "The disk store").
///
///     loop thread                         I/O threads (N, blocked on a condition)
///     submit(job) --> queue_ (mutex) --> job->run()      open, pwritev, rename...
///                                          |
///     handleIo(readable) <-- eventfd <-- done_ (mutex), one eventfd write
///       read the eventfd until EAGAIN, take done_, job->finish() for each
///
/// Threading: run() is the only code that runs on an I/O thread. Whatever a
/// job holds that the loop's refcounting manages (Sbuf slices: MemBlob's
/// count is not atomic) is made before submit() and destroyed after
/// finish(), both on the loop; run() only reads the bytes, which nobody
/// changes once committed (sbuf/MemBlob.h). So no refcount is ever touched
/// by two threads.
///
/// The eventfd is watched edge-triggered like every descriptor: handleIo()
/// reads it until EAGAIN, then takes every finished job, so a job finished
/// between the read and the take is finished now and its later eventfd
/// write only causes an empty round.

#pragma once

#include "comm/Descriptor.h"
#include "comm/Loop.h"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace Disk {

/// One piece of disk work.
class IoJob {
public:
    virtual ~IoJob() = default;
    /// does the blocking work, on an I/O thread (see the file comment)
    virtual void run() noexcept = 0;
    /// back on the loop, after run()
    virtual void finish() = 0;
};

/// Gauges and counters of an IoPool, for tests and the cache manager.
struct IoPoolStats {
    size_t threads = 0;     ///< I/O threads
    size_t pending = 0;     ///< jobs submitted and not finished yet
    uint64_t submitted = 0; ///< jobs ever submitted
    uint64_t finished = 0;  ///< jobs ever finished
};

/// The I/O threads and their queues; see the file comment.
class IoPool final : public Comm::IoHandler {
public:
    /// starts `threads` I/O threads (at least 1) whose results come back to loop
    IoPool(Comm::Loop& loop, unsigned threads);
    /// waits for every submitted job (finishing none) and stops the threads
    ~IoPool() override;
    IoPool(const IoPool&) = delete;
    IoPool& operator=(const IoPool&) = delete;

    /// queues job for an I/O thread; its finish() comes from the loop
    void submit(std::unique_ptr<IoJob>&& job);
    /// blocks until every submitted job ran and was finished, the jobs their
    /// finish() submitted included (shutdown and tests)
    void drain();
    /// the gauges and counters now
    IoPoolStats stats() const;

    void handleIo(const Comm::IoEvents& events) override;

private:
    void work();
    void finishDone();

    Comm::Loop& loop_;
    Comm::Descriptor event_;                   ///< the eventfd the threads signal
    Comm::Registration registration_;          ///< watches event_
    mutable std::mutex mutex_;                 ///< guards what follows, up to the threads
    std::condition_variable wake_;             ///< a job was queued, or stopping_
    std::condition_variable idle_;             ///< a job ran (drain() waits on it)
    std::deque<std::unique_ptr<IoJob>> queue_; ///< jobs waiting for a thread
    std::vector<std::unique_ptr<IoJob>> done_; ///< jobs run, waiting for finish()
    size_t running_ = 0;                       ///< jobs a thread is running
    bool stopping_ = false;                    ///< the threads must end
    std::vector<std::thread> threads_;         ///< the I/O threads
    uint64_t submitted_ = 0;                   ///< loop only
    uint64_t finished_ = 0;                    ///< loop only
};

} // namespace Disk
