/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/Method.h"

#include <cppunit/extensions/HelperMacros.h>

#include <string>

/// Http::Method: names and properties.
class TestMethod : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestMethod);
    CPPUNIT_TEST(namesRoundTrip);
    CPPUNIT_TEST(methodsAreCaseSensitive);
    CPPUNIT_TEST(safeMethodsAreIdempotent);
    CPPUNIT_TEST_SUITE_END();

public:
    void namesRoundTrip();
    void methodsAreCaseSensitive();
    void safeMethodsAreIdempotent();
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestMethod);

void TestMethod::namesRoundTrip()
{
    for (int i = 0; i < static_cast<int>(Http::Method::Other); ++i) {
        const auto m = static_cast<Http::Method>(i);
        CPPUNIT_ASSERT(Http::MethodFromToken(Http::MethodName(m)) == m);
    }
    CPPUNIT_ASSERT(Http::MethodFromToken("PROPFIND") == Http::Method::Other);
    CPPUNIT_ASSERT(Http::MethodName(Http::Method::Other).empty());
}

void TestMethod::methodsAreCaseSensitive()
{
    CPPUNIT_ASSERT(Http::MethodFromToken("get") == Http::Method::Other);
}

void TestMethod::safeMethodsAreIdempotent()
{
    for (int i = 0; i <= static_cast<int>(Http::Method::Other); ++i) {
        const auto m = static_cast<Http::Method>(i);
        if (Http::IsSafe(m))
            CPPUNIT_ASSERT(Http::IsIdempotent(m));
    }
    CPPUNIT_ASSERT(!Http::IsIdempotent(Http::Method::Post));
    CPPUNIT_ASSERT(Http::IsIdempotent(Http::Method::Put));
}
