/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/Lookup.h"
#include "store/tests/FakeDisk.h"
#include "http/RequestParser.h"
#include "store/InFlight.h"
#include "store/Index.h"
#include "store/Key.h"
#include "store/Policy.h"
#include "store/tests/Replies.h"

#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <string>

namespace {

/// the URL every test's request asks for
const std::string Url = "http://example.test/object";
/// the time of every lookup
constexpr time_t Now = 1'800'000'000;

} // namespace

/// Tests of Store::LookUp(): what the cache can do for a GET (RFC 9111
/// section 4, RFC 5861, negative_ttl, collapsed_forwarding, only-if-cached).
class TestLookup : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestLookup);
    CPPUNIT_TEST(nothingStoredIsAMiss);
    CPPUNIT_TEST(pendingMissIsJoinedWhenCollapsing);
    CPPUNIT_TEST(onlyIfCachedMissIsUnavailable);
    CPPUNIT_TEST(freshObjectIsAHit);
    CPPUNIT_TEST(objectStillArrivingIsJoinedWhenAllowed);
    CPPUNIT_TEST(negativeObjectIsAHitUntilItExpires);
    CPPUNIT_TEST(staleWhileRevalidateServesStaleOnce);
    CPPUNIT_TEST(staleObjectIsValidated);
    CPPUNIT_TEST(reloadForwardsUnconditionally);
    CPPUNIT_TEST(varyVariantIsFoundByTheRequestFields);
    CPPUNIT_TEST(freshDiskObjectIsAHitWithItsFile);
    CPPUNIT_TEST(staleDiskObjectIsValidatedWithItsFile);
    CPPUNIT_TEST(memoryIsAskedBeforeTheDisk);
    CPPUNIT_TEST(diskVariantIsTheOneTheRequestSelects);
    CPPUNIT_TEST_SUITE_END();

public:
    void setUp() override
    {
        index_ = std::make_unique<Store::Index>(Store::MakePolicy("lru"), 1 << 20);
        inFlight_ = std::make_unique<Store::InFlight>();
        options_ = Store::LookupOptions();
        options_.now = Now;
        options_.collapsedForwarding = true;
    }

    void tearDown() override
    {
        inFlight_.reset();
        index_.reset();
    }

    void nothingStoredIsAMiss()
    {
        const auto found = lookUp();
        CPPUNIT_ASSERT(found.kind == Store::Lookup::Kind::Miss);
        CPPUNIT_ASSERT(!found.entry);
    }

    void pendingMissIsJoinedWhenCollapsing()
    {
        auto fetch = MakeRef<Store::Entry>(1024);
        inFlight_->setPendingMiss(key(), fetch);
        auto found = lookUp();
        CPPUNIT_ASSERT(found.kind == Store::Lookup::Kind::Join);
        CPPUNIT_ASSERT(found.entry == fetch);
        // not without collapsed_forwarding, nor for a request with a body
        options_.collapsedForwarding = false;
        CPPUNIT_ASSERT(lookUp().kind == Store::Lookup::Kind::Miss);
        options_.collapsedForwarding = true;
        options_.hasBody = true;
        CPPUNIT_ASSERT(lookUp().kind == Store::Lookup::Kind::Miss);
    }

    void onlyIfCachedMissIsUnavailable()
    {
        CPPUNIT_ASSERT(lookUp("Cache-Control: only-if-cached\r\n").kind == Store::Lookup::Kind::Unavailable);
        // a fetch in flight may answer it
        inFlight_->setPendingMiss(key(), MakeRef<Store::Entry>(1024));
        CPPUNIT_ASSERT(lookUp("Cache-Control: only-if-cached\r\n").kind == Store::Lookup::Kind::Join);
    }

    void freshObjectIsAHit()
    {
        auto stored =
            store("HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 0\r\n\r\n", Now - 10);
        const auto hitsBefore = index_->stats().hits;
        const auto found = lookUp();
        CPPUNIT_ASSERT(found.kind == Store::Lookup::Kind::Hit);
        CPPUNIT_ASSERT(found.entry == stored);
        CPPUNIT_ASSERT_EQUAL(key(), found.fullKey);
        CPPUNIT_ASSERT_EQUAL(int64_t(10), found.age);
        CPPUNIT_ASSERT_EQUAL(hitsBefore + 1, index_->stats().hits);
        // the request's max-age may make it too old
        CPPUNIT_ASSERT(lookUp("Cache-Control: max-age=5\r\n").kind == Store::Lookup::Kind::Validate);
    }

    void objectStillArrivingIsJoinedWhenAllowed()
    {
        auto arriving = store("HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\n\r\n", Now, false);
        auto found = lookUp();
        CPPUNIT_ASSERT(found.kind == Store::Lookup::Kind::Join);
        CPPUNIT_ASSERT(found.entry == arriving);
        options_.collapsedForwarding = false;
        CPPUNIT_ASSERT(lookUp().kind == Store::Lookup::Kind::Miss);
        // a request that may not ask the origin reads it anyway
        CPPUNIT_ASSERT(lookUp("Cache-Control: only-if-cached\r\n").kind == Store::Lookup::Kind::Join);
    }

    void negativeObjectIsAHitUntilItExpires()
    {
        auto error = store("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", Now - 5);
        error->setNegativeUntil(Now + 25);
        auto found = lookUp();
        CPPUNIT_ASSERT(found.kind == Store::Lookup::Kind::NegativeHit);
        CPPUNIT_ASSERT_EQUAL(int64_t(5), found.age);
        // a reload drops it
        CPPUNIT_ASSERT(lookUp("Cache-Control: no-cache\r\n").kind == Store::Lookup::Kind::Miss);
        CPPUNIT_ASSERT_EQUAL(size_t(0), index_->objectCount());
        // and so does its expiry
        error = store("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", Now - 5);
        error->setNegativeUntil(Now);
        CPPUNIT_ASSERT(lookUp().kind == Store::Lookup::Kind::Miss);
        CPPUNIT_ASSERT_EQUAL(size_t(0), index_->objectCount());
    }

    void staleWhileRevalidateServesStaleOnce()
    {
        auto stored = store("HTTP/1.1 200 OK\r\nCache-Control: max-age=10, stale-while-revalidate=60\r\n"
                            "ETag: \"e\"\r\nContent-Length: 0\r\n\r\n",
                            Now - 20);
        const auto found = lookUp();
        CPPUNIT_ASSERT(found.kind == Store::Lookup::Kind::StaleHit);
        CPPUNIT_ASSERT(found.entry == stored);
        CPPUNIT_ASSERT_EQUAL(int64_t(20), found.age);
        // while that revalidation runs, another request validates itself
        inFlight_->addDetached(key());
        CPPUNIT_ASSERT(lookUp().kind == Store::Lookup::Kind::Validate);
        // once it is done, the next one serves stale again
        inFlight_->forgetDetached(key());
        CPPUNIT_ASSERT(lookUp().kind == Store::Lookup::Kind::StaleHit);
        // past the window, it is validated
        options_.now = Now + 60;
        CPPUNIT_ASSERT(lookUp().kind == Store::Lookup::Kind::Validate);
    }

    void staleObjectIsValidated()
    {
        auto stored =
            store("HTTP/1.1 200 OK\r\nCache-Control: max-age=10\r\nETag: \"e\"\r\nContent-Length: 0\r\n\r\n",
                  Now - 20);
        auto found = lookUp();
        CPPUNIT_ASSERT(found.kind == Store::Lookup::Kind::Validate);
        CPPUNIT_ASSERT(found.entry == stored);
        CPPUNIT_ASSERT_EQUAL(key(), found.fullKey);
        CPPUNIT_ASSERT(!found.revalidation);
        // another client's conditional request about it answers this one too
        auto pending = MakeRef<Store::Entry>(1024);
        inFlight_->setPendingRevalidation(key(), stored, pending);
        found = lookUp();
        CPPUNIT_ASSERT(found.kind == Store::Lookup::Kind::Validate);
        CPPUNIT_ASSERT(found.revalidation == pending);
        options_.hasBody = true;
        CPPUNIT_ASSERT(!lookUp().revalidation);
        // only-if-cached: the origin may not be asked
        options_.hasBody = false;
        CPPUNIT_ASSERT(lookUp("Cache-Control: only-if-cached\r\n").kind == Store::Lookup::Kind::Unavailable);
    }

    void reloadForwardsUnconditionally()
    {
        store("HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nETag: \"e\"\r\nContent-Length: 0\r\n\r\n",
              Now);
        const auto found = lookUp("Cache-Control: no-cache\r\n");
        CPPUNIT_ASSERT(found.kind == Store::Lookup::Kind::Reload);
        CPPUNIT_ASSERT(!found.entry);
        CPPUNIT_ASSERT(lookUp("Pragma: no-cache\r\n").kind == Store::Lookup::Kind::Reload);
        CPPUNIT_ASSERT(lookUp("Cache-Control: no-cache, only-if-cached\r\n").kind ==
                       Store::Lookup::Kind::Unavailable);
    }

    void varyVariantIsFoundByTheRequestFields()
    {
        const std::string head = "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nVary: "
                                 "Accept-Language\r\nContent-Length: 0\r\n\r\n";
        auto french = store(head, Now, true, "Accept-Language: fr\r\n");
        const auto found = lookUp("Accept-Language: fr\r\n");
        CPPUNIT_ASSERT(found.kind == Store::Lookup::Kind::Hit);
        CPPUNIT_ASSERT(found.entry == french);
        CPPUNIT_ASSERT(found.fullKey != key());
        CPPUNIT_ASSERT(lookUp("Accept-Language: de\r\n").kind == Store::Lookup::Kind::Miss);
    }

    void freshDiskObjectIsAHitWithItsFile()
    {
        TestStore::FakeDisk disk;
        auto entry = MakeRef<Store::Entry>(1);
        entry->setReply(TestStore::MakeReply(
            "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 9\r\n\r\n", Now - 10));
        entry->complete();
        disk.objects[key()] = entry;
        const auto found = lookUp("", &disk);
        CPPUNIT_ASSERT(found.kind == Store::Lookup::Kind::Hit);
        CPPUNIT_ASSERT(found.entry == entry);
        CPPUNIT_ASSERT(found.file);
        CPPUNIT_ASSERT_EQUAL(int64_t(10), found.age);
        CPPUNIT_ASSERT(!lookUp().file); // without the disk: nothing
        CPPUNIT_ASSERT(lookUp().kind == Store::Lookup::Kind::Miss);
    }

    /// a stale disk object is asked about with a conditional request, as a
    /// memory one, its file kept to serve it after a 304; a reload is a
    /// Reload, and only-if-cached makes either Unavailable
    void staleDiskObjectIsValidatedWithItsFile()
    {
        TestStore::FakeDisk disk;
        auto entry = MakeRef<Store::Entry>(1);
        entry->setReply(TestStore::MakeReply(
            "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nETag: \"e\"\r\nContent-Length: 9\r\n\r\n",
            Now - 100));
        entry->complete();
        disk.objects[key()] = entry;
        const auto found = lookUp("", &disk);
        CPPUNIT_ASSERT(found.kind == Store::Lookup::Kind::Validate);
        CPPUNIT_ASSERT(found.entry == entry);
        CPPUNIT_ASSERT(found.file);
        CPPUNIT_ASSERT_EQUAL(key(), found.fullKey);
        CPPUNIT_ASSERT(!found.revalidation);
        CPPUNIT_ASSERT(lookUp("Cache-Control: no-cache\r\n", &disk).kind == Store::Lookup::Kind::Reload);
        CPPUNIT_ASSERT(lookUp("Cache-Control: only-if-cached\r\n", &disk).kind ==
                       Store::Lookup::Kind::Unavailable);
    }

    void memoryIsAskedBeforeTheDisk()
    {
        TestStore::FakeDisk disk;
        auto inMemory =
            store("HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 0\r\n\r\n", Now);
        disk.objects[key()] = MakeRef<Store::Entry>(1);
        const auto found = lookUp("", &disk);
        CPPUNIT_ASSERT(found.entry == inMemory);
        CPPUNIT_ASSERT(!found.file);
        CPPUNIT_ASSERT_EQUAL(0u, disk.finds);
    }

    /// a Vary object on disk: the variant the request selects is found,
    /// under its variant key; another variant is a miss
    void diskVariantIsTheOneTheRequestSelects()
    {
        TestStore::FakeDisk disk;
        auto french = MakeRef<Store::Entry>(1);
        french->setReply(TestStore::MakeReply("HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\n"
                                              "Vary: Accept-Language\r\nContent-Length: 9\r\n\r\n",
                                              Now));
        french->complete();
        const auto variant = Store::MakeVariantKey(key(), "accept-language:fr\n");
        disk.objects[variant] = french;
        const auto found = lookUp("Accept-Language: fr\r\n", &disk);
        CPPUNIT_ASSERT(found.kind == Store::Lookup::Kind::Hit);
        CPPUNIT_ASSERT(found.entry == french);
        CPPUNIT_ASSERT_EQUAL(variant, found.fullKey);
        CPPUNIT_ASSERT(lookUp("Accept-Language: de\r\n", &disk).kind == Store::Lookup::Kind::Miss);
        CPPUNIT_ASSERT(lookUp("", &disk).kind == Store::Lookup::Kind::Miss);
    }

private:
    /// the cache key of a GET of Url
    static std::string key() { return Store::MakeKey("GET", Url); }

    /// LookUp() for a GET of Url with the extra request fields (each ending in CRLF)
    Store::Lookup lookUp(const std::string& extra = "", Store::DiskTier* disk = nullptr)
    {
        const auto& fields = requestFields(extra);
        const auto facts = Store::RequestFacts::FromFields(Http::Method::Get, fields);
        return Store::LookUp(*index_, *inFlight_, key(), fields, facts, rule_, options_, disk);
    }

    /// stores a reply received at `at`, complete or still arriving, for a
    /// request with the extra fields
    Store::EntryRef store(const std::string& head, time_t at, bool complete = true,
                          const std::string& extra = "")
    {
        auto entry = MakeRef<Store::Entry>(1024);
        entry->setReply(TestStore::MakeReply(head, at));
        if (complete)
            entry->complete();
        CPPUNIT_ASSERT(index_->insert(key(), entry, requestFields(extra)));
        return entry;
    }

    /// the fields of a GET of Url with the extra fields (parser_ holds the bytes they name)
    const std::vector<Http::HeaderField>& requestFields(const std::string& extra)
    {
        head_ = "GET " + Url + " HTTP/1.1\r\nHost: example.test\r\n" + extra + "\r\n";
        parser_ = std::make_unique<Http::RequestParser>(head_.size() + 1);
        CPPUNIT_ASSERT(parser_->parse(head_) == Http::ParseResult::Done);
        return parser_->fields();
    }

    std::unique_ptr<Store::Index> index_;
    std::unique_ptr<Store::InFlight> inFlight_;
    Store::LookupOptions options_;
    Store::RefreshRule rule_; ///< Squid's built-in rule
    std::string head_;        ///< the request head parsed last
    std::unique_ptr<Http::RequestParser> parser_;
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestLookup);
