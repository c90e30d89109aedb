/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/PortNode.h"
#include "acl/tests/Helpers.h"

#include <cppunit/extensions/HelperMacros.h>

namespace {

bool Parses(Acl::PortNode& node, const std::vector<std::string>& values)
{
    std::string why;
    std::vector<std::string> warnings;
    const bool ok = node.addValues(values, why, warnings);
    CPPUNIT_ASSERT(ok || !why.empty());
    return ok;
}

bool MatchesPort(const Acl::PortNode& node, uint16_t port)
{
    return node.match(AclTest::Facts("127.0.0.1", "GET", "192.0.2.1", port));
}

} // namespace

/// Acl::PortNode: the port acl type.
class TestPortNode : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestPortNode);
    CPPUNIT_TEST(singlePortsMatchExactly);
    CPPUNIT_TEST(rangeBoundariesAreInclusive);
    CPPUNIT_TEST(extremesAreValid);
    CPPUNIT_TEST(outOfRangeIsRejected);
    CPPUNIT_TEST(malformedIsRejected);
    CPPUNIT_TEST(valuesAccumulate);
    CPPUNIT_TEST_SUITE_END();

public:
    void singlePortsMatchExactly()
    {
        Acl::PortNode n("p");
        CPPUNIT_ASSERT(Parses(n, {"80", "443"}));
        CPPUNIT_ASSERT(MatchesPort(n, 80));
        CPPUNIT_ASSERT(MatchesPort(n, 443));
        CPPUNIT_ASSERT(!MatchesPort(n, 81));
        CPPUNIT_ASSERT(!MatchesPort(n, 442));
    }

    void rangeBoundariesAreInclusive()
    {
        Acl::PortNode n("p");
        CPPUNIT_ASSERT(Parses(n, {"1025-65535"}));
        CPPUNIT_ASSERT(!MatchesPort(n, 1024));
        CPPUNIT_ASSERT(MatchesPort(n, 1025));
        CPPUNIT_ASSERT(MatchesPort(n, 65535));
        CPPUNIT_ASSERT(!MatchesPort(n, 22));
    }

    void extremesAreValid()
    {
        Acl::PortNode n("p");
        CPPUNIT_ASSERT(Parses(n, {"0", "65535", "7-7"}));
        CPPUNIT_ASSERT(MatchesPort(n, 0));
        CPPUNIT_ASSERT(MatchesPort(n, 7));
        CPPUNIT_ASSERT(!MatchesPort(n, 8));
    }

    void outOfRangeIsRejected()
    {
        for (const char* v : {"65536", "70000", "1025-65536", "99999999999999999999"}) {
            Acl::PortNode n("p");
            CPPUNIT_ASSERT_MESSAGE(v, !Parses(n, {v}));
        }
    }

    void malformedIsRejected()
    {
        for (const char* v : {"80x", "x80", "1-", "-5", "10-5", "1-2-3", "", " 80", "+80", "0x50"}) {
            Acl::PortNode n("p");
            CPPUNIT_ASSERT_MESSAGE(v, !Parses(n, {v}));
        }
    }

    void valuesAccumulate()
    {
        Acl::PortNode n("p");
        CPPUNIT_ASSERT(n.isEmpty());
        CPPUNIT_ASSERT(Parses(n, {"80"}));
        CPPUNIT_ASSERT(Parses(n, {"21"}));
        CPPUNIT_ASSERT_EQUAL(size_t(2), n.ranges().size());
        CPPUNIT_ASSERT(MatchesPort(n, 21) && MatchesPort(n, 80));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestPortNode);
