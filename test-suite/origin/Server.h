/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file What every connection of the test origin shares: the connection
/// counter, the scripts, the files directory and the stop signal.
///
/// Each accepted connection is served by a thread of its own with blocking
/// sockets (simple, and a few hundred threads cost little). To stop, the main
/// thread calls stop(): it shuts every attached socket down, which wakes any
/// thread blocked in recv, send or sendfile on it, and wakes every
/// sleepFor(); then waitIdle() waits for the threads to finish.
#pragma once

#include "ScriptStore.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace Origin {

/// The state all connection threads share. All methods are thread-safe.
class Server {
public:
    /// filesDir is a descriptor of the --files directory, or -1
    explicit Server(int filesDir) : filesDir_(filesDir) {}

    /// the id of a newly accepted connection: 1, 2, 3 ...
    uint64_t newConnectionId() { return ++connections_; }
    /// how many connections were accepted so far
    uint64_t connectionsAccepted() const { return connections_; }

    /// the --files directory, or -1
    int filesDir() const { return filesDir_; }
    /// the scripts and seen logs
    ScriptStore& scripts() { return scripts_; }

    /// Counts a connection thread about to start; false once stopping.
    bool threadStarting();
    /// Counts a connection thread that has finished.
    void threadFinished();

    /// Lets stop() shut fd down; false (and fd untouched) once stopping.
    bool attach(uint64_t id, int fd);
    /// Forgets the socket of connection id; call before closing it.
    void detach(uint64_t id);

    /// Whether stop() was called.
    bool isStopping() const { return stopping_; }
    /// Shuts every attached socket down and wakes every sleeper.
    void stop();
    /// Sleeps for duration or until stop(); false when stopped.
    bool sleepFor(std::chrono::microseconds duration);
    /// Waits until every connection thread has finished; false after limit.
    bool waitIdle(std::chrono::milliseconds limit);

private:
    const int filesDir_;                   ///< the --files directory, or -1
    ScriptStore scripts_;                  ///< scripts and seen logs
    std::atomic<uint64_t> connections_{0}; ///< connections accepted
    std::atomic<bool> stopping_{false};    ///< stop() was called
    std::mutex mutex_;                     ///< guards sockets_, threads_
    std::condition_variable stopped_;      ///< stop() was called
    std::condition_variable finished_;     ///< a connection thread finished
    std::map<uint64_t, int> sockets_;      ///< attached sockets by connection id
    unsigned threads_ = 0;                 ///< connection threads alive
};

} // namespace Origin
