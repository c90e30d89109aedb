/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "log/DebugOptions.h"

#include <cppunit/extensions/HelperMacros.h>

#include <stdexcept>

/// Tests of Log::DebugOptions (Squid's debug_options syntax).
class TestDebugOptions : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestDebugOptions);
    CPPUNIT_TEST(defaultIsLevelOneEverywhere);
    CPPUNIT_TEST(allThenSectionRaisesOnlyThatSection);
    CPPUNIT_TEST(laterAllOverridesEarlierSection);
    CPPUNIT_TEST(rotateCountIsRead);
    CPPUNIT_TEST(levelAboveNineIsClamped);
    CPPUNIT_TEST(badTokensAreRejected);
    CPPUNIT_TEST(emptyTextKeepsDefaults);
    CPPUNIT_TEST_SUITE_END();

public:
    void defaultIsLevelOneEverywhere()
    {
        const Log::DebugOptions o;
        for (int s = 0; s < Log::DebugOptions::Sections; ++s)
            CPPUNIT_ASSERT_EQUAL(1, o.level(s));
        CPPUNIT_ASSERT_EQUAL(-1, o.rotateCount());
        CPPUNIT_ASSERT_EQUAL(1, o.level(500)); // outside the table reads as the default
    }

    void allThenSectionRaisesOnlyThatSection()
    {
        const auto o = Log::DebugOptions::Parse("ALL,1 33,2");
        CPPUNIT_ASSERT_EQUAL(2, o.level(33));
        CPPUNIT_ASSERT_EQUAL(1, o.level(32));
        CPPUNIT_ASSERT_EQUAL(1, o.level(0));
        CPPUNIT_ASSERT_EQUAL(1, o.level(99));
    }

    void laterAllOverridesEarlierSection()
    {
        const auto o = Log::DebugOptions::Parse("33,5 all,0");
        CPPUNIT_ASSERT_EQUAL(0, o.level(33));
        CPPUNIT_ASSERT_EQUAL(0, o.level(5));
    }

    void rotateCountIsRead()
    {
        const auto o = Log::DebugOptions::Parse("ALL,1 rotate=3");
        CPPUNIT_ASSERT_EQUAL(3, o.rotateCount());
    }

    void levelAboveNineIsClamped()
    {
        const auto o = Log::DebugOptions::Parse("ALL,12");
        CPPUNIT_ASSERT_EQUAL(9, o.level(7));
    }

    void badTokensAreRejected()
    {
        CPPUNIT_ASSERT_THROW(Log::DebugOptions::Parse("ALL"), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(Log::DebugOptions::Parse("ALL,x"), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(Log::DebugOptions::Parse("100,2"), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(Log::DebugOptions::Parse("-1,2"), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(Log::DebugOptions::Parse("3,-2"), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(Log::DebugOptions::Parse("rotate=x"), std::invalid_argument);
    }

    void emptyTextKeepsDefaults()
    {
        const auto o = Log::DebugOptions::Parse("   ");
        CPPUNIT_ASSERT_EQUAL(1, o.level(42));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestDebugOptions);
