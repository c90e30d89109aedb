/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/Address.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cstring>

#include <arpa/inet.h>
#include <netinet/in.h>

/// Acl::Address: parsing literals and socket addresses into one 16-byte form.
class TestAddress : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestAddress);
    CPPUNIT_TEST(defaultIsUnset);
    CPPUNIT_TEST(ipv4IsHeldMapped);
    CPPUNIT_TEST(mappedLiteralEqualsIpv4);
    CPPUNIT_TEST(bracketsAndZoneAreAccepted);
    CPPUNIT_TEST(strictParseRejectsShortForms);
    CPPUNIT_TEST(lenientParseAcceptsSquidForms);
    CPPUNIT_TEST(garbageIsRejected);
    CPPUNIT_TEST(sockaddrOfBothFamilies);
    CPPUNIT_TEST(prefixMaskBits);
    CPPUNIT_TEST(toStringRoundTrips);
    CPPUNIT_TEST_SUITE_END();

public:
    void defaultIsUnset()
    {
        const Acl::Address a;
        CPPUNIT_ASSERT(!a.isSet());
        CPPUNIT_ASSERT(!a.isIpv4());
        CPPUNIT_ASSERT_EQUAL(std::string(), a.toString());
    }

    void ipv4IsHeldMapped()
    {
        const auto a = Acl::Address::Parse("10.1.2.3");
        CPPUNIT_ASSERT(a && a->isIpv4());
        const uint8_t expected[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 1, 2, 3};
        CPPUNIT_ASSERT(std::memcmp(a->bytes().data(), expected, 16) == 0);
    }

    void mappedLiteralEqualsIpv4()
    {
        CPPUNIT_ASSERT(Acl::Address::Parse("::ffff:10.1.2.3") == Acl::Address::Parse("10.1.2.3"));
        CPPUNIT_ASSERT(Acl::Address::Parse("::ffff:a01:203") == Acl::Address::Parse("10.1.2.3"));
        CPPUNIT_ASSERT(!Acl::Address::Parse("::1")->isIpv4());
    }

    void bracketsAndZoneAreAccepted()
    {
        CPPUNIT_ASSERT(Acl::Address::Parse("[::1]") == Acl::Address::Parse("::1"));
        CPPUNIT_ASSERT(Acl::Address::Parse("fe80::1%eth0") == Acl::Address::Parse("fe80::1"));
    }

    void strictParseRejectsShortForms()
    {
        CPPUNIT_ASSERT(!Acl::Address::Parse("10.1"));
        CPPUNIT_ASSERT(!Acl::Address::Parse("10"));
        CPPUNIT_ASSERT(!Acl::Address::Parse("0x0a.0.0.1"));
    }

    void lenientParseAcceptsSquidForms()
    {
        CPPUNIT_ASSERT(Acl::Address::ParseLenient("10.1") == Acl::Address::Parse("10.0.0.1"));
        CPPUNIT_ASSERT(Acl::Address::ParseLenient("10") == Acl::Address::Parse("0.0.0.10"));
        CPPUNIT_ASSERT(Acl::Address::ParseLenient("fc00::") == Acl::Address::Parse("fc00::"));
    }

    void garbageIsRejected()
    {
        for (const char* s :
             {"", "300.1.1.1", "1.2.3.4.5", "example.com", "::g", "[::1", "1.2.3.4/8", " 1.2.3.4"}) {
            CPPUNIT_ASSERT_MESSAGE(s, !Acl::Address::Parse(s));
            CPPUNIT_ASSERT_MESSAGE(s, !Acl::Address::ParseLenient(s));
        }
    }

    void sockaddrOfBothFamilies()
    {
        sockaddr_in sin{};
        sin.sin_family = AF_INET;
        inet_pton(AF_INET, "192.0.2.7", &sin.sin_addr);
        CPPUNIT_ASSERT(Acl::Address::FromSockaddr(reinterpret_cast<sockaddr*>(&sin)) ==
                       Acl::Address::Parse("192.0.2.7"));
        sockaddr_in6 sin6{};
        sin6.sin6_family = AF_INET6;
        inet_pton(AF_INET6, "::ffff:192.0.2.7", &sin6.sin6_addr);
        CPPUNIT_ASSERT(Acl::Address::FromSockaddr(reinterpret_cast<sockaddr*>(&sin6)) ==
                       Acl::Address::Parse("192.0.2.7"));
        CPPUNIT_ASSERT(!Acl::Address::FromSockaddr(nullptr).isSet());
        sockaddr other{};
        other.sa_family = AF_UNIX;
        CPPUNIT_ASSERT(!Acl::Address::FromSockaddr(&other).isSet());
    }

    void prefixMaskBits()
    {
        for (unsigned bits = 0; bits <= 128; ++bits)
            CPPUNIT_ASSERT_EQUAL(bits, Acl::Address::PrefixMask(bits).leadingOnes());
        CPPUNIT_ASSERT(Acl::Address::PrefixMask(104) ==
                       Acl::Address::Parse("ffff:ffff:ffff:ffff:ffff:ffff:ff00:0"));
    }

    void toStringRoundTrips()
    {
        for (const char* s : {"10.1.2.3", "0.0.0.0", "::1", "fe80::1", "2001:db8::8:800:200c:417a"})
            CPPUNIT_ASSERT_EQUAL(std::string(s), Acl::Address::Parse(s)->toString());
        CPPUNIT_ASSERT_EQUAL(std::string("10.1.2.3"), Acl::Address::Parse("::ffff:10.1.2.3")->toString());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestAddress);
