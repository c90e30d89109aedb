/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "auth/Digest.h"
#include "auth/tests/RunUntil.h"
#include "comm/Loop.h"

#include <cppunit/extensions/HelperMacros.h>

#include <functional>
#include <set>

namespace {

using namespace std::chrono_literals;

using AuthTests::RunUntil;

/// HA1 of Mufasa in testrealm@host.com with "Circle Of Life" (RFC 2617 section 3.5)
const std::string MufasaHa1 = "939e7578ed9e3c518a452acee763bce9";

/// A digest helper in sh, as digest_file_auth answers: Mufasa's HA1 in
/// testrealm@host.com; "No such user" otherwise.
Auth::DigestOptions Options()
{
    Auth::DigestOptions o;
    o.helper.name = "digest-test";
    o.helper.argv = {
        "/bin/sh", "-c",
        "while read l; do case \"$l\" in '\"Mufasa\":\"testrealm@host.com\"') echo 'OK "
        "ha1=\"939e7578ed9e3c518a452acee763bce9\"';; '\"caf\xc3\xa9\":\"testrealm@host.com\"') "
        "echo 'OK ha1=\"939e7578ed9e3c518a452acee763bce9\"';; '\"basic\":\"testrealm@host.com\"') "
        "echo OK;; *) echo 'ERR message=\"No such user\"';; esac; done"};
    o.helper.childrenMax = 1;
    o.realm = "testrealm@host.com";
    return o;
}

/// the nonce of a challenge
std::string NonceOf(const std::string& challenge)
{
    const auto at = challenge.find("nonce=\"") + 7;
    return challenge.substr(at, challenge.find('"', at) - at);
}

/// RFC 2617 section 3.5's request, with the response made for `nonce` and `nc`
Auth::DigestCredentials Mufasa(const std::string& nonce, const std::string& nc = "00000001",
                               const std::string& method = "GET")
{
    Auth::DigestCredentials c;
    c.user = "Mufasa";
    c.realm = "testrealm@host.com";
    c.nonce = nonce;
    c.uri = "/dir/index.html";
    c.algorithm = "MD5";
    c.qop = "auth";
    c.nc = nc;
    c.cnonce = "0a4f113b";
    c.response = Auth::DigestResponse(MufasaHa1, c, method);
    return c;
}

} // namespace

/// Auth::Digest: RFC 2617 / RFC 7616 digests, credentials parsing, nonces and the helper.
class TestDigest : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestDigest);
    CPPUNIT_TEST(md5MatchesRfc1321);
    CPPUNIT_TEST(responseMatchesRfc2617Example);
    CPPUNIT_TEST(responseMatchesRfc7616Example);
    CPPUNIT_TEST(parsesRfc2617Header);
    CPPUNIT_TEST(refusesOtherSchemesAndBadValues);
    CPPUNIT_TEST(challengesHaveFreshUnguessableNonces);
    CPPUNIT_TEST(goodCredentialsPassOnceTheHelperAnswered);
    CPPUNIT_TEST(wrongResponseOrUserIsBad);
    CPPUNIT_TEST(replayedOrUsedUpNonceIsStale);
    CPPUNIT_TEST(expiredOrUnknownNonceIsStale);
    CPPUNIT_TEST(strictnessWantsEachCountInTurn);
    CPPUNIT_TEST(nonceIsBoundToItsFirstUser);
    CPPUNIT_TEST(responseForAnotherRequestIsBad);
    CPPUNIT_TEST(postWorkaroundAcceptsGetDigest);
    CPPUNIT_TEST(utf8ConvertsTheUserForTheHelper);
    CPPUNIT_TEST(okWithoutHa1VouchesForNobody);
    CPPUNIT_TEST_SUITE_END();

public:
    void md5MatchesRfc1321()
    {
        CPPUNIT_ASSERT_EQUAL(std::string("d41d8cd98f00b204e9800998ecf8427e"), Auth::Md5Hex(""));
        CPPUNIT_ASSERT_EQUAL(std::string("900150983cd24fb0d6963f7d28e17f72"), Auth::Md5Hex("abc"));
        CPPUNIT_ASSERT_EQUAL(MufasaHa1, Auth::Md5Hex("Mufasa:testrealm@host.com:Circle Of Life"));
    }

    void responseMatchesRfc2617Example()
    {
        auto c = Mufasa("dcd98b7102dd2f0e8b11d0f600bfb0c093");
        CPPUNIT_ASSERT_EQUAL(std::string("6629fae49393a05397450978507c4ef1"),
                             Auth::DigestResponse(MufasaHa1, c, "GET"));
    }

    void responseMatchesRfc7616Example()
    {
        // RFC 7616 section 3.9.1, MD5
        Auth::DigestCredentials c;
        c.user = "Mufasa";
        c.realm = "http-auth@example.org";
        c.uri = "/dir/index.html";
        c.algorithm = "MD5";
        c.nonce = "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v";
        c.nc = "00000001";
        c.cnonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ";
        c.qop = "auth";
        const auto ha1 = Auth::Md5Hex("Mufasa:http-auth@example.org:Circle of Life");
        CPPUNIT_ASSERT_EQUAL(std::string("8ca523f5e9506fed4657c9700eebdbec"),
                             Auth::DigestResponse(ha1, c, "GET"));
    }

    void parsesRfc2617Header()
    {
        const auto d = Auth::ParseDigest(
            "digest username=\"Mufasa\", "
            "realm=\"testrealm@host.com\",nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\", "
            "uri=\"/dir/index.html\", qop=auth, nc=00000001, cnonce=\"0a4f113b\", "
            "response=\"6629fae49393a05397450978507c4ef1\", opaque=\"5ccc069c403ebaf9f0171e9517f40e41\"");
        CPPUNIT_ASSERT(d);
        CPPUNIT_ASSERT_EQUAL(std::string("Mufasa"), d->user);
        CPPUNIT_ASSERT_EQUAL(std::string("testrealm@host.com"), d->realm);
        CPPUNIT_ASSERT_EQUAL(std::string("/dir/index.html"), d->uri);
        CPPUNIT_ASSERT_EQUAL(std::string("MD5"), d->algorithm); // the default
        CPPUNIT_ASSERT_EQUAL(std::string("00000001"), d->nc);
        CPPUNIT_ASSERT_EQUAL(std::string("0a4f113b"), d->cnonce);
        CPPUNIT_ASSERT_EQUAL(std::string("auth"), d->qop);
        CPPUNIT_ASSERT_EQUAL(std::string("6629fae49393a05397450978507c4ef1"), d->response);
        // a quoted-pair is unescaped
        const auto e = Auth::ParseDigest("Digest username=\"a\\\\b\", realm=\"\", nonce=n, uri=\"/\", "
                                         "response=\"6629fae49393a05397450978507c4ef1\"");
        CPPUNIT_ASSERT(e);
        CPPUNIT_ASSERT_EQUAL(std::string("a\\b"), e->user);
    }

    void refusesOtherSchemesAndBadValues()
    {
        const std::string rest =
            "realm=\"r\", nonce=\"n\", uri=\"/\", response=\"6629fae49393a05397450978507c4ef1\"";
        CPPUNIT_ASSERT(Auth::ParseDigest("Digest username=\"u\", " + rest));
        CPPUNIT_ASSERT(!Auth::ParseDigest("Basic YWxpY2U6c2VjcmV0"));
        CPPUNIT_ASSERT(!Auth::ParseDigest("Digestusername=\"u\", " + rest));
        CPPUNIT_ASSERT(!Auth::ParseDigest("Digest " + rest)); // no user
        CPPUNIT_ASSERT(!Auth::ParseDigest("Digest username=\"u\", username=\"v\", " + rest));
        CPPUNIT_ASSERT(!Auth::ParseDigest("Digest username=\"u\" " + rest));      // no comma
        CPPUNIT_ASSERT(!Auth::ParseDigest("Digest username=\"u, " + rest));       // unterminated quote
        CPPUNIT_ASSERT(!Auth::ParseDigest("Digest username=\"u\\\"\", " + rest)); // a quote in the user
        CPPUNIT_ASSERT(!Auth::ParseDigest("Digest username=\"u\", algorithm=SHA-256, " + rest));
        CPPUNIT_ASSERT(
            !Auth::ParseDigest("Digest username=\"u\", qop=auth-int, nc=00000001, cnonce=c, " + rest));
        CPPUNIT_ASSERT(!Auth::ParseDigest("Digest username=\"u\", qop=auth, " + rest)); // no nc, cnonce
        CPPUNIT_ASSERT(!Auth::ParseDigest("Digest username=\"u\", cnonce=c, " + rest)); // no qop
        CPPUNIT_ASSERT(!Auth::ParseDigest("Digest username=\"u\", qop=auth, nc=1, cnonce=c, " + rest));
        CPPUNIT_ASSERT(
            !Auth::ParseDigest("Digest username=\"u\", realm=\"r\", nonce=\"n\", uri=\"/\", response=\"x\""));
    }

    void challengesHaveFreshUnguessableNonces()
    {
        Comm::Loop loop;
        Auth::Digest digest(loop, Options());
        std::set<std::string> seen;
        const auto now = Auth::Digest::Clock::now();
        for (int i = 0; i < 100; ++i) {
            const auto challenge = digest.challenge(false, now);
            CPPUNIT_ASSERT_EQUAL(
                0, challenge.rfind("Digest realm=\"testrealm@host.com\", nonce=\"", 0) == 0 ? 0 : 1);
            const auto nonce = NonceOf(challenge);
            CPPUNIT_ASSERT_EQUAL(size_t(32), nonce.size()); // 128 random bits
            CPPUNIT_ASSERT(seen.insert(nonce).second);
            CPPUNIT_ASSERT(challenge.ends_with("\", qop=\"auth\", stale=false"));
        }
        CPPUNIT_ASSERT(digest.challenge(true, now).ends_with("stale=true"));
    }

    void goodCredentialsPassOnceTheHelperAnswered()
    {
        Comm::Loop loop;
        Auth::Digest digest(loop, Options());
        const auto nonce = NonceOf(digest.challenge(false, Auth::Digest::Clock::now()));
        std::string user;
        const auto c = Mufasa(nonce);
        CPPUNIT_ASSERT(digest.lookUp(c, "GET", c.uri, user, Auth::Digest::Clock::now()) ==
                       Auth::Verdict::Unknown);
        bool done = false;
        auto t = digest.check(c, [&] { done = true; });
        CPPUNIT_ASSERT(RunUntil(loop, [&] { return done; }));
        CPPUNIT_ASSERT(digest.lookUp(c, "GET", c.uri, user, Auth::Digest::Clock::now()) ==
                       Auth::Verdict::Good);
        CPPUNIT_ASSERT_EQUAL(std::string("Mufasa"), user);
        const auto c2 = Mufasa(nonce, "00000002");
        CPPUNIT_ASSERT(digest.lookUp(c2, "GET", c.uri, user, Auth::Digest::Clock::now()) ==
                       Auth::Verdict::Good);
    }

    void wrongResponseOrUserIsBad()
    {
        Comm::Loop loop;
        Auth::Digest digest(loop, Options());
        const auto now = Auth::Digest::Clock::now();
        const auto nonce = NonceOf(digest.challenge(false, now));
        auto wrong = Mufasa(nonce);
        wrong.response = Auth::DigestResponse(Auth::Md5Hex("Mufasa:testrealm@host.com:guess"), wrong, "GET");
        auto nobody = Mufasa(nonce);
        nobody.user = "Scar";
        int done = 0;
        auto t1 = digest.check(wrong, [&] { ++done; });
        auto t2 = digest.check(nobody, [&] { ++done; });
        CPPUNIT_ASSERT(RunUntil(loop, [&] { return done == 2; }));
        std::string user;
        const auto after = Auth::Digest::Clock::now();
        CPPUNIT_ASSERT(digest.lookUp(wrong, "GET", wrong.uri, user, after) == Auth::Verdict::Bad);
        CPPUNIT_ASSERT(digest.lookUp(nobody, "GET", nobody.uri, user, after) == Auth::Verdict::Bad);
        CPPUNIT_ASSERT(user.empty());
        // later, a wrong response asks the helper again (a changed password)
        CPPUNIT_ASSERT(digest.lookUp(wrong, "GET", wrong.uri, user, after + Auth::Digest::BadTtl + 1s) ==
                       Auth::Verdict::Unknown);
        // a realm other than ours
        auto other = Mufasa(nonce);
        other.realm = "elsewhere";
        CPPUNIT_ASSERT(digest.lookUp(other, "GET", other.uri, user, after) == Auth::Verdict::Bad);
    }

    /// the digest after the helper gave Mufasa's HA1
    static void learnMufasa(Comm::Loop& loop, Auth::Digest& digest, const std::string& nonce)
    {
        bool done = false;
        auto t = digest.check(Mufasa(nonce), [&] { done = true; });
        CPPUNIT_ASSERT(RunUntil(loop, [&] { return done; }));
    }

    void replayedOrUsedUpNonceIsStale()
    {
        Comm::Loop loop;
        auto options = Options();
        options.nonceMaxCount = 3;
        Auth::Digest digest(loop, options);
        auto now = Auth::Digest::Clock::now();
        auto nonce = NonceOf(digest.challenge(false, now));
        learnMufasa(loop, digest, nonce);
        std::string user;
        now = Auth::Digest::Clock::now();
        const auto c = Mufasa(nonce, "00000002");
        CPPUNIT_ASSERT(digest.lookUp(c, "GET", c.uri, user, now) == Auth::Verdict::Good);
        // the same count again: a replay; the nonce is gone
        CPPUNIT_ASSERT(digest.lookUp(c, "GET", c.uri, user, now) == Auth::Verdict::Stale);
        const auto c3 = Mufasa(nonce, "00000003");
        CPPUNIT_ASSERT(digest.lookUp(c3, "GET", c.uri, user, now) == Auth::Verdict::Stale);
        // a fresh nonce is good up to nonce_max_count uses
        nonce = NonceOf(digest.challenge(false, now));
        for (const char* nc : {"00000001", "00000002", "00000003"}) {
            const auto ok = Mufasa(nonce, nc);
            CPPUNIT_ASSERT(digest.lookUp(ok, "GET", ok.uri, user, now) == Auth::Verdict::Good);
        }
        const auto c4 = Mufasa(nonce, "00000004");
        CPPUNIT_ASSERT(digest.lookUp(c4, "GET", c4.uri, user, now) == Auth::Verdict::Stale);
    }

    void expiredOrUnknownNonceIsStale()
    {
        Comm::Loop loop;
        Auth::Digest digest(loop, Options()); // nonce_max_duration 30 minutes
        auto now = Auth::Digest::Clock::now();
        const auto nonce = NonceOf(digest.challenge(false, now));
        learnMufasa(loop, digest, nonce);
        std::string user;
        const auto c = Mufasa(nonce);
        CPPUNIT_ASSERT(digest.lookUp(c, "GET", c.uri, user, now + 31min) == Auth::Verdict::Stale);
        const auto forged = Mufasa("00112233445566778899aabbccddeeff");
        CPPUNIT_ASSERT(digest.lookUp(forged, "GET", c.uri, user, now) == Auth::Verdict::Stale);
        // expired nonces are collected every nonce_garbage_interval
        Auth::Digest other(loop, Options());
        other.challenge(false, now);
        other.challenge(false, now + 29min);
        CPPUNIT_ASSERT_EQUAL(size_t(2), other.nonceCount());
        other.challenge(false, now + 31min); // the next sweep is due at 29 + 5 minutes
        CPPUNIT_ASSERT_EQUAL(size_t(3), other.nonceCount());
        other.challenge(false, now + 35min); // the first is dropped
        CPPUNIT_ASSERT_EQUAL(size_t(3), other.nonceCount());
    }

    void strictnessWantsEachCountInTurn()
    {
        Comm::Loop loop;
        auto options = Options();
        options.nonceStrictness = true;
        Auth::Digest digest(loop, options);
        const auto now = Auth::Digest::Clock::now();
        const auto nonce = NonceOf(digest.challenge(false, now));
        learnMufasa(loop, digest, nonce);
        std::string user;
        const auto c3 = Mufasa(nonce, "00000003");
        CPPUNIT_ASSERT(digest.lookUp(c3, "GET", c3.uri, user, Auth::Digest::Clock::now()) ==
                       Auth::Verdict::Stale);

        // check_nonce_count off: the count is not looked at
        options.nonceStrictness = false;
        options.checkNonceCount = false;
        Auth::Digest lax(loop, options);
        const auto n2 = NonceOf(lax.challenge(false, now));
        learnMufasa(loop, lax, n2);
        const auto c = Mufasa(n2);
        CPPUNIT_ASSERT(lax.lookUp(c, "GET", c.uri, user, Auth::Digest::Clock::now()) == Auth::Verdict::Good);
        CPPUNIT_ASSERT(lax.lookUp(c, "GET", c.uri, user, Auth::Digest::Clock::now()) == Auth::Verdict::Good);
    }

    void nonceIsBoundToItsFirstUser()
    {
        Comm::Loop loop;
        Auth::Digest digest(loop, Options());
        const auto now = Auth::Digest::Clock::now();
        const auto nonce = NonceOf(digest.challenge(false, now));
        learnMufasa(loop, digest, nonce);
        std::string user;
        const auto c = Mufasa(nonce);
        CPPUNIT_ASSERT(digest.lookUp(c, "GET", c.uri, user, Auth::Digest::Clock::now()) ==
                       Auth::Verdict::Good);
        auto other = Mufasa(nonce, "00000002");
        other.user = "Simba";
        CPPUNIT_ASSERT(digest.lookUp(other, "GET", c.uri, user, Auth::Digest::Clock::now()) ==
                       Auth::Verdict::Bad);
    }

    void responseForAnotherRequestIsBad()
    {
        Comm::Loop loop;
        Auth::Digest digest(loop, Options());
        const auto nonce = NonceOf(digest.challenge(false, Auth::Digest::Clock::now()));
        learnMufasa(loop, digest, nonce);
        std::string user;
        const auto c = Mufasa(nonce);
        const auto now = Auth::Digest::Clock::now();
        CPPUNIT_ASSERT(digest.lookUp(c, "GET", "/other.html", user, now) == Auth::Verdict::Bad);
        CPPUNIT_ASSERT(digest.lookUp(c, "GET", "http://host/other.html", user, now) == Auth::Verdict::Bad);
        CPPUNIT_ASSERT(digest.lookUp(c, "GET", "http://host/dir/index.html?q", user, now) ==
                       Auth::Verdict::Bad);
        CPPUNIT_ASSERT(digest.lookUp(c, "POST", c.uri, user, now) == Auth::Verdict::Bad);
    }

    void postWorkaroundAcceptsGetDigest()
    {
        Comm::Loop loop;
        auto options = Options();
        options.postWorkaround = true;
        Auth::Digest digest(loop, options);
        const auto nonce = NonceOf(digest.challenge(false, Auth::Digest::Clock::now()));
        learnMufasa(loop, digest, nonce);
        std::string user;
        const auto c = Mufasa(nonce, "00000001", "GET");
        CPPUNIT_ASSERT(digest.lookUp(c, "POST", c.uri, user, Auth::Digest::Clock::now()) ==
                       Auth::Verdict::Good);
    }

    void utf8ConvertsTheUserForTheHelper()
    {
        Comm::Loop loop;
        auto options = Options();
        options.utf8 = true;
        Auth::Digest digest(loop, options);
        const auto nonce = NonceOf(digest.challenge(false, Auth::Digest::Clock::now()));
        auto c = Mufasa(nonce);
        c.user = "caf\xe9"; // Latin-1; the helper knows "café" in UTF-8
        bool done = false;
        auto t = digest.check(c, [&] { done = true; });
        CPPUNIT_ASSERT(RunUntil(loop, [&] { return done; }));
        std::string user;
        CPPUNIT_ASSERT(digest.lookUp(c, "GET", c.uri, user, Auth::Digest::Clock::now()) ==
                       Auth::Verdict::Good);
    }

    void okWithoutHa1VouchesForNobody()
    {
        Comm::Loop loop;
        Auth::Digest digest(loop, Options());
        const auto nonce = NonceOf(digest.challenge(false, Auth::Digest::Clock::now()));
        auto c = Mufasa(nonce);
        c.user = "basic"; // the helper answers a bare OK, as a basic helper would
        bool done = false;
        auto t = digest.check(c, [&] { done = true; });
        CPPUNIT_ASSERT(RunUntil(loop, [&] { return done; }));
        std::string user;
        CPPUNIT_ASSERT(digest.lookUp(c, "GET", c.uri, user, Auth::Digest::Clock::now()) ==
                       Auth::Verdict::Bad);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestDigest);
