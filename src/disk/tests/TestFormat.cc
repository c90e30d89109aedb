/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "disk/Format.h"

#include <cppunit/extensions/HelperMacros.h>

#include <string>

namespace {

/// a Meta of bodyLength bytes
Disk::Meta Body(uint64_t bodyLength)
{
    Disk::Meta meta;
    meta.bodyLength = bodyLength;
    return meta;
}

} // namespace

/// Disk::Format: the header says what follows it, and refuses any change.
class TestFormat : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestFormat);
    CPPUNIT_TEST(headerRoundTrips);
    CPPUNIT_TEST(everyChangedByteIsRefused);
    CPPUNIT_TEST(shortOrForeignHeadersAreRefused);
    CPPUNIT_TEST(headMustMatch);
    CPPUNIT_TEST_SUITE_END();

public:
    void headerRoundTrips()
    {
        const std::string key = "GET http://example.com/big.iso";
        const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 5000000000\r\n\r\n";
        const uint64_t body = 5000000000ULL; // past 32 bits
        Disk::Meta in;
        in.bodyLength = body;
        in.requestTime = 1790000000;
        in.responseTime = 1790000001;
        const auto h = Disk::EncodeHeader(key, head, in);
        const auto meta = Disk::DecodeHeader(std::string_view(h.data(), h.size()));
        CPPUNIT_ASSERT(meta);
        CPPUNIT_ASSERT_EQUAL(uint32_t(key.size()), meta->keyLength);
        CPPUNIT_ASSERT_EQUAL(uint32_t(head.size()), meta->headLength);
        CPPUNIT_ASSERT_EQUAL(body, meta->bodyLength);
        CPPUNIT_ASSERT_EQUAL(int64_t(1790000000), meta->requestTime);
        CPPUNIT_ASSERT_EQUAL(int64_t(1790000001), meta->responseTime);
        CPPUNIT_ASSERT_EQUAL(uint64_t(64 + key.size()), meta->headOffset());
        CPPUNIT_ASSERT_EQUAL(uint64_t(64 + key.size() + head.size()), meta->bodyOffset());
        CPPUNIT_ASSERT_EQUAL(meta->bodyOffset() + body, meta->fileSize());
        CPPUNIT_ASSERT(Disk::HeadMatches(*meta, key, head));
    }

    void everyChangedByteIsRefused()
    {
        const auto h = Disk::EncodeHeader("k", "HTTP/1.1 200 OK\r\n\r\n", Body(10));
        for (size_t i = 0; i < h.size(); ++i) {
            auto torn = h;
            torn[i] ^= 0x10;
            CPPUNIT_ASSERT_MESSAGE("byte " + std::to_string(i),
                                   !Disk::DecodeHeader(std::string_view(torn.data(), torn.size())));
        }
        // a header of zeros (a file whose header was never written) is refused
        const std::string zeros(Disk::HeaderSize, '\0');
        CPPUNIT_ASSERT(!Disk::DecodeHeader(zeros));
    }

    void shortOrForeignHeadersAreRefused()
    {
        const auto h = Disk::EncodeHeader("k", "h", Body(1));
        CPPUNIT_ASSERT(!Disk::DecodeHeader(std::string_view(h.data(), h.size() - 1)));
        CPPUNIT_ASSERT(!Disk::DecodeHeader(std::string(64, 'x')));
    }

    void headMustMatch()
    {
        const std::string head = "HTTP/1.1 200 OK\r\nETag: \"a\"\r\n\r\n";
        const auto h = Disk::EncodeHeader("GET http://a/", head, Body(3));
        const auto meta = Disk::DecodeHeader(std::string_view(h.data(), h.size()));
        CPPUNIT_ASSERT(meta);
        CPPUNIT_ASSERT(!Disk::HeadMatches(*meta, "GET http://b/", head));
        std::string changed = head;
        changed[25] = 'b';
        CPPUNIT_ASSERT(!Disk::HeadMatches(*meta, "GET http://a/", changed));
        CPPUNIT_ASSERT(!Disk::HeadMatches(*meta, "GET http://a/", head.substr(1)));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestFormat);
