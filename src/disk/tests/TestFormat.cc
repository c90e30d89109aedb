/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "disk/Format.h"

#include <cppunit/extensions/HelperMacros.h>

#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace {

/// a Meta of bodyLength bytes, with head slots of 512 bytes
Disk::Meta Body(uint64_t bodyLength)
{
    Disk::Meta meta;
    meta.bodyLength = bodyLength;
    meta.headRoom = 512;
    return meta;
}

/// a store file in /tmp, removed with it
struct TempFile {
    TempFile()
    {
        char name[] = "/tmp/cuttle-format-XXXXXX";
        fd = ::mkstemp(name);
        CPPUNIT_ASSERT(fd >= 0);
        ::unlink(name);
    }
    ~TempFile() { ::close(fd); }
    /// the whole file
    std::string read() const
    {
        struct stat st {};
        ::fstat(fd, &st);
        std::string all(st.st_size, '\0');
        CPPUNIT_ASSERT(Disk::ReadAt(fd, all.data(), all.size(), 0));
        return all;
    }
    /// writes a store file of key, head (in slot 0) and body
    void write(const std::string& key, const std::string& head, const std::string& body)
    {
        auto meta = Body(body.size());
        meta.headRoom = Disk::HeadRoomFor(head.size());
        const auto h = Disk::EncodeHeader(key, head, meta);
        std::string all(h.data(), h.size());
        all += key + head;
        all.resize(64 + key.size() + 2 * meta.headRoom, '\0');
        all += body;
        CPPUNIT_ASSERT_EQUAL(ssize_t(all.size()), ::pwrite(fd, all.data(), all.size(), 0));
    }
    int fd = -1;
};

} // namespace

/// Disk::Format: the header says what follows it, and refuses any change.
class TestFormat : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestFormat);
    CPPUNIT_TEST(headerRoundTrips);
    CPPUNIT_TEST(everyChangedByteIsRefused);
    CPPUNIT_TEST(shortOrForeignHeadersAreRefused);
    CPPUNIT_TEST(headMustMatch);
    CPPUNIT_TEST(headRoomHasSlack);
    CPPUNIT_TEST(rewriteReplacesTheHeadNotTheBody);
    CPPUNIT_TEST(everyStepOfARewriteLeavesOldOrNew);
    CPPUNIT_TEST(rewriteRefusesWhatDoesNotFit);
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
        in.headRoom = 1024;
        in.headSlot = 1;
        const auto h = Disk::EncodeHeader(key, head, in);
        const auto meta = Disk::DecodeHeader(std::string_view(h.data(), h.size()));
        CPPUNIT_ASSERT(meta);
        CPPUNIT_ASSERT_EQUAL(uint32_t(key.size()), meta->keyLength);
        CPPUNIT_ASSERT_EQUAL(uint32_t(head.size()), meta->headLength);
        CPPUNIT_ASSERT_EQUAL(body, meta->bodyLength);
        CPPUNIT_ASSERT_EQUAL(int64_t(1790000000), meta->requestTime);
        CPPUNIT_ASSERT_EQUAL(int64_t(1790000001), meta->responseTime);
        CPPUNIT_ASSERT_EQUAL(uint32_t(1024), meta->headRoom);
        CPPUNIT_ASSERT_EQUAL(uint32_t(1), meta->headSlot);
        CPPUNIT_ASSERT_EQUAL(uint64_t(64 + key.size() + 1024), meta->headOffset());
        CPPUNIT_ASSERT_EQUAL(uint64_t(64 + key.size() + 2048), meta->bodyOffset());
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

    void headRoomHasSlack()
    {
        for (size_t length : {0, 1, 255, 256, 300, 1000, 5000}) {
            const auto room = Disk::HeadRoomFor(length);
            CPPUNIT_ASSERT(room >= length + 256);
            CPPUNIT_ASSERT_EQUAL(0u, room % 512);
        }
        // a head that does not fit its room is never encoded
        auto meta = Body(1);
        meta.headRoom = 4;
        CPPUNIT_ASSERT_THROW(Disk::EncodeHeader("k", "HTTP/1.1 200 OK\r\n\r\n", meta), std::exception);
    }

    /// a rewrite puts the new head in the other slot and names it, with the
    /// new times; the body's bytes are those written first
    void rewriteReplacesTheHeadNotTheBody()
    {
        TempFile f;
        const std::string key = "GET http://a/x";
        const std::string body(10000, 'b');
        f.write(key, "HTTP/1.1 200 OK\r\nETag: \"a\"\r\n\r\n", body);
        const std::string fresh = "HTTP/1.1 200 OK\r\nETag: \"a\"\r\nCache-Control: max-age=60\r\n\r\n";
        for (uint32_t round = 1; round <= 3; ++round) {
            int error = 0;
            CPPUNIT_ASSERT(Disk::RewriteHead(f.fd, key, fresh, 100 + round, 200 + round, error) ==
                           Disk::Rewrite::Done);
            const auto file = f.read();
            const auto meta = Disk::DecodeHeader(file);
            CPPUNIT_ASSERT(meta);
            CPPUNIT_ASSERT_EQUAL(round % 2, meta->headSlot);
            CPPUNIT_ASSERT(Disk::FrontMatches(*meta, file));
            CPPUNIT_ASSERT_EQUAL(fresh, std::string(Disk::HeadIn(*meta, file)));
            CPPUNIT_ASSERT_EQUAL(int64_t(200 + round), meta->responseTime);
            CPPUNIT_ASSERT_EQUAL(meta->fileSize(), uint64_t(file.size()));
            CPPUNIT_ASSERT(body == file.substr(meta->bodyOffset()));
        }
        int error = 0;
        CPPUNIT_ASSERT(Disk::RewriteHead(f.fd, "GET http://a/y", fresh, 1, 1, error) ==
                       Disk::Rewrite::NotThisKey);
    }

    /// kill -9 between the two writes of a rewrite: the file as it is after
    /// the head's write alone still holds the old object, whole
    void everyStepOfARewriteLeavesOldOrNew()
    {
        TempFile f;
        const std::string key = "GET http://a/x";
        const std::string old = "HTTP/1.1 200 OK\r\nETag: \"a\"\r\n\r\n";
        f.write(key, old, "body");
        const auto before = f.read();
        const auto meta = Disk::DecodeHeader(before);
        // the new head in the free slot, the header not yet written
        const std::string fresh = "HTTP/1.1 200 OK\r\nETag: \"a\"\r\nAge: 1\r\n\r\n";
        auto next = *meta;
        next.headSlot = 1;
        CPPUNIT_ASSERT_EQUAL(ssize_t(fresh.size()),
                             ::pwrite(f.fd, fresh.data(), fresh.size(), next.headOffset()));
        const auto between = f.read();
        const auto seen = Disk::DecodeHeader(between);
        CPPUNIT_ASSERT(seen && Disk::FrontMatches(*seen, between));
        CPPUNIT_ASSERT_EQUAL(old, std::string(Disk::HeadIn(*seen, between)));
    }

    void rewriteRefusesWhatDoesNotFit()
    {
        TempFile f;
        const std::string key = "GET http://a/x";
        f.write(key, "HTTP/1.1 200 OK\r\n\r\n", "body");
        const auto before = f.read();
        const std::string huge = "HTTP/1.1 200 OK\r\nX: " + std::string(2000, 'x') + "\r\n\r\n";
        int error = 0;
        CPPUNIT_ASSERT(Disk::RewriteHead(f.fd, key, huge, 1, 1, error) == Disk::Rewrite::NoRoom);
        CPPUNIT_ASSERT(before == f.read());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestFormat);
