/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "comm/Mailbox.h"

#include <cppunit/extensions/HelperMacros.h>

#include <thread>
#include <vector>

/// Comm::Mailbox: calls posted from other threads run on the loop's thread.
class TestMailbox : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestMailbox);
    CPPUNIT_TEST(runsPostedCallsInOrderOnTheLoop);
    CPPUNIT_TEST(takesCallsFromManyThreads);
    CPPUNIT_TEST(aCallPostedByACallWaitsForTheNextEvent);
    CPPUNIT_TEST_SUITE_END();

public:
    void runsPostedCallsInOrderOnTheLoop();
    void takesCallsFromManyThreads();
    void aCallPostedByACallWaitsForTheNextEvent();
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestMailbox);

void TestMailbox::runsPostedCallsInOrderOnTheLoop()
{
    Comm::Loop loop;
    Comm::Mailbox mailbox(loop);
    std::vector<int> got;
    std::vector<std::thread::id> threads;
    std::thread poster([&] {
        for (int i = 0; i < 3; ++i)
            mailbox.post([&, i] {
                got.push_back(i);
                threads.push_back(std::this_thread::get_id());
            });
    });
    poster.join();
    CPPUNIT_ASSERT(got.empty()); // nothing runs before the loop does
    for (int i = 0; i < 50 && got.size() < 3; ++i)
        loop.runOnce(Comm::Milliseconds(10));
    CPPUNIT_ASSERT_EQUAL(size_t(3), got.size());
    CPPUNIT_ASSERT_EQUAL(0, got[0]);
    CPPUNIT_ASSERT_EQUAL(2, got[2]);
    for (const auto& id : threads)
        CPPUNIT_ASSERT(id == std::this_thread::get_id());
}

void TestMailbox::takesCallsFromManyThreads()
{
    Comm::Loop loop;
    Comm::Mailbox mailbox(loop);
    int count = 0; // touched on the loop's thread only
    constexpr int Threads = 4;
    constexpr int Posts = 1000;
    std::vector<std::thread> posters;
    for (int t = 0; t < Threads; ++t)
        posters.emplace_back([&] {
            for (int i = 0; i < Posts; ++i)
                mailbox.post([&] { ++count; });
        });
    // the loop runs while they post: every call arrives, none twice
    for (int i = 0; i < 500 && count < Threads * Posts; ++i)
        loop.runOnce(Comm::Milliseconds(10));
    for (auto& p : posters)
        p.join();
    for (int i = 0; i < 50 && count < Threads * Posts; ++i)
        loop.runOnce(Comm::Milliseconds(10));
    CPPUNIT_ASSERT_EQUAL(Threads * Posts, count);
}

void TestMailbox::aCallPostedByACallWaitsForTheNextEvent()
{
    Comm::Loop loop;
    Comm::Mailbox mailbox(loop);
    int first = 0, second = 0;
    mailbox.post([&] {
        ++first;
        mailbox.post([&] { ++second; });
    });
    loop.runOnce(Comm::Milliseconds(100));
    CPPUNIT_ASSERT_EQUAL(1, first);
    CPPUNIT_ASSERT_EQUAL(0, second);
    loop.runOnce(Comm::Milliseconds(100));
    CPPUNIT_ASSERT_EQUAL(1, second);
}
