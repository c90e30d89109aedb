/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/InFlight.h"
#include "store/Entry.h"

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

/// what the other workers would see: the keys announced, and a mirror to give
struct FakeRemote : Store::RemoteMisses {
    void notePending(const std::string& key, const Store::EntryRef&) override { announced.push_back(key); }
    void noteForgotten(const std::string& key) override { forgotten.push_back(key); }
    Store::EntryRef mirror(const std::string& key) override
    {
        asked.push_back(key);
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
    CPPUNIT_TEST(pendingMissesAreAnnouncedAndOthersMirrored);
    CPPUNIT_TEST_SUITE_END();

public:
    /// with workers: a pending miss is announced until it is forgotten; a
    /// key with no local fetch is asked of the others, a local one is not
    void pendingMissesAreAnnouncedAndOthersMirrored()
    {
        Store::InFlight f;
        FakeRemote remote;
        f.setRemote(&remote);
        const auto fetch = NewEntry();
        f.setPendingMiss("k", fetch);
        CPPUNIT_ASSERT(remote.announced == std::vector<std::string>{"k"});
        CPPUNIT_ASSERT(f.joinableMiss("k") == fetch);
        CPPUNIT_ASSERT(remote.asked.empty()); // a local fetch is joined locally
        remote.mirrorToGive = NewEntry();
        CPPUNIT_ASSERT(f.joinableMiss("other") == remote.mirrorToGive);
        CPPUNIT_ASSERT(remote.asked == std::vector<std::string>{"other"});
        remote.mirrorToGive = nullptr;
        CPPUNIT_ASSERT(!f.joinableMiss("none"));
        f.forget(NewEntry(), "k", ""); // another fetch: k stays
        CPPUNIT_ASSERT(remote.forgotten.empty());
        f.forget(fetch, "k", "");
        CPPUNIT_ASSERT(remote.forgotten == std::vector<std::string>{"k"});
        f.setPendingMiss("j", NewEntry());
        f.clear();
        CPPUNIT_ASSERT(remote.forgotten == (std::vector<std::string>{"k", "j"}));
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
