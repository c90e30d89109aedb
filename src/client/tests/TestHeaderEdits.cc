/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "client/Headers.h"

#include "acl/Registry.h"

#include <cppunit/extensions/HelperMacros.h>

/// Tests of Client::ApplyHeaderRules() (the header rules on a built head).
class TestHeaderEdits : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestHeaderEdits);
    CPPUNIT_TEST(noRulesLeaveTheHeadAsItIs);
    CPPUNIT_TEST(deniedFieldsGoOrAreReplacedInPlace);
    CPPUNIT_TEST(theHopsFramingIsNeverRemoved);
    CPPUNIT_TEST(aBodyAfterTheHeadStays);
    CPPUNIT_TEST(additionsComeLastWithTheirCodesFilledIn);
    CPPUNIT_TEST_SUITE_END();

    static const std::string& head()
    {
        static const std::string h =
            "GET /a HTTP/1.1\r\nHost: o.example\r\nCookie: c=1\r\nUser-Agent: UA/1\r\n"
            "X-Custom: v\r\nContent-Length: 3\r\nConnection: keep-alive\r\n\r\n";
        return h;
    }

    void access(const std::string& name, const std::string& action)
    {
        std::string why;
        CPPUNIT_ASSERT_MESSAGE(why, rules_.parseAccess({name, action, "all"}, acls_, why));
    }

    Acl::Registry acls_;
    Config::HeaderRules rules_;
    Acl::Checklist facts_;

public:
    void setUp() override
    {
        facts_.srcAddr = *Acl::Address::Parse("192.0.2.1"); // `all` matches it
    }

    void noRulesLeaveTheHeadAsItIs()
    {
        std::string h = head();
        Client::ApplyHeaderRules(h, rules_, facts_, Log::FormatFacts{});
        CPPUNIT_ASSERT_EQUAL(head(), h);
    }

    void deniedFieldsGoOrAreReplacedInPlace()
    {
        access("Cookie", "deny");
        access("User-Agent", "deny");
        rules_.setReplacement("User-Agent", "Nutscrape/1.0");
        access("Other", "deny");
        std::string h = head();
        Client::ApplyHeaderRules(h, rules_, facts_, Log::FormatFacts{});
        CPPUNIT_ASSERT_EQUAL(std::string("GET /a HTTP/1.1\r\nHost: o.example\r\nUser-Agent: Nutscrape/1.0\r\n"
                                         "Content-Length: 3\r\nConnection: keep-alive\r\n\r\n"),
                             h);
    }

    void theHopsFramingIsNeverRemoved()
    {
        access("All", "deny");
        std::string h = head();
        Client::ApplyHeaderRules(h, rules_, facts_, Log::FormatFacts{});
        CPPUNIT_ASSERT_EQUAL(
            std::string("GET /a HTTP/1.1\r\nContent-Length: 3\r\nConnection: keep-alive\r\n\r\n"), h);
        std::string reply = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nServer: x\r\n\r\n";
        Client::ApplyHeaderRules(reply, rules_, facts_, Log::FormatFacts{});
        CPPUNIT_ASSERT_EQUAL(std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"), reply);
    }

    void aBodyAfterTheHeadStays()
    {
        access("Server", "deny");
        std::string page = "HTTP/1.1 503 Service Unavailable\r\nServer: cuttle\r\nContent-Length: 9\r\n\r\n"
                           "<p>x</p>\n";
        Client::ApplyHeaderRules(page, rules_, facts_, Log::FormatFacts{});
        CPPUNIT_ASSERT_EQUAL(
            std::string("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 9\r\n\r\n<p>x</p>\n"), page);
        std::string cut = "HTTP/1.1 200 OK\r\nServer: x\r\n"; // no empty line: left alone
        Client::ApplyHeaderRules(cut, rules_, facts_, Log::FormatFacts{});
        CPPUNIT_ASSERT_EQUAL(std::string("HTTP/1.1 200 OK\r\nServer: x\r\n"), cut);
    }

    void additionsComeLastWithTheirCodesFilledIn()
    {
        std::string why;
        CPPUNIT_ASSERT(rules_.parseAddition({"X-Client", "\"%>a via %rm\""}, acls_, why));
        CPPUNIT_ASSERT(rules_.parseAddition({"Cookie", "again"}, acls_, why));
        access("Cookie", "deny"); // additions are not subject to the access rules
        Log::FormatFacts format;
        format.clientAddress = "192.0.2.9";
        format.method = "GET";
        std::string h = head();
        Client::ApplyHeaderRules(h, rules_, facts_, format);
        CPPUNIT_ASSERT_EQUAL(
            std::string("GET /a HTTP/1.1\r\nHost: o.example\r\nUser-Agent: UA/1\r\nX-Custom: v\r\n"
                        "Content-Length: 3\r\nConnection: keep-alive\r\n"
                        "X-Client: 192.0.2.9 via GET\r\nCookie: again\r\n\r\n"),
            h);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestHeaderEdits);
