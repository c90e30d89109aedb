/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "auth/Basic.h"
#include "auth/tests/RunUntil.h"
#include "comm/Loop.h"

#include <cppunit/extensions/HelperMacros.h>

#include <functional>

namespace {

using namespace std::chrono_literals;

using AuthTests::RunUntil;

/// A basic helper in sh: alice/secret is good, "BH" for user broken, ERR otherwise;
/// the request line it got goes to stderr (the test reads the escaping there).
Auth::BasicOptions Options()
{
    Auth::BasicOptions o;
    o.helper.name = "basic-test";
    o.helper.argv = {"/bin/sh", "-c",
                     "while read u p; do case \"$u $p\" in 'alice secret') echo OK;; broken*) echo BH;; "
                     "'o%20m%C3%A9 x%25y') echo OK;; *) echo ERR;; esac; done"};
    o.helper.childrenMax = 2;
    o.realm = "Test realm";
    return o;
}

} // namespace

/// Auth::Basic: credentials parsing, the helper check and its cache.
class TestBasic : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestBasic);
    CPPUNIT_TEST(base64);
    CPPUNIT_TEST(parsesBasicCredentials);
    CPPUNIT_TEST(refusesOtherSchemesAndBadValues);
    CPPUNIT_TEST(helperVerdictsAreCached);
    CPPUNIT_TEST(userNamesAreLowercasedUnlessCaseSensitive);
    CPPUNIT_TEST(tokensAreEscapedAndUtf8Converted);
    CPPUNIT_TEST(challengeNamesTheRealm);
    CPPUNIT_TEST_SUITE_END();

public:
    void base64()
    {
        CPPUNIT_ASSERT_EQUAL(std::string("alice:secret"), *Auth::DecodeBase64("YWxpY2U6c2VjcmV0"));
        CPPUNIT_ASSERT_EQUAL(std::string("ab"), *Auth::DecodeBase64("YWI="));
        CPPUNIT_ASSERT_EQUAL(std::string("ab"), *Auth::DecodeBase64("YWI"));
        CPPUNIT_ASSERT(!Auth::DecodeBase64("YW*j"));
        CPPUNIT_ASSERT(!Auth::DecodeBase64("Y"));
    }

    void parsesBasicCredentials()
    {
        const auto c = Auth::ParseBasic("basic  YWxpY2U6c2VjcmV0 ");
        CPPUNIT_ASSERT(c);
        CPPUNIT_ASSERT_EQUAL(std::string("alice"), c->user);
        CPPUNIT_ASSERT_EQUAL(std::string("secret"), c->password);
        // the password may hold colons; it may be empty
        const auto d = Auth::ParseBasic("Basic YTpiOmM="); // a:b:c
        CPPUNIT_ASSERT_EQUAL(std::string("b:c"), d->password);
        CPPUNIT_ASSERT_EQUAL(std::string(), Auth::ParseBasic("Basic YTo=")->password); // a:
    }

    void refusesOtherSchemesAndBadValues()
    {
        CPPUNIT_ASSERT(!Auth::ParseBasic("Digest username=\"a\""));
        CPPUNIT_ASSERT(!Auth::ParseBasic("BasicYWxpY2U6c2VjcmV0"));
        CPPUNIT_ASSERT(!Auth::ParseBasic("Basic !!!"));
        CPPUNIT_ASSERT(!Auth::ParseBasic("Basic YWxpY2U="));     // "alice": no colon
        CPPUNIT_ASSERT(!Auth::ParseBasic("Basic OnNlY3JldA==")); // ":secret": no user
        CPPUNIT_ASSERT(!Auth::ParseBasic("Basic YQpiOmM="));     // "a\nb:c": would split the helper's line
    }

    void helperVerdictsAreCached()
    {
        Comm::Loop loop;
        Auth::Basic basic(loop, Options());
        const auto now = Auth::Basic::Clock::now();
        std::string user;
        const Auth::Credentials good{"alice", "secret"};
        const Auth::Credentials bad{"alice", "wrong"};
        const Auth::Credentials broken{"broken", "x"};
        CPPUNIT_ASSERT(basic.lookUp(good, user, now) == Auth::Verdict::Unknown);
        int done = 0;
        auto t1 = basic.check(good, [&] { ++done; });
        auto t2 = basic.check(bad, [&] { ++done; });
        auto t3 = basic.check(broken, [&] { ++done; });
        CPPUNIT_ASSERT(RunUntil(loop, [&] { return done == 3; }));
        const auto after = Auth::Basic::Clock::now();
        CPPUNIT_ASSERT(basic.lookUp(good, user, after) == Auth::Verdict::Good);
        CPPUNIT_ASSERT_EQUAL(std::string("alice"), user);
        CPPUNIT_ASSERT(basic.lookUp(bad, user, after) == Auth::Verdict::Bad);
        CPPUNIT_ASSERT(basic.lookUp(broken, user, after) == Auth::Verdict::Bad); // BH never allows
        // a bad verdict is forgotten soon; a good one lasts credentialsttl
        CPPUNIT_ASSERT(basic.lookUp(bad, user, after + Auth::Basic::BadTtl + 1s) == Auth::Verdict::Unknown);
        CPPUNIT_ASSERT(basic.lookUp(good, user, after + 1h) == Auth::Verdict::Good);
        CPPUNIT_ASSERT(basic.lookUp(good, user, after + 2h + 1s) == Auth::Verdict::Unknown);
    }

    void userNamesAreLowercasedUnlessCaseSensitive()
    {
        Comm::Loop loop;
        Auth::Basic basic(loop, Options());
        int done = 0;
        auto t = basic.check({"ALICE", "secret"}, [&] { ++done; });
        CPPUNIT_ASSERT(RunUntil(loop, [&] { return done == 1; }));
        std::string user;
        CPPUNIT_ASSERT(basic.lookUp({"ALICE", "secret"}, user, Auth::Basic::Clock::now()) ==
                       Auth::Verdict::Good);
        CPPUNIT_ASSERT_EQUAL(std::string("alice"), user);

        auto options = Options();
        options.caseSensitive = true;
        Auth::Basic strict(loop, options);
        auto t2 = strict.check({"ALICE", "secret"}, [&] { ++done; });
        CPPUNIT_ASSERT(RunUntil(loop, [&] { return done == 2; }));
        CPPUNIT_ASSERT(strict.lookUp({"ALICE", "secret"}, user, Auth::Basic::Clock::now()) ==
                       Auth::Verdict::Bad);
    }

    void tokensAreEscapedAndUtf8Converted()
    {
        Comm::Loop loop;
        auto options = Options();
        options.utf8 = true;
        Auth::Basic basic(loop, options);
        int done = 0;
        // "o mé" in Latin-1, password "x%y": the helper sees o%20m%C3%A9 x%25y
        auto t = basic.check({"o m\xe9", "x%y"}, [&] { ++done; });
        CPPUNIT_ASSERT(RunUntil(loop, [&] { return done == 1; }));
        std::string user;
        CPPUNIT_ASSERT(basic.lookUp({"o m\xe9", "x%y"}, user, Auth::Basic::Clock::now()) ==
                       Auth::Verdict::Good);
    }

    void challengeNamesTheRealm()
    {
        Comm::Loop loop;
        Auth::Basic basic(loop, Options());
        CPPUNIT_ASSERT_EQUAL(std::string("Basic realm=\"Test realm\""), basic.challenge());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestBasic);
