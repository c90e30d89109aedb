/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "sbuf/SBuf.h"
#include "base/TextException.h"
#include "sbuf/BlockPool.h"

#include <cppunit/extensions/HelperMacros.h>

#include <string>
#include <string_view>

/// Tests of Sbuf::SBuf.
class TestSBuf : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestSBuf);
    CPPUNIT_TEST(emptyHasNoBlob);
    CPPUNIT_TEST(copyAndSubstrShareTheBlob);
    CPPUNIT_TEST(viewOutlivesOriginalReference);
    CPPUNIT_TEST(findLocatesBytes);
    CPPUNIT_TEST(comparesByteWise);
    CPPUNIT_TEST(caseInsensitiveMatches);
    CPPUNIT_TEST(consumeAndTruncateClip);
    CPPUNIT_TEST(viewOfUnpublishedBytesThrows);
    CPPUNIT_TEST_SUITE_END();

public:
    /// a default SBuf is empty and equal to ""
    void emptyHasNoBlob()
    {
        const Sbuf::SBuf s;
        CPPUNIT_ASSERT(s.isEmpty());
        CPPUNIT_ASSERT(!s.blob());
        CPPUNIT_ASSERT(s == std::string_view());
        CPPUNIT_ASSERT(s.caseEquals(""));
        CPPUNIT_ASSERT_EQUAL(Sbuf::SBuf::npos, s.find('x'));
    }

    /// copies and substrings point into the same bytes: one more reference, no copy
    void copyAndSubstrShareTheBlob()
    {
        Sbuf::BlockPool pool;
        const auto s = Sbuf::SBuf::Copy(pool, "GET http://example.com/ HTTP/1.1");
        const auto copy = s;
        const auto url = s.substr(4, 19);
        CPPUNIT_ASSERT(url == std::string_view("http://example.com/"));
        CPPUNIT_ASSERT(url.data() == s.data() + 4);
        CPPUNIT_ASSERT(copy.data() == s.data());
        CPPUNIT_ASSERT_EQUAL(3u, s.blob()->refCount());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), pool.stats().total.blocksInUse);
        CPPUNIT_ASSERT(s.substr(100).isEmpty());
        CPPUNIT_ASSERT(s.substr(28) == std::string_view("/1.1"));
    }

    /// a view keeps its bytes alive after every other reference is gone
    void viewOutlivesOriginalReference()
    {
        Sbuf::BlockPool pool;
        Sbuf::SBuf tail;
        {
            const auto s = Sbuf::SBuf::Copy(pool, "Host: example.com");
            tail = s.substr(6);
        }
        CPPUNIT_ASSERT_EQUAL(std::string("example.com"), tail.toString());
        tail = Sbuf::SBuf();
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.stats().total.blocksInUse);
    }

    /// find, rfind and the find-of families work like std::string_view's
    void findLocatesBytes()
    {
        Sbuf::BlockPool pool;
        const auto s = Sbuf::SBuf::Copy(pool, "Name:  value\r\n");
        CPPUNIT_ASSERT_EQUAL(size_t(4), s.find(':'));
        CPPUNIT_ASSERT_EQUAL(size_t(12), s.find("\r\n"));
        CPPUNIT_ASSERT_EQUAL(size_t(7), s.findFirstNotOf(" ", 5));
        CPPUNIT_ASSERT_EQUAL(size_t(12), s.findFirstOf("\r\n"));
        CPPUNIT_ASSERT_EQUAL(size_t(5), s.rfind(' ', 5));
        CPPUNIT_ASSERT_EQUAL(Sbuf::SBuf::npos, s.find('z'));
    }

    /// comparison is byte-wise, shorter first on a common prefix
    void comparesByteWise()
    {
        Sbuf::BlockPool pool;
        const auto a = Sbuf::SBuf::Copy(pool, "abc");
        const auto b = Sbuf::SBuf::Copy(pool, "abd");
        const auto ab = Sbuf::SBuf::Copy(pool, "ab");
        CPPUNIT_ASSERT(a < b);
        CPPUNIT_ASSERT(ab < a);
        CPPUNIT_ASSERT(a == a.substr(0));
        CPPUNIT_ASSERT(a.substr(0, 2) == ab);
        CPPUNIT_ASSERT(a.compare("abc") == 0);
        CPPUNIT_ASSERT(a.compare("abb") > 0);
        CPPUNIT_ASSERT(a != b);
    }

    /// header names match regardless of ASCII case
    void caseInsensitiveMatches()
    {
        Sbuf::BlockPool pool;
        const auto s = Sbuf::SBuf::Copy(pool, "Content-Length");
        CPPUNIT_ASSERT(s.caseEquals("content-length"));
        CPPUNIT_ASSERT(!s.caseEquals("content-lengthx"));
        CPPUNIT_ASSERT(s.caseStartsWith("CONTENT-"));
        CPPUNIT_ASSERT(!s.caseStartsWith("Content-Lengthy"));
        CPPUNIT_ASSERT(s.startsWith("Content"));
        CPPUNIT_ASSERT(!s.startsWith("content"));
    }

    /// consume and truncate never run past the bytes
    void consumeAndTruncateClip()
    {
        Sbuf::BlockPool pool;
        auto s = Sbuf::SBuf::Copy(pool, "0123456789");
        s.consume(3);
        s.truncate(4);
        CPPUNIT_ASSERT(s == std::string_view("3456"));
        s.truncate(100);
        CPPUNIT_ASSERT_EQUAL(size_t(4), s.length());
        s.consume(100);
        CPPUNIT_ASSERT(s.isEmpty());
    }

    /// a view may cover only published bytes
    void viewOfUnpublishedBytesThrows()
    {
        Sbuf::BlockPool pool;
        auto blob = Sbuf::MemBlob::Make(pool, 256);
        blob->append("abc");
        CPPUNIT_ASSERT_THROW(Sbuf::SBuf(blob, 1, 3), TextException);
        CPPUNIT_ASSERT_NO_THROW(Sbuf::SBuf(blob, 1, 2));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestSBuf);
