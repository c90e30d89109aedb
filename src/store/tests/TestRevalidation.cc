/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/Revalidation.h"
#include "store/Index.h"
#include "store/Policy.h"
#include "store/tests/FakeDisk.h"
#include "store/tests/OwnerThread.h"
#include "store/tests/Replies.h"

#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <string>

namespace {

std::string FieldOf(const Store::Entry& e, const char* name)
{
    const auto value = e.reply()->findField(name);
    return value ? std::string(*value) : std::string("(none)");
}

} // namespace

/// Tests of Store::Revalidate() and Store::FreshenStored(): one meaning of
/// a revalidation's reply for every requester (RFC 9111 4.3.3, 4.3.4).
class TestRevalidation : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestRevalidation);
    CPPUNIT_TEST(notModifiedFreshensTheStoredHeadOnce);
    CPPUNIT_TEST(notModifiedKeepsTheStoredFraming);
    CPPUNIT_TEST(notModifiedFreshensADiskObjectOnDisk);
    CPPUNIT_TEST(notModifiedToACopyFreshensTheStoredObject);
    CPPUNIT_TEST(serverErrorIsStaleOrErrorAsAllowed);
    CPPUNIT_TEST(anythingElseIsModified);
    CPPUNIT_TEST_SUITE_END();

public:
    void setUp() override
    {
        index_ = std::make_unique<Store::Index>(Store::MakePolicy("lru"), 1 << 20);
        stale_ = MakeRef<Store::Entry>(1 << 20);
        auto reply =
            TestStore::MakeReply("HTTP/1.0 200 Fine\r\nETag: \"a\"\r\nContent-Length: 0\r\nX-Old: 1\r\n"
                                 "Cache-Control: max-age=0\r\n\r\n",
                                 1000);
        reply->versionMinor = 0; // an HTTP/1.0 origin
        stale_->setReply(std::move(reply));
        stale_->complete();
        const auto key = index_->insert("GET http://o/x", stale_);
        CPPUNIT_ASSERT(key);
        key_ = *key;
    }

    void tearDown() override
    {
        stale_ = nullptr;
        index_.reset();
    }

    void notModifiedFreshensTheStoredHeadOnce()
    {
        const auto reply = TestStore::MakeReply(
            "HTTP/1.1 304 Not Modified\r\nCache-Control: max-age=60\r\nX-New: 2\r\n\r\n", 2000);
        const auto hitsBefore = index_->stats().hits;
        CPPUNIT_ASSERT(Store::Revalidate(*index_, key_, *stale_, *reply, false) ==
                       Store::Revalidated::Unmodified);
        // the 304's fields replace the stored ones of their names; the rest stays
        CPPUNIT_ASSERT_EQUAL(std::string("max-age=60"), FieldOf(*stale_, "Cache-Control"));
        CPPUNIT_ASSERT_EQUAL(std::string("2"), FieldOf(*stale_, "X-New"));
        CPPUNIT_ASSERT_EQUAL(std::string("1"), FieldOf(*stale_, "X-Old"));
        CPPUNIT_ASSERT_EQUAL(std::string("\"a\""), FieldOf(*stale_, "ETag"));
        // the status line stays the origin's, its version included
        CPPUNIT_ASSERT(stale_->reply()->head.substr(0, 18) == "HTTP/1.0 200 Fine\r");
        CPPUNIT_ASSERT_EQUAL(time_t(2000), stale_->reply()->responseTime);
        CPPUNIT_ASSERT_EQUAL(hitsBefore + 1, index_->stats().hits);
        // a second requester of the same 304 (a joiner) finds it applied
        const auto head = stale_->reply()->head;
        CPPUNIT_ASSERT(Store::Revalidate(*index_, key_, *stale_, *reply, false) ==
                       Store::Revalidated::Unmodified);
        CPPUNIT_ASSERT(stale_->reply()->head.data() == head.data()); // not merged again
        CPPUNIT_ASSERT_EQUAL(hitsBefore + 1, index_->stats().hits);
    }

    /// a disk object's freshened head goes to the disk store (once per
    /// 304), and the memory index is not touched
    void notModifiedFreshensADiskObjectOnDisk()
    {
        TestStore::FakeDisk disk;
        auto onDisk = MakeRef<Store::Entry>(1);
        onDisk->setReply(TestStore::MakeReply(
            "HTTP/1.1 200 OK\r\nETag: \"d\"\r\nContent-Length: 5\r\nCache-Control: max-age=0\r\n\r\n", 1000));
        onDisk->complete();
        const auto reply =
            TestStore::MakeReply("HTTP/1.1 304 Not Modified\r\nCache-Control: max-age=60\r\n\r\n", 2000);
        const auto hitsBefore = index_->stats().hits;
        CPPUNIT_ASSERT(Store::Revalidate(*index_, "GET http://o/d", *onDisk, *reply, false, &disk) ==
                       Store::Revalidated::Unmodified);
        CPPUNIT_ASSERT_EQUAL(size_t(1), disk.freshened.size());
        CPPUNIT_ASSERT_EQUAL(std::string("GET http://o/d"), disk.freshened[0].first);
        CPPUNIT_ASSERT_EQUAL(std::string(onDisk->reply()->head), disk.freshened[0].second);
        CPPUNIT_ASSERT(disk.freshened[0].second.find("max-age=60") != std::string::npos);
        CPPUNIT_ASSERT_EQUAL(hitsBefore, index_->stats().hits);
        CPPUNIT_ASSERT(Store::Revalidate(*index_, "GET http://o/d", *onDisk, *reply, false, &disk) ==
                       Store::Revalidated::Unmodified);
        CPPUNIT_ASSERT_EQUAL(size_t(1), disk.freshened.size());
    }

    /// workers sharing the memory cache: a 304 to a revalidation of a copy
    /// of another worker's object freshens the object stored (Index::adopt())
    void notModifiedToACopyFreshensTheStoredObject()
    {
        Store::Index shared(Store::MakePolicy("lru"), 1 << 20);
        shared.setShared();
        TestStore::OwnerThread owner;
        Store::EntryRef stored;
        owner.run([&] {
            stored = MakeRef<Store::Entry>(1 << 20);
            stored->setReply(TestStore::MakeReply(
                "HTTP/1.1 200 OK\r\nETag: \"a\"\r\nContent-Length: 0\r\nCache-Control: max-age=0\r\n\r\n",
                1000));
            stored->complete();
            CPPUNIT_ASSERT(shared.insert("GET http://o/y", stored));
        });
        const auto copy = shared.findVariant("GET http://o/y", {});
        CPPUNIT_ASSERT(copy.copied);
        const auto reply =
            TestStore::MakeReply("HTTP/1.1 304 Not Modified\r\nCache-Control: max-age=60\r\n\r\n", 2000);
        CPPUNIT_ASSERT(Store::Revalidate(shared, copy.key, *copy.entry, *reply, false) ==
                       Store::Revalidated::Unmodified);
        CPPUNIT_ASSERT_EQUAL(std::string("max-age=60"), FieldOf(*copy.entry, "Cache-Control"));
        // stored now: this thread's freshened copy, which the owner copies in turn
        const auto mine = shared.find("GET http://o/y");
        CPPUNIT_ASSERT(mine && mine != copy.entry);
        CPPUNIT_ASSERT_EQUAL(std::string("max-age=60"), FieldOf(*mine, "Cache-Control"));
        CPPUNIT_ASSERT_EQUAL(time_t(2000), mine->reply()->responseTime);
        owner.run([&] {
            const auto seen = shared.find("GET http://o/y");
            CPPUNIT_ASSERT(seen && seen->isCopy());
            CPPUNIT_ASSERT_EQUAL(std::string("max-age=60"), FieldOf(*seen, "Cache-Control"));
            CPPUNIT_ASSERT(!stored->isKept()); // dropped; that find() reaped it
            stored = nullptr;
        });
        shared.clear();
    }

    void notModifiedKeepsTheStoredFraming()
    {
        // a 304 never changes how the stored body is framed
        const auto reply =
            TestStore::MakeReply("HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\n\r\n", 3000);
        CPPUNIT_ASSERT(Store::Revalidate(*index_, key_, *stale_, *reply, false) ==
                       Store::Revalidated::Unmodified);
        CPPUNIT_ASSERT_EQUAL(std::string("0"), FieldOf(*stale_, "Content-Length"));
    }

    void serverErrorIsStaleOrErrorAsAllowed()
    {
        const auto head = stale_->reply()->head;
        for (const int status : {500, 502, 503, 504, 599}) {
            const auto reply = TestStore::MakeReply(
                "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Length: 0\r\n\r\n", 4000);
            CPPUNIT_ASSERT(Store::Revalidate(*index_, key_, *stale_, *reply, true) ==
                           Store::Revalidated::ServeStale);
            CPPUNIT_ASSERT(Store::Revalidate(*index_, key_, *stale_, *reply, false) ==
                           Store::Revalidated::Error);
        }
        CPPUNIT_ASSERT(stale_->reply()->head.data() == head.data()); // untouched
    }

    void anythingElseIsModified()
    {
        for (const int status : {200, 203, 301, 404, 410, 499}) {
            const auto reply = TestStore::MakeReply(
                "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Length: 0\r\n\r\n", 5000);
            CPPUNIT_ASSERT(Store::Revalidate(*index_, key_, *stale_, *reply, true) ==
                           Store::Revalidated::Modified);
        }
        // a 304 about an object that has no head any more is not about it
        auto headless = MakeRef<Store::Entry>(1 << 20);
        const auto notModified = TestStore::MakeReply("HTTP/1.1 304 Not Modified\r\n\r\n", 6000);
        CPPUNIT_ASSERT(Store::Revalidate(*index_, key_, *headless, *notModified, true) ==
                       Store::Revalidated::Modified);
    }

private:
    std::unique_ptr<Store::Index> index_;
    Store::EntryRef stale_;
    std::string key_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestRevalidation);
