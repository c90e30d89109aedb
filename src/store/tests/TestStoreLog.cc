/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "sbuf/BlockPool.h"
#include "sbuf/MemBlob.h"
#include "store/Entry.h"
#include "store/StoreLog.h"
#include "store/tests/Replies.h"

#include <cppunit/extensions/HelperMacros.h>

#include <string>

class TestStoreLog : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestStoreLog);
    CPPUNIT_TEST(digestIs32HexDigitsOfTheKey);
    CPPUNIT_TEST(releaseLineIsSquids);
    CPPUNIT_TEST(absentFieldsPrintSquidsPlaceholders);
    CPPUNIT_TEST(entryWithoutReplyPrintsQuestionMarks);
    CPPUNIT_TEST_SUITE_END();

public:
    void digestIs32HexDigitsOfTheKey()
    {
        const auto a = Store::KeyDigest("GET http://example.com/");
        CPPUNIT_ASSERT_EQUAL(size_t(32), a.size());
        CPPUNIT_ASSERT_EQUAL(std::string::npos, a.find_first_not_of("0123456789ABCDEF"));
        CPPUNIT_ASSERT_EQUAL(a, Store::KeyDigest("GET http://example.com/"));
        CPPUNIT_ASSERT(a != Store::KeyDigest("GET http://example.com/a"));
        // FNV-1a of nothing: the two offsets as they are
        CPPUNIT_ASSERT_EQUAL(std::string("CBF29CE484222325"), Store::KeyDigest("").substr(0, 16));
    }

    void releaseLineIsSquids()
    {
        Store::Entry e(1 << 20);
        e.setReply(
            TestStore::MakeReply("HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
                                 "Last-Modified: Sat, 05 Nov 1994 08:49:37 GMT\r\n"
                                 "Content-Type: text/html;charset=utf-8\r\nContent-Length: 5\r\n\r\n"));
        auto blob = Sbuf::MemBlob::Make(Sbuf::DefaultPool(), 16);
        blob->append("hello");
        e.append(Sbuf::Slice(blob));
        const timeval now{1795759303, 184999};
        CPPUNIT_ASSERT_EQUAL(
            std::string("1795759303.184 RELEASE -1 FFFFFFFF 82F4CFC6A057F6327293A2F9E81D8250  200 "
                        "784111777 784025377        -1 text/html;charset=utf-8 5/5 GET "
                        "http://example.com/doc\n"),
            Store::StoreLogLine(now, "RELEASE", "82F4CFC6A057F6327293A2F9E81D8250", e, "GET",
                                "http://example.com/doc"));
    }

    void absentFieldsPrintSquidsPlaceholders()
    {
        Store::Entry e(1 << 20);
        e.setReply(TestStore::MakeReply("HTTP/1.1 404 Not Found\r\nExpires: soon\r\n\r\n"));
        const timeval now{5, 7000};
        CPPUNIT_ASSERT_EQUAL(
            std::string("        5.007 RELEASE -1 FFFFFFFF K  404        -1        -1        "
                        "-1 unknown -1/0 POST http://h/\n"),
            Store::StoreLogLine(now, "RELEASE", "K", e, "POST", "http://h/"));
    }

    void entryWithoutReplyPrintsQuestionMarks()
    {
        Store::Entry e(1 << 20);
        const timeval now{1795759303, 0};
        CPPUNIT_ASSERT_EQUAL(
            std::string("1795759303.000 RELEASE -1 FFFFFFFF K   ?         ?         ?         ? "
                        "?/? ?/? ? ?\n"),
            Store::StoreLogLine(now, "RELEASE", "K", e, "GET", "http://h/"));
        // a disk object's line names its cache_dir and file, as Squid's "00 0000002A"
        CPPUNIT_ASSERT_EQUAL(
            std::string("1795759303.000 RELEASE 01 0000002A K   ?         ?         ?         ? "
                        "?/? ?/? ? ?\n"),
            Store::StoreLogLine(now, "RELEASE", "K", e, "GET", "http://h/", 1, 42));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestStoreLog);
