/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "comm/SignalSource.h"

#include <cppunit/extensions/HelperMacros.h>

#include <vector>

#include <unistd.h>

/// Comm::SignalSource: signals arrive as loop callbacks.
class TestSignalSource : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestSignalSource);
    CPPUNIT_TEST(deliversSignalsOnTheLoop);
    CPPUNIT_TEST_SUITE_END();

public:
    void deliversSignalsOnTheLoop();
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestSignalSource);

void TestSignalSource::deliversSignalsOnTheLoop()
{
    Comm::Loop loop;
    std::vector<int> got;
    {
        Comm::SignalSource s(loop, {SIGUSR1, SIGUSR2}, [&](int signo) { got.push_back(signo); });
        ::kill(::getpid(), SIGUSR1);
        for (int i = 0; i < 50 && got.empty(); ++i)
            loop.runOnce(Comm::Milliseconds(10));
        CPPUNIT_ASSERT_EQUAL(size_t(1), got.size());
        CPPUNIT_ASSERT_EQUAL(SIGUSR1, got[0]);
    }
    // the mask is restored: the signal is no longer blocked
    sigset_t now;
    sigprocmask(SIG_BLOCK, nullptr, &now);
    CPPUNIT_ASSERT(!sigismember(&now, SIGUSR1));
}
