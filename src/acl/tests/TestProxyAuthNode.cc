/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/ProxyAuthNode.h"
#include "acl/tests/Helpers.h"

#include <cppunit/extensions/HelperMacros.h>

using namespace AclTest;

namespace {

Acl::Checklist As(Acl::AuthState state, const std::string& user = std::string())
{
    auto f = Facts("10.0.0.1");
    f.auth = state;
    f.user = user;
    return f;
}

} // namespace

/// Acl::ProxyAuthNode and how a rule list stops at it.
class TestProxyAuthNode : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestProxyAuthNode);
    CPPUNIT_TEST(requiredMatchesAnyValidUser);
    CPPUNIT_TEST(userListsAndCase);
    CPPUNIT_TEST(regexUsers);
    CPPUNIT_TEST(checkStopsWhereCredentialsAreNeeded);
    CPPUNIT_TEST(denyEndingInProxyAuthAsksAgain);
    CPPUNIT_TEST_SUITE_END();

public:
    void requiredMatchesAnyValidUser()
    {
        Acl::Registry r;
        MustAcl(r, "u proxy_auth REQUIRED");
        CPPUNIT_ASSERT(Matches(r, "u", As(Acl::AuthState::Valid, "anyone")));
    }

    void userListsAndCase()
    {
        Acl::Registry r;
        MustAcl(r, "u proxy_auth alice Bob");
        MustAcl(r, "ci proxy_auth -i Carol");
        CPPUNIT_ASSERT(Matches(r, "u", As(Acl::AuthState::Valid, "alice")));
        CPPUNIT_ASSERT(Matches(r, "u", As(Acl::AuthState::Valid, "Bob")));
        CPPUNIT_ASSERT(!Matches(r, "u", As(Acl::AuthState::Valid, "bob")));
        CPPUNIT_ASSERT(Matches(r, "ci", As(Acl::AuthState::Valid, "cArOl")));
    }

    void regexUsers()
    {
        Acl::Registry r;
        MustAcl(r, "staff proxy_auth_regex -i ^adm_");
        CPPUNIT_ASSERT(Matches(r, "staff", As(Acl::AuthState::Valid, "ADM_eve")));
        CPPUNIT_ASSERT(!Matches(r, "staff", As(Acl::AuthState::Valid, "eve")));
    }

    void checkStopsWhereCredentialsAreNeeded()
    {
        Acl::Registry r;
        MustAcl(r, "u proxy_auth REQUIRED");
        MustAcl(r, "open urlpath_regex ^/open");
        Acl::AccessList list;
        MustAccess(list, r, "allow open");
        MustAccess(list, r, "allow u");
        // a rule before the login decides without credentials
        auto f = As(Acl::AuthState::Absent);
        f.urlPath = "/open/x";
        CPPUNIT_ASSERT(list.check(f) == Acl::Answer::Allowed);
        CPPUNIT_ASSERT(list.check(As(Acl::AuthState::Absent)) == Acl::Answer::AuthRequired);
        CPPUNIT_ASSERT(list.check(As(Acl::AuthState::Invalid)) == Acl::Answer::AuthRequired);
        CPPUNIT_ASSERT(list.check(As(Acl::AuthState::Unchecked)) == Acl::Answer::Pending);
        CPPUNIT_ASSERT(list.check(As(Acl::AuthState::Valid, "x")) == Acl::Answer::Allowed);
    }

    void denyEndingInProxyAuthAsksAgain()
    {
        Acl::Registry r;
        MustAcl(r, "bob proxy_auth bob");
        MustAcl(r, "users proxy_auth REQUIRED");
        MustAcl(r, "lan src 10.0.0.0/8");
        Acl::AccessList list;
        MustAccess(list, r, "deny lan !bob");
        MustAccess(list, r, "deny !lan users");
        MustAccess(list, r, "allow all");
        CPPUNIT_ASSERT(list.check(As(Acl::AuthState::Valid, "alice")) == Acl::Answer::AuthRequired);
        CPPUNIT_ASSERT(list.check(As(Acl::AuthState::Valid, "bob")) == Acl::Answer::Allowed);
        // a deny line that does not end with a proxy_auth acl stays a 403
        Acl::AccessList plain;
        MustAccess(plain, r, "deny users lan");
        CPPUNIT_ASSERT(plain.check(As(Acl::AuthState::Valid, "bob")) == Acl::Answer::Denied);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestProxyAuthNode);
