/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Helper::Child (one helper process and the socket to it, as lines)
/// and Helper::Reaper (waits for exited children without blocking the loop).
/// Helper::Pool uses both; neither knows about requests.
///
///     proxy                       socketpair(AF_UNIX, SOCK_STREAM)            helper
///     Child::send("0 req\n") -> [fd, non-blocking, close-on-exec] <-> [fd 0 and 1] execvp'd
///     Child::Events::childLine() <- each LF-ended line read                  stderr: inherited
///
/// - Start: posix_spawnp() (execvp's PATH search, no shell) with the socket
///   as stdin and stdout, stderr inherited (cache.log), every other
///   descriptor closed, the signal mask emptied and the signals the proxy
///   handles or ignores (SIGPIPE) back to their defaults.
/// - Reading follows the loop's rule (doc/design.md "The event loop"): read
///   until EAGAIN, so that a batch of replies written at once is all seen on
///   one edge; at most MaxReadPerCall bytes per call, then the rest is read
///   from a deferred call so that a chatty helper cannot starve the loop.
/// - Writing: send() writes at once what the socket takes and queues the
///   rest; the queue is written when the socket turns writable after an
///   EAGAIN. Nothing blocks.
/// - The end: EOF, a read or write error, or a line longer than the limit
///   calls Events::childClosed() once (from the loop, never inside send());
///   close() is the pool's own ending and calls nothing. Either way the
///   process is then the Reaper's.

#pragma once

#include "comm/Descriptor.h"
#include "comm/Loop.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

namespace Helper {

/// One running helper process: its pid and the socket to its stdin/stdout.
class Child : public Comm::IoHandler {
public:
    /// what a child tells its owner; called from the loop
    class Events {
    public:
        virtual ~Events() = default;
        /// one complete line, without LF or CRLF; the child may be closed inside
        virtual void childLine(Child& child, std::string_view line) = 0;
        /// the child ended by itself (EOF, error, protocol violation); called once
        virtual void childClosed(Child& child, const std::string& why) = 0;
    };

    /// bytes read per handleIo() or deferred call before yielding to the loop
    static constexpr size_t MaxReadPerCall = 1024 * 1024;

    /// a child not started yet; id names it in logs
    Child(Comm::Loop& loop, Events& events, uint64_t id, size_t maxLineSize);
    /// closes the socket (the process is the caller's to reap)
    ~Child() override;
    Child(const Child&) = delete;
    Child& operator=(const Child&) = delete;

    /// Spawns argv (argv[0] looked up in PATH). Returns false with the reason
    /// in `error` when the process could not be started.
    bool start(const std::vector<std::string>& argv, std::string& error);

    /// Writes bytes (whole lines) now or queues them; never blocks and never
    /// calls Events inside (a write error is reported from the loop).
    void send(std::string_view bytes);

    /// Closes the socket: the helper reads EOF on stdin. No Events after this.
    void close();

    /// the process id (0 before start())
    pid_t pid() const { return pid_; }
    /// the id given at construction
    uint64_t id() const { return id_; }
    /// whether the socket is open (started and neither closed nor ended)
    bool isOpen() const { return socket_.isOpen(); }
    /// bytes queued for writing
    size_t queuedBytes() const { return outbox_.size() - outboxStart_; }

    /* Comm::IoHandler API */
    void handleIo(const Comm::IoEvents& events) override;
    void handleBug(const std::exception& e) noexcept override;

private:
    /// reads until EAGAIN (or the per-call budget), handing out lines
    void readSome();
    /// writes queued bytes until EAGAIN or empty; false after an error
    bool flush();
    /// closes and tells the owner why, once
    void end(const std::string& why);
    /// ends a child that broke the line length limit
    void endTooLong();
    /// reports a problem found inside send() from the loop
    void endLater(const std::string& why);

    Comm::Loop& loop_;
    Events& events_;
    const uint64_t id_;
    const size_t maxLineSize_;
    pid_t pid_ = 0;
    std::string inbox_;         ///< bytes read, not yet a whole line
    std::string outbox_;        ///< bytes to write from outboxStart_
    size_t outboxStart_ = 0;    ///< written part of outbox_
    bool writeBlocked_ = false; ///< a write returned EAGAIN: wait for writable
    Comm::Descriptor socket_;   ///< our end of the socketpair
    Comm::Registration watch_;  ///< after socket_: cancelled first
    Comm::Timer resume_;        ///< reads on after the per-call budget; reports a write error
};

/// Waits for exited helper processes without blocking: polls waitpid(pid,
/// WNOHANG) from a timer while any is left, and sends SIGKILL to one still
/// alive after its grace. Only the pids given are waited for, never -1, so
/// other children of the process are left alone.
class Reaper {
public:
    /// how often a waiting reaper polls
    static constexpr Comm::Milliseconds PollInterval{20};

    /// a reaper on the loop
    explicit Reaper(Comm::Loop& loop) : loop_(loop) {}
    /// Reaps what it can, then SIGKILLs and waits for the rest (bounded by
    /// the kill); this briefly blocks, so shut the pool down before.
    ~Reaper();
    Reaper(const Reaper&) = delete;
    Reaper& operator=(const Reaper&) = delete;

    /// Takes pid, whose socket is closed: reaps it when it exits, kills it
    /// when it is still alive after grace.
    void adopt(pid_t pid, Comm::Milliseconds grace);
    /// processes not reaped yet
    size_t waiting() const { return processes_.size(); }
    /// processes killed because their grace ran out
    uint64_t killed() const { return killed_; }

private:
    struct Process {
        pid_t pid;
        Comm::Clock::time_point killAt; ///< SIGKILL then
        bool isKilled = false;
    };
    /// reaps the exited ones, kills the late ones, polls again if any is left
    void poll();
    /// waitpid(WNOHANG): whether pid is gone (reaped, or not our child)
    static bool TryReap(pid_t pid);

    Comm::Loop& loop_;
    std::vector<Process> processes_;
    Comm::Timer timer_;
    uint64_t killed_ = 0;
};

} // namespace Helper
