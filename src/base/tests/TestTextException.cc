/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "base/TextException.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cstring>
#include <string>

/// Tests of TextException and Must().
class TestTextException : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestTextException);
    CPPUNIT_TEST(mustPassesWhenTrue);
    CPPUNIT_TEST(mustThrowsWithLocation);
    CPPUNIT_TEST(must2ThrowsWithMessage);
    CPPUNIT_TEST(whatReadsFileLineMessage);
    CPPUNIT_TEST_SUITE_END();

public:
    /// a true condition does nothing (and is evaluated once)
    void mustPassesWhenTrue()
    {
        int evaluated = 0;
        Must(++evaluated == 1);
        CPPUNIT_ASSERT_EQUAL(1, evaluated);
    }

    /// a false condition throws with this file, the line of the check and the condition text
    void mustThrowsWithLocation()
    {
        int line = 0;
        try {
            const int x = 2;
            // clang-format off
            line = __LINE__; Must(x == 3);
            // clang-format on
            CPPUNIT_FAIL("Must did not throw");
        } catch (const TextException& e) {
            CPPUNIT_ASSERT_EQUAL(line, e.line());
            CPPUNIT_ASSERT(std::strstr(e.file(), "TestTextException.cc"));
            CPPUNIT_ASSERT_EQUAL(std::string("check failed: x == 3"), e.message());
        }
    }

    /// Must2 carries the given message instead of the condition
    void must2ThrowsWithMessage()
    {
        try {
            Must2(false, std::string("block too big"));
            CPPUNIT_FAIL("Must2 did not throw");
        } catch (const TextException& e) {
            CPPUNIT_ASSERT_EQUAL(std::string("block too big"), e.message());
        }
    }

    /// what() is "file:line: message", as logs show it
    void whatReadsFileLineMessage()
    {
        const TextException e("broken", "some/File.cc", 42);
        CPPUNIT_ASSERT_EQUAL(std::string("some/File.cc:42: broken"), std::string(e.what()));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestTextException);
