/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/Admission.h"
#include "store/tests/FakeDisk.h"
#include "http/RequestParser.h"
#include "store/Index.h"
#include "store/Key.h"
#include "store/Policy.h"
#include "store/tests/Replies.h"

#include <cppunit/extensions/HelperMacros.h>

#include <ctime>
#include <memory>
#include <string>

namespace {

/// the URL every test's request asks for
const std::string Url = "http://example.test/object";

/// an entry with no reply head yet, as a fetch makes it
Store::EntryRef MakeEntry()
{
    return MakeRef<Store::Entry>(64 * 1024);
}

/// an entry whose reply head is head
Store::EntryRef EntryWith(const std::string& head)
{
    auto entry = MakeEntry();
    entry->setReply(TestStore::MakeReply(head));
    return entry;
}

/// appends bytes of body to entry
void Append(Store::Entry& entry, size_t bytes)
{
    auto blob = Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), std::string(bytes, 'x'));
    entry.append(Sbuf::Slice(blob));
}

} // namespace

/// Tests of Store::Admit() (whether a fetched reply is stored: RFC 9111
/// section 3, negative_ttl, the size limits) and Store::Charge (the stored
/// object's growth while it arrives).
class TestAdmission : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestAdmission);
    CPPUNIT_TEST(freshReplyIsStored);
    CPPUNIT_TEST(noStoreReplyIsNot);
    CPPUNIT_TEST(requestNoStoreIsNotStored);
    CPPUNIT_TEST(errorIsKeptForNegativeTtl);
    CPPUNIT_TEST(privateErrorIsNotNegativelyCached);
    CPPUNIT_TEST(staleAtOnceIsStoredOnlyWithAValidator);
    CPPUNIT_TEST(replyOutsideTheSizeLimitsIsNotStored);
    CPPUNIT_TEST(storingReplacesTheStoredObject);
    CPPUNIT_TEST(varyStoresTheVariantTheRequestSelects);
    CPPUNIT_TEST(postReplyNeedsItsContentLocation);
    CPPUNIT_TEST(chargeFollowsTheGrowth);
    CPPUNIT_TEST(bodyPastTheMaximumStopsBeingKept);
    CPPUNIT_TEST(bodyEndingUnderTheMinimumIsErased);
    CPPUNIT_TEST(defaultChargeChargesNothing);
    CPPUNIT_TEST(whatMemoryDoesNotTakeGoesToDisk);
    CPPUNIT_TEST(memoryCacheModeDiskSendsMissesToDisk);
    CPPUNIT_TEST(unknownLengthOutgrowingMemoryGoesToDisk);
    CPPUNIT_TEST(diskHitEntersMemoryAsTheModeSays);
    CPPUNIT_TEST_SUITE_END();

public:
    void setUp() override
    {
        index_ = std::make_unique<Store::Index>(Store::MakePolicy("lru"), 1 << 20);
        limits_.negativeTtl = 0;
        limits_.maxObjectSize = 512 * 1024;
        limits_.minObjectSize = 0;
    }

    void tearDown() override { index_.reset(); }

    void freshReplyIsStored()
    {
        auto entry = EntryWith("HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 5\r\n\r\n");
        const auto charge = Store::Admit(*index_, limits_, spec(), entry);
        CPPUNIT_ASSERT(charge);
        CPPUNIT_ASSERT_EQUAL(Store::MakeKey("GET", Url), charge->key());
        CPPUNIT_ASSERT(charge->isCharging());
        CPPUNIT_ASSERT(entry->isKept());
        CPPUNIT_ASSERT_EQUAL(size_t(1), index_->objectCount());
        CPPUNIT_ASSERT(found() == entry);
    }

    void noStoreReplyIsNot()
    {
        auto entry = EntryWith("HTTP/1.1 200 OK\r\nCache-Control: max-age=60, no-store\r\n\r\n");
        CPPUNIT_ASSERT(!Store::Admit(*index_, limits_, spec(), entry));
        CPPUNIT_ASSERT(!entry->isKept());
        CPPUNIT_ASSERT_EQUAL(size_t(0), index_->objectCount());
    }

    void requestNoStoreIsNotStored()
    {
        // RFC 9111 5.2.1.5
        auto s = spec("Cache-Control: no-store\r\n");
        auto entry = EntryWith("HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 0\r\n\r\n");
        CPPUNIT_ASSERT(!Store::Admit(*index_, limits_, s, entry));
        CPPUNIT_ASSERT_EQUAL(size_t(0), index_->objectCount());
    }

    void errorIsKeptForNegativeTtl()
    {
        auto entry = EntryWith("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
        // without negative_ttl an error that says nothing of its freshness is not kept
        CPPUNIT_ASSERT(!Store::Admit(*index_, limits_, spec(), entry));
        limits_.negativeTtl = 30;
        const auto at = entry->reply()->responseTime;
        CPPUNIT_ASSERT(Store::Admit(*index_, limits_, spec(), entry));
        CPPUNIT_ASSERT_EQUAL(at + 30, entry->negativeUntil());
        // with its own freshness it is an ordinary object
        auto fresh = EntryWith("HTTP/1.1 404 Not Found\r\nCache-Control: max-age=5\r\n\r\n");
        CPPUNIT_ASSERT(Store::Admit(*index_, limits_, spec(), fresh));
        CPPUNIT_ASSERT_EQUAL(time_t(0), fresh->negativeUntil());
        // a status RFC 9111 would not let a cache keep without explicit
        // freshness is kept too, as Squid 5.7 does
        auto failed = EntryWith("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n");
        CPPUNIT_ASSERT(Store::Admit(*index_, limits_, spec(), failed));
        CPPUNIT_ASSERT_EQUAL(failed->reply()->responseTime + 30, failed->negativeUntil());
    }

    void privateErrorIsNotNegativelyCached()
    {
        limits_.negativeTtl = 30;
        auto entry =
            EntryWith("HTTP/1.1 404 Not Found\r\nCache-Control: private\r\nContent-Length: 0\r\n\r\n");
        CPPUNIT_ASSERT(!Store::Admit(*index_, limits_, spec(), entry));
        // nor an error to a HEAD (negative_ttl is for GETs, as Squid 5.7)
        auto s = spec();
        s.facts.method = Http::Method::Head;
        auto head = EntryWith("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
        CPPUNIT_ASSERT(!Store::Admit(*index_, limits_, s, head));
    }

    void staleAtOnceIsStoredOnlyWithAValidator()
    {
        auto bare = EntryWith("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n");
        CPPUNIT_ASSERT(!Store::Admit(*index_, limits_, spec(), bare));
        auto tagged = EntryWith("HTTP/1.1 200 OK\r\nETag: \"t\"\r\nContent-Length: 1\r\n\r\n");
        CPPUNIT_ASSERT(Store::Admit(*index_, limits_, spec(), tagged));
        // refresh_pattern store-stale keeps it anyway
        auto s = spec();
        s.rule.storeStale = true;
        auto kept = EntryWith("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n");
        CPPUNIT_ASSERT(Store::Admit(*index_, limits_, s, kept));
    }

    void replyOutsideTheSizeLimitsIsNotStored()
    {
        limits_.maxObjectSize = 1024;
        limits_.minObjectSize = 10;
        const std::string fresh = "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: ";
        CPPUNIT_ASSERT(!Store::Admit(*index_, limits_, spec(), EntryWith(fresh + "1025\r\n\r\n")));
        CPPUNIT_ASSERT(!Store::Admit(*index_, limits_, spec(), EntryWith(fresh + "9\r\n\r\n")));
        CPPUNIT_ASSERT(Store::Admit(*index_, limits_, spec(), EntryWith(fresh + "1024\r\n\r\n")));
        CPPUNIT_ASSERT(Store::Admit(*index_, limits_, spec(), EntryWith(fresh + "10\r\n\r\n")));
    }

    void storingReplacesTheStoredObject()
    {
        const std::string head = "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 0\r\n\r\n";
        auto old = EntryWith(head);
        old->complete();
        CPPUNIT_ASSERT(Store::Admit(*index_, limits_, spec(), old));
        auto replacement = EntryWith(head);
        CPPUNIT_ASSERT(Store::Admit(*index_, limits_, spec(), replacement));
        CPPUNIT_ASSERT(found() == replacement);
        CPPUNIT_ASSERT(!old->isKept());
        CPPUNIT_ASSERT_EQUAL(size_t(1), index_->objectCount());
    }

    void varyStoresTheVariantTheRequestSelects()
    {
        const std::string head = "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nVary: "
                                 "Accept-Language\r\nContent-Length: 0\r\n\r\n";
        auto french = EntryWith(head);
        auto german = EntryWith(head);
        const auto a = Store::Admit(*index_, limits_, spec("Accept-Language: fr\r\n"), french);
        const auto b = Store::Admit(*index_, limits_, spec("Accept-Language: de\r\n"), german);
        CPPUNIT_ASSERT(a && b);
        CPPUNIT_ASSERT(a->key() != b->key());
        CPPUNIT_ASSERT(found("Accept-Language: fr\r\n") == french);
        CPPUNIT_ASSERT(found("Accept-Language: de\r\n") == german);
        CPPUNIT_ASSERT_EQUAL(size_t(2), index_->objectCount());
    }

    void postReplyNeedsItsContentLocation()
    {
        // RFC 9110 9.3.3: a POST's reply answers a later GET only when it has
        // explicit freshness and names its target in Content-Location
        auto s = spec();
        s.facts.method = Http::Method::Post;
        const std::string head = "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Location: " + Url +
                                 "\r\nContent-Length: 0\r\n\r\n";
        CPPUNIT_ASSERT(!Store::Admit(*index_, limits_, s, EntryWith(head)));
        s.contentLocationIsTarget = true;
        CPPUNIT_ASSERT(Store::Admit(*index_, limits_, s, EntryWith(head)));
    }

    void chargeFollowsTheGrowth()
    {
        auto entry = EntryWith("HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\n\r\n");
        auto charge = Store::Admit(*index_, limits_, spec(), entry);
        CPPUNIT_ASSERT(charge);
        const auto before = index_->bytesHeld();
        Append(*entry, 1000);
        CPPUNIT_ASSERT_EQUAL(before, index_->bytesHeld()); // charged when told
        charge->update(*entry);
        CPPUNIT_ASSERT_EQUAL(Store::Index::ChargeOf(*entry), index_->bytesHeld());
        CPPUNIT_ASSERT(index_->bytesHeld() > before);
        entry->complete();
        charge->update(*entry);
        CPPUNIT_ASSERT(charge->isCharging());
        CPPUNIT_ASSERT(found() == entry);
    }

    void bodyPastTheMaximumStopsBeingKept()
    {
        // a body of unknown length: weighed as it arrives
        limits_.maxObjectSize = 1500;
        auto entry = EntryWith("HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\n\r\n");
        auto charge = Store::Admit(*index_, limits_, spec(), entry);
        CPPUNIT_ASSERT(charge);
        Append(*entry, 1000);
        charge->update(*entry);
        CPPUNIT_ASSERT(charge->isCharging());
        Append(*entry, 1000);
        charge->update(*entry);
        CPPUNIT_ASSERT(!charge->isCharging());
        CPPUNIT_ASSERT(!entry->isKept());
        CPPUNIT_ASSERT(!found());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), index_->bytesHeld());
        charge->update(*entry); // nothing more to do
        CPPUNIT_ASSERT_EQUAL(size_t(0), index_->objectCount());
    }

    void bodyEndingUnderTheMinimumIsErased()
    {
        limits_.minObjectSize = 100;
        auto entry = EntryWith("HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\n\r\n");
        auto charge = Store::Admit(*index_, limits_, spec(), entry);
        CPPUNIT_ASSERT(charge);
        Append(*entry, 99);
        charge->update(*entry);
        CPPUNIT_ASSERT(charge->isCharging()); // it may still grow
        entry->complete();
        charge->update(*entry);
        CPPUNIT_ASSERT(!charge->isCharging());
        CPPUNIT_ASSERT(!found());
    }

    void defaultChargeChargesNothing()
    {
        auto entry = EntryWith("HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\n\r\n");
        Store::Charge none;
        CPPUNIT_ASSERT(!none.isCharging());
        Append(*entry, 10);
        none.update(*entry);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), index_->bytesHeld());
        CPPUNIT_ASSERT_EQUAL(size_t(0), index_->objectCount());
    }

    /// a reply over maximum_object_size_in_memory with a known length goes
    /// to the disk store (charging nothing to cache_mem), a Vary reply under
    /// its variant key; one with Vary "*" or past the disk's limit does not;
    /// what memory takes erases the disk's copy
    void whatMemoryDoesNotTakeGoesToDisk()
    {
        TestStore::FakeDisk disk;
        const std::string big = "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 1000000\r\n";
        auto entry = EntryWith(big + "\r\n");
        const auto charge = Store::Admit(*index_, limits_, spec(), entry, &disk);
        CPPUNIT_ASSERT(charge);
        CPPUNIT_ASSERT_EQUAL(Store::MakeKey("GET", Url), charge->key());
        CPPUNIT_ASSERT(!charge->isCharging());
        CPPUNIT_ASSERT(!entry->isKept());
        CPPUNIT_ASSERT_EQUAL(size_t(0), index_->objectCount());
        CPPUNIT_ASSERT(disk.objects[Store::MakeKey("GET", Url)] == entry);

        disk.objects.clear();
        CPPUNIT_ASSERT(!Store::Admit(*index_, limits_, spec(), EntryWith(big + "Vary: *\r\n\r\n"), &disk));
        CPPUNIT_ASSERT(disk.objects.empty());
        // a Vary reply: under the variant key the request selects
        const auto varying = Store::Admit(*index_, limits_, spec("Accept: text/html\r\n"),
                                          EntryWith(big + "Vary: Accept\r\n\r\n"), &disk);
        CPPUNIT_ASSERT(varying);
        const auto variant = Store::MakeVariantKey(Store::MakeKey("GET", Url), "accept:text/html\n");
        CPPUNIT_ASSERT_EQUAL(variant, varying->key());
        CPPUNIT_ASSERT(disk.objects.count(variant));
        CPPUNIT_ASSERT_EQUAL(std::string("accept"), *disk.varyNames(Store::MakeKey("GET", Url)));
        disk.objects.clear();
        disk.maxSize = 999999;
        CPPUNIT_ASSERT(!Store::Admit(*index_, limits_, spec(), EntryWith(big + "\r\n"), &disk));
        CPPUNIT_ASSERT(disk.objects.empty());

        // a smaller reply memory takes: the disk's copy of the key goes
        disk.objects[Store::MakeKey("GET", Url)] = entry;
        auto small = EntryWith("HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 5\r\n\r\n");
        CPPUNIT_ASSERT(Store::Admit(*index_, limits_, spec(), small, &disk));
        CPPUNIT_ASSERT(found() == small);
        CPPUNIT_ASSERT(disk.objects.empty());
    }

    void memoryCacheModeDiskSendsMissesToDisk()
    {
        TestStore::FakeDisk disk;
        limits_.memoryTakesMisses = false;
        auto entry = EntryWith("HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 5\r\n\r\n");
        CPPUNIT_ASSERT(Store::Admit(*index_, limits_, spec(), entry, &disk));
        CPPUNIT_ASSERT_EQUAL(size_t(0), index_->objectCount());
        CPPUNIT_ASSERT_EQUAL(size_t(1), disk.objects.size());
    }

    /// a reply of unknown length is kept in memory until it passes
    /// maximum_object_size_in_memory, then handed to the disk store with
    /// its body whole from offset 0; with memory_cache_mode disk it goes
    /// to disk at once
    void unknownLengthOutgrowingMemoryGoesToDisk()
    {
        TestStore::FakeDisk disk;
        limits_.maxObjectSize = 1000;
        const std::string chunked =
            "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nTransfer-Encoding: chunked\r\n\r\n";
        auto entry = EntryWith(chunked);
        auto charge = Store::Admit(*index_, limits_, spec(), entry, &disk);
        CPPUNIT_ASSERT(charge && charge->isCharging());
        CPPUNIT_ASSERT(disk.objects.empty());
        Append(*entry, 800);
        charge->update(*entry);
        CPPUNIT_ASSERT(disk.objects.empty());
        Append(*entry, 800);
        charge->update(*entry);
        CPPUNIT_ASSERT(!charge->isCharging());
        CPPUNIT_ASSERT_EQUAL(size_t(0), index_->objectCount());
        CPPUNIT_ASSERT(disk.objects[Store::MakeKey("GET", Url)] == entry);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), entry->body().startOffset());

        disk.objects.clear();
        limits_.memoryTakesMisses = false;
        auto direct = EntryWith(chunked);
        charge = Store::Admit(*index_, limits_, spec(), direct, &disk);
        CPPUNIT_ASSERT(charge && !charge->isCharging());
        CPPUNIT_ASSERT(disk.objects[Store::MakeKey("GET", Url)] == direct);
    }

    /// a disk hit is read once (readBody()) and enters memory complete,
    /// unless memory_cache_mode network, the size limit or a memory
    /// object already there keeps it out
    void diskHitEntersMemoryAsTheModeSays()
    {
        TestStore::FakeDisk disk;
        auto hit = EntryWith("HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 5\r\n\r\n");
        hit->complete();
        const auto file = MakeRef<Store::StoredFile>(-1, 0, 5);
        auto body = [] {
            std::vector<Sbuf::Slice> slices;
            slices.emplace_back(Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), "hello"));
            return slices;
        };
        limits_.memoryTakesHits = false;
        Store::Promote(*index_, limits_, disk, spec(), *hit, file);
        CPPUNIT_ASSERT(disk.reads.empty());
        limits_.memoryTakesHits = true;
        limits_.maxObjectSize = 4;
        Store::Promote(*index_, limits_, disk, spec(), *hit, file);
        CPPUNIT_ASSERT(disk.reads.empty());
        limits_.maxObjectSize = 5;
        Store::Promote(*index_, limits_, disk, spec(), *hit, file);
        CPPUNIT_ASSERT_EQUAL(size_t(1), disk.reads.size());
        CPPUNIT_ASSERT_EQUAL(size_t(0), index_->objectCount()); // not before the body is read
        disk.reads[0](body());
        const auto kept = found();
        CPPUNIT_ASSERT(kept && kept != hit);
        CPPUNIT_ASSERT(kept->isComplete());
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), kept->body().length());
        CPPUNIT_ASSERT(index_->bytesHeld() > 0);
        // a failed read (no bytes), or memory holding one already: nothing changes
        Store::Promote(*index_, limits_, disk, spec(), *hit, file);
        disk.reads[1](body());
        CPPUNIT_ASSERT(found() == kept);
        index_->erase(Store::MakeKey("GET", Url));
        Store::Promote(*index_, limits_, disk, spec(), *hit, file);
        disk.reads[2]({});
        CPPUNIT_ASSERT(!found());
    }

private:
    /// a GET of Url with the extra request fields (each ending in CRLF)
    Store::FetchSpec spec(const std::string& fields = "")
    {
        Store::FetchSpec s;
        s.cacheKey = Store::MakeKey("GET", Url);
        s.requestHead = "GET " + Url + " HTTP/1.1\r\nHost: example.test\r\n" + fields + "\r\n";
        s.facts = Store::RequestFacts::FromFields(Http::Method::Get, requestFields(s.requestHead));
        return s;
    }

    /// the fields of a request head (parser_ holds the bytes they name)
    std::vector<Http::HeaderField> requestFields(const std::string& head)
    {
        heads_.push_back(std::make_unique<std::string>(head));
        parser_ = std::make_unique<Http::RequestParser>(head.size() + 1);
        parser_->parse(*heads_.back());
        return parser_->fields();
    }

    /// what the index holds for a GET of Url with the extra request fields, or null
    Store::EntryRef found(const std::string& fields = "")
    {
        const auto s = spec(fields);
        return index_->findVariant(Store::MakeKey("GET", Url), requestFields(s.requestHead)).entry;
    }

    std::unique_ptr<Store::Index> index_;
    Store::AdmissionLimits limits_;
    std::unique_ptr<Http::RequestParser> parser_;
    std::vector<std::unique_ptr<std::string>> heads_; ///< the request heads parsed, kept for their views
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestAdmission);
