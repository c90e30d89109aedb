/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/MaxUserIpNode.h"
#include "acl/tests/Helpers.h"

#include <cppunit/extensions/HelperMacros.h>

#include <map>
#include <set>

using namespace AclTest;

namespace {

/// A user's addresses, never expiring.
class FakeAddresses : public Acl::UserAddresses {
public:
    size_t count(const std::string& user) override { return seen[user].size(); }
    void forget(const std::string& user, const std::string& address) override { seen[user].erase(address); }
    void forgetAll(const std::string& user) override { seen.erase(user); }
    std::map<std::string, std::set<std::string>> seen;
};

Acl::Checklist From(const std::string& src, FakeAddresses& addresses)
{
    auto f = Facts(src);
    f.auth = Acl::AuthState::Valid;
    f.user = "alice";
    f.userAddresses = &addresses;
    addresses.seen["alice"].insert(src); // the client side notes each request's address
    return f;
}

} // namespace

/// Acl::MaxUserIpNode: max_user_ip [-s] N.
class TestMaxUserIpNode : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestMaxUserIpNode);
    CPPUNIT_TEST(matchesPastTheLimitAndForgets);
    CPPUNIT_TEST(strictForgetsOnlyThisAddress);
    CPPUNIT_TEST(needsCredentials);
    CPPUNIT_TEST(badValues);
    CPPUNIT_TEST_SUITE_END();

public:
    void matchesPastTheLimitAndForgets()
    {
        Acl::Registry r;
        MustAcl(r, "m max_user_ip 1");
        FakeAddresses a;
        CPPUNIT_ASSERT(!Matches(r, "m", From("10.0.0.1", a)));
        CPPUNIT_ASSERT(Matches(r, "m", From("10.0.0.2", a)));
        CPPUNIT_ASSERT_EQUAL(size_t(0), a.count("alice")); // not strict: all forgotten
        CPPUNIT_ASSERT(!Matches(r, "m", From("10.0.0.2", a)));
    }

    void strictForgetsOnlyThisAddress()
    {
        Acl::Registry r;
        MustAcl(r, "m max_user_ip -s 1");
        FakeAddresses a;
        CPPUNIT_ASSERT(!Matches(r, "m", From("10.0.0.1", a)));
        CPPUNIT_ASSERT(Matches(r, "m", From("10.0.0.2", a)));
        CPPUNIT_ASSERT(a.seen["alice"] == std::set<std::string>{"10.0.0.1"});
        CPPUNIT_ASSERT(Matches(r, "m", From("10.0.0.2", a))); // still the other address's
    }

    void needsCredentials()
    {
        Acl::Registry r;
        MustAcl(r, "m max_user_ip 1");
        auto f = Facts("10.0.0.1");
        CPPUNIT_ASSERT(!Matches(r, "m", f));
        CPPUNIT_ASSERT(f.interruption == Acl::Answer::AuthRequired);
    }

    void badValues()
    {
        Acl::Registry r;
        AclError(r, "m max_user_ip x");
        AclError(r, "m2 max_user_ip 0");
        AclError(r, "m3 max_user_ip 1 2");
        MustAcl(r, "m4 max_user_ip 2");
        AclError(r, "m4 max_user_ip 3");
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestMaxUserIpNode);
