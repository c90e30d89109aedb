/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/MethodNode.h"
#include "acl/tests/Helpers.h"

#include <cppunit/extensions/HelperMacros.h>

namespace {

bool MatchesMethod(const Acl::MethodNode& node, const std::string& method)
{
    return node.match(AclTest::Facts("127.0.0.1", method));
}

} // namespace

/// Acl::MethodNode: the method acl type.
class TestMethodNode : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestMethodNode);
    CPPUNIT_TEST(listedMethodsMatch);
    CPPUNIT_TEST(requestMethodsAreCaseSensitive);
    CPPUNIT_TEST(valuesAreReadAsSquidReadsThem);
    CPPUNIT_TEST(otherMarkerIsError);
    CPPUNIT_TEST(extensionMethodsWork);
    CPPUNIT_TEST_SUITE_END();

public:
    void listedMethodsMatch()
    {
        Acl::MethodNode n("m");
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(n.isEmpty());
        CPPUNIT_ASSERT(n.addValues({"GET", "HEAD"}, why, warnings));
        CPPUNIT_ASSERT(MatchesMethod(n, "GET"));
        CPPUNIT_ASSERT(MatchesMethod(n, "HEAD"));
        CPPUNIT_ASSERT(!MatchesMethod(n, "POST"));
        CPPUNIT_ASSERT(!MatchesMethod(n, ""));
    }

    void requestMethodsAreCaseSensitive()
    {
        Acl::MethodNode n("m");
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(n.addValues({"GET", "FOO"}, why, warnings));
        CPPUNIT_ASSERT(warnings.empty());
        CPPUNIT_ASSERT(!MatchesMethod(n, "get"));
        CPPUNIT_ASSERT(!MatchesMethod(n, "foo"));
        CPPUNIT_ASSERT(MatchesMethod(n, "FOO"));
    }

    void valuesAreReadAsSquidReadsThem()
    {
        // Squid 5.7 (relaxed_header_parser on) reads `get` as GET and `P`
        // as POST: `http_access deny m` then denies GET and POST requests.
        Acl::MethodNode n("m");
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(n.addValues({"get", "P", "propf"}, why, warnings));
        CPPUNIT_ASSERT(MatchesMethod(n, "GET"));
        CPPUNIT_ASSERT(MatchesMethod(n, "POST"));
        CPPUNIT_ASSERT(MatchesMethod(n, "PROPFIND"));
        CPPUNIT_ASSERT(!MatchesMethod(n, "get"));
        CPPUNIT_ASSERT(!MatchesMethod(n, "P"));
        CPPUNIT_ASSERT(!MatchesMethod(n, "PUT"));
        CPPUNIT_ASSERT_EQUAL(size_t(3), warnings.size());
        CPPUNIT_ASSERT(warnings[0].find("read as GET") != std::string::npos);
        CPPUNIT_ASSERT(warnings[1].find("beginning") != std::string::npos);
        // first in Squid's order wins; a longer word is not a prefix
        CPPUNIT_ASSERT_EQUAL(std::string("PUT"), Acl::MethodNode::Canonical("pu"));
        CPPUNIT_ASSERT_EQUAL(std::string("UNLINK"), Acl::MethodNode::Canonical("un"));
        CPPUNIT_ASSERT_EQUAL(std::string("GETX"), Acl::MethodNode::Canonical("GETX"));
        CPPUNIT_ASSERT_EQUAL(std::string("PATCH"), Acl::MethodNode::Canonical("PATCH"));
        CPPUNIT_ASSERT_EQUAL(std::string("patch"), Acl::MethodNode::Canonical("patch"));
    }

    void otherMarkerIsError()
    {
        Acl::MethodNode n("m");
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(!n.addValues({"other"}, why, warnings));
        CPPUNIT_ASSERT(why.find("OTHER") != std::string::npos);
    }

    void extensionMethodsWork()
    {
        Acl::MethodNode n("m");
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(n.addValues({"PURGE", "PROPFIND"}, why, warnings));
        CPPUNIT_ASSERT(MatchesMethod(n, "PURGE"));
        CPPUNIT_ASSERT(MatchesMethod(n, "PROPFIND"));
        CPPUNIT_ASSERT(!MatchesMethod(n, "PURG"));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestMethodNode);
