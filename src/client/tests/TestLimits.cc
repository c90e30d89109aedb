/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "client/Limits.h"
#include "sbuf/BlockPool.h"
#include "sbuf/MemBlob.h"
#include "store/Entry.h"

#include <cppunit/extensions/HelperMacros.h>

/// reply_body_max_size before anything is sent, as Squid 5.7's
/// HttpReply::expectedBodyTooLarge() (test-suite/access/body-limits.sh
/// checks the same against Squid)
class TestLimits : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestLimits);
    CPPUNIT_TEST(contentLengthOverTheLimitIsTooBig);
    CPPUNIT_TEST(noLimitOrNoBodyIsNeverTooBig);
    CPPUNIT_TEST(completeBodyWithoutLengthCounts);
    CPPUNIT_TEST_SUITE_END();

    static Store::Reply ReplyOf(int status, std::optional<uint64_t> length)
    {
        Store::Reply reply;
        reply.status = status;
        reply.contentLength = length;
        return reply;
    }

public:
    void contentLengthOverTheLimitIsTooBig()
    {
        const auto entry = MakeRef<Store::Entry>(16384);
        CPPUNIT_ASSERT(!Client::ExpectedBodyIsTooBig(1000, ReplyOf(200, 1000), *entry, false));
        CPPUNIT_ASSERT(Client::ExpectedBodyIsTooBig(1000, ReplyOf(200, 1001), *entry, false));
        // an error status with a body counts too (Squid denies a big 404)
        CPPUNIT_ASSERT(Client::ExpectedBodyIsTooBig(1000, ReplyOf(404, 1001), *entry, false));
        // a limit of 0 bytes is a limit
        CPPUNIT_ASSERT(Client::ExpectedBodyIsTooBig(0, ReplyOf(200, 1), *entry, false));
        CPPUNIT_ASSERT(!Client::ExpectedBodyIsTooBig(0, ReplyOf(200, 0), *entry, false));
    }

    void noLimitOrNoBodyIsNeverTooBig()
    {
        const auto entry = MakeRef<Store::Entry>(16384);
        CPPUNIT_ASSERT(!Client::ExpectedBodyIsTooBig(-1, ReplyOf(200, 1 << 30), *entry, false));
        // a reply to HEAD, or a 304 made from the stored reply
        CPPUNIT_ASSERT(!Client::ExpectedBodyIsTooBig(10, ReplyOf(200, 1000), *entry, true));
        for (const int status : {100, 204, 304})
            CPPUNIT_ASSERT(!Client::ExpectedBodyIsTooBig(10, ReplyOf(status, 1000), *entry, false));
        // a length not known yet: decided as the body arrives
        CPPUNIT_ASSERT(!Client::ExpectedBodyIsTooBig(10, ReplyOf(200, std::nullopt), *entry, false));
    }

    void completeBodyWithoutLengthCounts()
    {
        Sbuf::BlockPool pool;
        const auto entry = MakeRef<Store::Entry>(16384);
        auto blob = Sbuf::MemBlob::Make(pool, 100);
        blob->commit(100);
        entry->append(Sbuf::Slice(blob));
        CPPUNIT_ASSERT(!Client::ExpectedBodyIsTooBig(10, ReplyOf(200, std::nullopt), *entry, false));
        entry->complete();
        CPPUNIT_ASSERT(Client::ExpectedBodyIsTooBig(10, ReplyOf(200, std::nullopt), *entry, false));
        CPPUNIT_ASSERT(!Client::ExpectedBodyIsTooBig(100, ReplyOf(200, std::nullopt), *entry, false));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestLimits);
