/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/GroupNode.h"
#include "acl/NumberNode.h"
#include "acl/tests/Helpers.h"

#include <cppunit/extensions/HelperMacros.h>

using namespace AclTest;

/// Acl::GroupNode (any-of, all-of) and the one-number acls: http_status,
/// random, maxconn.
class TestGroupNode : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestGroupNode);
    CPPUNIT_TEST(anyOfLinesAreOred);
    CPPUNIT_TEST(allOfNeedsEveryAclOfALine);
    CPPUNIT_TEST(groupNamesMustBeDefinedAndSupported);
    CPPUNIT_TEST(httpStatusRanges);
    CPPUNIT_TEST(randomProbabilities);
    CPPUNIT_TEST(maxconnCountsTheClientsConnections);
    CPPUNIT_TEST_SUITE_END();

public:
    void anyOfLinesAreOred()
    {
        Acl::Registry r;
        MustAcl(r, "a src 10.0.0.1");
        MustAcl(r, "b src 10.0.0.2");
        MustAcl(r, "c src 10.0.0.3");
        MustAcl(r, "g any-of a b");
        MustAcl(r, "g any-of c");
        CPPUNIT_ASSERT(Matches(r, "g", Facts("10.0.0.2")));
        CPPUNIT_ASSERT(Matches(r, "g", Facts("10.0.0.3")));
        CPPUNIT_ASSERT(!Matches(r, "g", Facts("10.0.0.4")));
    }

    void allOfNeedsEveryAclOfALine()
    {
        Acl::Registry r;
        MustAcl(r, "lan src 10.0.0.0/8");
        MustAcl(r, "get method GET");
        MustAcl(r, "post method POST");
        MustAcl(r, "g all-of lan get");
        MustAcl(r, "g all-of post");
        CPPUNIT_ASSERT(Matches(r, "g", Facts("10.0.0.2", "GET")));
        CPPUNIT_ASSERT(!Matches(r, "g", Facts("192.0.2.1", "GET")));
        CPPUNIT_ASSERT(Matches(r, "g", Facts("192.0.2.1", "POST"))); // the second line
        CPPUNIT_ASSERT(!Matches(r, "g", Facts("10.0.0.2", "PUT")));
    }

    void groupNamesMustBeDefinedAndSupported()
    {
        Acl::Registry r;
        CPPUNIT_ASSERT(AclError(r, "g any-of nosuch").find("nosuch is not defined") != std::string::npos);
        AclError(r, "g any-of g");
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "rev ident .example.com", &why) ==
                       Acl::Registry::ParseOutcome::Unsupported);
        CPPUNIT_ASSERT(ParseAcl(r, "g2 any-of localhost rev", &why) ==
                       Acl::Registry::ParseOutcome::Unsupported);
        Acl::AccessList list;
        CPPUNIT_ASSERT(!list.parse(Words("deny g2"), r, why));
    }

    void httpStatusRanges()
    {
        Acl::Registry r;
        MustAcl(r, "s http_status 200 301-303 500-");
        auto f = Facts("10.0.0.1");
        CPPUNIT_ASSERT(!Matches(r, "s", f)); // no reply yet
        for (const auto& [status, expected] : std::vector<std::pair<int, bool>>{
                 {200, true}, {201, false}, {302, true}, {304, false}, {599, true}}) {
            f.replyStatus = status;
            CPPUNIT_ASSERT_EQUAL_MESSAGE(std::to_string(status), expected, Matches(r, "s", f));
        }
        AclError(r, "s http_status 20x");
        AclError(r, "s http_status 404-400");
        AclError(r, "s http_status 1000");
    }

    void randomProbabilities()
    {
        for (const char* value : {"0.25", "1/4", "1:3"}) {
            Acl::RandomNode n("r");
            std::string why;
            std::vector<std::string> warnings;
            CPPUNIT_ASSERT_MESSAGE(value, n.addValues({value}, why, warnings));
            CPPUNIT_ASSERT_DOUBLES_EQUAL(0.25, n.probability(), 1e-9);
        }
        Acl::Registry r;
        MustAcl(r, "never random 0");
        MustAcl(r, "always random 1/1");
        int hits = 0;
        for (int i = 0; i < 200; ++i) {
            CPPUNIT_ASSERT(!Matches(r, "never", Facts("10.0.0.1")));
            hits += Matches(r, "always", Facts("10.0.0.1"));
        }
        CPPUNIT_ASSERT_EQUAL(200, hits);
        AclError(r, "bad random 1.5");
        AclError(r, "bad random x");
        AclError(r, "bad random 1:0:2");
        AclError(r, "two random 0.1 0.2");
    }

    void maxconnCountsTheClientsConnections()
    {
        Acl::Registry r;
        MustAcl(r, "m maxconn 2");
        auto f = Facts("10.0.0.1");
        f.clientConnections = 2;
        CPPUNIT_ASSERT(!Matches(r, "m", f));
        f.clientConnections = 3;
        CPPUNIT_ASSERT(Matches(r, "m", f));
        AclError(r, "n maxconn -1");
        AclError(r, "n maxconn 0");
        AclError(r, "n maxconn 1 2");
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestGroupNode);
