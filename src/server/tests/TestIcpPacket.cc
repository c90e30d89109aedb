/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "server/IcpPacket.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cstring>
#include <memory>
#include <string>

/// Server::ParseIcp() and Server::BuildIcp(): Squid 5.7's datagrams, and
/// every malformed one refused without a byte read past its end.
class TestIcpPacket : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestIcpPacket);
    CPPUNIT_TEST(queryIsSquidsLayout);
    CPPUNIT_TEST(replyRoundTrips);
    CPPUNIT_TEST(everyWrongLengthFieldIsRefused);
    CPPUNIT_TEST(everyTruncationIsRefused);
    CPPUNIT_TEST(badVersionsOpcodesAndUrlsAreRefused);
    CPPUNIT_TEST(randomBytesNeverReadPastTheDatagram);
    CPPUNIT_TEST(oversizedUrlIsNotBuilt);
    CPPUNIT_TEST_SUITE_END();

public:
    /// a query's bytes, as Squid 5.7's icpCreateMessage lays them out
    void queryIsSquidsLayout()
    {
        Server::IcpMessage q;
        q.opcode = Server::IcpOpcode::Query;
        q.reqnum = 0x01020304;
        q.url = "http://a/";
        const auto bytes = Server::BuildIcp(q);
        const std::string expected = std::string("\x01\x02\x00\x22"
                                                 "\x01\x02\x03\x04",
                                                 8) +
                                     std::string(16, '\0') + "http://a/" + std::string(1, '\0');
        CPPUNIT_ASSERT_EQUAL(expected, bytes);
        const auto back = Server::ParseIcp(bytes);
        CPPUNIT_ASSERT(back);
        CPPUNIT_ASSERT(back->opcode == Server::IcpOpcode::Query);
        CPPUNIT_ASSERT_EQUAL(uint32_t(0x01020304), back->reqnum);
        CPPUNIT_ASSERT_EQUAL(std::string("http://a/"), back->url);
    }

    /// each reply opcode comes back as built, with its flags and reqnum
    void replyRoundTrips()
    {
        for (const auto op : {Server::IcpOpcode::Hit, Server::IcpOpcode::Miss, Server::IcpOpcode::Err,
                              Server::IcpOpcode::MissNoFetch, Server::IcpOpcode::Denied}) {
            Server::IcpMessage r;
            r.opcode = op;
            r.reqnum = 77;
            r.flags = 0x40000000;
            r.url = "http://example.test/x?y";
            const auto back = Server::ParseIcp(Server::BuildIcp(r));
            CPPUNIT_ASSERT(back);
            CPPUNIT_ASSERT(back->opcode == op);
            CPPUNIT_ASSERT_EQUAL(uint32_t(77), back->reqnum);
            CPPUNIT_ASSERT_EQUAL(uint32_t(0x40000000), back->flags);
            CPPUNIT_ASSERT_EQUAL(r.url, back->url);
        }
    }

    /// a length field other than the datagram's size, whatever it is, is refused
    void everyWrongLengthFieldIsRefused()
    {
        Server::IcpMessage q;
        q.opcode = Server::IcpOpcode::Query;
        q.url = "http://a/b";
        const auto good = Server::BuildIcp(q);
        for (unsigned length = 0; length <= 0xffff; ++length) {
            auto bytes = good;
            bytes[2] = char(length >> 8);
            bytes[3] = char(length & 0xff);
            CPPUNIT_ASSERT_EQUAL(length == good.size(), bool(Server::ParseIcp(bytes)));
        }
    }

    /// every prefix and every extension of a good datagram is refused (the
    /// copy sits in a buffer of its exact size, so a read past it would be
    /// caught by the sanitizers)
    void everyTruncationIsRefused()
    {
        Server::IcpMessage r;
        r.opcode = Server::IcpOpcode::Hit;
        r.url = "http://a/b";
        const auto good = Server::BuildIcp(r);
        for (size_t n = 0; n < good.size(); ++n) {
            auto exact = std::make_unique<char[]>(n + 1);
            std::memcpy(exact.get(), good.data(), n);
            CPPUNIT_ASSERT(!Server::ParseIcp(std::string_view(exact.get(), n)));
        }
        CPPUNIT_ASSERT(!Server::ParseIcp(good + "x"));
        CPPUNIT_ASSERT(!Server::ParseIcp(good + std::string(1, '\0')));
    }

    /// versions other than 2 and 3, unknown opcodes and HIT_OBJ, an empty URL,
    /// a URL with a NUL inside, a query without room for its requester
    void badVersionsOpcodesAndUrlsAreRefused()
    {
        Server::IcpMessage m;
        m.opcode = Server::IcpOpcode::Miss;
        m.url = "http://a/";
        const auto good = Server::BuildIcp(m);
        for (unsigned version = 0; version < 256; ++version) {
            auto bytes = good;
            bytes[1] = char(version);
            CPPUNIT_ASSERT_EQUAL(version == 2 || version == 3, bool(Server::ParseIcp(bytes)));
        }
        for (unsigned op = 0; op < 256; ++op) {
            auto bytes = good;
            bytes[0] = char(op);
            const bool taken =
                op == 1 || op == 2 || op == 3 || op == 4 || op == 10 || op == 11 || op == 21 || op == 22;
            // a query needs 4 more bytes before its URL: "http" is read as its requester
            CPPUNIT_ASSERT_EQUAL(taken, bool(Server::ParseIcp(bytes)));
        }
        auto inner = good;
        inner[Server::IcpMessage::HeaderSize + 3] = '\0';
        CPPUNIT_ASSERT(!Server::ParseIcp(inner));
        m.url.clear();
        CPPUNIT_ASSERT(!Server::ParseIcp(Server::BuildIcp(m)));
        // a query of 20 + 3 bytes: no room for the requester address
        std::string shortQuery =
            std::string("\x01\x02\x00\x17", 4) + std::string(16, '\0') + "ab" + std::string(1, '\0');
        CPPUNIT_ASSERT(!Server::ParseIcp(shortQuery));
    }

    /// pseudo-random datagrams of every size up to 64 bytes, with a length
    /// field that matches, parse or not without a read past their buffer
    void randomBytesNeverReadPastTheDatagram()
    {
        uint32_t state = 12345;
        const auto next = [&state] {
            state = state * 1103515245u + 12345u;
            return uint8_t(state >> 16);
        };
        unsigned parsed = 0;
        for (int round = 0; round < 20000; ++round) {
            const size_t n = next() % 65;
            auto exact = std::make_unique<char[]>(n ? n : 1);
            for (size_t i = 0; i < n; ++i)
                exact[i] = char(next());
            if (n >= 4) {
                exact[1] = 2;
                exact[2] = 0;
                exact[3] = char(n);
                exact[n - 1] = '\0';
            }
            const auto m = Server::ParseIcp(std::string_view(exact.get(), n));
            if (m) {
                ++parsed;
                CPPUNIT_ASSERT(m->url.find('\0') == std::string::npos && !m->url.empty());
                CPPUNIT_ASSERT(m->url.size() < n);
            }
        }
        CPPUNIT_ASSERT(parsed > 0); // the generator does reach the parser's accepting path
    }

    /// a URL past the largest datagram, or holding a NUL, builds nothing
    void oversizedUrlIsNotBuilt()
    {
        Server::IcpMessage q;
        q.opcode = Server::IcpOpcode::Query;
        q.url = std::string(Server::IcpMessage::MaxSize, 'a');
        CPPUNIT_ASSERT(Server::BuildIcp(q).empty());
        q.url = std::string("http://a/\0b", 11);
        CPPUNIT_ASSERT(Server::BuildIcp(q).empty());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestIcpPacket);
