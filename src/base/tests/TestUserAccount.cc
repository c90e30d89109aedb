/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "base/UserAccount.h"

#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <string>

/// Tests of UserAccount (root and nobody are in every Debian passwd file).
class TestUserAccount : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestUserAccount);
    CPPUNIT_TEST(findsUserByName);
    CPPUNIT_TEST(unknownUserSaysWhy);
    CPPUNIT_TEST(numericUserIsNotAName);
    CPPUNIT_TEST(findByIdAgreesWithFind);
    CPPUNIT_TEST(groupByNameOrNumber);
    CPPUNIT_TEST(unknownGroupSaysWhy);
    CPPUNIT_TEST(groupsStartWithThePrimaryGroupOnce);
    CPPUNIT_TEST_SUITE_END();

public:
    /// root is user 0 in group 0, with its home directory
    void findsUserByName()
    {
        std::string why;
        const auto root = UserAccount::Find("root", why);
        CPPUNIT_ASSERT(root);
        CPPUNIT_ASSERT_EQUAL(uid_t(0), root->uid);
        CPPUNIT_ASSERT_EQUAL(gid_t(0), root->gid);
        CPPUNIT_ASSERT_EQUAL(std::string("root"), root->name);
        CPPUNIT_ASSERT(!root->home.empty());
    }

    /// a missing user is no account, and the reason names it
    void unknownUserSaysWhy()
    {
        std::string why;
        CPPUNIT_ASSERT(!UserAccount::Find("cuttle-no-such-user", why));
        CPPUNIT_ASSERT_EQUAL(std::string("no such user 'cuttle-no-such-user' in the user database"), why);
    }

    /// as with Squid's getpwnam(), "0" is a name, not root's number
    void numericUserIsNotAName()
    {
        std::string why;
        CPPUNIT_ASSERT(!UserAccount::Find("0", why));
    }

    /// looking a user up by its id gives the same account as by its name
    void findByIdAgreesWithFind()
    {
        std::string why;
        const auto nobody = UserAccount::Find("nobody", why);
        CPPUNIT_ASSERT(nobody);
        const auto again = UserAccount::FindById(nobody->uid);
        CPPUNIT_ASSERT(again);
        CPPUNIT_ASSERT_EQUAL(nobody->name, again->name);
        CPPUNIT_ASSERT_EQUAL(nobody->gid, again->gid);
    }

    /// a group is a name or a number, as Squid's cache_effective_group reads it
    void groupByNameOrNumber()
    {
        std::string why;
        CPPUNIT_ASSERT_EQUAL(gid_t(0), UserAccount::FindGroup("root", why).value());
        // a number needs no group database entry
        CPPUNIT_ASSERT_EQUAL(gid_t(4242), UserAccount::FindGroup("4242", why).value());
        CPPUNIT_ASSERT(!UserAccount::FindGroup("99999999999", why));
        CPPUNIT_ASSERT(why.find("out of range") != std::string::npos);
    }

    /// a missing group says which
    void unknownGroupSaysWhy()
    {
        std::string why;
        CPPUNIT_ASSERT(!UserAccount::FindGroup("cuttle-no-such-group", why));
        CPPUNIT_ASSERT_EQUAL(std::string("no such group 'cuttle-no-such-group' in the group database"), why);
    }

    /// the list setgroups() gets begins with the primary group, which it holds once
    void groupsStartWithThePrimaryGroupOnce()
    {
        for (const char* name : {"root", "nobody"}) {
            std::string why;
            const auto user = UserAccount::Find(name, why);
            CPPUNIT_ASSERT(user);
            const auto groups = user->groups();
            CPPUNIT_ASSERT(!groups.empty());
            CPPUNIT_ASSERT_EQUAL(user->gid, groups.front());
            CPPUNIT_ASSERT_EQUAL(1L, static_cast<long>(std::count(groups.begin(), groups.end(), user->gid)));
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestUserAccount);
