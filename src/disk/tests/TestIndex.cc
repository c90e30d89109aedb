/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "disk/Index.h"
#include "store/tests/HeapBytes.h"

#include <cppunit/extensions/HelperMacros.h>

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

} // namespace

/// Disk::Index: one cache_dir's objects in memory.
class TestIndex : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestIndex);
    CPPUNIT_TEST(insertFindErase);
    CPPUNIT_TEST(replacingReturnsTheOldFile);
    CPPUNIT_TEST(oldestGoesFirstAndTouchRenews);
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
        while (const auto oldest = index.popOldest())
            order.push_back(oldest->fileNumber);
        CPPUNIT_ASSERT((order == std::vector<uint32_t>{1, 3, 0}));
        CPPUNIT_ASSERT_EQUAL(size_t(0), index.objectCount());
    }

    void diskBytesCountWholeBlocks()
    {
        Disk::Index index;
        index.insert(Key(1), Disk::Location{1, 10, 100, 1});        // 175 bytes: one block
        index.insert(Key(2), Disk::Location{2, 10, 100, 4096 * 2}); // just over two blocks
        CPPUNIT_ASSERT_EQUAL(uint64_t(4096 + 4096 * 3), index.diskBytes());
        index.popOldest();
        CPPUNIT_ASSERT_EQUAL(uint64_t(4096 * 3), index.diskBytes());
    }

    /// the budget: RAM per object on disk <= 100 bytes beyond its key
    void bytesPerObject()
    {
        CPPUNIT_ASSERT_EQUAL(size_t(48), Disk::Index::RecordBytes(0));
        const size_t n = 20000;
        std::vector<std::string> keys;
        keys.reserve(n);
        for (size_t i = 0; i < n; ++i)
            keys.push_back(Key(i));
        CPPUNIT_ASSERT_EQUAL(size_t(64), keys[0].size());
        const size_t before = TestStore::HeapBytesInUse();
        Disk::Index index; // its first buckets are counted too
        for (size_t i = 0; i < n; ++i)
            index.insert(keys[i], At(uint32_t(i)));
        const size_t after = TestStore::HeapBytesInUse();
        const double perObject = double(after - before) / n - double(keys[0].size());
        CPPUNIT_ASSERT_MESSAGE("bytes per object beyond the key: " + std::to_string(perObject),
                               perObject <= 100);
        // what the index reports about itself agrees with malloc's count within its rounding
        CPPUNIT_ASSERT(index.memoryFootprint() <= after - before + sizeof(index));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestIndex);
