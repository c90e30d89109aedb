/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "config/HeaderRules.h"

#include "acl/tests/Helpers.h"

#include <cppunit/extensions/HelperMacros.h>

/// Tests of Config::HeaderRules (the *_header_access, _replace and _add rules).
class TestHeaderRules : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestHeaderRules);
    CPPUNIT_TEST(noRulesKeepEverything);
    CPPUNIT_TEST(aNamesOwnGroupComesBeforeOtherAndAll);
    CPPUNIT_TEST(otherCoversOnlyNamesSquidDoesNotKnow);
    CPPUNIT_TEST(groupNamesIgnoreCaseButAllAndOtherDoNot);
    CPPUNIT_TEST(noMatchingRuleIsTheOppositeOfTheLast);
    CPPUNIT_TEST(aDeniedFieldGetsItsGroupsReplacement);
    CPPUNIT_TEST(aRuleWithoutAclsIsSkipped);
    CPPUNIT_TEST(badAccessLinesAreRefused);
    CPPUNIT_TEST(additionsKeepTheirOrderAndAcls);
    CPPUNIT_TEST(badAdditionsAreRefused);
    CPPUNIT_TEST_SUITE_END();

    void access(const std::string& line)
    {
        std::string why;
        CPPUNIT_ASSERT_MESSAGE(line + ": " + why, rules_.parseAccess(AclTest::Words(line), acls_, why));
    }

    Config::HeaderRules::Verdict verdict(std::string_view name, const std::string** replacement = nullptr)
    {
        const std::string* r = nullptr;
        const auto v = rules_.check(name, facts_, r);
        if (replacement)
            *replacement = r;
        return v;
    }

    Acl::Registry acls_;
    Config::HeaderRules rules_;
    Acl::Checklist facts_;

public:
    void setUp() override
    {
        acls_ = Acl::Registry();
        rules_ = Config::HeaderRules();
        facts_ = AclTest::Facts("192.0.2.1"); // a GET from an address `all` matches
        AclTest::MustAcl(acls_, "posts method POST");
    }

    void noRulesKeepEverything()
    {
        CPPUNIT_ASSERT(rules_.isEmpty());
        CPPUNIT_ASSERT(!rules_.hasAccessRules());
        CPPUNIT_ASSERT(verdict("Cookie") == Config::HeaderRules::Verdict::Keep);
    }

    void aNamesOwnGroupComesBeforeOtherAndAll()
    {
        access("All deny all");
        access("Other deny all");
        access("Cookie allow all");
        access("X-Mine allow all");
        CPPUNIT_ASSERT(!rules_.isEmpty());
        CPPUNIT_ASSERT(verdict("Cookie") == Config::HeaderRules::Verdict::Keep);
        CPPUNIT_ASSERT(verdict("x-mine") == Config::HeaderRules::Verdict::Keep);
        CPPUNIT_ASSERT(verdict("Referer") == Config::HeaderRules::Verdict::Remove);
        CPPUNIT_ASSERT(verdict("X-Other") == Config::HeaderRules::Verdict::Remove);
    }

    void otherCoversOnlyNamesSquidDoesNotKnow()
    {
        access("Other deny all");
        CPPUNIT_ASSERT(verdict("X-Custom") == Config::HeaderRules::Verdict::Remove);
        CPPUNIT_ASSERT(verdict("DNT") == Config::HeaderRules::Verdict::Remove);
        for (const char* known : {"Accept", "cookie", "X-Forwarded-For", "Surrogate-Capability", "CDN-Loop"})
            CPPUNIT_ASSERT_MESSAGE(known, verdict(known) == Config::HeaderRules::Verdict::Keep);
        CPPUNIT_ASSERT(Config::IsSquidKnownHeader("user-agent"));
        CPPUNIT_ASSERT(!Config::IsSquidKnownHeader("User-Agents"));
    }

    void groupNamesIgnoreCaseButAllAndOtherDoNot()
    {
        access("cookie deny all");
        access("COOKIE allow all"); // the same group: its second rule never decides
        access("all deny all");     // a custom header named "all", as in Squid
        CPPUNIT_ASSERT(verdict("Cookie") == Config::HeaderRules::Verdict::Remove);
        CPPUNIT_ASSERT(verdict("Referer") == Config::HeaderRules::Verdict::Keep);
        CPPUNIT_ASSERT(verdict("ALL") == Config::HeaderRules::Verdict::Remove);
    }

    void noMatchingRuleIsTheOppositeOfTheLast()
    {
        access("Referer allow posts");
        access("Cookie deny posts");
        CPPUNIT_ASSERT(verdict("Referer") == Config::HeaderRules::Verdict::Remove);
        CPPUNIT_ASSERT(verdict("Cookie") == Config::HeaderRules::Verdict::Keep);
        facts_.method = "POST";
        CPPUNIT_ASSERT(verdict("Referer") == Config::HeaderRules::Verdict::Keep);
        CPPUNIT_ASSERT(verdict("Cookie") == Config::HeaderRules::Verdict::Remove);
    }

    void aDeniedFieldGetsItsGroupsReplacement()
    {
        rules_.setReplacement("User-Agent", "first");
        access("user-agent deny all");
        rules_.setReplacement("USER-AGENT", "Nutscrape/1.0 (CP/M; 8-bit)");
        rules_.setReplacement("From", "nobody"); // no rules for From: never used
        access("All allow posts");
        rules_.setReplacement("All", "gone");
        const std::string* r = nullptr;
        CPPUNIT_ASSERT(verdict("User-Agent", &r) == Config::HeaderRules::Verdict::Replace);
        CPPUNIT_ASSERT_EQUAL(std::string("Nutscrape/1.0 (CP/M; 8-bit)"), *r);
        CPPUNIT_ASSERT(verdict("Referer", &r) == Config::HeaderRules::Verdict::Replace);
        CPPUNIT_ASSERT_EQUAL(std::string("gone"), *r);
        facts_.method = "POST";
        CPPUNIT_ASSERT(verdict("From") == Config::HeaderRules::Verdict::Keep);
    }

    void aRuleWithoutAclsIsSkipped()
    {
        std::string why;
        CPPUNIT_ASSERT(rules_.parseAccess(AclTest::Words("Cookie deny"), acls_, why));
        CPPUNIT_ASSERT(!why.empty());
        CPPUNIT_ASSERT(!rules_.hasAccessRules());
        CPPUNIT_ASSERT(verdict("Cookie") == Config::HeaderRules::Verdict::Keep);
    }

    void badAccessLinesAreRefused()
    {
        for (const char* bad : {"", "Cookie", "Cookie maybe all", "Cookie deny undefinedAcl"}) {
            std::string why;
            CPPUNIT_ASSERT_MESSAGE(bad, !rules_.parseAccess(AclTest::Words(bad), acls_, why));
            CPPUNIT_ASSERT_MESSAGE(bad, !why.empty());
        }
        CPPUNIT_ASSERT(!rules_.hasAccessRules());
    }

    void additionsKeepTheirOrderAndAcls()
    {
        std::string why;
        CPPUNIT_ASSERT(rules_.parseAddition({"X-A", "\"%rm by %>a\""}, acls_, why));
        CPPUNIT_ASSERT(rules_.parseAddition({"X-B", "tok%>a", "posts"}, acls_, why));
        CPPUNIT_ASSERT(rules_.isEmpty() == false);
        CPPUNIT_ASSERT(!rules_.hasAccessRules());
        const auto& a = rules_.additions();
        CPPUNIT_ASSERT_EQUAL(size_t(2), a.size());
        Log::FormatFacts format;
        format.method = "GET";
        format.clientAddress = "192.0.2.1";
        CPPUNIT_ASSERT_EQUAL(std::string("X-A"), a[0].name);
        CPPUNIT_ASSERT_EQUAL(std::string("GET by 192.0.2.1"), a[0].value.expand(format));
        CPPUNIT_ASSERT_EQUAL(size_t(0), a[0].acls.size());
        CPPUNIT_ASSERT_EQUAL(std::string("tok%>a"), a[1].value.expand(format)); // a token is literal
        CPPUNIT_ASSERT(a[1].acls.check(facts_) != Acl::Answer::Allowed);
        facts_.method = "POST";
        CPPUNIT_ASSERT(a[1].acls.check(facts_) == Acl::Answer::Allowed);
    }

    void badAdditionsAreRefused()
    {
        const std::vector<std::vector<std::string>> bad = {
            {}, {"X-A"}, {"X-A", "\"%zz\""}, {"X-A", "v", "undefinedAcl"}, {"X:A", "v"}};
        for (const auto& line : bad) {
            std::string why;
            CPPUNIT_ASSERT(!rules_.parseAddition(line, acls_, why));
            CPPUNIT_ASSERT(!why.empty());
        }
        CPPUNIT_ASSERT(rules_.isEmpty());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestHeaderRules);
