/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "sbuf/ReadSizer.h"

#include <cppunit/extensions/HelperMacros.h>

/// Tests of Sbuf::ReadSizer (request_buffer_size).
class TestReadSizer : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestReadSizer);
    CPPUNIT_TEST(fixedNeverChanges);
    CPPUNIT_TEST(fullReadsGrowToMax);
    CPPUNIT_TEST(sparseReadsShrinkToMin);
    CPPUNIT_TEST(steadyHalfFullReadsHoldTheSize);
    CPPUNIT_TEST(rescalingPreventsRunningToABound);
    CPPUNIT_TEST_SUITE_END();

public:
    void fixedNeverChanges()
    {
        auto s = Sbuf::ReadSizer::Fixed(100 * 1024);
        CPPUNIT_ASSERT_EQUAL(size_t(128 * 1024), s.size()); // a pool size class
        for (int i = 0; i < 100; ++i)
            s.noteRead(s.size(), s.size());
        CPPUNIT_ASSERT_EQUAL(size_t(128 * 1024), s.size());
    }

    void fullReadsGrowToMax()
    {
        auto s = Sbuf::ReadSizer::Auto(16 * 1024, 1024 * 1024);
        CPPUNIT_ASSERT_EQUAL(size_t(16 * 1024), s.size());
        int reads = 0;
        while (s.size() < 1024 * 1024 && reads < 1000) {
            s.noteRead(s.size(), s.size());
            ++reads;
        }
        CPPUNIT_ASSERT_EQUAL(size_t(1024 * 1024), s.size());
        CPPUNIT_ASSERT(reads < 200); // a few MB moved, not a few GB
        for (int i = 0; i < 100; ++i)
            s.noteRead(s.size(), s.size());
        CPPUNIT_ASSERT_EQUAL(size_t(1024 * 1024), s.size()); // never past max
    }

    void sparseReadsShrinkToMin()
    {
        auto s = Sbuf::ReadSizer::Auto(4096, 4 * 1024 * 1024);
        for (int i = 0; i < 200; ++i)
            s.noteRead(s.size(), s.size());
        CPPUNIT_ASSERT_EQUAL(size_t(4 * 1024 * 1024), s.size());
        for (int i = 0; i < 500; ++i)
            s.noteRead(s.size(), 100);
        CPPUNIT_ASSERT_EQUAL(size_t(4096), s.size());
    }

    void steadyHalfFullReadsHoldTheSize()
    {
        auto s = Sbuf::ReadSizer::Auto(4096, 1024 * 1024);
        for (int i = 0; i < 100; ++i)
            s.noteRead(s.size(), s.size());
        const size_t settled = s.size();
        for (int i = 0; i < 1000; ++i)
            s.noteRead(s.size(), s.size() * 6 / 10);
        CPPUNIT_ASSERT_EQUAL(settled, s.size());
    }

    void rescalingPreventsRunningToABound()
    {
        // a sender that always delivers 100 KB: the size settles near it
        // instead of swinging between the bounds
        auto s = Sbuf::ReadSizer::Auto(4096, 4 * 1024 * 1024);
        const size_t burst = 100 * 1024;
        size_t changes = 0;
        size_t last = s.size();
        for (int i = 0; i < 2000; ++i) {
            s.noteRead(s.size(), std::min(s.size(), burst));
            if (s.size() != last) {
                ++changes;
                last = s.size();
            }
        }
        CPPUNIT_ASSERT(s.size() == 128 * 1024 || s.size() == 256 * 1024);
        CPPUNIT_ASSERT(changes < 20);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestReadSizer);
