/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "mgr/Request.h"

#include <cppunit/extensions/HelperMacros.h>

/// Mgr::ParseRequest(): Squid 5.7's manager URLs.
class TestRequest : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestRequest);
    CPPUNIT_TEST(cacheObjectTakesPasswordAfterAt);
    CPPUNIT_TEST(cacheObjectWithoutActionIsMenu);
    CPPUNIT_TEST(internalPathHasNoPassword);
    CPPUNIT_TEST(queryIsIgnored);
    CPPUNIT_TEST(strayCharactersAreRefused);
    CPPUNIT_TEST_SUITE_END();

public:
    void cacheObjectTakesPasswordAfterAt()
    {
        const auto r = Mgr::ParseRequest(true, "/info@open");
        CPPUNIT_ASSERT(r);
        CPPUNIT_ASSERT_EQUAL(std::string("info"), r->action);
        CPPUNIT_ASSERT_EQUAL(std::string("open"), r->password);
        const auto bare = Mgr::ParseRequest(true, "/counters");
        CPPUNIT_ASSERT(bare && bare->action == "counters" && bare->password.empty());
    }

    void cacheObjectWithoutActionIsMenu()
    {
        CPPUNIT_ASSERT_EQUAL(std::string("menu"), Mgr::ParseRequest(true, "/")->action);
        CPPUNIT_ASSERT_EQUAL(std::string("index"), Mgr::ParseRequest(false, "/squid-internal-mgr/")->action);
    }

    void internalPathHasNoPassword()
    {
        // '@' is part of the action there (Squid answers 404 for "counters@open")
        const auto r = Mgr::ParseRequest(false, "/squid-internal-mgr/counters@open");
        CPPUNIT_ASSERT(r);
        CPPUNIT_ASSERT_EQUAL(std::string("counters@open"), r->action);
        CPPUNIT_ASSERT(r->password.empty());
    }

    void queryIsIgnored()
    {
        CPPUNIT_ASSERT_EQUAL(std::string("info"),
                             Mgr::ParseRequest(false, "/squid-internal-mgr/info?x=1")->action);
        const auto r = Mgr::ParseRequest(true, "/info@pw?a=b#frag");
        CPPUNIT_ASSERT(r && r->action == "info" && r->password == "pw");
    }

    void strayCharactersAreRefused()
    {
        CPPUNIT_ASSERT(!Mgr::ParseRequest(true, "/info@a@b"));
        CPPUNIT_ASSERT(!Mgr::ParseRequest(true, "info"));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestRequest);
