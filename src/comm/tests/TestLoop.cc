/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "comm/Descriptor.h"
#include "comm/Loop.h"
#include "base/TextException.h"

#include <cppunit/extensions/HelperMacros.h>

#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

/// Comm::Loop: timers, deferred calls, descriptor events, bug containment.
class TestLoop : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestLoop);
    CPPUNIT_TEST(timersFireInDeadlineOrder);
    CPPUNIT_TEST(timersWithEqualDeadlinesFireInScheduleOrder);
    CPPUNIT_TEST(cancelledTimerNeverFires);
    CPPUNIT_TEST(staleHandleLeavesTheSlotsNextTimer);
    CPPUNIT_TEST(hugeDelayIsClampedNotOverflowed);
    CPPUNIT_TEST(destroyingTimerHandleCancels);
    CPPUNIT_TEST(manyCancelledTimersDoNotAccumulate);
    CPPUNIT_TEST(socketpairDeliversReadableEvent);
    CPPUNIT_TEST(writableReportedAfterEagain);
    CPPUNIT_TEST(oneRegistrationPerDescriptor);
    CPPUNIT_TEST(cancelledRegistrationGetsNoStaleEvent);
    CPPUNIT_TEST(throwingCallbackDoesNotStopLoop);
    CPPUNIT_TEST(throwingTimerTellsItsOwner);
    CPPUNIT_TEST(deferredCallsRunAfterIo);
    CPPUNIT_TEST(deferredCallIsCancellable);
    CPPUNIT_TEST(callDeferredByADeferredCallWaitsForTheNextIo);
    CPPUNIT_TEST(throwingDeferredCallTellsItsOwner);
    CPPUNIT_TEST(iterationHookRunsEachIteration);
    CPPUNIT_TEST(stopEndsRun);
    CPPUNIT_TEST(descriptorClosesOnDestruction);
    CPPUNIT_TEST_SUITE_END();

public:
    void timersFireInDeadlineOrder();
    void timersWithEqualDeadlinesFireInScheduleOrder();
    void cancelledTimerNeverFires();
    void staleHandleLeavesTheSlotsNextTimer();
    void hugeDelayIsClampedNotOverflowed();
    void destroyingTimerHandleCancels();
    void manyCancelledTimersDoNotAccumulate();
    void socketpairDeliversReadableEvent();
    void writableReportedAfterEagain();
    void oneRegistrationPerDescriptor();
    void cancelledRegistrationGetsNoStaleEvent();
    void throwingCallbackDoesNotStopLoop();
    void throwingTimerTellsItsOwner();
    void deferredCallsRunAfterIo();
    void deferredCallIsCancellable();
    void callDeferredByADeferredCallWaitsForTheNextIo();
    void throwingDeferredCallTellsItsOwner();
    void iterationHookRunsEachIteration();
    void stopEndsRun();
    void descriptorClosesOnDestruction();
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestLoop);

namespace {

using Comm::Milliseconds;

/// a connected pair of non-blocking stream sockets
struct Pair {
    Comm::Descriptor a, b;
    Pair()
    {
        int fds[2];
        CPPUNIT_ASSERT_EQUAL(0, ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds));
        a.reset(fds[0]);
        b.reset(fds[1]);
    }
};

/// records every event it gets; can be told to throw
struct Recorder : Comm::IoHandler {
    std::vector<Comm::IoEvents> events;
    bool throwOnEvent = false;
    int bugs = 0;
    void handleIo(const Comm::IoEvents& e) override
    {
        events.push_back(e);
        if (throwOnEvent)
            Throw("test callback failed on purpose");
    }
    void handleBug(const std::exception&) noexcept override { ++bugs; }
};

/// iterates until pred() or a bounded number of iterations
template <class Pred>
bool RunUntil(Comm::Loop& loop, Pred pred, int iterations = 200)
{
    for (int i = 0; i < iterations && !pred(); ++i)
        loop.runOnce(Milliseconds(10));
    return pred();
}

} // namespace

void TestLoop::timersFireInDeadlineOrder()
{
    Comm::Loop loop;
    std::vector<int> fired;
    auto t3 = loop.schedule(Milliseconds(30), [&] { fired.push_back(3); });
    auto t1 = loop.schedule(Milliseconds(0), [&] { fired.push_back(1); });
    auto t2 = loop.schedule(Milliseconds(15), [&] { fired.push_back(2); });
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return fired.size() == 3; }));
    CPPUNIT_ASSERT((fired == std::vector<int>{1, 2, 3}));
    CPPUNIT_ASSERT(!t1.isPending() && !t2.isPending() && !t3.isPending());
    CPPUNIT_ASSERT_EQUAL(size_t(0), loop.pendingTimers());
}

void TestLoop::timersWithEqualDeadlinesFireInScheduleOrder()
{
    Comm::Loop loop;
    std::vector<int> fired;
    std::vector<Comm::Timer> timers;
    for (int i = 0; i < 20; ++i)
        timers.push_back(loop.schedule(Milliseconds(0), [&fired, i] { fired.push_back(i); }));
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return fired.size() == 20; }));
    for (int i = 0; i < 20; ++i)
        CPPUNIT_ASSERT_EQUAL(i, fired[i]);
}

void TestLoop::cancelledTimerNeverFires()
{
    Comm::Loop loop;
    bool cancelledFired = false, laterFired = false;
    auto cancelled = loop.schedule(Milliseconds(1), [&] { cancelledFired = true; });
    auto later = loop.schedule(Milliseconds(20), [&] { laterFired = true; });
    CPPUNIT_ASSERT(cancelled.isPending());
    cancelled.cancel();
    CPPUNIT_ASSERT(!cancelled.isPending());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return laterFired; }));
    CPPUNIT_ASSERT(!cancelledFired);
    cancelled.cancel(); // idempotent
}

void TestLoop::staleHandleLeavesTheSlotsNextTimer()
{
    // a handle kept after its call ran (or was cancelled) must not reach the
    // call that reuses the slot
    Comm::Loop loop;
    bool ran = false;
    auto done = loop.defer([&] { ran = true; });
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return ran; }));
    CPPUNIT_ASSERT(!done.isPending());
    CPPUNIT_ASSERT_EQUAL(size_t(0), loop.pendingTimers());
    bool reusedFired = false;
    auto reused = loop.schedule(Milliseconds(1), [&] { reusedFired = true; });
    CPPUNIT_ASSERT_EQUAL(size_t(1), loop.pendingTimers());
    done.cancel(); // the stale handle
    CPPUNIT_ASSERT(reused.isPending());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return reusedFired; }));
    auto cancelled = loop.schedule(Milliseconds(1), [] {});
    cancelled.cancel();
    bool third = false;
    auto next = loop.defer([&] { third = true; }); // the freed slot again
    cancelled.cancel();
    CPPUNIT_ASSERT(next.isPending());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return third; }));
}

void TestLoop::hugeDelayIsClampedNotOverflowed()
{
    // squid.conf accepts times up to 292 years; the clock's nanoseconds would
    // wrap past that and a wrapped deadline would fire at once (UBSan: overflow)
    Comm::Loop loop;
    bool hugeFired = false, soonFired = false;
    auto huge = loop.schedule(Milliseconds::max(), [&] { hugeFired = true; });
    auto century = loop.schedule(Comm::MaxTimerDelay * 2, [&] { hugeFired = true; });
    auto soon = loop.schedule(Milliseconds(5), [&] { soonFired = true; });
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return soonFired; }));
    loop.runOnce(Milliseconds(0));
    CPPUNIT_ASSERT(!hugeFired);
    CPPUNIT_ASSERT(huge.isPending());
    CPPUNIT_ASSERT(century.isPending());
}

void TestLoop::destroyingTimerHandleCancels()
{
    Comm::Loop loop;
    bool fired = false;
    {
        auto t = loop.schedule(Milliseconds(0), [&] { fired = true; });
    }
    CPPUNIT_ASSERT_EQUAL(size_t(0), loop.pendingTimers());
    loop.runOnce(Milliseconds(5));
    CPPUNIT_ASSERT(!fired);
}

void TestLoop::manyCancelledTimersDoNotAccumulate()
{
    // a connection re-arms its idle timer for every request: the pending set
    // must not grow with the number of re-arms
    Comm::Loop loop;
    Comm::Timer t;
    int fired = 0;
    for (int i = 0; i < 10000; ++i)
        t = loop.schedule(Milliseconds(60000), [&] { ++fired; });
    CPPUNIT_ASSERT_EQUAL(size_t(1), loop.pendingTimers());
    CPPUNIT_ASSERT(t.isPending());
    CPPUNIT_ASSERT_EQUAL(0, fired);
}

void TestLoop::socketpairDeliversReadableEvent()
{
    Comm::Loop loop;
    Pair p;
    Recorder r;
    auto reg = loop.watch(p.b.get(), r);
    CPPUNIT_ASSERT(reg.isActive());
    CPPUNIT_ASSERT_EQUAL(ssize_t(5), ::write(p.a.get(), "hello", 5));
    CPPUNIT_ASSERT(RunUntil(loop, [&] {
        for (const auto& e : r.events)
            if (e.readable)
                return true;
        return false;
    }));
    char buf[16];
    CPPUNIT_ASSERT_EQUAL(ssize_t(5), ::read(p.b.get(), buf, sizeof(buf)));
    CPPUNIT_ASSERT_EQUAL(std::string("hello"), std::string(buf, 5));

    // the peer closing is reported as a hang-up
    p.a.reset();
    r.events.clear();
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return !r.events.empty() && r.events.back().hangup; }));
}

void TestLoop::writableReportedAfterEagain()
{
    Comm::Loop loop;
    Pair p;
    Recorder r;
    auto reg = loop.watch(p.a.get(), r);
    loop.runOnce(Milliseconds(0)); // the initial "writable" edge
    // fill the socket until EAGAIN
    std::string chunk(65536, 'x');
    size_t written = 0;
    for (;;) {
        const ssize_t n = ::write(p.a.get(), chunk.data(), chunk.size());
        if (n < 0) {
            CPPUNIT_ASSERT(errno == EAGAIN);
            break;
        }
        written += n;
    }
    CPPUNIT_ASSERT(written > 0);
    r.events.clear();
    loop.runOnce(Milliseconds(0));
    CPPUNIT_ASSERT(r.events.empty()); // edge-triggered: nothing new yet
    // drain the peer: the writer gets a new writable edge
    char buf[65536];
    while (::read(p.b.get(), buf, sizeof(buf)) > 0) {
    }
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return !r.events.empty() && r.events.back().writable; }));
}

void TestLoop::oneRegistrationPerDescriptor()
{
    Comm::Loop loop;
    Pair p;
    Recorder r;
    auto reg = loop.watch(p.b.get(), r);
    const auto before = loop.poller().registrationCalls();
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), before);
    // a life of reads, writes, EAGAINs and pauses never touches the registration
    char buf[64];
    for (int i = 0; i < 50; ++i) {
        CPPUNIT_ASSERT_EQUAL(ssize_t(3), ::write(p.a.get(), "abc", 3));
        loop.runOnce(Milliseconds(1));
        if (i % 2 == 0) {
            while (::read(p.b.get(), buf, sizeof(buf)) > 0) {
            }
        }
        CPPUNIT_ASSERT_EQUAL(ssize_t(1), ::write(p.b.get(), "z", 1));
        loop.runOnce(Milliseconds(0));
        while (::read(p.a.get(), buf, sizeof(buf)) > 0) {
        }
    }
    CPPUNIT_ASSERT_EQUAL(before, loop.poller().registrationCalls());
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), loop.poller().removalCalls());
    reg.cancel();
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), loop.poller().removalCalls());
    CPPUNIT_ASSERT_THROW(
        {
            auto twice = loop.watch(p.a.get(), r);
            auto again = loop.watch(p.a.get(), r);
        },
        TextException);
}

void TestLoop::cancelledRegistrationGetsNoStaleEvent()
{
    // two descriptors ready in the same batch; the first one's callback
    // cancels the second one's registration: the second must not be called
    Comm::Loop loop;
    Pair p1, p2;
    struct Canceller : Comm::IoHandler {
        Comm::Registration* victim = nullptr;
        int calls = 0;
        void handleIo(const Comm::IoEvents&) override
        {
            ++calls;
            victim->cancel();
        }
    };
    Canceller c1, c2;
    auto r1 = loop.watch(p1.b.get(), c1);
    auto r2 = loop.watch(p2.b.get(), c2);
    c1.victim = &r2;
    c2.victim = &r1;
    ::write(p1.a.get(), "x", 1);
    ::write(p2.a.get(), "x", 1);
    loop.runOnce(Milliseconds(50));
    CPPUNIT_ASSERT_EQUAL(1, c1.calls + c2.calls);
}

void TestLoop::throwingCallbackDoesNotStopLoop()
{
    Comm::Loop loop;
    Pair p;
    Recorder bad;
    bad.throwOnEvent = true;
    auto reg = loop.watch(p.b.get(), bad);
    bool timerFired = false;
    auto t = loop.schedule(Milliseconds(5), [&] { timerFired = true; });
    ::write(p.a.get(), "x", 1);
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return timerFired; }));
    CPPUNIT_ASSERT(bad.bugs >= 1);
    CPPUNIT_ASSERT(loop.bugCount() >= 1);
    // a throwing timer without owner is contained too
    bool after = false;
    auto t2 = loop.schedule(Milliseconds(0), [] { throw std::runtime_error("timer failed on purpose"); });
    auto t3 = loop.schedule(Milliseconds(1), [&] { after = true; });
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return after; }));
}

void TestLoop::throwingTimerTellsItsOwner()
{
    Comm::Loop loop;
    Recorder owner;
    auto t = loop.schedule(
        Milliseconds(0), [] { Throw("owned timer failed on purpose"); }, &owner);
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return owner.bugs == 1; }));
}

void TestLoop::deferredCallsRunAfterIo()
{
    Comm::Loop loop;
    Pair p;
    std::vector<std::string> order;
    struct Deferrer : Comm::IoHandler {
        Comm::Loop* loop;
        std::vector<std::string>* order;
        void handleIo(const Comm::IoEvents&) override
        {
            order->push_back("io");
            loop->callSoon([this] { order->push_back("deferred"); });
        }
    } d;
    d.loop = &loop;
    d.order = &order;
    auto reg = loop.watch(p.b.get(), d);
    loop.addIterationHook([&] {
        if (!order.empty() && order.back() != "hook")
            order.push_back("hook");
    });
    loop.runOnce(Milliseconds(20));
    CPPUNIT_ASSERT(order.size() >= 3);
    CPPUNIT_ASSERT_EQUAL(std::string("io"), order[0]);
    CPPUNIT_ASSERT_EQUAL(std::string("deferred"), order[1]);
    CPPUNIT_ASSERT_EQUAL(std::string("hook"), order[2]);
}

void TestLoop::deferredCallIsCancellable()
{
    Comm::Loop loop;
    std::vector<int> ran;
    auto first = loop.defer([&] { ran.push_back(1); });
    auto second = loop.defer([&] { ran.push_back(2); });
    loop.callSoon([&] { ran.push_back(3); });
    CPPUNIT_ASSERT(first.isPending() && second.isPending());
    CPPUNIT_ASSERT(loop.hasDeferred());
    second.cancel();
    CPPUNIT_ASSERT(!second.isPending());
    {
        auto dropped = loop.defer([&] { ran.push_back(4); }); // its handle goes: cancelled
    }
    loop.runOnce(Milliseconds(0));
    CPPUNIT_ASSERT((ran == std::vector<int>{1, 3}));
    CPPUNIT_ASSERT(!first.isPending());
    CPPUNIT_ASSERT(!loop.hasDeferred());
    CPPUNIT_ASSERT_EQUAL(size_t(0), loop.pendingTimers());
}

void TestLoop::callDeferredByADeferredCallWaitsForTheNextIo()
{
    // a producer that defers its own resume (a tunnel's fair share) lets the
    // loop serve the others' I/O first, and never spins inside one iteration
    Comm::Loop loop;
    Pair p;
    std::vector<std::string> order;
    struct Reader : Comm::IoHandler {
        std::vector<std::string>* order;
        void handleIo(const Comm::IoEvents& e) override
        {
            if (e.readable)
                order->push_back("io");
        }
    } reader;
    reader.order = &order;
    auto reg = loop.watch(p.b.get(), reader);
    loop.runOnce(Milliseconds(0)); // the initial "writable" edge
    Comm::Timer resume;
    int turns = 0;
    std::function<void()> pump = [&] {
        order.push_back("pump");
        if (++turns == 1) {
            CPPUNIT_ASSERT_EQUAL(ssize_t(1), ::write(p.a.get(), "x", 1)); // another's bytes arrive
            resume = loop.defer(pump);
        }
    };
    resume = loop.defer(pump);
    const auto calls = loop.runOnce(Milliseconds(0));
    CPPUNIT_ASSERT_EQUAL(size_t(1), calls); // the first turn only
    CPPUNIT_ASSERT(loop.hasDeferred());
    loop.runOnce(Milliseconds(20));
    CPPUNIT_ASSERT((order == std::vector<std::string>{"pump", "io", "pump"}));
}

void TestLoop::throwingDeferredCallTellsItsOwner()
{
    Comm::Loop loop;
    struct Owner : Comm::IoHandler {
        int bugs = 0;
        void handleIo(const Comm::IoEvents&) override {}
        void handleBug(const std::exception&) noexcept override { ++bugs; }
    } owner;
    auto t = loop.defer([] { throw std::runtime_error("deferred call failed on purpose"); }, &owner);
    bool after = false;
    loop.callSoon([&] { after = true; });
    loop.runOnce(Milliseconds(0));
    CPPUNIT_ASSERT_EQUAL(1, owner.bugs);
    CPPUNIT_ASSERT(after);
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), loop.bugCount());
}

void TestLoop::iterationHookRunsEachIteration()
{
    Comm::Loop loop;
    int hooks = 0;
    loop.addIterationHook([&] { ++hooks; });
    for (int i = 0; i < 5; ++i)
        loop.runOnce(Milliseconds(0));
    CPPUNIT_ASSERT_EQUAL(5, hooks);
}

void TestLoop::stopEndsRun()
{
    Comm::Loop loop;
    int ticks = 0;
    Comm::Timer t;
    std::function<void()> tick = [&] {
        if (++ticks == 3)
            loop.stop();
        else
            t = loop.schedule(Milliseconds(1), tick);
    };
    t = loop.schedule(Milliseconds(1), tick);
    loop.run(); // returns because a timer stopped it
    CPPUNIT_ASSERT_EQUAL(3, ticks);
    CPPUNIT_ASSERT(loop.isStopping());
}

void TestLoop::descriptorClosesOnDestruction()
{
    int raw = -1;
    {
        Pair p;
        raw = p.a.get();
        Comm::Descriptor moved(std::move(p.a));
        CPPUNIT_ASSERT(!p.a.isOpen());
        CPPUNIT_ASSERT_EQUAL(raw, moved.get());
    }
    CPPUNIT_ASSERT_EQUAL(-1, ::fcntl(raw, F_GETFD));
}
