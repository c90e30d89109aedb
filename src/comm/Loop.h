/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Comm::Loop: the event loop every connection, timer and signal runs on.
///
/// Shape (doc/design.md "The event loop"):
///
///     run():  forever until stop()
///       +-> epoll_wait(timeout = time to the next timer)
///       |     for each ready descriptor: its IoHandler::handleIo(events)
///       |   expired timers, earliest first (ties: the order they were set)
///       |   deferred calls (defer(), callSoon(): work that waits for the current
///       |     callback to return, e.g. destroying a closed connection)
///       +-- iteration hooks (cache.log and access.log flush here)
///
/// - A descriptor is registered ONCE for its whole life, edge-triggered, for
///   EPOLLIN|EPOLLOUT|EPOLLRDHUP together (watch()). An edge comes only when
///   new bytes arrive, so bytes already in the socket never announce
///   themselves again. The rule for every reader: read until EAGAIN, or
///   remember that the last read filled the space it was offered (a short
///   read drained the socket) and read again before waiting -- including when
///   the reader changes, as when a client connection's head reader hands over
///   to its body reader with the rest of the body already queued. A handler
///   acts on `writable` only after one of its writes returned EAGAIN; a
///   handler that paused reading resumes by calling read() directly. Each
///   new read site gets a test in which the whole message is already in the
///   socket when it is first read. Nothing ever calls EPOLL_CTL_MOD.
/// - Ownership: watch() returns a Registration and schedule() a Timer; both
///   are move-only handles that cancel in their destructor, so whoever owns
///   the handle (normally the object that owns the descriptor, next to its
///   Comm::Descriptor) owns the event source. Declare the Registration after
///   the Descriptor so it goes first. The Loop must outlive every handle. A
///   descriptor is registered again only when it changes owner (a connected
///   socket from Comm::Connector to its user, a client socket to a tunnel):
///   the old owner cancels, the new one watches, and the first edge of the
///   new registration reports what is already there.
/// - Exceptions: a callback that throws is caught around that one callback,
///   logged as a bug (cache.log, level 0 with "BUG:"), and its owner's
///   IoHandler::handleBug() is called so that it ends only its own
///   transaction; the loop goes on.
/// - Time: CLOCK_MONOTONIC (std::chrono::steady_clock), millisecond timers.
///   Timers and deferred calls live in reused slots (no allocation per call
///   beyond a std::function's, which a small capture avoids), found by an id
///   of slot index and generation; timers wait in a min-heap.
/// - DNS (Comm::Resolver): c-ares sockets are watched like any other descriptor
///   (ARES_OPT_SOCK_STATE_CB -> watch(); handleIo -> ares_process_fd) and
///   ares_timeout() feeds one Timer; nothing on the loop ever blocks.
/// - Threads: one loop per thread; a Loop and everything on it belong to it.

#pragma once

#include "comm/EpollPoller.h"

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace Comm {

class Loop;

/// The monotonic clock of the loop.
using Clock = std::chrono::steady_clock;
/// Timer delays.
using Milliseconds = std::chrono::milliseconds;

/// The longest timer delay: 100 years, "never" for a daemon. Longer delays are
/// clamped to it (the monotonic clock's 64-bit nanoseconds last about 292 years).
inline constexpr Milliseconds MaxTimerDelay = std::chrono::hours(24 * 365 * 100);

/// What epoll reported for one descriptor.
struct IoEvents {
    bool readable = false; ///< EPOLLIN: data (or EOF) may be read
    bool writable = false; ///< EPOLLOUT: act on it only after a write hit EAGAIN
    bool hangup = false;   ///< EPOLLRDHUP or EPOLLHUP: the peer closed (reading still drains)
    bool error = false;    ///< EPOLLERR: a socket error is pending
};

/// Something that owns a watched descriptor (a connection, a listener).
class IoHandler {
public:
    virtual ~IoHandler() = default;

    /// The descriptor is ready for what `events` says.
    virtual void handleIo(const IoEvents& events) = 0;

    /// One of this handler's callbacks (I/O or a timer scheduled with this
    /// handler as owner) threw: end this transaction. Must not throw. The
    /// default does nothing.
    virtual void handleBug(const std::exception&) noexcept {}
};

/// The handle of one watched descriptor: cancels the registration when it
/// goes (EPOLL_CTL_DEL once, and no event reaches the handler afterwards,
/// even one already fetched in the current epoll_wait batch).
class Registration {
public:
    /// an empty handle
    Registration() = default;
    /// takes over the other handle
    Registration(Registration&& other) noexcept;
    /// cancels the held registration, then takes over the other one
    Registration& operator=(Registration&& other) noexcept;
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;
    /// cancels
    ~Registration() { cancel(); }

    /// stops watching; idempotent
    void cancel();
    /// whether a descriptor is watched through this handle
    bool isActive() const { return loop_ != nullptr; }

private:
    friend class Loop;
    Registration(Loop* loop, int fd, uint32_t generation) : loop_(loop), fd_(fd), generation_(generation) {}

    Loop* loop_ = nullptr;    ///< null when empty
    int fd_ = -1;             ///< the watched descriptor
    uint32_t generation_ = 0; ///< which registration of fd_ this is
};

/// The handle of one scheduled callback: cancels it when it goes.
class Timer {
public:
    /// an empty handle
    Timer() = default;
    /// takes over the other handle
    Timer(Timer&& other) noexcept;
    /// cancels the held timer, then takes over the other one
    Timer& operator=(Timer&& other) noexcept;
    Timer(const Timer&) = delete;
    Timer& operator=(const Timer&) = delete;
    /// cancels
    ~Timer() { cancel(); }

    /// the callback will not run; idempotent
    void cancel();
    /// whether the callback is still due to run
    bool isPending() const;

private:
    friend class Loop;
    Timer(Loop* loop, uint64_t id) : loop_(loop), id_(id) {}

    Loop* loop_ = nullptr; ///< null when empty
    uint64_t id_ = 0;      ///< the loop's id of the timer
};

/// The event loop: epoll readiness, timers, deferred calls, iteration hooks.
class Loop {
public:
    /// creates the epoll instance; throws on failure
    Loop();
    ~Loop();
    Loop(const Loop&) = delete;
    Loop& operator=(const Loop&) = delete;

    /// Registers fd for its whole life (one EPOLL_CTL_ADD). The handler must
    /// outlive the returned Registration. A descriptor that is already ready
    /// gets an event at the next iteration.
    Registration watch(int fd, IoHandler& handler);

    /// Runs fn once after `delay` (ms resolution; negative is 0, longer than
    /// MaxTimerDelay is MaxTimerDelay). When owner is given, an exception from
    /// fn is reported to owner->handleBug(). For work that must only wait
    /// for the current callback to return, use defer().
    Timer schedule(Milliseconds delay, std::function<void()> fn, IoHandler* owner = nullptr);

    /// Deferral, the one way to act "from the loop, not from inside this
    /// callback": runs fn after the I/O and timer callbacks of the current
    /// iteration; a call deferred while the deferred calls run waits for the
    /// next iteration, after its I/O (so a producer that defers itself lets
    /// the others be served). Calls run in the order they were deferred.
    /// When owner is given, an exception from fn is reported to
    /// owner->handleBug(). The Timer cancels it.
    [[nodiscard]] Timer defer(std::function<void()> fn, IoHandler* owner = nullptr);
    /// defer() without a handle: fn runs whatever happens (e.g. destroying an
    /// object whose own callback decided to close it, which must outlive
    /// nothing but the current call stack).
    void callSoon(std::function<void()> fn);

    /// Adds fn to the calls made at the end of every iteration (log flushing).
    void addIterationHook(std::function<void()> fn);

    /// Iterates until stop().
    void run();
    /// One iteration, waiting at most maxWait for events (0: poll). Returns
    /// the number of callbacks made (I/O, timers, deferred calls). Not from
    /// inside a callback of this loop (the deferred calls' batch is one).
    size_t runOnce(Milliseconds maxWait);
    /// Makes run() return after the current iteration.
    void stop() { stopping_ = true; }
    /// Whether stop() was called since run() started.
    bool isStopping() const { return stopping_; }

    /// the time of the current iteration (updated after each epoll_wait)
    Clock::time_point now() const { return now_; }
    /// the epoll backend (tests count its calls)
    const EpollPoller& poller() const { return poller_; }
    /// callbacks that threw since the loop was made
    uint64_t bugCount() const { return bugCount_; }
    /// runOnce() calls so far (the manager's select_loops)
    uint64_t iterations() const { return iterations_; }
    /// whether deferred calls wait to run
    bool hasDeferred() const { return !deferred_.empty(); }
    /// number of timers and deferred calls still pending
    size_t pendingTimers() const { return liveCalls_; }

    /// Calls fn; when it throws, logs the bug and tells owner (if any). Public
    /// so that code outside the loop's dispatch (signal handlers, start-up)
    /// can use the same rule.
    void guard(IoHandler* owner, const std::function<void()>& fn);

private:
    friend class Registration;
    friend class Timer;

    struct Slot {
        IoHandler* handler = nullptr; ///< null: not watched
        uint32_t generation = 0;      ///< bumped on each watch/cancel
    };
    /// A pending timer or deferred call, in a slot of calls_ that is reused
    /// once it ran or was cancelled (no allocation per call but the
    /// std::function's, which small captures avoid). Its id is the slot's
    /// index and generation, as an epoll cookie is (see addCall()).
    struct TimerCall {
        std::function<void()> fn;
        IoHandler* owner = nullptr;
        uint32_t generation = 1; ///< bumped when the slot is freed, so old ids go stale
        bool live = false;       ///< pending (the slot is in use)
    };
    struct HeapItem {
        Clock::time_point deadline;
        uint64_t sequence; ///< the tie-breaker: grows with each schedule()
        uint64_t id;       ///< the TimerCall's id
    };

    void unwatch(int fd, uint32_t generation);
    void cancelTimer(uint64_t id);
    bool isTimerPending(uint64_t id) const { return findCall(id) != nullptr; }
    /// the pending call with this id, or nullptr
    const TimerCall* findCall(uint64_t id) const;
    /// stores a pending call; returns its id
    uint64_t addCall(std::function<void()>&& fn, IoHandler* owner);
    /// takes the pending call with this id out of its slot (frees the slot);
    /// false when it is no longer pending
    bool takeCall(uint64_t id, TimerCall& call);
    int timeoutToNextTimer(Milliseconds maxWait) const;
    size_t fireTimers();
    size_t runDeferred();
    /// queues fn for runDeferred(); returns its id
    uint64_t enqueueDeferred(std::function<void()>&& fn, IoHandler* owner);
    void dropStaleHeapTop() const;
    void reportBug(const char* what);

    EpollPoller poller_;
    std::vector<Slot> slots_;            ///< indexed by descriptor
    std::vector<TimerCall> calls_;       ///< pending timers and deferred calls, by slot
    std::vector<uint32_t> freeCalls_;    ///< the free slots of calls_
    size_t liveCalls_ = 0;               ///< slots in use (pendingTimers())
    mutable std::vector<HeapItem> heap_; ///< min-heap; cancelled ids are skipped lazily
    uint64_t nextSequence_ = 1;          ///< see HeapItem::sequence
    uint64_t iterations_ = 0;            ///< see iterations()
    std::vector<uint64_t> deferred_;     ///< the ids of defer() calls, in order (cancelled ones skipped)
    std::vector<uint64_t> batch_;        ///< runDeferred()'s batch (kept for its capacity)
    std::vector<std::function<void()>> hooks_; ///< per-iteration hooks
    Clock::time_point now_;
    bool stopping_ = false;
    uint64_t bugCount_ = 0;
};

} // namespace Comm
