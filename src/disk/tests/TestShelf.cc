/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "disk/Shelf.h"
#include "comm/Loop.h"
#include "disk/Cache.h"
#include "sbuf/BlockPool.h"
#include "sbuf/MemBlob.h"
#include "store/Entry.h"
#include "disk/tests/TempDir.h"
#include "disk/tests/Worker.h"
#include "store/tests/OwnerThread.h"
#include "store/tests/Replies.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace {

const std::string Head = "HTTP/1.1 200 OK\r\nContent-Length: 50000\r\nCache-Control: max-age=60\r\n\r\n";

using TestDisk::TempDir;

using TestDisk::Worker;

/// stores a complete object of 50,000 bytes under key in cache; whether it was taken
bool StoreObject(Disk::Cache& cache, const std::string& key)
{
    auto entry = MakeRef<Store::Entry>(16 * 1024);
    entry->setReply(TestStore::MakeReply(Head));
    if (!cache.store(key, entry, 50000))
        return false;
    auto block = Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), std::string(50000, 'x'));
    entry->append(Sbuf::Slice(block, 0, 50000));
    entry->complete();
    cache.drain();
    return true;
}

/// a cache_dir on a shared shelf and the first Cache on it (this thread's), its scans done
struct FirstWorker {
    FirstWorker() { cache.drain(); }

    TempDir t;
    const std::shared_ptr<Disk::Shelf> shelf = std::make_shared<Disk::Shelf>(true);
    Comm::Loop loop;
    Disk::Cache cache{loop, t.settings, shelf};
};

bool Exists(const std::string& path)
{
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

} // namespace

/// Disk::Shelf: the Caches of two workers (two threads) on one shelf
/// share one set of cache_dirs.
class TestShelf : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestShelf);
    CPPUNIT_TEST(secondCacheJoinsTheFirstsDirs);
    CPPUNIT_TEST(eachFindsWhatTheOtherStored);
    CPPUNIT_TEST(erasureIsEveryWorkers);
    CPPUNIT_TEST(storingTogetherTakesOtherFileNumbers);
    CPPUNIT_TEST(keyNamesTheLines);
    CPPUNIT_TEST_SUITE_END();

public:
    /// the first Cache on a shelf makes and rebuilds its cache_dirs; the
    /// second joins them (no second scan: it sees what the first found)
    void secondCacheJoinsTheFirstsDirs()
    {
        TempDir t;
        {
            Comm::Loop loop;
            Disk::Cache cache(loop, t.settings); // a shelf of its own
            cache.drain();
            CPPUNIT_ASSERT(StoreObject(cache, "GET http://example.com/kept"));
        }
        const auto shelf = std::make_shared<Disk::Shelf>(true);
        Comm::Loop loop;
        Disk::Cache first(loop, t.settings, shelf);
        first.drain(); // its scans
        CPPUNIT_ASSERT(shelf->made);
        CPPUNIT_ASSERT_EQUAL(size_t(1), shelf->dirs.size());
        Worker second(t.settings, shelf);
        second.run([](Disk::Cache& cache) {
            CPPUNIT_ASSERT_EQUAL(size_t(1), cache.stats().dirs.size());
            CPPUNIT_ASSERT_EQUAL(size_t(1), cache.stats().dirs[0].objects);
            CPPUNIT_ASSERT(!cache.stats().dirs[0].rebuilding);
            CPPUNIT_ASSERT(cache.open("GET http://example.com/kept"));
        });
        CPPUNIT_ASSERT_EQUAL(size_t(1), shelf->dirs.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), first.stats().hits); // the figures are the shelf's
    }

    /// an object one worker stored is a hit in the other, and the
    /// replacement policy's order and figures are one
    void eachFindsWhatTheOtherStored()
    {
        FirstWorker w;
        auto& first = w.cache;
        Worker second(w.t.settings, w.shelf);
        CPPUNIT_ASSERT(StoreObject(first, "GET http://example.com/a"));
        second.run([](Disk::Cache& cache) {
            CPPUNIT_ASSERT(StoreObject(cache, "GET http://example.com/b"));
            const auto hit = cache.open("GET http://example.com/a");
            CPPUNIT_ASSERT(hit);
            CPPUNIT_ASSERT_EQUAL(uint64_t(50000), hit->bodyLength);
            CPPUNIT_ASSERT_EQUAL(Head, hit->head);
        });
        const auto hit = first.open("GET http://example.com/b");
        CPPUNIT_ASSERT(hit);
        CPPUNIT_ASSERT_EQUAL(uint64_t(50000), hit->bodyLength);
        const auto stats = first.stats();
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), stats.stored);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), stats.hits);
        CPPUNIT_ASSERT_EQUAL(size_t(2), stats.dirs[0].objects);
    }

    /// an object one worker erases (PURGE) is gone for the other, its file removed
    void erasureIsEveryWorkers()
    {
        FirstWorker w;
        auto& first = w.cache;
        CPPUNIT_ASSERT(StoreObject(first, "GET http://example.com/a"));
        const auto path = Disk::Layout(w.t.settings.cacheDirs[0]).pathOf(0);
        CPPUNIT_ASSERT(Exists(path));
        Worker second(w.t.settings, w.shelf);
        second.run([](Disk::Cache& cache) {
            CPPUNIT_ASSERT(cache.contains("GET http://example.com/a"));
            CPPUNIT_ASSERT(cache.erase("GET http://example.com/a"));
        });
        CPPUNIT_ASSERT(!first.contains("GET http://example.com/a"));
        CPPUNIT_ASSERT(!first.open("GET http://example.com/a"));
        CPPUNIT_ASSERT(!Exists(path));
    }

    /// two workers storing at once (their own I/O threads, the same
    /// cache_dir) take other file numbers, and every object is whole
    void storingTogetherTakesOtherFileNumbers()
    {
        FirstWorker w;
        auto& first = w.cache;
        {
            Worker second(w.t.settings, w.shelf);
            std::thread other([&second] {
                second.run([](Disk::Cache& cache) {
                    for (int i = 0; i < 20; ++i)
                        CPPUNIT_ASSERT(StoreObject(cache, "GET http://example.com/b" + std::to_string(i)));
                });
            });
            for (int i = 0; i < 20; ++i)
                CPPUNIT_ASSERT(StoreObject(first, "GET http://example.com/a" + std::to_string(i)));
            other.join();
        }
        CPPUNIT_ASSERT_EQUAL(size_t(40), first.stats().dirs[0].objects);
        for (const char* name : {"a", "b"}) {
            for (int i = 0; i < 20; ++i) {
                const auto hit =
                    first.open("GET http://example.com/" + std::string(name) + std::to_string(i));
                CPPUNIT_ASSERT(hit);
                CPPUNIT_ASSERT_EQUAL(uint64_t(50000), hit->bodyLength);
            }
        }
    }

    /// workers share a shelf when their cache_dir lines are the same ones
    /// (place in squid.conf and path): a ${process_number} path differs
    void keyNamesTheLines()
    {
        TempDir t;
        const auto& lines = t.settings.cacheDirs;
        auto other = lines;
        CPPUNIT_ASSERT_EQUAL(Disk::Shelf::KeyOf(lines), Disk::Shelf::KeyOf(other));
        other[0].path += "2";
        CPPUNIT_ASSERT(Disk::Shelf::KeyOf(lines) != Disk::Shelf::KeyOf(other));
        other = lines;
        other[0].origin = "squid.conf:2";
        CPPUNIT_ASSERT(Disk::Shelf::KeyOf(lines) != Disk::Shelf::KeyOf(other));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestShelf);
