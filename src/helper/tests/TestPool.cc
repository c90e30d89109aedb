/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "helper/Pool.h"
#include "base/TextException.h"
#include "comm/Loop.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

/// Helper::Pool driving real helper processes (src/helper/tests/fake-helper.py)
/// on a real Comm::Loop.
class TestPool : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestPool);
    CPPUNIT_TEST(answersOkErrBhWithNotes);
    CPPUNIT_TEST(withoutConcurrencyRequestsQueueAndAnswerInOrder);
    CPPUNIT_TEST(concurrentRepliesMayComeOutOfOrder);
    CPPUNIT_TEST(batchOfRepliesInOneWriteIsAllRead);
    CPPUNIT_TEST(replySplitAcrossWritesWithCrlf);
    CPPUNIT_TEST(overlongReplyEndsItsChild);
    CPPUNIT_TEST(timeoutFailsAndLateReplyIsDropped);
    CPPUNIT_TEST(hungChildIsReplaced);
    CPPUNIT_TEST(retryOnTimeoutAsksAgain);
    CPPUNIT_TEST(crashMidRequestFailsInFlightAndRestarts);
    CPPUNIT_TEST(crashingAtStartIsBounded);
    CPPUNIT_TEST(missingProgramFailsClosed);
    CPPUNIT_TEST(garbageIsCountedAndDropped);
    CPPUNIT_TEST(cancelledTicketGetsNoCallback);
    CPPUNIT_TEST(queueOverflowFailsNewRequests);
    CPPUNIT_TEST(burstThroughThreeConcurrentChildren);
    CPPUNIT_TEST(childSeesOnlyItsStdio);
    CPPUNIT_TEST(startupChildrenStartAtOnce);
    CPPUNIT_TEST(shutdownReapsEveryChild);
    CPPUNIT_TEST(childIgnoringEofIsKilled);
    CPPUNIT_TEST(reconfigureLetsOldChildrenFinish);
    CPPUNIT_TEST(requestWithLineBreakIsRefused);
    CPPUNIT_TEST(callbackMaySubmitAgain);
    CPPUNIT_TEST(throwingCallbackDoesNotStallTheBatch);
    CPPUNIT_TEST_SUITE_END();

public:
    void answersOkErrBhWithNotes();
    void withoutConcurrencyRequestsQueueAndAnswerInOrder();
    void concurrentRepliesMayComeOutOfOrder();
    void batchOfRepliesInOneWriteIsAllRead();
    void replySplitAcrossWritesWithCrlf();
    void overlongReplyEndsItsChild();
    void timeoutFailsAndLateReplyIsDropped();
    void hungChildIsReplaced();
    void retryOnTimeoutAsksAgain();
    void crashMidRequestFailsInFlightAndRestarts();
    void crashingAtStartIsBounded();
    void missingProgramFailsClosed();
    void garbageIsCountedAndDropped();
    void cancelledTicketGetsNoCallback();
    void queueOverflowFailsNewRequests();
    void burstThroughThreeConcurrentChildren();
    void childSeesOnlyItsStdio();
    void startupChildrenStartAtOnce();
    void shutdownReapsEveryChild();
    void childIgnoringEofIsKilled();
    void reconfigureLetsOldChildrenFinish();
    void requestWithLineBreakIsRefused();
    void callbackMaySubmitAgain();
    void throwingCallbackDoesNotStallTheBatch();
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestPool);

namespace {

using namespace std::chrono_literals;

std::string ScriptPath()
{
    if (const char* top = std::getenv("top_srcdir"))
        return std::string(top) + "/src/helper/tests/fake-helper.py";
    std::string here(__FILE__);
    return here.substr(0, here.rfind('/')) + "/fake-helper.py";
}

/// a duration stretched by TIMEOUT_MULT (sanitizer builds run slower)
Comm::Milliseconds Scaled(Comm::Milliseconds time)
{
    const char* mult = std::getenv("TIMEOUT_MULT");
    const int factor = mult ? std::atoi(mult) : 1;
    return time * (factor > 1 ? factor : 1);
}

/// a pool of fake-helper.py with these arguments and one child at most
Helper::Options FakeHelper(std::vector<std::string> args = {})
{
    Helper::Options o;
    o.name = "fake";
    o.argv = {"python3", ScriptPath()};
    o.argv.insert(o.argv.end(), args.begin(), args.end());
    o.childrenMax = 1;
    o.idle = 0;
    o.timeout = 20s;
    o.shutdownGrace = 2s;
    return o;
}

/// runs the loop until done() or the time is up; returns done()
bool RunUntil(Comm::Loop& loop, const std::function<bool()>& done,
              Comm::Milliseconds limit = std::chrono::milliseconds(15000))
{
    const auto deadline = Comm::Clock::now() + Scaled(limit);
    while (!done() && Comm::Clock::now() < deadline)
        loop.runOnce(10ms);
    return done();
}

/// runs the loop for a while
void RunFor(Comm::Loop& loop, Comm::Milliseconds time)
{
    const auto deadline = Comm::Clock::now() + Scaled(time);
    while (Comm::Clock::now() < deadline)
        loop.runOnce(10ms);
}

/// the replies of a test, in the order they came
struct Replies {
    std::vector<Helper::Reply> got;
    std::vector<int> order; ///< the index each callback was made for

    Helper::Pool::Callback at(int index)
    {
        return [this, index](const Helper::Reply& r) {
            got.push_back(r);
            order.push_back(index);
        };
    }
    size_t size() const { return got.size(); }
};

std::string NoteOf(const Helper::Reply& reply, const char* key)
{
    const std::string* value = reply.findNote(key);
    return value ? *value : std::string("<none>");
}

/// submits "COMMAND i" for each i below count
std::vector<Helper::Ticket> SubmitEach(Helper::Pool& pool, Replies& replies, int count,
                                       const std::string& command)
{
    std::vector<Helper::Ticket> tickets;
    for (int i = 0; i < count; ++i)
        tickets.push_back(pool.submit(command + std::to_string(i), replies.at(i)));
    return tickets;
}

/// every reply is OK and its note n names the request it was made for
void AssertEachGotItsOwn(const Replies& replies)
{
    for (size_t i = 0; i < replies.size(); ++i) {
        CPPUNIT_ASSERT(replies.got[i].isOkay());
        CPPUNIT_ASSERT_EQUAL(std::to_string(replies.order[i]), NoteOf(replies.got[i], "n"));
    }
}

bool IsGone(pid_t pid)
{
    return ::kill(pid, 0) != 0 && errno == ESRCH;
}

size_t LinesIn(const std::string& path)
{
    std::ifstream in(path);
    size_t n = 0;
    for (std::string line; std::getline(in, line);)
        ++n;
    return n;
}

} // namespace

void TestPool::answersOkErrBhWithNotes()
{
    Comm::Loop loop;
    Helper::Pool pool(loop, FakeHelper());
    Replies replies;
    auto a = pool.submit("say OK user=bob tag=\"gold member\"", replies.at(0));
    auto b = pool.submit("say ERR message=bad%20password", replies.at(1));
    auto c = pool.submit("say BH database down", replies.at(2));
    auto d = pool.submit("say http://example.com/?a=b", replies.at(3));
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return replies.size() == 4; }));

    CPPUNIT_ASSERT(replies.got[0].result == Helper::Result::Okay);
    CPPUNIT_ASSERT_EQUAL(std::string("bob"), NoteOf(replies.got[0], "user"));
    CPPUNIT_ASSERT_EQUAL(std::string("gold member"), NoteOf(replies.got[0], "tag"));
    CPPUNIT_ASSERT(replies.got[1].result == Helper::Result::Error);
    CPPUNIT_ASSERT_EQUAL(std::string("bad password"), NoteOf(replies.got[1], "message"));
    CPPUNIT_ASSERT(replies.got[2].result == Helper::Result::BrokenHelper);
    CPPUNIT_ASSERT(replies.got[2].failure == Helper::Failure::None);
    CPPUNIT_ASSERT_EQUAL(std::string("database down"), NoteOf(replies.got[2], "message"));
    CPPUNIT_ASSERT(replies.got[3].result == Helper::Result::Unknown);
    CPPUNIT_ASSERT_EQUAL(std::string("http://example.com/?a=b"), replies.got[3].other);
    CPPUNIT_ASSERT(!a.isPending());
    CPPUNIT_ASSERT_EQUAL(uint64_t(4), pool.stats().replies);
}

void TestPool::withoutConcurrencyRequestsQueueAndAnswerInOrder()
{
    Comm::Loop loop;
    Helper::Pool pool(loop, FakeHelper());
    Replies replies;
    const auto tickets = SubmitEach(pool, replies, 5, "say OK n=");
    // one child, one request at a time: the other four wait
    CPPUNIT_ASSERT_EQUAL(size_t(4), pool.stats().queued);
    CPPUNIT_ASSERT_EQUAL(size_t(1), pool.stats().inFlight);
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return replies.size() == 5; }));
    for (int i = 0; i < 5; ++i)
        CPPUNIT_ASSERT_EQUAL(i, replies.order[i]);
    AssertEachGotItsOwn(replies);
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), pool.stats().spawns);
    CPPUNIT_ASSERT_EQUAL(size_t(0), pool.stats().queued);
}

void TestPool::concurrentRepliesMayComeOutOfOrder()
{
    Comm::Loop loop;
    auto options = FakeHelper({"--concurrency", "--batch", "4"});
    options.concurrency = 4;
    Helper::Pool pool(loop, options);
    Replies replies;
    const auto tickets = SubmitEach(pool, replies, 4, "say OK n=");
    CPPUNIT_ASSERT_EQUAL(size_t(4), pool.stats().inFlight);
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return replies.size() == 4; }));
    // the helper answered last first; each reply still reached its own request
    CPPUNIT_ASSERT_EQUAL(3, replies.order[0]);
    CPPUNIT_ASSERT_EQUAL(0, replies.order[3]);
    AssertEachGotItsOwn(replies);
}

void TestPool::batchOfRepliesInOneWriteIsAllRead()
{
    // 300 replies of ~1 KB written at once: far more than one read takes, and
    // no further byte will bring another edge
    Comm::Loop loop;
    auto options = FakeHelper({"--concurrency", "--batch", "300"});
    options.concurrency = 300;
    Helper::Pool pool(loop, options);
    Replies replies;
    const auto tickets = SubmitEach(pool, replies, 300, "big ");
    CPPUNIT_ASSERT(RunUntil(
        loop, [&] { return replies.size() == 300; }, 10000ms));
    AssertEachGotItsOwn(replies);
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.stats().garbage);
}

void TestPool::replySplitAcrossWritesWithCrlf()
{
    Comm::Loop loop;
    auto options = FakeHelper({"--concurrency"});
    options.concurrency = 2;
    Helper::Pool pool(loop, options);
    Replies replies;
    auto t = pool.submit("split OK user=someone tag=whole", replies.at(0));
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return replies.size() == 1; }));
    CPPUNIT_ASSERT(replies.got[0].isOkay());
    CPPUNIT_ASSERT_EQUAL(std::string("someone"), NoteOf(replies.got[0], "user"));
    CPPUNIT_ASSERT_EQUAL(std::string("whole"), NoteOf(replies.got[0], "tag")); // no CR left
}

void TestPool::overlongReplyEndsItsChild()
{
    Comm::Loop loop;
    auto options = FakeHelper();
    options.maxReplySize = 500;
    Helper::Pool pool(loop, options);
    Replies replies;
    auto t = pool.submit("big 1", replies.at(0)); // ~1 KB
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return replies.size() == 1; }));
    CPPUNIT_ASSERT(replies.got[0].result == Helper::Result::BrokenHelper);
    CPPUNIT_ASSERT(replies.got[0].failure == Helper::Failure::ChildDied);
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), pool.stats().deaths);
}

void TestPool::timeoutFailsAndLateReplyIsDropped()
{
    Comm::Loop loop;
    auto options = FakeHelper();
    options.timeout = Scaled(2000ms);
    Helper::Pool pool(loop, options);
    Replies replies;
    auto slow =
        pool.submit("sleep " + std::to_string(Scaled(2500ms).count()) + " OK user=late", replies.at(0));
    CPPUNIT_ASSERT(RunUntil(
        loop, [&] { return replies.size() == 1; }, 5000ms));
    CPPUNIT_ASSERT(replies.got[0].result == Helper::Result::BrokenHelper);
    CPPUNIT_ASSERT(replies.got[0].failure == Helper::Failure::TimedOut);

    // without channel ids the next reply of this child is the late one: it
    // must be dropped, not taken as the answer to the next request
    auto next = pool.submit("say OK user=next", replies.at(1));
    CPPUNIT_ASSERT(RunUntil(
        loop, [&] { return replies.size() == 2; }, 5000ms));
    CPPUNIT_ASSERT(replies.got[1].isOkay());
    CPPUNIT_ASSERT_EQUAL(std::string("next"), NoteOf(replies.got[1], "user"));
    const auto stats = pool.stats();
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), stats.timeouts);
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), stats.lateReplies);
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), stats.spawns);
}

void TestPool::hungChildIsReplaced()
{
    Comm::Loop loop;
    auto options = FakeHelper();
    options.timeout = Scaled(1000ms);
    options.shutdownGrace = 200ms;
    Helper::Pool pool(loop, options);
    Replies replies;
    auto stuck = pool.submit("sleep 10000 OK", replies.at(0));
    CPPUNIT_ASSERT(RunUntil(
        loop, [&] { return replies.size() == 1; }, 3000ms));
    CPPUNIT_ASSERT(replies.got[0].failure == Helper::Failure::TimedOut);
    // still owing its reply one timeout later, it is closed and replaced
    CPPUNIT_ASSERT(RunUntil(
        loop, [&] { return pool.stats().deaths == 1; }, 3000ms));
    auto next = pool.submit("say OK user=fresh", replies.at(1));
    CPPUNIT_ASSERT(RunUntil(
        loop, [&] { return replies.size() == 2; }, 5000ms));
    CPPUNIT_ASSERT_EQUAL(std::string("fresh"), NoteOf(replies.got[1], "user"));
    CPPUNIT_ASSERT_EQUAL(uint64_t(2), pool.stats().spawns);
    // the sleeping one ignored its closed stdin: killed after the grace
    CPPUNIT_ASSERT(RunUntil(
        loop, [&] { return pool.stats().killed == 1; }, 3000ms));
}

void TestPool::retryOnTimeoutAsksAgain()
{
    char path[] = "/tmp/cuttle-helper-slow-XXXXXX";
    const int fd = ::mkstemp(path);
    CPPUNIT_ASSERT(fd >= 0);
    ::close(fd);
    ::unlink(path); // the helper makes it on the first try
    {
        Comm::Loop loop;
        auto options = FakeHelper();
        options.childrenMax = 2;
        options.timeout = Scaled(1000ms);
        options.onTimeout = Helper::OnTimeout::Retry;
        Helper::Pool pool(loop, options);
        Replies replies;
        // the first try is stuck in its child; the retry goes to a second one
        const auto stuck = std::to_string(Scaled(3000ms).count());
        auto t =
            pool.submit(std::string("slow-once ") + path + " " + stuck + " OK user=retried", replies.at(0));
        CPPUNIT_ASSERT(RunUntil(
            loop, [&] { return replies.size() == 1; }, 5000ms));
        CPPUNIT_ASSERT(replies.got[0].isOkay());
        CPPUNIT_ASSERT(replies.got[0].failure == Helper::Failure::None);
        CPPUNIT_ASSERT_EQUAL(std::string("retried"), NoteOf(replies.got[0], "user"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), pool.stats().timeouts);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), pool.stats().spawns);
    }
    ::unlink(path);
}

void TestPool::crashMidRequestFailsInFlightAndRestarts()
{
    Comm::Loop loop;
    auto options = FakeHelper({"--concurrency"});
    options.concurrency = 3;
    Helper::Pool pool(loop, options);
    Replies replies;
    auto crash = pool.submit("exit", replies.at(0));
    auto bystander = pool.submit("sleep 200 OK", replies.at(1));
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return replies.size() == 2; }));
    for (const auto& r : replies.got) {
        CPPUNIT_ASSERT(r.result == Helper::Result::BrokenHelper);
        CPPUNIT_ASSERT(r.failure == Helper::Failure::ChildDied);
    }
    auto after = pool.submit("say OK user=after", replies.at(2));
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return replies.size() == 3; }));
    CPPUNIT_ASSERT(replies.got[2].isOkay());
    const auto stats = pool.stats();
    CPPUNIT_ASSERT_EQUAL(uint64_t(2), stats.spawns);
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), stats.restarts);
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), stats.deaths);
    CPPUNIT_ASSERT_EQUAL(uint64_t(2), stats.childFailures);
    CPPUNIT_ASSERT(!stats.isSuspended);
}

void TestPool::crashingAtStartIsBounded()
{
    char path[] = "/tmp/cuttle-helper-starts-XXXXXX";
    const int fd = ::mkstemp(path);
    CPPUNIT_ASSERT(fd >= 0);
    ::close(fd);
    {
        Comm::Loop loop;
        auto options = FakeHelper({"--crash-at-start", "--starts", path});
        options.childrenMax = 2;
        options.startup = 1;
        options.maxRestarts = 2;
        options.restartBackoff = 60s;
        Helper::Pool pool(loop, options);
        // kept at startup=1, it would be restarted as fast as it dies
        CPPUNIT_ASSERT(RunUntil(
            loop, [&] { return pool.stats().isSuspended; }, 5000ms));
        RunFor(loop, 1000ms);
        const auto stats = pool.stats();
        CPPUNIT_ASSERT(stats.isSuspended);
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), stats.spawns);
        CPPUNIT_ASSERT_EQUAL(size_t(3), LinesIn(path));

        Replies replies;
        auto t = pool.submit("say OK", replies.at(0));
        CPPUNIT_ASSERT_EQUAL(size_t(0), replies.size()); // never inside submit()
        CPPUNIT_ASSERT(RunUntil(
            loop, [&] { return replies.size() == 1; }, 1000ms));
        CPPUNIT_ASSERT(replies.got[0].result == Helper::Result::BrokenHelper);
        CPPUNIT_ASSERT(replies.got[0].failure == Helper::Failure::Unavailable);
        CPPUNIT_ASSERT_EQUAL(size_t(3), LinesIn(path));
    }
    ::unlink(path);
}

void TestPool::missingProgramFailsClosed()
{
    Comm::Loop loop;
    Helper::Options options;
    options.name = "missing";
    options.argv = {"/nonexistent/cuttle-helper"};
    options.childrenMax = 5;
    Helper::Pool pool(loop, options);
    Replies replies;
    auto t = pool.submit("anything", replies.at(0));
    CPPUNIT_ASSERT(RunUntil(
        loop, [&] { return replies.size() == 1; }, 2000ms));
    CPPUNIT_ASSERT(replies.got[0].result == Helper::Result::BrokenHelper);
    CPPUNIT_ASSERT(replies.got[0].failure == Helper::Failure::Unavailable);
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.stats().spawns);
    CPPUNIT_ASSERT(pool.stats().spawnFailures >= 1);
    CPPUNIT_ASSERT(pool.stats().spawnFailures <= 6);
}

void TestPool::garbageIsCountedAndDropped()
{
    Comm::Loop loop;
    auto options = FakeHelper({"--concurrency"});
    options.concurrency = 2;
    Helper::Pool pool(loop, options);
    Replies replies;
    auto t = pool.submit("garbage OK user=real", replies.at(0));
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return replies.size() == 1; }));
    CPPUNIT_ASSERT(replies.got[0].isOkay());
    CPPUNIT_ASSERT_EQUAL(std::string("real"), NoteOf(replies.got[0], "user"));
    // "no channel at all" and "9999 OK user=nobody"
    CPPUNIT_ASSERT_EQUAL(uint64_t(2), pool.stats().garbage);
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.stats().deaths);
}

void TestPool::cancelledTicketGetsNoCallback()
{
    Comm::Loop loop;
    Helper::Pool pool(loop, FakeHelper());
    Replies replies;
    auto gone = pool.submit("sleep 300 OK user=gone", replies.at(0));
    auto queued = pool.submit("say OK user=queued", replies.at(1));
    CPPUNIT_ASSERT(gone.isPending());
    gone.cancel();
    queued.cancel();
    CPPUNIT_ASSERT(!gone.isPending());
    auto kept = pool.submit("say OK user=kept", replies.at(2));
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return replies.size() == 1; }));
    RunFor(loop, 200ms);
    CPPUNIT_ASSERT_EQUAL(size_t(1), replies.size());
    CPPUNIT_ASSERT_EQUAL(2, replies.order[0]);
    // the cancelled request's reply was not taken as this one's
    CPPUNIT_ASSERT_EQUAL(std::string("kept"), NoteOf(replies.got[0], "user"));
    {
        auto dropped = pool.submit("say OK", replies.at(3));
    } // destroyed at once
    RunFor(loop, 300ms);
    CPPUNIT_ASSERT_EQUAL(size_t(1), replies.size());
}

void TestPool::queueOverflowFailsNewRequests()
{
    Comm::Loop loop;
    auto options = FakeHelper();
    options.queueSize = 2;
    options.persistentOverload = 0ms;
    Helper::Pool pool(loop, options);
    Replies replies;
    const auto tickets = SubmitEach(pool, replies, 6, "sleep 100 OK n=");
    CPPUNIT_ASSERT_EQUAL(size_t(0), replies.size());
    CPPUNIT_ASSERT(pool.stats().isOverloaded);
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return replies.size() == 6; }));
    // one in flight and queue-size + 1 queued (Squid's limit), the rest refused
    int overloaded = 0;
    for (size_t i = 0; i < 6; ++i) {
        if (replies.got[i].failure == Helper::Failure::Overloaded) {
            CPPUNIT_ASSERT(replies.got[i].result == Helper::Result::BrokenHelper);
            CPPUNIT_ASSERT(replies.order[i] >= 4);
            ++overloaded;
        } else {
            CPPUNIT_ASSERT(replies.got[i].isOkay());
        }
    }
    CPPUNIT_ASSERT_EQUAL(2, overloaded);
    CPPUNIT_ASSERT(!pool.stats().isOverloaded);
}

void TestPool::burstThroughThreeConcurrentChildren()
{
    Comm::Loop loop;
    auto options = FakeHelper({"--concurrency"});
    options.childrenMax = 3;
    options.concurrency = 10;
    options.queueSize = 10000;
    options.timeout = 60s;
    Helper::Pool pool(loop, options);
    constexpr int Count = 5000;
    std::vector<int> answered(Count, 0);
    int wrong = 0;
    int done = 0;
    std::vector<Helper::Ticket> tickets;
    tickets.reserve(Count);
    const auto start = Comm::Clock::now();
    for (int i = 0; i < Count; ++i) {
        tickets.push_back(pool.submit("say OK n=" + std::to_string(i), [&, i](const Helper::Reply& r) {
            ++answered[i];
            ++done;
            if (!r.isOkay() || NoteOf(r, "n") != std::to_string(i))
                ++wrong;
        }));
    }
    CPPUNIT_ASSERT(RunUntil(
        loop, [&] { return done == Count; }, 60000ms));
    const auto took = Comm::Clock::now() - start;
    CPPUNIT_ASSERT_EQUAL(0, wrong);
    for (int i = 0; i < Count; ++i)
        CPPUNIT_ASSERT_EQUAL(1, answered[i]);
    RunFor(loop, 100ms);
    const auto stats = pool.stats();
    CPPUNIT_ASSERT_EQUAL(uint64_t(Count), stats.replies);
    CPPUNIT_ASSERT_EQUAL(uint64_t(3), stats.spawns);
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), stats.garbage);
    CPPUNIT_ASSERT_EQUAL(size_t(0), stats.inFlight);
    CPPUNIT_ASSERT(took < 60s);
}

void TestPool::childSeesOnlyItsStdio()
{
    int leaky[2];
    CPPUNIT_ASSERT_EQUAL(0, ::pipe(leaky)); // no O_CLOEXEC: must not reach the helper anyway
    Comm::Loop loop;
    Helper::Pool pool(loop, FakeHelper());
    Replies replies;
    auto t = pool.submit("fds", replies.at(0));
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return replies.size() == 1; }));
    CPPUNIT_ASSERT_EQUAL(std::string(""), NoteOf(replies.got[0], "fds"));
    ::close(leaky[0]);
    ::close(leaky[1]);
}

void TestPool::startupChildrenStartAtOnce()
{
    Comm::Loop loop;
    auto options = FakeHelper();
    options.childrenMax = 5;
    options.startup = 3;
    options.idle = 1;
    Helper::Pool pool(loop, options);
    CPPUNIT_ASSERT_EQUAL(size_t(3), pool.stats().children.size());
    Replies replies;
    const auto tickets = SubmitEach(pool, replies, 3, "say OK n=");
    // three busy, idle=1: a fourth starts
    CPPUNIT_ASSERT_EQUAL(size_t(4), pool.stats().children.size());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return replies.size() == 3; }));
}

void TestPool::shutdownReapsEveryChild()
{
    Comm::Loop loop;
    auto options = FakeHelper();
    options.childrenMax = 3;
    options.startup = 3;
    Helper::Pool pool(loop, options);
    std::vector<pid_t> pids;
    for (const auto& c : pool.stats().children)
        pids.push_back(c.pid);
    CPPUNIT_ASSERT_EQUAL(size_t(3), pids.size());
    Replies replies;
    auto inFlight = pool.submit("sleep 5000 OK", replies.at(0));
    pool.shutdown();
    auto late = pool.submit("say OK", replies.at(1));
    CPPUNIT_ASSERT(RunUntil(
        loop, [&] { return pool.isFinished() && replies.size() == 2; }, 5000ms));
    for (const auto& r : replies.got)
        CPPUNIT_ASSERT(r.failure == Helper::Failure::ShutDown);
    for (const pid_t pid : pids)
        CPPUNIT_ASSERT(IsGone(pid)); // reaped: no zombie left
}

void TestPool::childIgnoringEofIsKilled()
{
    Comm::Loop loop;
    auto options = FakeHelper({"--ignore-eof"});
    options.startup = 1;
    options.shutdownGrace = 300ms;
    Helper::Pool pool(loop, options);
    const pid_t pid = pool.stats().children.at(0).pid;
    RunFor(loop, 300ms); // let python start
    pool.shutdown();
    CPPUNIT_ASSERT(RunUntil(
        loop, [&] { return pool.isFinished(); }, 5000ms));
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), pool.stats().killed);
    CPPUNIT_ASSERT(IsGone(pid));
}

void TestPool::reconfigureLetsOldChildrenFinish()
{
    Comm::Loop loop;
    Helper::Pool pool(loop, FakeHelper());
    Replies replies;
    auto old = pool.submit("sleep 300 OK user=old", replies.at(0));
    const pid_t oldPid = pool.stats().children.at(0).pid;
    pool.reconfigure(FakeHelper());
    auto fresh = pool.submit("pid", replies.at(1));
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return replies.size() == 2; }));
    for (size_t i = 0; i < 2; ++i) {
        CPPUNIT_ASSERT(replies.got[i].isOkay());
        if (replies.order[i] == 0)
            CPPUNIT_ASSERT_EQUAL(std::string("old"), NoteOf(replies.got[i], "user"));
        else
            CPPUNIT_ASSERT(NoteOf(replies.got[i], "pid") != std::to_string(oldPid));
    }
    // the old child exits once its request is answered
    CPPUNIT_ASSERT(RunUntil(
        loop, [&] { return IsGone(oldPid); }, 3000ms));
    CPPUNIT_ASSERT_EQUAL(size_t(1), pool.stats().children.size());
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.stats().deaths);
}

void TestPool::requestWithLineBreakIsRefused()
{
    Comm::Loop loop;
    Helper::Pool pool(loop, FakeHelper());
    CPPUNIT_ASSERT_THROW(static_cast<void>(pool.submit("say OK\nsay OK", [](const Helper::Reply&) {})),
                         TextException);
    CPPUNIT_ASSERT_THROW(static_cast<void>(pool.submit("say OK\r", [](const Helper::Reply&) {})),
                         TextException);
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.stats().spawns);
}

void TestPool::callbackMaySubmitAgain()
{
    Comm::Loop loop;
    Helper::Pool pool(loop, FakeHelper());
    int chain = 0;
    Helper::Ticket ticket;
    std::function<void(const Helper::Reply&)> next = [&](const Helper::Reply& r) {
        CPPUNIT_ASSERT(r.isOkay());
        if (++chain < 10)
            ticket = pool.submit("say OK n=" + std::to_string(chain), next);
    };
    ticket = pool.submit("say OK n=0", next);
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return chain == 10; }));
    CPPUNIT_ASSERT_EQUAL(uint64_t(10), pool.stats().replies);
}

void TestPool::throwingCallbackDoesNotStallTheBatch()
{
    // four replies in one read; the first callback throws (a bug): the loop
    // logs it and the other three are still delivered from the same read
    Comm::Loop loop;
    auto options = FakeHelper({"--concurrency", "--batch", "4"});
    options.concurrency = 4;
    Helper::Pool pool(loop, options);
    int delivered = 0;
    std::vector<Helper::Ticket> tickets;
    for (int i = 0; i < 4; ++i) {
        tickets.push_back(pool.submit("say OK", [&delivered](const Helper::Reply&) {
            if (++delivered == 1)
                throw TextException("a callback bug", __FILE__, __LINE__);
        }));
    }
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return delivered == 4; }));
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), loop.bugCount());
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.stats().deaths);
}
