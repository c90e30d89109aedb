/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "comm/Loop.h"
#include "base/TextException.h"
#include "log/CacheLog.h"

#include <algorithm>

namespace {

/// min-heap order: earliest deadline first, then the earliest schedule()
struct Later {
    template <class Item>
    bool operator()(const Item& a, const Item& b) const
    {
        if (a.deadline != b.deadline)
            return a.deadline > b.deadline;
        return a.sequence > b.sequence;
    }
};

constexpr int MaxEventsPerWait = 256;

/// epoll data: the descriptor in the low half, its registration generation
/// in the high half, so an event fetched before a cancel is recognised as stale
uint64_t MakeCookie(int fd, uint32_t generation)
{
    return (uint64_t(generation) << 32) | uint32_t(fd);
}

} // namespace

// Registration

Comm::Registration::Registration(Registration&& other) noexcept
    : loop_(other.loop_), fd_(other.fd_), generation_(other.generation_)
{
    other.loop_ = nullptr;
}

Comm::Registration& Comm::Registration::operator=(Registration&& other) noexcept
{
    if (this != &other) {
        cancel();
        loop_ = other.loop_;
        fd_ = other.fd_;
        generation_ = other.generation_;
        other.loop_ = nullptr;
    }
    return *this;
}

void Comm::Registration::cancel()
{
    if (loop_) {
        loop_->unwatch(fd_, generation_);
        loop_ = nullptr;
    }
}

// Timer

Comm::Timer::Timer(Timer&& other) noexcept : loop_(other.loop_), id_(other.id_)
{
    other.loop_ = nullptr;
}

Comm::Timer& Comm::Timer::operator=(Timer&& other) noexcept
{
    if (this != &other) {
        cancel();
        loop_ = other.loop_;
        id_ = other.id_;
        other.loop_ = nullptr;
    }
    return *this;
}

void Comm::Timer::cancel()
{
    if (loop_) {
        loop_->cancelTimer(id_);
        loop_ = nullptr;
    }
}

bool Comm::Timer::isPending() const
{
    return loop_ && loop_->isTimerPending(id_);
}

// Loop

Comm::Loop::Loop() : now_(Clock::now()) {}

Comm::Loop::~Loop() = default;

Comm::Registration Comm::Loop::watch(int fd, IoHandler& handler)
{
    Must(fd >= 0);
    if (static_cast<size_t>(fd) >= slots_.size())
        slots_.resize(fd + 1);
    Slot& slot = slots_[fd];
    Must2(!slot.handler, "FD " + std::to_string(fd) + " is already watched");
    ++slot.generation;
    poller_.add(fd, MakeCookie(fd, slot.generation));
    slot.handler = &handler;
    return Registration(this, fd, slot.generation);
}

void Comm::Loop::unwatch(int fd, uint32_t generation)
{
    if (fd < 0 || static_cast<size_t>(fd) >= slots_.size())
        return;
    Slot& slot = slots_[fd];
    if (slot.generation != generation || !slot.handler)
        return;
    slot.handler = nullptr;
    ++slot.generation; // events of the old registration already fetched are now stale
    poller_.remove(fd);
}

Comm::Timer Comm::Loop::schedule(Milliseconds delay, std::function<void()> fn, IoHandler* owner)
{
    // Clock counts nanoseconds in 64 bits (about 292 years): a longer delay
    // (squid.conf accepts times up to 292 years) would overflow, so clamp it
    // to MaxTimerDelay, which is "never" for a daemon.
    delay = std::clamp(delay, Milliseconds(0), MaxTimerDelay);
    const uint64_t id = addCall(std::move(fn), owner);
    // relative to the real time, not the iteration's: a callback may run long
    heap_.push_back(HeapItem{Clock::now() + delay, nextSequence_++, id});
    std::push_heap(heap_.begin(), heap_.end(), Later());
    return Timer(this, id);
}

const Comm::Loop::TimerCall* Comm::Loop::findCall(uint64_t id) const
{
    const auto index = static_cast<size_t>(id & 0xffffffffu);
    if (index >= calls_.size())
        return nullptr;
    const TimerCall& call = calls_[index];
    return call.live && call.generation == static_cast<uint32_t>(id >> 32) ? &call : nullptr;
}

uint64_t Comm::Loop::addCall(std::function<void()>&& fn, IoHandler* owner)
{
    uint32_t index;
    if (freeCalls_.empty()) {
        index = static_cast<uint32_t>(calls_.size());
        calls_.emplace_back();
    } else {
        index = freeCalls_.back();
        freeCalls_.pop_back();
    }
    TimerCall& call = calls_[index];
    call.fn = std::move(fn);
    call.owner = owner;
    call.live = true;
    ++liveCalls_;
    return uint64_t(call.generation) << 32 | index;
}

bool Comm::Loop::takeCall(uint64_t id, TimerCall& call)
{
    if (!findCall(id))
        return false;
    const auto index = static_cast<uint32_t>(id & 0xffffffffu);
    TimerCall& slot = calls_[index];
    call.fn = std::move(slot.fn);
    call.owner = slot.owner;
    slot.fn = nullptr;
    slot.owner = nullptr;
    slot.live = false;
    ++slot.generation;
    freeCalls_.push_back(index);
    --liveCalls_;
    return true;
}

void Comm::Loop::cancelTimer(uint64_t id)
{
    TimerCall cancelled;
    takeCall(id, cancelled);
    // cancelled items stay in the heap until they reach the top; rebuild when
    // they dominate so that a connection re-arming its idle timer per request
    // cannot grow the heap without bound
    if (heap_.size() > 64 && heap_.size() > 2 * liveCalls_) {
        std::erase_if(heap_, [this](const HeapItem& item) { return !findCall(item.id); });
        std::make_heap(heap_.begin(), heap_.end(), Later());
    }
}

uint64_t Comm::Loop::enqueueDeferred(std::function<void()>&& fn, IoHandler* owner)
{
    const uint64_t id = addCall(std::move(fn), owner);
    deferred_.push_back(id);
    return id;
}

Comm::Timer Comm::Loop::defer(std::function<void()> fn, IoHandler* owner)
{
    return Timer(this, enqueueDeferred(std::move(fn), owner));
}

void Comm::Loop::callSoon(std::function<void()> fn)
{
    enqueueDeferred(std::move(fn), nullptr);
}

void Comm::Loop::addIterationHook(std::function<void()> fn)
{
    hooks_.push_back(std::move(fn));
}

void Comm::Loop::dropStaleHeapTop() const
{
    while (!heap_.empty() && !findCall(heap_.front().id)) {
        std::pop_heap(heap_.begin(), heap_.end(), Later());
        heap_.pop_back();
    }
}

int Comm::Loop::timeoutToNextTimer(Milliseconds maxWait) const
{
    if (!deferred_.empty())
        return 0;
    dropStaleHeapTop();
    auto wait = maxWait;
    if (!heap_.empty()) {
        const auto left = std::chrono::ceil<Milliseconds>(heap_.front().deadline - Clock::now());
        wait = std::clamp(left, Milliseconds(0), maxWait);
    }
    return static_cast<int>(std::min<Milliseconds::rep>(wait.count(), 24 * 3600 * 1000));
}

void Comm::Loop::run()
{
    stopping_ = false;
    while (!stopping_)
        runOnce(Milliseconds(24 * 3600 * 1000));
}

size_t Comm::Loop::runOnce(Milliseconds maxWait)
{
    ++iterations_;
    epoll_event events[MaxEventsPerWait];
    const int n = poller_.wait(events, MaxEventsPerWait, timeoutToNextTimer(maxWait));
    now_ = Clock::now();

    size_t calls = 0;
    for (int i = 0; i < n; ++i) {
        const int fd = static_cast<int>(events[i].data.u64 & 0xffffffffu);
        const auto generation = static_cast<uint32_t>(events[i].data.u64 >> 32);
        if (static_cast<size_t>(fd) >= slots_.size())
            continue;
        const Slot& slot = slots_[fd];
        if (!slot.handler || slot.generation != generation)
            continue; // cancelled by an earlier callback of this batch
        const uint32_t e = events[i].events;
        IoEvents io;
        io.readable = e & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR);
        io.writable = e & (EPOLLOUT | EPOLLHUP | EPOLLERR);
        io.hangup = e & (EPOLLRDHUP | EPOLLHUP);
        io.error = e & EPOLLERR;
        IoHandler* handler = slot.handler;
        guard(handler, [handler, &io] { handler->handleIo(io); });
        ++calls;
    }

    calls += fireTimers();
    calls += runDeferred();

    for (const auto& hook : hooks_)
        guard(nullptr, hook);
    return calls;
}

size_t Comm::Loop::fireTimers()
{
    size_t calls = 0;
    const auto now = Clock::now();
    for (;;) {
        dropStaleHeapTop();
        if (heap_.empty() || heap_.front().deadline > now)
            break;
        const uint64_t id = heap_.front().id;
        std::pop_heap(heap_.begin(), heap_.end(), Later());
        heap_.pop_back();
        TimerCall call;
        takeCall(id, call); // pending: dropStaleHeapTop() left it on top
        guard(call.owner, call.fn);
        ++calls;
    }
    return calls;
}

size_t Comm::Loop::runDeferred()
{
    size_t calls = 0;
    // one batch: what these calls defer waits for the next iteration's I/O
    batch_.swap(deferred_);
    for (const uint64_t id : batch_) {
        TimerCall call;
        if (!takeCall(id, call))
            continue; // cancelled
        guard(call.owner, call.fn);
        ++calls;
    }
    batch_.clear();
    return calls;
}

void Comm::Loop::guard(IoHandler* owner, const std::function<void()>& fn)
{
    try {
        fn();
        return;
    } catch (const std::exception& e) {
        reportBug(e.what());
        if (owner)
            owner->handleBug(e);
    } catch (...) {
        reportBug("an exception of unknown type");
        if (owner)
            owner->handleBug(std::runtime_error("an exception of unknown type"));
    }
}

void Comm::Loop::reportBug(const char* what)
{
    ++bugCount_;
    debugs(5, 0, "BUG: a callback threw: " << what);
}
