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
    CPPUNIT_TEST(namesAreCaseSensitive);
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

    void namesAreCaseSensitive()
    {
        Acl::MethodNode n("m");
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(n.addValues({"get"}, why, warnings));
        CPPUNIT_ASSERT(MatchesMethod(n, "get"));
        CPPUNIT_ASSERT(!MatchesMethod(n, "GET"));
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
