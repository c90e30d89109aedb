/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/Index.h"
#include "sbuf/BlockPool.h"
#include "sbuf/MemBlob.h"
#include "store/Entry.h"
#include "store/Key.h"
#include "store/Policy.h"
#include "store/tests/OwnerThread.h"

#include <cppunit/extensions/HelperMacros.h>

#include <span>
#include <string>
#include <vector>

namespace {

/// a reply head with one field
constexpr std::string_view Head = "HTTP/1.1 200 OK\r\nX-Test: yes\r\n\r\n";

/// an entry with Head and bodyBytes of 'b' in blocks of pool, complete or not
Store::EntryRef MakeEntry(Sbuf::BlockPool& pool, size_t bodyBytes, bool complete = true)
{
    auto entry = MakeRef<Store::Entry>(64 * 1024);
    auto reply = std::make_unique<Store::Reply>();
    reply->status = 200;
    reply->block = Sbuf::MemBlob::MakeCopy(pool, Head);
    reply->head = reply->block->view();
    reply->setFields({{reply->head.substr(17, 6), reply->head.substr(25, 3)}});
    entry->setReply(std::move(reply));
    for (size_t left = bodyBytes; left;) {
        const size_t n = std::min<size_t>(left, 4096);
        auto blob = Sbuf::MemBlob::Make(pool, n);
        blob->append(std::string(n, 'b'));
        entry->append(Sbuf::Slice(blob));
        left -= n;
    }
    if (complete)
        entry->complete();
    return entry;
}

std::string Key(int i)
{
    return Store::MakeKey("GET", "http://example.com/" + std::to_string(i));
}

/// the body of an entry as a string
std::string BodyOf(const Store::Entry& entry)
{
    std::string out(entry.body().length(), '\0');
    entry.body().copyOut(entry.body().startOffset(), std::span<char>(out.data(), out.size()));
    return out;
}

} // namespace

/// Tests of Store::Index shared by threads (setShared(): `workers N`).
class TestSharedIndex : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestSharedIndex);
    CPPUNIT_TEST(anotherThreadGetsACopy);
    CPPUNIT_TEST(anotherThreadsObjectInFlightIsNotFound);
    CPPUNIT_TEST(droppedObjectsWaitForTheirOwner);
    CPPUNIT_TEST(onlyTheOwnerChangesAStoredEntry);
    CPPUNIT_TEST(adoptFreshensTheStoredObject);
    CPPUNIT_TEST(leaveDropsWhatTheThreadStored);
    CPPUNIT_TEST(eachThreadHasItsObserver);
    CPPUNIT_TEST(forEachObjectShowsOthersCompleteOnly);
    CPPUNIT_TEST_SUITE_END();

public:
    void setUp() override
    {
        index = std::make_unique<Store::Index>(Store::MakePolicy("lru"), 1 << 20);
        index->setShared();
    }
    void tearDown() override
    {
        index.reset(); // before the pool of the owner's entries
    }

    /// a complete object another thread stored is found as a copy: the same
    /// head, fields and body, in this thread's blocks, counted as a hit
    void anotherThreadGetsACopy()
    {
        Store::EntryRef stored;
        owner.run([&] {
            stored = MakeEntry(pool, 10000);
            CPPUNIT_ASSERT(index->insert(Key(1), stored));
        });
        const auto copiesBefore = Sbuf::DefaultPool().copyStats().workerCopies;
        const auto found = index->findVariant(Key(1), {});
        CPPUNIT_ASSERT(found);
        CPPUNIT_ASSERT(found.copied);
        CPPUNIT_ASSERT(found.entry != stored);
        CPPUNIT_ASSERT(found.entry->isCopy());
        CPPUNIT_ASSERT(found.entry->isComplete());
        CPPUNIT_ASSERT(!found.entry->isKept());
        CPPUNIT_ASSERT_EQUAL(Head, found.entry->reply()->head);
        CPPUNIT_ASSERT(found.entry->reply()->block != stored->reply()->block);
        CPPUNIT_ASSERT_EQUAL(std::string("yes"), std::string(*found.entry->reply()->findField("x-test")));
        CPPUNIT_ASSERT_EQUAL(std::string(10000, 'b'), BodyOf(*found.entry));
        CPPUNIT_ASSERT_EQUAL(copiesBefore + 1, Sbuf::DefaultPool().copyStats().workerCopies);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), index->stats().hits);
        // find() copies too; the owner gets its own entry
        CPPUNIT_ASSERT(index->find(Key(1))->isCopy());
        owner.run([&] { CPPUNIT_ASSERT(index->find(Key(1)) == stored); });
        stored = nullptr;
    }

    /// collapsed forwarding stays within a worker: another thread's object
    /// in flight is not found (nor touched), the owner's thread finds it
    void anotherThreadsObjectInFlightIsNotFound()
    {
        Store::EntryRef stored;
        owner.run([&] {
            stored = MakeEntry(pool, 100, false);
            CPPUNIT_ASSERT(index->insert(Key(2), stored));
        });
        CPPUNIT_ASSERT(!index->findVariant(Key(2), {}));
        CPPUNIT_ASSERT(!index->find(Key(2)));
        owner.run([&] {
            CPPUNIT_ASSERT(index->findVariant(Key(2), {}).entry == stored);
            stored->complete(); // not yet told to the index: complete is enough
        });
        CPPUNIT_ASSERT(index->findVariant(Key(2), {}).copied);
        owner.run([&] { stored = nullptr; });
    }

    /// an object another thread drops stays kept, with the index's
    /// reference, until its owner's next call
    void droppedObjectsWaitForTheirOwner()
    {
        Store::EntryRef stored;
        owner.run([&] {
            stored = MakeEntry(pool, 100);
            CPPUNIT_ASSERT(index->insert(Key(3), stored));
        });
        const auto references = stored->refCount();
        CPPUNIT_ASSERT_EQUAL(size_t(1), index->erase(Key(3)));
        CPPUNIT_ASSERT_EQUAL(size_t(0), index->objectCount());
        CPPUNIT_ASSERT(stored->isKept());
        CPPUNIT_ASSERT_EQUAL(references, stored->refCount());
        index->reap(); // not this thread's: nothing changes
        CPPUNIT_ASSERT(stored->isKept());
        owner.run([&] {
            index->reap();
            CPPUNIT_ASSERT(!stored->isKept());
            CPPUNIT_ASSERT_EQUAL(references - 1, stored->refCount());
            stored = nullptr;
        });
    }

    /// change() runs only for the thread that stored the entry
    void onlyTheOwnerChangesAStoredEntry()
    {
        Store::EntryRef stored;
        owner.run([&] {
            stored = MakeEntry(pool, 100);
            CPPUNIT_ASSERT(index->insert(Key(4), stored));
        });
        bool ran = false;
        CPPUNIT_ASSERT(!index->change(Key(4), *stored, [&] { ran = true; }));
        CPPUNIT_ASSERT(!ran);
        owner.run([&] {
            CPPUNIT_ASSERT(index->change(Key(4), *stored, [&] { ran = true; }));
            stored = nullptr;
        });
        CPPUNIT_ASSERT(ran);
    }

    /// adopt(): a new copy, changed, takes the object's place as this
    /// thread's; a copy of a replaced object adopts nothing
    void adoptFreshensTheStoredObject()
    {
        Store::EntryRef stored;
        owner.run([&] {
            stored = MakeEntry(pool, 5000);
            CPPUNIT_ASSERT(index->insert(Key(5), stored));
        });
        const auto copy = index->findVariant(Key(5), {}).entry;
        CPPUNIT_ASSERT(copy);
        CPPUNIT_ASSERT(!index->adopt(Key(5), *stored, [](Store::Entry&) {})); // not a copy
        CPPUNIT_ASSERT(index->adopt(Key(5), *copy, [](Store::Entry& e) { e.setNegativeUntil(123); }));
        const auto mine = index->find(Key(5));
        CPPUNIT_ASSERT(mine && mine != copy); // this thread's now: not copied again
        CPPUNIT_ASSERT(mine->isKept());
        CPPUNIT_ASSERT_EQUAL(time_t(123), mine->negativeUntil());
        CPPUNIT_ASSERT_EQUAL(std::string(5000, 'b'), BodyOf(*mine));
        CPPUNIT_ASSERT_EQUAL(size_t(1), index->objectCount());
        CPPUNIT_ASSERT(!index->adopt(Key(5), *copy, [](Store::Entry&) {})); // its own now
        owner.run([&] {
            CPPUNIT_ASSERT(index->find(Key(5))->isCopy());
            CPPUNIT_ASSERT(!stored->isKept()); // reaped by that find()
            stored = nullptr;
        });
    }

    /// leave() forgets the objects of the thread that calls it, only those
    void leaveDropsWhatTheThreadStored()
    {
        Store::EntryRef a;
        Store::EntryRef b;
        owner.run([&] {
            a = MakeEntry(pool, 100);
            b = MakeEntry(pool, 100, false);
            CPPUNIT_ASSERT(index->insert(Key(6), a));
            CPPUNIT_ASSERT(index->insert(Key(7), b));
        });
        Sbuf::BlockPool mine;
        const auto own = MakeEntry(mine, 100);
        CPPUNIT_ASSERT(index->insert(Key(8), own));
        CPPUNIT_ASSERT_EQUAL(size_t(3), index->objectCount());
        owner.run([&] {
            index->leave();
            CPPUNIT_ASSERT(!a->isKept() && !b->isKept());
            a = b = nullptr;
        });
        CPPUNIT_ASSERT_EQUAL(size_t(1), index->objectCount());
        CPPUNIT_ASSERT(index->find(Key(8)) == own);
        index->clear();
    }

    /// the thread whose call lets an object go is the one told (its store.log)
    void eachThreadHasItsObserver()
    {
        std::vector<std::string> toldOwner;
        std::vector<std::string> toldHere;
        Store::EntryRef stored;
        owner.run([&] {
            index->setReleaseObserver(
                [&](std::string_view key, const Store::Entry&) { toldOwner.emplace_back(key); });
            stored = MakeEntry(pool, 100);
            CPPUNIT_ASSERT(index->insert(Key(9), stored));
        });
        index->setReleaseObserver(
            [&](std::string_view key, const Store::Entry&) { toldHere.emplace_back(key); });
        CPPUNIT_ASSERT_EQUAL(size_t(1), index->erase(Key(9)));
        CPPUNIT_ASSERT_EQUAL(size_t(1), toldHere.size());
        CPPUNIT_ASSERT_EQUAL(Key(9), toldHere[0]);
        CPPUNIT_ASSERT(toldOwner.empty());
        owner.run([&] {
            index->setReleaseObserver(nullptr);
            stored = nullptr;
        });
        index->setReleaseObserver(nullptr);
    }

    /// another thread's objects are listed when complete, marked not own
    void forEachObjectShowsOthersCompleteOnly()
    {
        Store::EntryRef complete;
        Store::EntryRef inFlight;
        owner.run([&] {
            complete = MakeEntry(pool, 100);
            inFlight = MakeEntry(pool, 100, false);
            CPPUNIT_ASSERT(index->insert(Key(10), complete));
            CPPUNIT_ASSERT(index->insert(Key(11), inFlight));
        });
        std::vector<std::pair<std::string, bool>> seen;
        index->forEachObject(
            [&](std::string_view key, const Store::Entry&, bool own) { seen.emplace_back(key, own); });
        CPPUNIT_ASSERT_EQUAL(size_t(1), seen.size());
        CPPUNIT_ASSERT_EQUAL(Key(10), seen[0].first);
        CPPUNIT_ASSERT(!seen[0].second);
        owner.run([&] {
            size_t own = 0;
            index->forEachObject([&](std::string_view, const Store::Entry&, bool isOwn) { own += isOwn; });
            CPPUNIT_ASSERT_EQUAL(size_t(2), own);
            index->leave();
            complete = inFlight = nullptr;
        });
    }

private:
    Sbuf::BlockPool pool;                ///< the owner's blocks (used on its thread only)
    TestStore::OwnerThread owner;        ///< the other worker's thread
    std::unique_ptr<Store::Index> index; ///< shared by this thread and owner's
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestSharedIndex);
