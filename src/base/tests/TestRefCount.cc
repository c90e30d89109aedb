/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "base/RefCount.h"

#include <cppunit/extensions/HelperMacros.h>

#include <type_traits>
#include <utility>

#if defined(CUTTLE_ATOMIC_REFCOUNT)
static_assert(std::is_same_v<RefCountable::Counter, std::atomic<uint32_t>>, "the switch makes counts atomic");
#else
static_assert(std::is_same_v<RefCountable::Counter, uint32_t>, "counts are plain without the switch");
#endif

namespace {

/// counts live instances so tests can see deletion
class Counted : public RefCountable {
public:
    explicit Counted(int* live) : live_(live) { ++*live_; }
    ~Counted() override { --*live_; }
    int value = 0; ///< payload
private:
    int* live_;
};

/// a derived class, to test converting pointers
class DerivedCounted : public Counted {
public:
    using Counted::Counted;
};

/// a node of a singly linked list whose links are counted pointers
class Node : public RefCountable {
public:
    explicit Node(int* live) : live_(live) { ++*live_; }
    ~Node() override { --*live_; }
    RefCount<Node> next; ///< the rest of the list, owned through the count
private:
    int* live_;
};

} // namespace

/// Tests of RefCount<T> and RefCountable.
class TestRefCount : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestRefCount);
    CPPUNIT_TEST(nullByDefault);
    CPPUNIT_TEST(lastReferenceDeletes);
    CPPUNIT_TEST(copySharesAndCounts);
    CPPUNIT_TEST(moveTransfersWithoutCounting);
    CPPUNIT_TEST(selfAssignKeepsObject);
    CPPUNIT_TEST(selfMoveKeepsObject);
    CPPUNIT_TEST(assignReleasesOldObject);
    CPPUNIT_TEST(derivedConvertsToBase);
    CPPUNIT_TEST(copiedObjectStartsUncounted);
    CPPUNIT_TEST(moveFromInsideTheOldObject);
    CPPUNIT_TEST(resetOfPointerInsideItsObject);
    CPPUNIT_TEST_SUITE_END();

public:
    /// a default pointer is null and compares equal to nullptr
    void nullByDefault()
    {
        RefCount<Counted> p;
        CPPUNIT_ASSERT(!p);
        CPPUNIT_ASSERT(p == nullptr);
        CPPUNIT_ASSERT(p.getRaw() == nullptr);
    }

    /// the object lives exactly as long as some pointer refers to it
    void lastReferenceDeletes()
    {
        int live = 0;
        {
            auto p = MakeRef<Counted>(&live);
            CPPUNIT_ASSERT_EQUAL(1, live);
            CPPUNIT_ASSERT_EQUAL(1u, p->refCount());
            {
                RefCount<Counted> q = p;
                CPPUNIT_ASSERT_EQUAL(2u, p->refCount());
            }
            CPPUNIT_ASSERT_EQUAL(1, live);
            CPPUNIT_ASSERT_EQUAL(1u, p->refCount());
        }
        CPPUNIT_ASSERT_EQUAL(0, live);
    }

    /// a copy points at the same object and adds exactly one count
    void copySharesAndCounts()
    {
        int live = 0;
        auto p = MakeRef<Counted>(&live);
        RefCount<Counted> q(p);
        RefCount<Counted> r;
        r = q;
        CPPUNIT_ASSERT(p == q && q == r);
        CPPUNIT_ASSERT_EQUAL(3u, p->refCount());
        q->value = 7;
        CPPUNIT_ASSERT_EQUAL(7, r->value);
        CPPUNIT_ASSERT_EQUAL(1, live);
    }

    /// a move leaves the source null and the count unchanged
    void moveTransfersWithoutCounting()
    {
        int live = 0;
        auto p = MakeRef<Counted>(&live);
        Counted* raw = p.getRaw();
        RefCount<Counted> q(std::move(p));
        CPPUNIT_ASSERT(!p); // NOLINT(bugprone-use-after-move): the property under test
        CPPUNIT_ASSERT(q.getRaw() == raw);
        CPPUNIT_ASSERT_EQUAL(1u, q->refCount());
        RefCount<Counted> r;
        r = std::move(q);
        CPPUNIT_ASSERT(!q); // NOLINT(bugprone-use-after-move)
        CPPUNIT_ASSERT_EQUAL(1u, r->refCount());
        CPPUNIT_ASSERT_EQUAL(1, live);
    }

    /// assigning a pointer to itself neither deletes nor recounts
    void selfAssignKeepsObject()
    {
        int live = 0;
        auto p = MakeRef<Counted>(&live);
        auto& alias = p;
        p = alias;
        CPPUNIT_ASSERT(p);
        CPPUNIT_ASSERT_EQUAL(1u, p->refCount());
        CPPUNIT_ASSERT_EQUAL(1, live);
    }

    /// moving a pointer into itself keeps the object
    void selfMoveKeepsObject()
    {
        int live = 0;
        auto p = MakeRef<Counted>(&live);
        auto& alias = p;
        p = std::move(alias);
        CPPUNIT_ASSERT(p);
        CPPUNIT_ASSERT_EQUAL(1u, p->refCount());
        CPPUNIT_ASSERT_EQUAL(1, live);
    }

    /// assigning another object (or null) drops the old one's last reference
    void assignReleasesOldObject()
    {
        int live = 0;
        auto p = MakeRef<Counted>(&live);
        auto q = MakeRef<Counted>(&live);
        CPPUNIT_ASSERT_EQUAL(2, live);
        p = q;
        CPPUNIT_ASSERT_EQUAL(1, live);
        CPPUNIT_ASSERT_EQUAL(2u, q->refCount());
        p = nullptr;
        q.reset();
        CPPUNIT_ASSERT_EQUAL(0, live);
    }

    /// a pointer to a derived class converts to a pointer to its base, sharing
    void derivedConvertsToBase()
    {
        int live = 0;
        auto d = MakeRef<DerivedCounted>(&live);
        RefCount<Counted> b = d;
        CPPUNIT_ASSERT_EQUAL(2u, d->refCount());
        RefCount<Counted> m = std::move(d);
        CPPUNIT_ASSERT_EQUAL(2u, b->refCount());
        b.reset();
        m.reset();
        CPPUNIT_ASSERT_EQUAL(0, live);
    }

    /// copying a counted object makes a new object with its own zero count
    void copiedObjectStartsUncounted()
    {
        int live = 0;
        auto p = MakeRef<Counted>(&live);
        auto q = p;
        Counted copy(*p);
        CPPUNIT_ASSERT_EQUAL(0u, copy.refCount());
        CPPUNIT_ASSERT_EQUAL(2u, p->refCount());
    }

    /// assigning a pointer that lives inside the object being dropped (list
    /// = list->next) takes the new object before the old one is deleted
    void moveFromInsideTheOldObject()
    {
        int live = 0;
        RefCount<Node> list = MakeRef<Node>(&live);
        list->next = MakeRef<Node>(&live);
        list->next->next = MakeRef<Node>(&live);
        CPPUNIT_ASSERT_EQUAL(3, live);
        list = std::move(list->next);
        CPPUNIT_ASSERT_EQUAL(2, live);
        CPPUNIT_ASSERT(list->next);
        CPPUNIT_ASSERT_EQUAL(1u, list->refCount());
        RefCount<Node> copy = list->next;
        list = copy->next; // null: the copy keeps the tail alive
        CPPUNIT_ASSERT(!list);
        CPPUNIT_ASSERT_EQUAL(1, live);
    }

    /// reset() of a pointer that its own object holds (a self-reference
    /// broken on purpose) deletes the object without writing to it afterwards
    void resetOfPointerInsideItsObject()
    {
        int live = 0;
        Node* raw = new Node(&live);
        raw->next = RefCount<Node>(raw); // the only reference, inside the object
        CPPUNIT_ASSERT_EQUAL(1u, raw->refCount());
        raw->next.reset();
        CPPUNIT_ASSERT_EQUAL(0, live);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestRefCount);
