/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "comm/Mailbox.h"

#include <cppunit/extensions/HelperMacros.h>

#include <thread>
#include <utility>
#include <vector>

/// Comm::Mailbox: calls posted by other threads run on the loop's thread.
class TestMailbox : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestMailbox);
    CPPUNIT_TEST(callsFromOtherThreadsRunOnTheLoopInOrder);
    CPPUNIT_TEST(callPostedByACallWaitsForTheNextEvent);
    CPPUNIT_TEST_SUITE_END();

public:
    void callsFromOtherThreadsRunOnTheLoopInOrder();
    void callPostedByACallWaitsForTheNextEvent();
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestMailbox);

/// four threads post at once; every call runs once, on the loop's thread,
/// each thread's in the order it posted them (ThreadSanitizer builds check
/// that a call and what it captured cross the threads safely)
void TestMailbox::callsFromOtherThreadsRunOnTheLoopInOrder()
{
    Comm::Loop loop;
    Comm::Mailbox mailbox(loop);
    const int posters = 4;
    const int calls = 500;
    const auto loopThread = std::this_thread::get_id();
    std::vector<std::vector<int>> got(posters); // touched on the loop's thread only
    bool elsewhere = false;
    std::vector<std::thread> threads;
    for (int p = 0; p < posters; ++p) {
        threads.emplace_back([&, p] {
            for (int i = 0; i < calls; ++i) {
                mailbox.post([&, p, i] {
                    elsewhere = elsewhere || std::this_thread::get_id() != loopThread;
                    got[size_t(p)].push_back(i);
                });
            }
        });
    }
    // the loop runs while they post (a round may take a single call when
    // the threads interleave finely), then takes what is left: every call
    // posted is queued by then, so one more event brings them all
    const auto drain = [&](int rounds) {
        size_t total = 0;
        for (int round = 0; round < rounds && total < size_t(posters * calls); ++round) {
            loop.runOnce(Comm::Milliseconds(10));
            total = 0;
            for (const auto& each : got)
                total += each.size();
        }
    };
    drain(1000);
    for (auto& thread : threads)
        thread.join();
    drain(100);
    CPPUNIT_ASSERT(!elsewhere);
    for (const auto& each : got) {
        CPPUNIT_ASSERT_EQUAL(size_t(calls), each.size());
        for (int i = 0; i < calls; ++i)
            CPPUNIT_ASSERT_EQUAL(i, each[size_t(i)]);
    }
}

/// a call that posts another does not run it in the same round: the queue
/// it was taken from is done first, the new call wakes the loop again
void TestMailbox::callPostedByACallWaitsForTheNextEvent()
{
    Comm::Loop loop;
    Comm::Mailbox mailbox(loop);
    std::vector<int> order;
    mailbox.post([&] {
        order.push_back(1);
        mailbox.post([&] { order.push_back(3); });
    });
    mailbox.post([&] { order.push_back(2); });
    for (int round = 0; round < 50 && order.size() < 2; ++round)
        loop.runOnce(Comm::Milliseconds(10));
    CPPUNIT_ASSERT((order == std::vector<int>{1, 2}));
    for (int round = 0; round < 50 && order.size() < 3; ++round)
        loop.runOnce(Comm::Milliseconds(10));
    CPPUNIT_ASSERT((order == std::vector<int>{1, 2, 3}));
}
