/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/AccessList.h"
#include "acl/Registry.h"
#include "acl/tests/Helpers.h"

#include <cppunit/extensions/HelperMacros.h>

using Acl::Answer;
using AclTest::Facts;
using AclTest::MustAccess;
using AclTest::MustAcl;
using AclTest::ParseAcl;
using AclTest::Words;

namespace {

/// Debian 12's squid.conf acl and http_access lines (Squid's default policy).
const char* const DebianAcls[] = {
    "localnet src 0.0.0.1-0.255.255.255",
    "localnet src 10.0.0.0/8",
    "localnet src 100.64.0.0/10",
    "localnet src 169.254.0.0/16",
    "localnet src 172.16.0.0/12",
    "localnet src 192.168.0.0/16",
    "localnet src fc00::/7",
    "localnet src fe80::/10",
    "SSL_ports port 443",
    "Safe_ports port 80",
    "Safe_ports port 21",
    "Safe_ports port 443",
    "Safe_ports port 70",
    "Safe_ports port 210",
    "Safe_ports port 1025-65535",
    "Safe_ports port 280",
    "Safe_ports port 488",
    "Safe_ports port 591",
    "Safe_ports port 777",
};
const char* const DebianAccess[] = {
    "deny !Safe_ports", "deny CONNECT !SSL_ports", "allow localhost manager",
    "deny manager",     "allow localhost",         "deny all",
};

} // namespace

/// Acl::AccessList: http_access parsing, first match, the implicit last rule.
class TestAccessList : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestAccessList);
    CPPUNIT_TEST(noRulesDenies);
    CPPUNIT_TEST(firstMatchDecides);
    CPPUNIT_TEST(allAclsOfARuleMustMatch);
    CPPUNIT_TEST(negationInvertsOneAcl);
    CPPUNIT_TEST(implicitLastRuleAfterAllow);
    CPPUNIT_TEST(implicitLastRuleAfterDeny);
    CPPUNIT_TEST(missingActionIsError);
    CPPUNIT_TEST(unknownActionIsError);
    CPPUNIT_TEST(undefinedAclIsError);
    CPPUNIT_TEST(unsupportedAclIsRefused);
    CPPUNIT_TEST(unsupportedDstHostIsRefused);
    CPPUNIT_TEST(actionWithoutAclIsSkippedWithWarning);
    CPPUNIT_TEST(repeatedAclLinesAreOredInRules);
    CPPUNIT_TEST(debianDefaultPolicy);
    CPPUNIT_TEST(debianPolicyRejectsInvalidPort);
    CPPUNIT_TEST(needsDstAddressOnlyWithDstAcls);
    CPPUNIT_TEST(lastAclIsTheLastOneEvaluated);
    CPPUNIT_TEST_SUITE_END();

public:
    void noRulesDenies()
    {
        const Acl::AccessList list;
        CPPUNIT_ASSERT_EQUAL(size_t(0), list.size());
        CPPUNIT_ASSERT(list.check(Facts("127.0.0.1")) == Answer::Denied);
    }

    void firstMatchDecides()
    {
        Acl::Registry r;
        MustAcl(r, "a src 10.0.0.0/8");
        MustAcl(r, "b src 10.1.0.0/16");
        Acl::AccessList list;
        MustAccess(list, r, "deny b");
        MustAccess(list, r, "allow a");
        CPPUNIT_ASSERT(list.check(Facts("10.1.2.3")) == Answer::Denied);
        CPPUNIT_ASSERT(list.check(Facts("10.2.2.3")) == Answer::Allowed);
        Acl::AccessList reversed;
        MustAccess(reversed, r, "allow a");
        MustAccess(reversed, r, "deny b");
        CPPUNIT_ASSERT(reversed.check(Facts("10.1.2.3")) == Answer::Allowed);
    }

    void allAclsOfARuleMustMatch()
    {
        Acl::Registry r;
        MustAcl(r, "net src 10.0.0.0/8");
        MustAcl(r, "web port 80");
        Acl::AccessList list;
        MustAccess(list, r, "allow net web");
        CPPUNIT_ASSERT(list.check(Facts("10.0.0.1", "GET", "h", 80)) == Answer::Allowed);
        CPPUNIT_ASSERT(list.check(Facts("10.0.0.1", "GET", "h", 8080)) == Answer::Denied);
        CPPUNIT_ASSERT(list.check(Facts("11.0.0.1", "GET", "h", 80)) == Answer::Denied);
    }

    void negationInvertsOneAcl()
    {
        Acl::Registry r;
        MustAcl(r, "net src 10.0.0.0/8");
        Acl::AccessList list;
        MustAccess(list, r, "deny !net");
        MustAccess(list, r, "allow all");
        CPPUNIT_ASSERT(list.check(Facts("10.0.0.1")) == Answer::Allowed);
        CPPUNIT_ASSERT(list.check(Facts("11.0.0.1")) == Answer::Denied);
        // negating an empty acl matches everything
        MustAcl(r, "nobody src");
        Acl::AccessList empty;
        MustAccess(empty, r, "allow !nobody");
        CPPUNIT_ASSERT(empty.check(Facts("192.0.2.1")) == Answer::Allowed);
    }

    /// what deny_info looks up: the last acl evaluated, matched or not (Squid's AclMatchedName)
    void lastAclIsTheLastOneEvaluated()
    {
        Acl::Registry r;
        MustAcl(r, "net src 10.0.0.0/8");
        MustAcl(r, "bad src 10.0.0.66");
        MustAcl(r, "other src 192.0.2.0/24");
        Acl::AccessList list;
        MustAccess(list, r, "deny net bad");
        MustAccess(list, r, "deny !net other");
        MustAccess(list, r, "allow localhost");
        const auto a = Facts("10.0.0.66");
        CPPUNIT_ASSERT(list.check(a) == Answer::Denied);
        CPPUNIT_ASSERT_EQUAL(std::string("bad"), std::string(a.lastAcl));
        const auto b = Facts("192.0.2.1");
        CPPUNIT_ASSERT(list.check(b) == Answer::Denied);
        CPPUNIT_ASSERT_EQUAL(std::string("other"),
                             std::string(b.lastAcl)); // a negated one counts by its name
        // no rule matched: the last acl of the last rule, as Squid
        const auto c = Facts("198.51.100.1");
        CPPUNIT_ASSERT(list.check(c) == Answer::Denied);
        CPPUNIT_ASSERT_EQUAL(std::string("localhost"), std::string(c.lastAcl));
        Acl::AccessList empty;
        CPPUNIT_ASSERT(empty.check(c) == Answer::Denied);
        CPPUNIT_ASSERT(c.lastAcl.empty());
    }

    void implicitLastRuleAfterAllow()
    {
        Acl::Registry r;
        MustAcl(r, "net src 10.0.0.0/8");
        Acl::AccessList list;
        MustAccess(list, r, "allow net");
        CPPUNIT_ASSERT(list.check(Facts("10.0.0.1")) == Answer::Allowed);
        CPPUNIT_ASSERT(list.check(Facts("192.0.2.1")) == Answer::Denied);
    }

    void implicitLastRuleAfterDeny()
    {
        Acl::Registry r;
        MustAcl(r, "bad src 192.0.2.0/24");
        Acl::AccessList list;
        MustAccess(list, r, "deny bad");
        CPPUNIT_ASSERT(list.check(Facts("192.0.2.1")) == Answer::Denied);
        CPPUNIT_ASSERT(list.check(Facts("198.51.100.1")) == Answer::Allowed);
        // The last rule decides the default, not the first one.
        Acl::AccessList mixed;
        MustAccess(mixed, r, "allow localhost");
        MustAccess(mixed, r, "deny bad");
        CPPUNIT_ASSERT(mixed.check(Facts("198.51.100.1")) == Answer::Allowed);
    }

    void missingActionIsError()
    {
        const Acl::Registry r;
        Acl::AccessList list;
        std::string why;
        CPPUNIT_ASSERT(!list.parse({}, r, why));
        CPPUNIT_ASSERT(why.find("allow") != std::string::npos);
        CPPUNIT_ASSERT_EQUAL(size_t(0), list.size());
    }

    void unknownActionIsError()
    {
        const Acl::Registry r;
        Acl::AccessList list;
        std::string why;
        CPPUNIT_ASSERT(!list.parse(Words("permit all"), r, why));
        CPPUNIT_ASSERT(why.find("permit") != std::string::npos);
        CPPUNIT_ASSERT(!list.parse(Words("Allow all"), r, why)); // case-sensitive, as in Squid
        CPPUNIT_ASSERT_EQUAL(size_t(0), list.size());
    }

    void undefinedAclIsError()
    {
        const Acl::Registry r;
        Acl::AccessList list;
        std::string why;
        CPPUNIT_ASSERT(!list.parse(Words("allow localhost nosuch"), r, why));
        CPPUNIT_ASSERT(why.find("nosuch") != std::string::npos);
        CPPUNIT_ASSERT(!list.parse(Words("deny ! all"), r, why)); // "!" alone names no acl
        CPPUNIT_ASSERT(!list.parse(Words("deny !!all"), r, why));
        CPPUNIT_ASSERT_EQUAL(size_t(0), list.size());
    }

    void unsupportedAclIsRefused()
    {
        Acl::Registry r;
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "blocked ident .example.com") == Acl::Registry::ParseOutcome::Unsupported);
        Acl::AccessList list;
        CPPUNIT_ASSERT(!list.parse(Words("deny blocked"), r, why));
        CPPUNIT_ASSERT(why.find("blocked") != std::string::npos);
        CPPUNIT_ASSERT(why.find("ident") != std::string::npos);
        CPPUNIT_ASSERT(why.find("refusing the rule") != std::string::npos);
        CPPUNIT_ASSERT(!list.parse(Words("allow localhost !blocked"), r, why));
        CPPUNIT_ASSERT_EQUAL(size_t(0), list.size());
    }

    void unsupportedDstHostIsRefused()
    {
        Acl::Registry r;
        CPPUNIT_ASSERT(ParseAcl(r, "origin dst www.example.com") == Acl::Registry::ParseOutcome::Unsupported);
        Acl::AccessList list;
        std::string why;
        CPPUNIT_ASSERT(!list.parse(Words("deny origin"), r, why));
        CPPUNIT_ASSERT(why.find("www.example.com") != std::string::npos);
    }

    void actionWithoutAclIsSkippedWithWarning()
    {
        // Squid 5.7: "Access line contains no ACL's, skipping".
        const Acl::Registry r;
        Acl::AccessList list;
        std::string why;
        CPPUNIT_ASSERT(list.parse(Words("allow"), r, why));
        CPPUNIT_ASSERT(!why.empty());
        CPPUNIT_ASSERT_EQUAL(size_t(0), list.size());
        CPPUNIT_ASSERT(list.check(Facts("127.0.0.1")) == Answer::Denied);
        MustAccess(list, r, "deny localhost");
        CPPUNIT_ASSERT(list.parse(Words("allow"), r, why));
        // the skipped line does not become the last rule
        CPPUNIT_ASSERT(list.check(Facts("192.0.2.1")) == Answer::Allowed);
    }

    void repeatedAclLinesAreOredInRules()
    {
        Acl::Registry r;
        MustAcl(r, "lan src 10.0.0.0/8");
        MustAcl(r, "lan src 2001:db8::/32");
        Acl::AccessList list;
        MustAccess(list, r, "allow lan");
        CPPUNIT_ASSERT(list.check(Facts("10.9.9.9")) == Answer::Allowed);
        CPPUNIT_ASSERT(list.check(Facts("2001:db8::5")) == Answer::Allowed);
        CPPUNIT_ASSERT(list.check(Facts("2001:db9::5")) == Answer::Denied);
    }

    void debianDefaultPolicy()
    {
        Acl::Registry r;
        for (const auto* line : DebianAcls)
            MustAcl(r, line);
        Acl::AccessList list;
        for (const auto* line : DebianAccess)
            MustAccess(list, r, line);

        // localhost allowed, over IPv4, IPv6 and IPv4-mapped IPv6
        CPPUNIT_ASSERT(list.check(Facts("127.0.0.1", "GET", "192.0.2.1", 80)) == Answer::Allowed);
        CPPUNIT_ASSERT(list.check(Facts("::1", "GET", "192.0.2.1", 80)) == Answer::Allowed);
        CPPUNIT_ASSERT(list.check(Facts("::ffff:127.0.0.1", "GET", "192.0.2.1", 80)) == Answer::Allowed);
        // other clients denied, LAN ones included (Debian does not allow localnet)
        CPPUNIT_ASSERT(list.check(Facts("192.0.2.9", "GET", "192.0.2.1", 80)) == Answer::Denied);
        CPPUNIT_ASSERT(list.check(Facts("10.0.0.1", "GET", "192.0.2.1", 80)) == Answer::Denied);
        CPPUNIT_ASSERT(list.check(Facts("127.0.0.2", "GET", "192.0.2.1", 80)) == Answer::Denied);
        // CONNECT: 443 allowed from localhost, 22 denied (not a Safe port), 8443 denied (not SSL)
        CPPUNIT_ASSERT(list.check(Facts("127.0.0.1", "CONNECT", "192.0.2.1", 443)) == Answer::Allowed);
        CPPUNIT_ASSERT(list.check(Facts("127.0.0.1", "CONNECT", "192.0.2.1", 22)) == Answer::Denied);
        CPPUNIT_ASSERT(list.check(Facts("127.0.0.1", "CONNECT", "192.0.2.1", 8443)) == Answer::Denied);
        CPPUNIT_ASSERT(list.check(Facts("192.0.2.9", "CONNECT", "192.0.2.1", 443)) == Answer::Denied);
        // unsafe port for plain requests too; safe high ports fine
        CPPUNIT_ASSERT(list.check(Facts("127.0.0.1", "GET", "192.0.2.1", 25)) == Answer::Denied);
        CPPUNIT_ASSERT(list.check(Facts("127.0.0.1", "GET", "192.0.2.1", 8080)) == Answer::Allowed);
        // manager: from localhost allowed, from elsewhere denied
        CPPUNIT_ASSERT(list.check(Facts("127.0.0.1", "GET", "127.0.0.1", 3128, "cache_object", "/info")) ==
                       Answer::Allowed);
        CPPUNIT_ASSERT(list.check(Facts("::1", "GET", "127.0.0.1", 3128, "http",
                                        "/squid-internal-mgr/menu")) == Answer::Allowed);
        CPPUNIT_ASSERT(list.check(Facts("192.0.2.9", "GET", "127.0.0.1", 3128, "http",
                                        "/squid-internal-mgr/menu")) == Answer::Denied);
    }

    void debianPolicyRejectsInvalidPort()
    {
        Acl::Registry r;
        for (const auto* line : DebianAcls)
            MustAcl(r, line);
        std::string why;
        CPPUNIT_ASSERT(ParseAcl(r, "Safe_ports port 70000", &why) == Acl::Registry::ParseOutcome::Error);
        CPPUNIT_ASSERT(why.find("70000") != std::string::npos);
        CPPUNIT_ASSERT(ParseAcl(r, "Safe_ports port 1025-65536", &why) == Acl::Registry::ParseOutcome::Error);
    }

    void needsDstAddressOnlyWithDstAcls()
    {
        Acl::Registry r;
        Acl::AccessList list;
        MustAccess(list, r, "allow localhost");
        CPPUNIT_ASSERT(!list.needsDstAddress());
        MustAccess(list, r, "deny !to_localhost");
        CPPUNIT_ASSERT(list.needsDstAddress());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestAccessList);
