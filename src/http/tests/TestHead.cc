/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/Head.h"
#include "http/ReplyParser.h"

#include <cppunit/extensions/HelperMacros.h>

#include <string>

/// Tests of the head line serializer (http/Head.h).
class TestHead : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestHead);
    CPPUNIT_TEST(statusLineTakesTheReasonGivenOrTheKnownOne);
    CPPUNIT_TEST(aHeadParsesBack);
    CPPUNIT_TEST_SUITE_END();

public:
    void statusLineTakesTheReasonGivenOrTheKnownOne()
    {
        std::string out;
        Http::AppendStatusLine(out, 404);
        CPPUNIT_ASSERT_EQUAL(std::string("HTTP/1.1 404 Not Found\r\n"), out);
        out.clear();
        Http::AppendStatusLine(out, 200, "Fine");
        CPPUNIT_ASSERT_EQUAL(std::string("HTTP/1.1 200 Fine\r\n"), out);
        out.clear();
        Http::AppendStatusLine(out, 599);
        CPPUNIT_ASSERT_EQUAL(std::string("HTTP/1.1 599 Server Error\r\n"), out); // its class's phrase
    }

    void aHeadParsesBack()
    {
        std::string out;
        Http::AppendStatusLine(out, 503);
        Http::AppendField(out, "Content-Length", "0");
        Http::AppendField(out, "X-Cache", "MISS from proxy");
        Http::EndHead(out);
        CPPUNIT_ASSERT_EQUAL(
            std::string(
                "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nX-Cache: MISS from proxy\r\n\r\n"),
            out);
        Http::ReplyParser parser(64 * 1024);
        CPPUNIT_ASSERT(parser.parse(out) == Http::ParseResult::Done);
        CPPUNIT_ASSERT_EQUAL(503, parser.statusCode());
        CPPUNIT_ASSERT_EQUAL(out.size(), parser.headSize());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestHead);
