/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/InFlight.h"
#include "store/Entry.h"
#include "sbuf/BlockPool.h"
#include "sbuf/MemBlob.h"

#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <string>
#include <vector>

namespace {

Store::EntryRef NewEntry()
{
    return MakeRef<Store::Entry>(1 << 20);
}

/// gives e a reply head (what it carries does not matter here)
void GiveHead(Store::Entry& e)
{
    auto reply = std::make_unique<Store::Reply>();
    reply->status = 200;
    e.setReply(std::move(reply));
}

/// what the other workers would see: the remote keys offered, and a mirror to give
struct FakeRemote : Store::RemoteFetches {
    void notePending(const std::string& remoteKey) override { announced.push_back(remoteKey); }
    void noteForgotten(const std::string& remoteKey) override { forgotten.push_back(remoteKey); }
    Store::EntryRef mirror(const std::string& remoteKey, const std::string&, const std::string&) override
    {
        asked.push_back(remoteKey);
        return mirrorToGive;
    }

    std::vector<std::string> announced;
    std::vector<std::string> forgotten;
    std::vector<std::string> asked;
    Store::EntryRef mirrorToGive;
};

} // namespace

/// Tests of Store::InFlight: which fetches a new request may join.
class TestInFlight : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestInFlight);
    CPPUNIT_TEST(missIsOfferedUntilItFails);
    CPPUNIT_TEST(revalidationIsOfferedForItsStaleObjectUntilItsHeadArrives);
    CPPUNIT_TEST(forgetRemovesOnlyThatFetch);
    CPPUNIT_TEST(detachedFetchesAreCountedPerKey);
    CPPUNIT_TEST(pendingFetchesAreOfferedAndOthersMirrored);
    CPPUNIT_TEST(copiesOfOneObjectShareItsRevalidation);
    CPPUNIT_TEST_SUITE_END();

public:
    /// with workers: a pending miss or revalidation is offered until it is
    /// forgotten (or its head arrives); a fetch with no local one to join is
    /// asked of the others, and the mirror is joined locally from then on
    void pendingFetchesAreOfferedAndOthersMirrored()
    {
        Store::InFlight f;
        FakeRemote remote;
        f.setRemote(&remote);
        const auto fetch = NewEntry();
        f.setPendingMiss("k", fetch);
        CPPUNIT_ASSERT(remote.announced == std::vector<std::string>{"k"});
        CPPUNIT_ASSERT(f.offered("k") == fetch);
        CPPUNIT_ASSERT(f.joinableMiss("k") == fetch);
        CPPUNIT_ASSERT(remote.asked.empty()); // a local fetch is joined locally
        const auto mirror = NewEntry();
        remote.mirrorToGive = mirror;
        CPPUNIT_ASSERT(f.joinableMiss("other") == mirror);
        CPPUNIT_ASSERT(remote.asked == std::vector<std::string>{"other"});
        remote.mirrorToGive = nullptr;
        CPPUNIT_ASSERT(f.joinableMiss("other") == mirror); // joined locally now
        CPPUNIT_ASSERT(!f.offered("other"));               // and not offered again
        CPPUNIT_ASSERT(remote.announced.size() == 1);
        CPPUNIT_ASSERT(!f.joinableMiss("none"));
        f.forget(NewEntry(), "k", ""); // another fetch: k stays
        f.sweepOffered();
        CPPUNIT_ASSERT(remote.forgotten.empty());
        // its head arrived, stored: still offered (a mirror reads it from its first byte) until complete
        GiveHead(*fetch);
        fetch->setKept(true);
        f.forget(fetch, "k", "");
        f.sweepOffered();
        CPPUNIT_ASSERT(f.offered("k") == fetch);
        CPPUNIT_ASSERT(remote.forgotten.empty());
        fetch->complete();
        CPPUNIT_ASSERT(!f.offered("k"));
        f.sweepOffered();
        CPPUNIT_ASSERT(remote.forgotten == std::vector<std::string>{"k"});
        // a reply that is not stored is not offered
        const auto unstored = NewEntry();
        f.setPendingMiss("u", unstored);
        GiveHead(*unstored);
        CPPUNIT_ASSERT(!f.offered("u"));
        f.sweepOffered();
        CPPUNIT_ASSERT(remote.forgotten.back() == "u");

        const auto stale = NewEntry();
        GiveHead(*stale);
        const auto conditional = NewEntry();
        f.setPendingRevalidation("full", stale, conditional);
        const auto key = Store::InFlight::RevalidationKey("full", *stale);
        CPPUNIT_ASSERT(remote.announced.back() == key);
        CPPUNIT_ASSERT(f.offered(key) == conditional);
        f.setPendingMiss("j", NewEntry());
        f.clear();
        CPPUNIT_ASSERT(remote.forgotten.size() == 4);
        CPPUNIT_ASSERT(!f.offered(key));
    }

    /// two lookups of another worker's memory object make two copies
    /// (Entry::CopyOf()): a revalidation about one serves the other
    void copiesOfOneObjectShareItsRevalidation()
    {
        Store::InFlight f;
        const auto stored = NewEntry();
        auto reply = std::make_unique<Store::Reply>();
        reply->status = 200;
        reply->responseTime = 1000;
        stored->setReply(std::move(reply));
        const std::string body(100, 'x');
        stored->append(Sbuf::Slice(Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), body), 0, body.size()));
        stored->complete();
        const auto one = Store::Entry::CopyOf(*stored);
        const auto two = Store::Entry::CopyOf(*stored);
        const auto conditional = NewEntry();
        f.setPendingRevalidation("full", one, conditional);
        CPPUNIT_ASSERT(f.pendingRevalidation("full", two) == conditional);
        CPPUNIT_ASSERT(f.pendingRevalidation("full", stored) == conditional);
        const auto other = NewEntry(); // another object, with another body
        other->setReply(std::make_unique<Store::Reply>(*stored->reply()));
        other->complete();
        CPPUNIT_ASSERT(!f.pendingRevalidation("full", other));
    }

    void missIsOfferedUntilItFails()
    {
        Store::InFlight f;
        const auto fetch = NewEntry();
        CPPUNIT_ASSERT(!f.pendingMiss("k"));
        f.setPendingMiss("k", fetch);
        CPPUNIT_ASSERT(f.pendingMiss("k") == fetch);
        CPPUNIT_ASSERT(!f.pendingMiss("other"));
        fetch->fail("origin went away");
        CPPUNIT_ASSERT(!f.pendingMiss("k")); // a joiner would wait forever
    }

    void revalidationIsOfferedForItsStaleObjectUntilItsHeadArrives()
    {
        Store::InFlight f;
        const auto stale = NewEntry();
        const auto newer = NewEntry();
        const auto reply = NewEntry();
        f.setPendingRevalidation("full", stale, reply);
        CPPUNIT_ASSERT(f.pendingRevalidation("full", stale) == reply);
        CPPUNIT_ASSERT(!f.pendingRevalidation("full", newer)); // another object is stored there now
        CPPUNIT_ASSERT(!f.pendingRevalidation("elsewhere", stale));
        GiveHead(*reply);
        CPPUNIT_ASSERT(!f.pendingRevalidation("full", stale)); // the index has the answer now
        const auto failed = NewEntry();
        f.setPendingRevalidation("full", stale, failed);
        failed->fail("timeout");
        CPPUNIT_ASSERT(!f.pendingRevalidation("full", stale));
    }

    void forgetRemovesOnlyThatFetch()
    {
        Store::InFlight f;
        const auto mine = NewEntry();
        const auto theirs = NewEntry();
        const auto stale = NewEntry();
        f.setPendingMiss("k", theirs);
        f.setPendingRevalidation("full", stale, mine);
        CPPUNIT_ASSERT_EQUAL(size_t(2), f.size());
        f.forget(mine, "k", "full"); // the miss under k is another fetch: it stays
        CPPUNIT_ASSERT(f.pendingMiss("k") == theirs);
        CPPUNIT_ASSERT(!f.pendingRevalidation("full", stale));
        CPPUNIT_ASSERT_EQUAL(size_t(1), f.size());
        f.forget(Store::EntryRef(), "k", "full"); // no fetch: nothing
        CPPUNIT_ASSERT_EQUAL(size_t(1), f.size());
        f.forget(theirs, "k", "");
        CPPUNIT_ASSERT_EQUAL(size_t(0), f.size());
    }

    void detachedFetchesAreCountedPerKey()
    {
        Store::InFlight f;
        CPPUNIT_ASSERT(!f.isDetached("k"));
        f.addDetached("k");
        f.addDetached("k"); // a background revalidation and a fetch taken over
        f.addDetached("other");
        CPPUNIT_ASSERT(f.isDetached("k"));
        CPPUNIT_ASSERT_EQUAL(size_t(3), f.size());
        f.forgetDetached("k");
        CPPUNIT_ASSERT(f.isDetached("k")); // one is still under way
        f.forgetDetached("k");
        CPPUNIT_ASSERT(!f.isDetached("k"));
        f.forgetDetached("k"); // nothing left: nothing happens
        CPPUNIT_ASSERT_EQUAL(size_t(1), f.size());
        f.clear();
        CPPUNIT_ASSERT(!f.isDetached("other"));
        CPPUNIT_ASSERT_EQUAL(size_t(0), f.size());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestInFlight);
