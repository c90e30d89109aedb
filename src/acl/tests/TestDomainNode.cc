/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/DomainNode.h"
#include "acl/tests/Helpers.h"

#include <cppunit/extensions/HelperMacros.h>

using namespace AclTest;

namespace {

bool HostMatches(const Acl::Registry& r, const std::string& host)
{
    return Matches(r, "d", Facts("10.0.0.1", "GET", host));
}

} // namespace

/// Acl::DomainNode: dstdomain, with Squid 5.7's overlap rules.
class TestDomainNode : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestDomainNode);
    CPPUNIT_TEST(nameMatchesThatHostOnly);
    CPPUNIT_TEST(leadingDotMatchesDomainAndSubdomains);
    CPPUNIT_TEST(caseIsIgnored);
    CPPUNIT_TEST(addressIsComparedAsWritten);
    CPPUNIT_TEST(subdomainAfterDomainIsDroppedWithWarning);
    CPPUNIT_TEST(domainAfterItsSubdomainIsError);
    CPPUNIT_TEST(nameAndDomainOfSameNameIsError);
    CPPUNIT_TEST(repeatedValueIsSilent);
    CPPUNIT_TEST(valuesFromFileAndNegation);
    CPPUNIT_TEST(largeListMatchesEveryEntry);
    CPPUNIT_TEST_SUITE_END();

public:
    void nameMatchesThatHostOnly()
    {
        Acl::Registry r;
        MustAcl(r, "d dstdomain www.example.com");
        CPPUNIT_ASSERT(HostMatches(r, "www.example.com"));
        CPPUNIT_ASSERT(!HostMatches(r, "example.com"));
        CPPUNIT_ASSERT(!HostMatches(r, "a.www.example.com"));
        CPPUNIT_ASSERT(!HostMatches(r, "wwwexample.com"));
    }

    void leadingDotMatchesDomainAndSubdomains()
    {
        Acl::Registry r;
        MustAcl(r, "d dstdomain .example.com .test");
        CPPUNIT_ASSERT(HostMatches(r, "example.com"));
        CPPUNIT_ASSERT(HostMatches(r, "www.example.com"));
        CPPUNIT_ASSERT(HostMatches(r, "a.b.example.com"));
        CPPUNIT_ASSERT(HostMatches(r, "anything.test"));
        CPPUNIT_ASSERT(!HostMatches(r, "badexample.com"));
        CPPUNIT_ASSERT(!HostMatches(r, "example.org"));
        CPPUNIT_ASSERT(!HostMatches(r, "com"));
        CPPUNIT_ASSERT(!HostMatches(r, ""));
    }

    void caseIsIgnored()
    {
        Acl::Registry r;
        MustAcl(r, "d dstdomain .Example.COM");
        CPPUNIT_ASSERT(HostMatches(r, "www.example.com"));
    }

    void addressIsComparedAsWritten()
    {
        Acl::Registry r;
        MustAcl(r, "d dstdomain -n 192.0.2.7");
        CPPUNIT_ASSERT(HostMatches(r, "192.0.2.7"));
        CPPUNIT_ASSERT(!HostMatches(r, "192.0.2.8"));
    }

    void subdomainAfterDomainIsDroppedWithWarning()
    {
        Acl::Registry r;
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "d dstdomain .example.com www.example.com .b.example.com", &why) ==
                       Acl::Registry::ParseOutcome::Ok);
        CPPUNIT_ASSERT_MESSAGE(why, why.find("'www.example.com' is a subdomain of '.example.com'") !=
                                        std::string::npos);
        CPPUNIT_ASSERT(why.find("'.b.example.com' is a subdomain") != std::string::npos);
        CPPUNIT_ASSERT(HostMatches(r, "mail.example.com")); // the wider value is kept
    }

    void domainAfterItsSubdomainIsError()
    {
        Acl::Registry r;
        CPPUNIT_ASSERT(AclError(r, "d dstdomain www.example.com .example.com").find("www.example.com") !=
                       std::string::npos);
        Acl::Registry r2;
        AclError(r2, "d dstdomain .b.example.com .example.com");
        // across lines too
        Acl::Registry r3;
        MustAcl(r3, "d dstdomain a.b.example.com");
        AclError(r3, "d dstdomain .example.com");
    }

    void nameAndDomainOfSameNameIsError()
    {
        Acl::Registry r;
        AclError(r, "d dstdomain example.com .example.com");
        Acl::Registry r2;
        AclError(r2, "d dstdomain .example.com example.com");
    }

    void repeatedValueIsSilent()
    {
        Acl::Registry r;
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "d dstdomain a.test A.TEST .b.test .b.test", &why) ==
                       Acl::Registry::ParseOutcome::Ok);
        CPPUNIT_ASSERT_EQUAL(std::string(), why);
    }

    void valuesFromFileAndNegation()
    {
        TempFile list("# blocked\n.ads.test\n\n  tracker.test  \nwhole line.test\n");
        Acl::Registry r;
        MustAcl(r, "d dstdomain " + list.quoted());
        CPPUNIT_ASSERT(HostMatches(r, "x.ads.test"));
        CPPUNIT_ASSERT(HostMatches(r, "tracker.test"));
        // Squid 5.7 takes the whole line as the value
        CPPUNIT_ASSERT(!HostMatches(r, "whole"));
        CPPUNIT_ASSERT(!HostMatches(r, "line.test"));
        Acl::AccessList list2;
        MustAccess(list2, r, "allow !d");
        CPPUNIT_ASSERT(list2.check(Facts("10.0.0.1", "GET", "ok.test")) == Acl::Answer::Allowed);
        CPPUNIT_ASSERT(list2.check(Facts("10.0.0.1", "GET", "x.ads.test")) == Acl::Answer::Denied);
    }

    void largeListMatchesEveryEntry()
    {
        // a block list's size: each entry is found, near misses are not
        Acl::DomainNode node("d", Acl::DomainNode::Side::Destination);
        std::vector<std::string> values;
        for (int i = 0; i < 100000; ++i)
            values.push_back((i % 2 ? "." : "") + std::string("site") + std::to_string(i) + ".test");
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(node.addValues(values, why, warnings));
        CPPUNIT_ASSERT(warnings.empty());
        for (int i = 0; i < 100000; i += 997) {
            const auto host = "site" + std::to_string(i) + ".test";
            CPPUNIT_ASSERT(node.matchesHost(host));
            CPPUNIT_ASSERT_EQUAL(i % 2 == 1, node.matchesHost("www." + host));
            CPPUNIT_ASSERT(!node.matchesHost("x" + host));
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestDomainNode);
