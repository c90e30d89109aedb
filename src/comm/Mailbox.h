/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Comm::Mailbox: calls another thread hands to a loop.
///
/// A loop and everything on it belong to one thread (Comm/Loop.h); another
/// thread that wants something done there (the main thread telling a worker
/// to reconfigure, to reopen its logs or to shut down: doc/design.md
/// "Workers") posts a call. post() may be called from any thread: it queues
/// the call under a mutex and writes the mailbox's eventfd once for a queue
/// that was empty; the loop's thread drains the eventfd (edge-triggered: one
/// read takes the whole count) and runs every queued call, in the order they
/// were posted, each under Loop::guard(). Calls posted while the queue runs
/// wait for the next event.
#pragma once

#include "comm/Descriptor.h"
#include "comm/Loop.h"

#include <functional>
#include <mutex>
#include <vector>

namespace Comm {

/// A queue of calls that other threads post to one loop; see the file comment.
class Mailbox : public IoHandler {
public:
    /// a mailbox whose calls run on `loop` (made on any thread; loop's
    /// thread must not run before the constructor returned); throws when
    /// no eventfd can be made
    explicit Mailbox(Loop& loop);
    ~Mailbox() override;
    Mailbox(const Mailbox&) = delete;
    Mailbox& operator=(const Mailbox&) = delete;

    /// Queues fn to run on the loop's thread. Thread-safe.
    void post(std::function<void()> fn);

    /* IoHandler API */
    void handleIo(const IoEvents& events) override;

private:
    Loop& loop_;
    std::mutex mutex_;                         ///< guards queue_
    std::vector<std::function<void()>> queue_; ///< posted, not run yet
    Descriptor fd_;                            ///< the eventfd
    Registration registration_;                ///< after fd_: cancelled first
};

} // namespace Comm
