/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "client/Counters.h"
#include "log/AccessRecord.h"

#include <cppunit/extensions/HelperMacros.h>

namespace {

Log::AccessRecord Record(const char* client, const char* code, int status, uint64_t bytes)
{
    Log::AccessRecord r;
    r.clientAddress = client;
    r.resultCode = code;
    r.httpStatus = status;
    r.bytesSent = bytes;
    return r;
}

} // namespace

/// Client::Counters: each logged transaction counted as Squid's client_http.* counters.
class TestCounters : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestCounters);
    CPPUNIT_TEST(hitsAreResultCodesWithHit);
    CPPUNIT_TEST(errorsAndAbortsFollowTheStatus);
    CPPUNIT_TEST(eachClientHasItsTally);
    CPPUNIT_TEST_SUITE_END();

public:
    void hitsAreResultCodesWithHit()
    {
        Client::Counters c;
        c.count(Record("127.0.0.1", "TCP_MEM_HIT", 200, 100));
        c.count(Record("127.0.0.1", "TCP_REFRESH_UNMODIFIED", 200, 10));
        c.count(Record("127.0.0.1", "TCP_INM_HIT", 304, 5));
        c.count(Record("127.0.0.1", "TCP_MISS", 200, 1000));
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), c.requests);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), c.hits);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1115), c.bytesOut);
        CPPUNIT_ASSERT_EQUAL(uint64_t(105), c.hitBytesOut);
    }

    void errorsAndAbortsFollowTheStatus()
    {
        Client::Counters c;
        c.count(Record("127.0.0.1", "TCP_DENIED", 403, 300));
        c.count(Record("127.0.0.1", "TCP_MISS", 503, 300));
        c.count(Record("127.0.0.1", "TCP_MISS", 399, 300));
        c.count(Record("127.0.0.1", "TCP_MISS_ABORTED", 0, 0));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), c.errors);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.aborted);
    }

    void eachClientHasItsTally()
    {
        Client::Counters c;
        c.count(Record("127.0.0.1", "TCP_MISS", 200, 1));
        c.count(Record("::1", "TCP_MEM_HIT", 200, 1));
        c.count(Record("127.0.0.1", "TCP_MISS", 200, 1));
        CPPUNIT_ASSERT_EQUAL(size_t(2), c.perClient.size());
        const auto& v4 = c.perClient.at("127.0.0.1");
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), v4.requests);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), v4.hits);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), v4.codes.at("TCP_MISS"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.perClient.at("::1").hits);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestCounters);
