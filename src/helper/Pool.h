/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Helper::Pool: a set of helper processes speaking Squid's helper
/// protocol (auth_param, external_acl_type, url_rewrite_program, ...), and
/// Helper::Ticket, the handle of one request. doc/design.md "Helpers".
///
///     submit(line, cb) -> Ticket (destroying it drops cb)
///        |  queue (FIFO) when every child is full
///        v
///     least loaded child with a free channel  ---> "[channel SP] line LF"
///        ^                                              |
///        +-- channel freed, queue dispatched <--- "[channel SP] OK key=value ... LF"
///                                                  ParseReply() -> cb(reply)
///
/// - Channels: with concurrency 0 a child has one request at a time and its
///   lines carry no channel id (replies are matched in order); with
///   concurrency N each child has channels 0..N-1, the id starts each request
///   and reply line, and replies may come in any order. A channel stays taken
///   until the helper answers on it, even after its request timed out or was
///   cancelled, so a late reply can never be taken for another request's.
/// - Callbacks run from the loop, never inside submit(), at most once, and
///   never after the Ticket was cancelled or destroyed. Failures (the child
///   died, the request timed out, the queue overflowed, restarting is
///   suspended, shutdown) are replies too: Result::BrokenHelper with
///   Reply::failure saying why. Never "allow".
/// - Children: `startup` are spawned at once; more on demand (a request
///   queued, or fewer than `idle` idle children) up to `childrenMax`. A child
///   that dies fails its in-flight requests and is replaced on demand; when
///   more than `maxRestarts` die within `restartWindow`, restarting is
///   suspended for `restartBackoff` and requests fail meanwhile (Squid
///   stops the proxy with "helpers are crashing too rapidly"; cuttle fails
///   closed and tries again later).
/// - A request that times out is answered per `onTimeout`; its child then
///   owes the reply for one more `timeout`, after which it is taken as hung:
///   closed and replaced.
/// - Nothing blocks: writes queue when the socket is full; reads follow the
///   edge-triggered rule (Helper::Child); exited children are reaped by
///   Helper::Reaper with waitpid(pid, WNOHANG) from a timer (no SIGCHLD
///   needed, and no other child of the process is touched).
/// - Ownership and threads: the Loop outlives the Pool, the Pool outlives
///   its Tickets; one loop thread. A callback must not destroy the Pool (it
///   may submit, cancel, reconfigure or shut it down).

#pragma once

#include "comm/Loop.h"
#include "helper/Child.h"
#include "helper/Reply.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <sys/types.h>

namespace Helper {

class Pool;

/// What to answer when a request times out (Squid's url_rewrite_timeout
/// on_timeout=fail|retry|use_configured_response; "bypass" is a caller
/// treating Failure::TimedOut as "no change").
enum class OnTimeout {
    Fail,                  ///< BrokenHelper, Failure::TimedOut
    Retry,                 ///< queue it again (front) up to MaxRetries times, then Fail
    UseConfiguredResponse, ///< ParseReply(Options::timeoutResponse), Failure::TimedOut
};

/// How a pool runs its helpers. The child counts map 1:1 to squid.conf:
/// `auth_param SCHEME children N startup=N idle=N concurrency=N` and
/// `external_acl_type ... children-max=N children-startup=N children-idle=N
/// concurrency=N` (also url_rewrite_children, store_id_children), plus
/// `queue-size=N`; `timeout=` and `on_timeout=` are url_rewrite_timeout's.
struct Options {
    std::string name = "helper";   ///< for cache.log and the manager (Squid's id_name)
    std::vector<std::string> argv; ///< program (looked up in PATH) and its arguments; no shell
    unsigned childrenMax = 20;     ///< children N / children-max=N (at least 1)
    unsigned startup = 0;          ///< startup=N: spawned at once and kept running
    unsigned idle = 1;             ///< idle=N: spawn more while fewer are idle
    unsigned concurrency = 0;      ///< concurrency=N: requests in flight per child (0: one, no channel ids)
    unsigned queueSize = 0;        ///< queue-size=N; 0: 2 * childrenMax (Squid's default)
    /// a queue over queueSize fails new requests (Failure::Overloaded) once
    /// it has been over for this long (Squid's 3 minutes); that is Squid's
    /// on-persistent-overload=ERR, cuttle has no "die" (Squid's default)
    Comm::Milliseconds persistentOverload{180000};
    /// per request, from submit() to the reply; 0: none (Squid has none
    /// unless url_rewrite_timeout is set; cuttle's default is 60 s)
    Comm::Milliseconds timeout{60000};
    OnTimeout onTimeout = OnTimeout::Fail; ///< what a timed-out request gets
    std::string timeoutResponse; ///< the reply line for UseConfiguredResponse ("OK", "ERR message=x")
    /// more than maxRestarts unexpected deaths within restartWindow suspend
    /// restarting (0: childrenMax)
    unsigned maxRestarts = 0;
    Comm::Milliseconds restartWindow{30000};  ///< see maxRestarts (Squid looks 30 s back)
    Comm::Milliseconds restartBackoff{30000}; ///< how long restarting stays suspended
    Comm::Milliseconds shutdownGrace{10000};  ///< after closing stdin, SIGKILL a child still alive this long
    size_t maxReplySize = 64 * 1024;          ///< a longer reply line ends its child (protocol broken)
};

/// The move-only handle of one submitted request: destroying or cancelling
/// it means its callback will not run.
class Ticket {
public:
    /// an empty handle
    Ticket() = default;
    /// takes over the other handle
    Ticket(Ticket&& other) noexcept;
    /// cancels the held request, then takes over the other one
    Ticket& operator=(Ticket&& other) noexcept;
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    /// cancels
    ~Ticket() { cancel(); }

    /// the callback will not run; idempotent
    void cancel();
    /// whether the callback is still due to run
    bool isPending() const;

private:
    friend class Pool;
    Ticket(Pool* pool, uint64_t id) : pool_(pool), id_(id) {}

    Pool* pool_ = nullptr; ///< null when empty
    uint64_t id_ = 0;      ///< the pool's id of the request
};

/// A pool of helper processes for one helper configuration.
class Pool : private Child::Events {
public:
    /// receives the reply of a request, from the loop
    using Callback = std::function<void(const Reply&)>;

    /// the most times a request is queued again by OnTimeout::Retry
    static constexpr unsigned MaxRetries = 2;

    /// one child, for the manager
    struct ChildStats {
        pid_t pid = 0;           ///< the process
        unsigned inFlight = 0;   ///< channels taken (timed-out requests included)
        uint64_t requests = 0;   ///< request lines sent to it
        uint64_t replies = 0;    ///< reply lines matched to its requests
        bool isDraining = false; ///< from before a reconfigure: closes when its channels are free
    };

    /// counters and gauges, for tests and the cache manager
    struct Stats {
        uint64_t requests = 0;            ///< submit() calls
        uint64_t replies = 0;             ///< helper replies delivered to a callback
        uint64_t timeouts = 0;            ///< requests that timed out (each try)
        uint64_t lateReplies = 0;         ///< replies that came after their request timed out (dropped)
        uint64_t garbage = 0;             ///< lines matching no request (bad or free channel id)
        uint64_t childFailures = 0;       ///< requests failed because their child died
        uint64_t rejected = 0;            ///< requests failed without trying (overload, suspended, shut down)
        uint64_t spawns = 0;              ///< children started
        uint64_t spawnFailures = 0;       ///< children that could not be started
        uint64_t deaths = 0;              ///< children that ended by themselves (or hung)
        uint64_t restarts = 0;            ///< children started to replace one that died or could not start
        uint64_t killed = 0;              ///< children SIGKILLed after shutdownGrace
        size_t queued = 0;                ///< requests waiting for a channel
        size_t inFlight = 0;              ///< channels taken, all children
        bool isSuspended = false;         ///< restarting suspended (children died too fast)
        bool isOverloaded = false;        ///< the queue is over queueSize
        std::vector<ChildStats> children; ///< running children
    };

    /// Applies the options and spawns `startup` children. Throws
    /// TextException on options that cannot work (no program).
    Pool(Comm::Loop& loop, const Options& options);
    /// Closes every child (no callback runs) and reaps them; may block
    /// briefly (Helper::Reaper), so shutdown() first when there is time.
    ~Pool() override;
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;

    /// Sends line (one request, no LF or CR in it: the caller escapes its
    /// tokens, Rfc1738Escape()) to a helper; cb gets the reply later from the
    /// loop, exactly once unless the Ticket goes first.
    [[nodiscard]] Ticket submit(std::string_view line, Callback cb);

    /// Applies new options (after a reconfigure): running children finish
    /// what they have in flight and exit (Squid restarts helpers too), new
    /// ones start; queued requests wait for them. A suspension is lifted.
    void reconfigure(const Options& options);

    /// Fails queued and in-flight requests (Failure::ShutDown), closes every
    /// child's stdin and reaps them (SIGKILL after shutdownGrace); later
    /// submits fail. isFinished() says when every child was reaped.
    void shutdown();
    /// whether shutdown() was called and every child has been reaped
    bool isFinished() const;

    /// the options in force
    const Options& options() const { return options_; }
    /// the counters and gauges now
    Stats stats() const;

private:
    friend class Ticket;

    enum class State {
        Queued,   ///< waiting for a channel
        Sent,     ///< on a channel, callback due
        Orphaned, ///< on a channel, nobody waits (timed out or cancelled): the reply is dropped
        Failing,  ///< off any channel, a failure is being delivered from the loop
    };

    /// one request
    struct Request {
        std::string line;  ///< without channel id and LF
        Callback callback; ///< empty once delivered or cancelled
        State state = State::Queued;
        uint64_t childId = 0;             ///< while on a channel
        unsigned channel = 0;             ///< while on a channel
        unsigned retries = 0;             ///< OnTimeout::Retry so far
        Comm::Clock::time_point deadline; ///< Options::timeout from submit()
        Comm::Timer timer;        ///< the timeout, then (Orphaned) the hang bound, or the failure's delivery
        Reply failure;            ///< Failing: what will be delivered
        bool wasTimedOut = false; ///< its reply, if any, is late
    };

    /// one child and its channels
    struct Member {
        std::unique_ptr<Child> child;
        std::vector<uint64_t> channels; ///< request id per channel, 0 when free
        unsigned inFlight = 0;          ///< channels taken
        uint64_t requests = 0;
        uint64_t replies = 0;
        bool usesChannelIds = false; ///< concurrency > 0 when it started
        bool isDraining = false;     ///< no new requests; closed once inFlight is 0
    };

    /* Child::Events API */
    void childLine(Child& child, std::string_view line) override;
    void childClosed(Child& child, const std::string& why) override;

    /// sends queued requests to free channels, spawning children as needed
    void dispatch();
    /// starts one child; false if it could not be started (counted as a death)
    bool spawn();
    /// a member not draining with a free channel, the least loaded; or null
    Member* pickMember();
    /// puts request id on a free channel of m and writes it
    void sendTo(Member& m, uint64_t id);
    /// the member whose child has this id, or null
    Member* findMember(uint64_t childId);
    /// ends member m: fails its in-flight requests with failure, reaps it
    void retire(Member& m, Failure failure, const std::string& why);
    /// closes draining members with nothing in flight
    void closeDrained();
    /// frees channel ch of m
    void freeChannel(Member& m, unsigned ch);
    /// Takes sent request r off its channel, leaving an Orphaned placeholder
    /// there until the helper answers (or the hang bound); r becomes Queued
    /// but is in no queue. Returns the placeholder's id.
    uint64_t orphan(Request& r);
    /// a request ran out of time
    void timedOut(uint64_t id);
    /// a placeholder's child still owes its reply after the hang bound
    void hung(uint64_t placeholder);
    /// delivers reply to request id's callback from the loop (not from here)
    void failLater(uint64_t id, Reply reply);
    /// calls (and forgets) the callback of request id
    void deliver(uint64_t id, const Reply& reply);
    /// counts an unexpected death; suspends restarting past the bound
    void noteDeath();
    /// fails every queued request with failure
    void failQueued(Failure failure, const std::string& why);
    /// whether the queue has been over its size long enough to refuse requests
    bool isPersistentlyOverloaded();
    /// the timeout timer of a request
    void armTimeout(uint64_t id, Request& r);
    /// Ticket::cancel()
    void cancel(uint64_t id);
    /// Ticket::isPending()
    bool isPending(uint64_t id) const;
    /// number of children that are running and not draining
    unsigned runningCount() const;
    /// Options::queueSize or its default
    unsigned queueLimit() const;
    /// Options::maxRestarts or its default
    unsigned restartLimit() const;

    Comm::Loop& loop_;
    Options options_;
    Reaper reaper_; ///< before members_: outlives the children it reaps
    std::vector<std::unique_ptr<Member>> members_;
    std::vector<std::unique_ptr<Member>> retired_; ///< closed, destroyed by cleanup_
    std::unordered_map<uint64_t, Request> requests_;
    std::deque<uint64_t> queue_;                  ///< request ids (cancelled ones skipped lazily)
    size_t queued_ = 0;                           ///< requests in queue_ still Queued
    std::vector<Comm::Clock::time_point> deaths_; ///< within restartWindow
    Comm::Clock::time_point suspendedUntil_{};
    bool isSuspended_ = false;
    Comm::Clock::time_point overloadedSince_{};
    bool isOverloaded_ = false;
    uint64_t dropped_ = 0;         ///< requests refused in the current overload
    uint64_t replacementsDue_ = 0; ///< deaths not yet followed by a spawn (Stats::restarts)
    bool isShutDown_ = false;
    bool isDispatching_ = false;
    uint64_t nextRequestId_ = 1;
    uint64_t nextChildId_ = 1;
    Stats counters_; ///< the counters; gauges are computed by stats()
    Comm::Timer cleanup_;
    Comm::Timer resumeTimer_; ///< ends a suspension
};

} // namespace Helper
