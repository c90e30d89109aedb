/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/ManagerNode.h"
#include "acl/tests/Helpers.h"

#include <cppunit/extensions/HelperMacros.h>

namespace {

bool MatchesUrl(const Acl::ManagerNode& node, const std::string& scheme, const std::string& path)
{
    return node.match(AclTest::Facts("127.0.0.1", "GET", "proxy.example", 3128, scheme, path));
}

} // namespace

/// Acl::ManagerNode: the predefined manager acl.
class TestManagerNode : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestManagerNode);
    CPPUNIT_TEST(cacheObjectSchemeMatchesInAnyCase);
    CPPUNIT_TEST(internalManagerPathMatches);
    CPPUNIT_TEST(ordinaryUrlsDoNotMatch);
    CPPUNIT_TEST(repeatingSquidPatternsKeepsItSupported);
    CPPUNIT_TEST(otherPatternMakesItUnsupported);
    CPPUNIT_TEST_SUITE_END();

public:
    void cacheObjectSchemeMatchesInAnyCase()
    {
        const Acl::ManagerNode n;
        CPPUNIT_ASSERT(MatchesUrl(n, "cache_object", "/info"));
        CPPUNIT_ASSERT(MatchesUrl(n, "CACHE_OBJECT", "/"));
    }

    void internalManagerPathMatches()
    {
        const Acl::ManagerNode n;
        CPPUNIT_ASSERT(MatchesUrl(n, "http", "/squid-internal-mgr/info"));
        CPPUNIT_ASSERT(MatchesUrl(n, "https", "/squid-internal-mgr/menu"));
    }

    void ordinaryUrlsDoNotMatch()
    {
        const Acl::ManagerNode n;
        CPPUNIT_ASSERT(!MatchesUrl(n, "http", "/"));
        CPPUNIT_ASSERT(!MatchesUrl(n, "http", "/x/squid-internal-mgr/info"));
        CPPUNIT_ASSERT(!MatchesUrl(n, "http", "/squid-internal-mgr"));      // Squid's regex needs the slash
        CPPUNIT_ASSERT(!MatchesUrl(n, "http", "/SQUID-INTERNAL-MGR/info")); // +i: case-sensitive
        CPPUNIT_ASSERT(!MatchesUrl(n, "ftp", "/squid-internal-mgr/info"));
        CPPUNIT_ASSERT(!MatchesUrl(n, "", ""));
    }

    void repeatingSquidPatternsKeepsItSupported()
    {
        Acl::ManagerNode n;
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(
            n.addValues({"^cache_object://", "+i", "^https?://[^/]+/squid-internal-mgr/"}, why, warnings));
        CPPUNIT_ASSERT(n.isSupported());
        CPPUNIT_ASSERT_EQUAL(size_t(2), warnings.size());
    }

    void otherPatternMakesItUnsupported()
    {
        Acl::ManagerNode n;
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(n.addValues({"^http://mgr\\.example/"}, why, warnings));
        CPPUNIT_ASSERT(!n.isSupported());
        CPPUNIT_ASSERT(n.unsupportedReason().find("url_regex") != std::string::npos);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestManagerNode);
