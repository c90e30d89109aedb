/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "client/IndirectClient.h"

#include <cppunit/extensions/HelperMacros.h>

#include <string>
#include <vector>

/// follow_x_forwarded_for's walk of X-Forwarded-For, as Squid 5.7's
/// clientFollowXForwardedForCheck() (test-suite/access/indirect-client.sh
/// checks the same against Squid)
class TestIndirectClient : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestIndirectClient);
    CPPUNIT_TEST(walksFromTheRightWhileTrusted);
    CPPUNIT_TEST(stopsAtAnItemThatIsNoAddress);
    CPPUNIT_TEST(untrustedDirectClientStaysTheClient);
    CPPUNIT_TEST(eachItemIsCheckedOnce);
    CPPUNIT_TEST_SUITE_END();

    static Acl::Address A(const char* text) { return *Acl::Address::Parse(text); }

    /// trusts the addresses listed
    static std::function<bool(const Acl::Address&)> Trusting(std::vector<std::string> trusted)
    {
        return [trusted](const Acl::Address& a) {
            for (const auto& t : trusted)
                if (A(t.c_str()) == a)
                    return true;
            return false;
        };
    }

public:
    void walksFromTheRightWhileTrusted()
    {
        const auto trust = Trusting({"127.0.0.1", "10.0.0.2"});
        CPPUNIT_ASSERT(A("192.0.2.9") ==
                       Client::FollowXForwardedFor(A("127.0.0.1"), "192.0.2.9, 10.0.0.2", trust));
        // the first hop not trusted is the client, whatever came before it
        CPPUNIT_ASSERT(A("198.51.100.7") == Client::FollowXForwardedFor(
                                                A("127.0.0.1"), "192.0.2.9,198.51.100.7, 10.0.0.2", trust));
        // blanks and empty items between them are skipped, as Squid skips them
        CPPUNIT_ASSERT(A("192.0.2.9") ==
                       Client::FollowXForwardedFor(A("127.0.0.1"), " 192.0.2.9 ,, ", trust));
        // IPv6
        CPPUNIT_ASSERT(A("2001:db8::1") == Client::FollowXForwardedFor(A("127.0.0.1"), "2001:db8::1", trust));
    }

    void stopsAtAnItemThatIsNoAddress()
    {
        const auto trust = Trusting({"127.0.0.1", "10.0.0.2"});
        CPPUNIT_ASSERT(A("10.0.0.2") ==
                       Client::FollowXForwardedFor(A("127.0.0.1"), "unknown, 10.0.0.2", trust));
        CPPUNIT_ASSERT(A("127.0.0.1") == Client::FollowXForwardedFor(A("127.0.0.1"), "192.0.2.9:80", trust));
        CPPUNIT_ASSERT(A("127.0.0.1") == Client::FollowXForwardedFor(A("127.0.0.1"), "", trust));
    }

    void untrustedDirectClientStaysTheClient()
    {
        CPPUNIT_ASSERT(A("192.0.2.1") ==
                       Client::FollowXForwardedFor(A("192.0.2.1"), "10.0.0.9", Trusting({"127.0.0.1"})));
    }

    void eachItemIsCheckedOnce()
    {
        unsigned calls = 0;
        (void)Client::FollowXForwardedFor(A("127.0.0.1"), "10.0.0.1, 10.0.0.2, 10.0.0.3",
                                          [&](const Acl::Address&) {
                                              ++calls;
                                              return true;
                                          });
        CPPUNIT_ASSERT_EQUAL(4u, calls); // the direct client and each of the three
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestIndirectClient);
