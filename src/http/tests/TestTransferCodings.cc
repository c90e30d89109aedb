/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/TransferCodings.h"

#include <cppunit/extensions/HelperMacros.h>

#include <string>
#include <vector>

/// Http::TransferCodings: Transfer-Encoding fields read as one list.
class TestTransferCodings : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestTransferCodings);
    CPPUNIT_TEST(absentUntilAdded);
    CPPUNIT_TEST(chunkedAloneInAnyCase);
    CPPUNIT_TEST(fieldsFormOneList);
    CPPUNIT_TEST(emptyElementsAreIgnored);
    CPPUNIT_TEST(lookAlikesAreRefused);
    CPPUNIT_TEST(chunkedTwiceIsRefused);
    CPPUNIT_TEST(resetForgetsEverything);
    CPPUNIT_TEST_SUITE_END();

public:
    void absentUntilAdded();
    void chunkedAloneInAnyCase();
    void fieldsFormOneList();
    void emptyElementsAreIgnored();
    void lookAlikesAreRefused();
    void chunkedTwiceIsRefused();
    void resetForgetsEverything();
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestTransferCodings);

void TestTransferCodings::absentUntilAdded()
{
    const Http::TransferCodings t;
    CPPUNIT_ASSERT(!t.isPresent());
    CPPUNIT_ASSERT(!t.isChunkedLast());
    CPPUNIT_ASSERT(!t.hasOtherCodings());
}

void TestTransferCodings::chunkedAloneInAnyCase()
{
    for (const char* value : {"chunked", "CHUNKED", "Chunked", " chunked\t"}) {
        Http::TransferCodings t;
        CPPUNIT_ASSERT_MESSAGE(value, t.add(value));
        CPPUNIT_ASSERT(t.isPresent());
        CPPUNIT_ASSERT(t.isChunkedOnly());
    }
}

void TestTransferCodings::fieldsFormOneList()
{
    Http::TransferCodings t;
    CPPUNIT_ASSERT(t.add("gzip"));
    CPPUNIT_ASSERT(!t.isChunkedLast());
    CPPUNIT_ASSERT(t.add("chunked"));
    CPPUNIT_ASSERT(t.isChunkedLast());
    CPPUNIT_ASSERT(t.hasOtherCodings());
    CPPUNIT_ASSERT(!t.isChunkedOnly());

    Http::TransferCodings u; // chunked, then another coding: chunked is not final
    CPPUNIT_ASSERT(u.add("chunked"));
    CPPUNIT_ASSERT(u.add("gzip;q=1"));
    CPPUNIT_ASSERT(!u.isChunkedLast());
}

void TestTransferCodings::emptyElementsAreIgnored()
{
    for (const char* value : {",chunked", "chunked,", " , chunked , ,"}) {
        Http::TransferCodings t;
        CPPUNIT_ASSERT_MESSAGE(value, t.add(value));
        CPPUNIT_ASSERT_MESSAGE(value, t.isChunkedOnly());
    }
    for (const char* value : {"", ",", " , , "}) {
        Http::TransferCodings t;
        CPPUNIT_ASSERT_MESSAGE(value, !t.add(value)); // frames nothing
        CPPUNIT_ASSERT(t.isPresent());
    }
}

void TestTransferCodings::lookAlikesAreRefused()
{
    const std::vector<std::string> bad = {
        "\xa0"
        "chunked",
        "chunked\xa0",
        "\"chunked\"",
        "chun ked",
        "chunked;",
        "chunked;x=1",
        "chunked ; x=1",
        std::string("chunked\0", 8),
        "chunked\x0b",
        "\x0c"
        "chunked",
        ";x=1",
        "chunked/1.1",
        "ch\xfcnked",
    };
    for (const auto& value : bad) {
        Http::TransferCodings t;
        CPPUNIT_ASSERT_MESSAGE(value, !t.add(value));
    }
    Http::TransferCodings t; // look-alike codings that are tokens are not chunked
    CPPUNIT_ASSERT(t.add("xchunked"));
    CPPUNIT_ASSERT(!t.isChunkedLast());
    CPPUNIT_ASSERT(t.hasOtherCodings());
}

void TestTransferCodings::chunkedTwiceIsRefused()
{
    Http::TransferCodings t;
    CPPUNIT_ASSERT(!t.add("chunked, chunked"));
    Http::TransferCodings u;
    CPPUNIT_ASSERT(u.add("chunked"));
    CPPUNIT_ASSERT(!u.add("Chunked"));
}

void TestTransferCodings::resetForgetsEverything()
{
    Http::TransferCodings t;
    CPPUNIT_ASSERT(t.add("chunked"));
    t.reset();
    CPPUNIT_ASSERT(!t.isPresent());
    CPPUNIT_ASSERT(t.add("chunked")); // chunked once more is no second chunked
    CPPUNIT_ASSERT(t.isChunkedOnly());
}
