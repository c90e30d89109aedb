/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "disk/Index.h"
#include "store/tests/HeapBytes.h"

#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace {

std::string Key(size_t i)
{
    char url[80];
    std::snprintf(url, sizeof(url), "GET http://www.example.com/images/photo-%06zu.jpg?w=1024&h=1024", i);
    return url;
}

Disk::Location At(uint32_t file, uint64_t body = 1000)
{
    return Disk::Location{file, 10, 200, body};
}

/// evicts every object of index, returning their file numbers in eviction order
std::vector<uint32_t> EvictionOrder(Disk::Index& index)
{
    std::vector<uint32_t> order;
    while (const auto evicted = index.evict()) {
        CPPUNIT_ASSERT(evicted->variantKey.empty());
        order.push_back(evicted->where.fileNumber);
    }
    CPPUNIT_ASSERT_EQUAL(size_t(0), index.objectCount());
    return order;
}

} // namespace

/// Disk::Index: one cache_dir's objects in memory.
class TestIndex : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestIndex);
    CPPUNIT_TEST(insertFindErase);
    CPPUNIT_TEST(replacingReturnsTheOldFile);
    CPPUNIT_TEST(oldestGoesFirstAndTouchRenews);
    CPPUNIT_TEST(lruEvictsTheLeastRecentlyUsed);
    CPPUNIT_TEST(lfudaKeepsTheFrequentlyUsed);
    CPPUNIT_TEST(lfudaAgesOutOldFavourites);
    CPPUNIT_TEST(gdsfKeepsSmallObjects);
    CPPUNIT_TEST(erasedObjectsLeaveThePolicy);
    CPPUNIT_TEST(anEvictedVariantTellsItsKey);
    CPPUNIT_TEST(rebuiltOrderFollowsFileNumbers);
    CPPUNIT_TEST(diskBytesCountWholeBlocks);
    CPPUNIT_TEST(bytesPerObject);
    CPPUNIT_TEST_SUITE_END();

public:
    void insertFindErase()
    {
        Disk::Index index;
        CPPUNIT_ASSERT(!index.insert(Key(1), At(7)));
        const auto found = index.find(Key(1));
        CPPUNIT_ASSERT(found);
        CPPUNIT_ASSERT_EQUAL(uint32_t(7), found->fileNumber);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), found->bodyLength);
        CPPUNIT_ASSERT(!index.find(Key(2)));
        CPPUNIT_ASSERT_EQUAL(size_t(1), index.objectCount());
        CPPUNIT_ASSERT(index.erase(Key(1)));
        CPPUNIT_ASSERT(!index.erase(Key(1)));
        CPPUNIT_ASSERT(!index.find(Key(1)));
        CPPUNIT_ASSERT_EQUAL(size_t(0), index.objectCount());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), index.diskBytes());
        // many objects: the table grows and finds every one
        for (uint32_t i = 0; i < 5000; ++i)
            index.insert(Key(i), At(i));
        for (uint32_t i = 0; i < 5000; ++i)
            CPPUNIT_ASSERT_EQUAL(i, index.find(Key(i))->fileNumber);
    }

    void replacingReturnsTheOldFile()
    {
        Disk::Index index;
        index.insert(Key(1), At(1));
        const auto old = index.insert(Key(1), At(2));
        CPPUNIT_ASSERT(old);
        CPPUNIT_ASSERT_EQUAL(uint32_t(1), old->fileNumber);
        CPPUNIT_ASSERT_EQUAL(uint32_t(2), index.find(Key(1))->fileNumber);
        CPPUNIT_ASSERT_EQUAL(size_t(1), index.objectCount());
    }

    void oldestGoesFirstAndTouchRenews()
    {
        Disk::Index index;
        for (uint32_t i = 0; i < 4; ++i)
            index.insert(Key(i), At(i));
        CPPUNIT_ASSERT(index.touch(Key(0)));
        CPPUNIT_ASSERT(!index.touch(Key(9)));
        index.erase(Key(2));
        std::vector<uint32_t> order;
        while (const auto oldest = index.evict())
            order.push_back(oldest->where.fileNumber);
        CPPUNIT_ASSERT((order == std::vector<uint32_t>{1, 3, 0}));
        CPPUNIT_ASSERT_EQUAL(size_t(0), index.objectCount());
    }

    void diskBytesCountWholeBlocks()
    {
        Disk::Index index;
        index.insert(Key(1), Disk::Location{1, 10, 100, 1});        // 175 bytes: one block
        index.insert(Key(2), Disk::Location{2, 10, 100, 4096 * 2}); // just over two blocks
        CPPUNIT_ASSERT_EQUAL(uint64_t(4096 + 4096 * 3), index.diskBytes());
        index.evict();
        CPPUNIT_ASSERT_EQUAL(uint64_t(4096 * 3), index.diskBytes());
    }

    /// lru (the default) and heap LRU: the least recently used goes first, a hit renews
    void lruEvictsTheLeastRecentlyUsed()
    {
        CPPUNIT_ASSERT(Disk::Index().policyName() == "lru");
        for (const auto kind : {Store::PolicyKind::Lru, Store::PolicyKind::HeapLru}) {
            Disk::Index index(kind);
            for (uint32_t i = 0; i < 4; ++i)
                index.insert(Key(i), At(i));
            for (int hits = 0; hits < 5; ++hits)
                index.touch(Key(1)); // many hits long ago do not keep it
            index.touch(Key(0));
            index.touch(Key(2));
            CPPUNIT_ASSERT_MESSAGE(std::string(index.policyName()),
                                   (EvictionOrder(index) == std::vector<uint32_t>{3, 1, 0, 2}));
        }
    }

    /// heap LFUDA: the object hit most stays, however long ago its hits were
    void lfudaKeepsTheFrequentlyUsed()
    {
        Disk::Index index(Store::PolicyKind::HeapLfuda);
        CPPUNIT_ASSERT_EQUAL(std::string("heap LFUDA"), std::string(index.policyName()));
        for (uint32_t i = 0; i < 4; ++i)
            index.insert(Key(i), At(i));
        for (int hits = 0; hits < 5; ++hits)
            index.touch(Key(1));
        index.touch(Key(0));
        index.touch(Key(2));
        // 3 (one use), then 0 and 2 (two uses, 0 used earlier), then 1 (six uses)
        CPPUNIT_ASSERT((EvictionOrder(index) == std::vector<uint32_t>{3, 0, 2, 1}));
    }

    /// heap LFUDA's aging: each eviction raises newcomers' keys, so an object
    /// popular once is evicted once newer objects outgrow it
    void lfudaAgesOutOldFavourites()
    {
        Disk::Index index(Store::PolicyKind::HeapLfuda);
        index.insert(Key(0), At(0));
        index.touch(Key(0));
        index.touch(Key(0)); // key 3
        // keep 4 objects: a newcomer enters at L + 1, and L rises with the evictions
        uint32_t next = 1;
        while (index.find(Key(0)) && next < 20) {
            index.insert(Key(next), At(next));
            ++next;
            if (index.objectCount() > 4)
                index.evict();
        }
        CPPUNIT_ASSERT_MESSAGE("an old favourite outlives the aging", !index.find(Key(0)));
        // but it outlived the newcomers of the first rounds
        CPPUNIT_ASSERT_MESSAGE(std::to_string(next), next > 8);
    }

    /// heap GDSF: of objects used as often, the largest file goes first
    void gdsfKeepsSmallObjects()
    {
        Disk::Index index(Store::PolicyKind::HeapGdsf);
        CPPUNIT_ASSERT_EQUAL(std::string("heap GDSF"), std::string(index.policyName()));
        index.insert(Key(0), At(0, 100));
        index.insert(Key(1), At(1, 1000000));
        index.insert(Key(2), At(2, 10000));
        index.insert(Key(3), At(3, 10)); // inserted last, but small
        // a large object hit often enough outweighs a small one used once
        for (int hits = 0; hits < 200; ++hits)
            index.touch(Key(2));
        CPPUNIT_ASSERT((EvictionOrder(index) == std::vector<uint32_t>{1, 0, 3, 2}));
    }

    /// an erased or replaced object leaves the policy: it is never a victim
    void erasedObjectsLeaveThePolicy()
    {
        for (const auto kind : {Store::PolicyKind::Lru, Store::PolicyKind::HeapGdsf,
                                Store::PolicyKind::HeapLfuda, Store::PolicyKind::HeapLru}) {
            Disk::Index index(kind);
            for (uint32_t i = 0; i < 6; ++i)
                index.insert(Key(i), At(i));
            index.erase(Key(0));
            index.insert(Key(3), At(30)); // replaced: a new object, used once and now
            index.touch(Key(5));
            const auto order = EvictionOrder(index);
            CPPUNIT_ASSERT_EQUAL(size_t(5), order.size());
            CPPUNIT_ASSERT(std::find(order.begin(), order.end(), 0) == order.end());
            CPPUNIT_ASSERT(std::find(order.begin(), order.end(), 3) == order.end());
            CPPUNIT_ASSERT_EQUAL(uint32_t(1), order.front());
            CPPUNIT_ASSERT_EQUAL(size_t(0), index.objectCount());
            CPPUNIT_ASSERT_EQUAL(uint64_t(0), index.diskBytes());
        }
    }

    /// the index keeps a key's hash, not the key, but for a Vary variant
    /// (Disk::Cache forgets an evicted one by its key)
    void anEvictedVariantTellsItsKey()
    {
        Disk::Index index;
        const auto variant = Store::MakeVariantKey(Key(1), "accept-encoding:gzip\n");
        index.insert(Key(0), At(0));
        index.insert(variant, Disk::Location{1, uint32_t(variant.size()), 200, 1000});
        CPPUNIT_ASSERT_EQUAL(Disk::Index::RecordBytes(Key(0)) + variant.size(),
                             Disk::Index::RecordBytes(variant));
        const auto plain = index.evict();
        CPPUNIT_ASSERT(plain);
        CPPUNIT_ASSERT(plain->hash == Store::HashKey(Key(0)));
        CPPUNIT_ASSERT_EQUAL(std::string(), plain->variantKey);
        const auto evicted = index.evict();
        CPPUNIT_ASSERT(evicted);
        CPPUNIT_ASSERT(evicted->hash == Store::HashKey(variant));
        CPPUNIT_ASSERT_EQUAL(variant, evicted->variantKey);
        CPPUNIT_ASSERT_EQUAL(uint32_t(variant.size()), evicted->where.keyLength);
        CPPUNIT_ASSERT(!index.evict());
    }

    /// after a rebuild the order starts from the file numbers (the order of
    /// storing), each object keeping its reference count
    void rebuiltOrderFollowsFileNumbers()
    {
        for (const auto kind : {Store::PolicyKind::Lru, Store::PolicyKind::HeapLru}) {
            Disk::Index index(kind);
            for (const uint32_t file : {5, 2, 9, 1, 7}) // as the scans report them
                index.insert(Key(file), At(file));
            index.touch(Key(1));
            index.orderByFileNumber();
            CPPUNIT_ASSERT_EQUAL(std::string(Store::PolicyKind::Lru == kind ? "lru" : "heap LRU"),
                                 std::string(index.policyName()));
            CPPUNIT_ASSERT_EQUAL(size_t(5), index.objectCount());
            CPPUNIT_ASSERT_MESSAGE(std::string(index.policyName()),
                                   (EvictionOrder(index) == std::vector<uint32_t>{1, 2, 5, 7, 9}));
        }
        Disk::Index lfuda(Store::PolicyKind::HeapLfuda);
        for (const uint32_t file : {5, 2, 9, 1, 7})
            lfuda.insert(Key(file), At(file));
        lfuda.touch(Key(1)); // two uses: it stays longest
        lfuda.orderByFileNumber();
        CPPUNIT_ASSERT((EvictionOrder(lfuda) == std::vector<uint32_t>{2, 5, 7, 9, 1}));
    }

    /// the budget: RAM per object on disk <= 100 bytes beyond its
    /// key, with lru and with a heap policy (which adds its array of
    /// pointers); the index keeps a 16-byte hash of the key, so whatever
    /// the key's length an object costs the same
    void bytesPerObject()
    {
        CPPUNIT_ASSERT_EQUAL(size_t(72), Disk::Index::RecordBytes(Key(0)));
        const size_t n = 20000;
        std::vector<std::string> keys;
        keys.reserve(n);
        for (size_t i = 0; i < n; ++i)
            keys.push_back(Key(i));
        for (const auto kind : {Store::PolicyKind::Lru, Store::PolicyKind::HeapLfuda}) {
            const size_t before = TestStore::HeapBytesInUse();
            Disk::Index index(kind); // its first buckets are counted too
            for (size_t i = 0; i < n; ++i)
                index.insert(keys[i], At(uint32_t(i)));
            const size_t after = TestStore::HeapBytesInUse();
            const double perObject = double(after - before) / n;
            std::printf(
                "\n%s: %.1f bytes per object (its key: %zu bytes, of which the index keeps a 16-byte hash)\n",
                std::string(index.policyName()).c_str(), perObject, keys[0].size());
            CPPUNIT_ASSERT_MESSAGE("bytes per object: " + std::to_string(perObject), perObject <= 100 + 16);
            // what the index reports about itself agrees with malloc's count within its rounding
            CPPUNIT_ASSERT(index.memoryFootprint() <= after - before + sizeof(index));
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestIndex);
