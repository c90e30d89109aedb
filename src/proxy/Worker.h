/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Proxy::Worker: one event loop with its proxy, on its own thread
/// (`workers N`, doc/design.md "Workers").
///
/// Life of a worker (main.cc drives it; worker 1 runs on the main thread,
/// which also owns the signals):
///
///     made and configured on its thread (as root: ports bound, logs open)
///       -> waits until the main thread has left root, follows the drop
///       -> startHelpers(), run(): its loop until shutdown ends it
///       -> finish(): closes what is left, flushes the logs
///       -> once every worker has finished, destroyed on its thread (its
///          blocks go back to that thread's pool)
///
/// Another thread reaches a worker only through post(): reconfigure, log
/// rotation, shutdown and other workers' erasures arrive as posted calls.
#pragma once

#include "comm/Loop.h"
#include "comm/Mailbox.h"
#include "proxy/Instance.h"
#include "sbuf/BlockPool.h"

#include <functional>
#include <memory>

namespace Proxy {

/// One event loop and the proxy on it; see the file comment.
class Worker {
public:
    /// worker `number` (from 1), with no configuration yet
    explicit Worker(unsigned number);
    Worker(const Worker&) = delete;
    Worker& operator=(const Worker&) = delete;

    /// the worker's number, from 1 (its ${process_number} and kidN label)
    unsigned number() const { return number_; }
    /// the proxy (on the worker's thread only)
    Instance& proxy() { return proxy_; }
    /// the loop (on the worker's thread only)
    Comm::Loop& loop() { return loop_; }

    /// Queues fn to run on the worker's thread. Thread-safe.
    void post(std::function<void()> fn) { mailbox_.post(std::move(fn)); }

    /// Stops accepting and lets the transactions in progress finish for
    /// shutdown_lifetime (none when immediately); the loop ends when the
    /// last connection has gone. On the worker's thread.
    void startShutdown(bool immediately);
    /// whether startShutdown() was called
    bool isStopping() const { return stopping_; }

    /// Runs the loop until shutdown ends it (on the worker's thread).
    void run();
    /// After run(): closes what is left, lets their destruction finish and
    /// flushes the logs; returns the user-space body copies this worker
    /// counted (doc/design.md "Budgets").
    Sbuf::CopyStats finish();

private:
    unsigned number_;
    Comm::Loop loop_;
    Instance proxy_;
    Comm::Mailbox mailbox_;
    Comm::Timer shutdownTimer_; ///< shutdown_lifetime
    bool stopping_ = false;     ///< see isStopping()
};

} // namespace Proxy
