/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "sbuf/MemBlob.h"
#include "base/TextException.h"
#include "sbuf/BlockPool.h"
#include "sbuf/Slice.h"

#include <cppunit/extensions/HelperMacros.h>

#include <string>

#include <fcntl.h>
#include <unistd.h>

/// Tests of Sbuf::MemBlob.
class TestMemBlob : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestMemBlob);
    CPPUNIT_TEST(capacityIsTheSizeClass);
    CPPUNIT_TEST(reserveCommitAcrossReadsFillsBlock);
    CPPUNIT_TEST(commitOverSpaceThrows);
    CPPUNIT_TEST(publishedBytesNeverChange);
    CPPUNIT_TEST(appendStopsAtCapacity);
    CPPUNIT_TEST(lastReferenceReturnsBlockToPool);
    CPPUNIT_TEST(bookkeepingIsSmall);
    CPPUNIT_TEST_SUITE_END();

public:
    /// a blob's capacity is its request rounded up to the pool's class
    void capacityIsTheSizeClass()
    {
        Sbuf::BlockPool pool;
        auto blob = Sbuf::MemBlob::Make(pool, 3000);
        CPPUNIT_ASSERT_EQUAL(size_t(4096), blob->capacity());
        CPPUNIT_ASSERT(blob->isEmpty());
        CPPUNIT_ASSERT_EQUAL(size_t(4096), blob->spaceSize());
        CPPUNIT_ASSERT(&blob->pool() == &pool);
    }

    /// read(2) into reserved space, commit what it returned: a short read
    /// leaves the block open for the next read, which continues after it,
    /// until the block is full
    void reserveCommitAcrossReadsFillsBlock()
    {
        Sbuf::BlockPool pool;
        int fds[2];
        CPPUNIT_ASSERT_EQUAL(0, ::pipe2(fds, O_NONBLOCK));
        auto blob = Sbuf::MemBlob::Make(pool, 4096);

        const std::string first(1000, 'a');
        CPPUNIT_ASSERT_EQUAL(ssize_t(first.size()), ::write(fds[1], first.data(), first.size()));
        auto space = blob->reserveSpace();
        CPPUNIT_ASSERT_EQUAL(size_t(4096), space.size());
        ssize_t n = ::read(fds[0], space.data(), space.size());
        CPPUNIT_ASSERT_EQUAL(ssize_t(1000), n);
        blob->commit(n);
        CPPUNIT_ASSERT(!blob->isFull());
        CPPUNIT_ASSERT_EQUAL(size_t(3096), blob->spaceSize());

        const std::string second(5000, 'b');
        CPPUNIT_ASSERT_EQUAL(ssize_t(second.size()), ::write(fds[1], second.data(), second.size()));
        n = ::read(fds[0], blob->space(), blob->spaceSize());
        CPPUNIT_ASSERT_EQUAL(ssize_t(3096), n);
        blob->commit(n);
        CPPUNIT_ASSERT(blob->isFull());
        CPPUNIT_ASSERT_EQUAL(size_t(0), blob->reserveSpace().size());
        CPPUNIT_ASSERT_EQUAL(first + second.substr(0, 3096), std::string(blob->view()));
        ::close(fds[0]);
        ::close(fds[1]);
    }

    /// committing more than the space left is a bug and throws, publishing nothing
    void commitOverSpaceThrows()
    {
        Sbuf::BlockPool pool;
        auto blob = Sbuf::MemBlob::Make(pool, 256);
        blob->commit(200);
        CPPUNIT_ASSERT_THROW(blob->commit(57), TextException);
        CPPUNIT_ASSERT_EQUAL(size_t(200), blob->size());
    }

    /// later commits add bytes after a slice without changing what it sees
    void publishedBytesNeverChange()
    {
        Sbuf::BlockPool pool;
        auto blob = Sbuf::MemBlob::Make(pool, 256);
        blob->append("hello");
        const Sbuf::Slice s(blob);
        blob->append(" world");
        CPPUNIT_ASSERT_EQUAL(std::string("hello"), std::string(s.view()));
        CPPUNIT_ASSERT_EQUAL(std::string("hello world"), std::string(blob->view()));
        CPPUNIT_ASSERT(s.data() == blob->data());
    }

    /// append copies what fits and says how much that was
    void appendStopsAtCapacity()
    {
        Sbuf::BlockPool pool;
        auto blob = Sbuf::MemBlob::Make(pool, 256);
        CPPUNIT_ASSERT_EQUAL(size_t(256), blob->append(std::string(300, 'x')));
        CPPUNIT_ASSERT(blob->isFull());
        CPPUNIT_ASSERT_EQUAL(size_t(0), blob->append("y"));
    }

    /// the block goes back to its pool when the last reference (blob or slice) goes
    void lastReferenceReturnsBlockToPool()
    {
        Sbuf::BlockPool pool;
        Sbuf::Slice slice;
        {
            auto blob = Sbuf::MemBlob::Make(pool, 1000);
            blob->append("abc");
            slice = Sbuf::Slice(blob, 1, 2);
            CPPUNIT_ASSERT_EQUAL(2u, blob->refCount());
        }
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), pool.stats().total.blocksInUse);
        CPPUNIT_ASSERT_EQUAL(std::string("bc"), std::string(slice.view()));
        slice = Sbuf::Slice();
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.stats().total.blocksInUse);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), pool.stats().total.blocksFree);
    }

    /// per-block and per-slice bookkeeping stays small (doc/design.md "Budgets")
    void bookkeepingIsSmall()
    {
        CPPUNIT_ASSERT(sizeof(Sbuf::MemBlob) <= 40);
        CPPUNIT_ASSERT(sizeof(Sbuf::Slice) <= 16);
        CPPUNIT_ASSERT(sizeof(Sbuf::MemBlobRef) == sizeof(void*));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestMemBlob);
