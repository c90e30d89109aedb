/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "comm/Address.h"

#include <cppunit/extensions/HelperMacros.h>

#include <arpa/inet.h>

/// Comm::Address: parsing literals and printing them as Squid does.
class TestAddress : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestAddress);
    CPPUNIT_TEST(parsesIpv4);
    CPPUNIT_TEST(parsesIpv6WithAndWithoutBrackets);
    CPPUNIT_TEST(emptyHostIsWildcard);
    CPPUNIT_TEST(rejectsNames);
    CPPUNIT_TEST(hostIsInetNtops);
    CPPUNIT_TEST_SUITE_END();

public:
    void parsesIpv4();
    void parsesIpv6WithAndWithoutBrackets();
    void emptyHostIsWildcard();
    void rejectsNames();
    void hostIsInetNtops();
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestAddress);

void TestAddress::parsesIpv4()
{
    const auto a = Comm::Address::Parse("127.0.0.1", 3128);
    CPPUNIT_ASSERT(a);
    CPPUNIT_ASSERT_EQUAL(AF_INET, a->family());
    CPPUNIT_ASSERT_EQUAL(uint16_t(3128), a->port());
    CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1:3128"), a->toString());
}

void TestAddress::parsesIpv6WithAndWithoutBrackets()
{
    for (const char* text : {"::1", "[::1]"}) {
        const auto a = Comm::Address::Parse(text, 80);
        CPPUNIT_ASSERT(a);
        CPPUNIT_ASSERT_EQUAL(AF_INET6, a->family());
        CPPUNIT_ASSERT_EQUAL(std::string("::1"), a->host());
        CPPUNIT_ASSERT_EQUAL(std::string("[::1]:80"), a->toString());
    }
    const auto mapped = Comm::Address::Parse("::ffff:10.1.2.3", 1);
    CPPUNIT_ASSERT(mapped);
    CPPUNIT_ASSERT_EQUAL(std::string("10.1.2.3"), mapped->host());
}

void TestAddress::emptyHostIsWildcard()
{
    const auto a = Comm::Address::Parse("", 3128);
    CPPUNIT_ASSERT(a);
    CPPUNIT_ASSERT_EQUAL(AF_INET6, a->family());
    CPPUNIT_ASSERT_EQUAL(std::string("[::]:3128"), a->toString());
}

void TestAddress::rejectsNames()
{
    CPPUNIT_ASSERT(!Comm::Address::Parse("localhost", 80));
    CPPUNIT_ASSERT(!Comm::Address::Parse("1.2.3", 80));
    CPPUNIT_ASSERT(!Comm::Address::Parse("[::1", 80));
}

/// host() writes an IPv4 address (plain or v4-mapped) as inet_ntop() does,
/// over every value of each byte and a spread of whole addresses
void TestAddress::hostIsInetNtops()
{
    uint32_t x = 0x9e3779b9u;
    for (uint32_t i = 0; i < 20000; ++i) {
        const uint32_t value = i < 256 ? i * 0x01010101u : (x = x * 1664525u + 1013904223u);
        in_addr in{};
        in.s_addr = value;
        char expected[INET_ADDRSTRLEN];
        CPPUNIT_ASSERT(inet_ntop(AF_INET, &in, expected, sizeof(expected)));
        const auto plain = Comm::Address::Parse(expected, 80);
        CPPUNIT_ASSERT(plain);
        CPPUNIT_ASSERT_EQUAL(std::string(expected), plain->host());
        const auto mapped = Comm::Address::Parse("::ffff:" + std::string(expected), 80);
        CPPUNIT_ASSERT(mapped);
        CPPUNIT_ASSERT_EQUAL(std::string(expected), mapped->host());
    }
}
