/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "disk/Cache.h"
#include "comm/Loop.h"
#include "sbuf/BlockPool.h"
#include "sbuf/MemBlob.h"
#include "store/Entry.h"
#include "store/Key.h"
#include "disk/tests/TempDir.h"
#include "store/tests/Replies.h"

#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace {

const std::string Key = "GET http://example.com/big.bin";
const std::string Head = "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\nCache-Control: max-age=60\r\n\r\n";

using TestDisk::TempDir;

std::string ReadFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

bool Exists(const std::string& path)
{
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

/// an entry with Head, streaming, not kept (as a miss too large for memory)
Store::EntryRef MakeEntry()
{
    auto entry = MakeRef<Store::Entry>(16 * 1024);
    entry->setReply(TestStore::MakeReply(Head));
    return entry;
}

/// appends `bytes` bytes of pattern in blocks of 16 KB; returns what was appended
std::string AppendBody(Store::Entry& entry, size_t bytes, char first = 'a')
{
    std::string all;
    while (bytes) {
        const size_t n = std::min<size_t>(bytes, 16 * 1024);
        std::string chunk(n, '\0');
        for (size_t i = 0; i < n; ++i)
            chunk[i] = char(first + (all.size() + i) % 23);
        auto block = Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), chunk);
        entry.append(Sbuf::Slice(block, 0, n));
        all += chunk;
        bytes -= n;
    }
    return all;
}

/// a producer that records what it is told
struct Producer : Store::Producer {
    void resumeProducing() override {}
    void noteReadersGone() override { gone = true; }
    bool gone = false;
};

/// a client that reads nothing
struct Client : Store::Reader {
    void noteDataAvailable() override {}
    const Sbuf::Cursor& cursor() const override { return at; }
    Sbuf::Cursor at;
};

} // namespace

/// Disk::Writer through Disk::Cache: what lands on disk, and what never does.
class TestWriter : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestWriter);
    CPPUNIT_TEST(storedFileHoldsHeaderKeyHeadBody);
    CPPUNIT_TEST(freshenReplacesTheHeadOnly);
    CPPUNIT_TEST(variantsLiveAndGoTogether);
    CPPUNIT_TEST(writesFromTheEntrysBlocks);
    CPPUNIT_TEST(writerNeverHoldsTheProducerBack);
    CPPUNIT_TEST(writtenBlocksAreReadIntoAgain);
    CPPUNIT_TEST(failedFetchLeavesNoFile);
    CPPUNIT_TEST(fullDiskStopsStoring);
    CPPUNIT_TEST(backlogRefusesNewObjects);
    CPPUNIT_TEST(tornFileIsNeverServed);
    CPPUNIT_TEST(limitsPickTheDirectory);
    CPPUNIT_TEST(restartFindsWholeFilesOnly);
    CPPUNIT_TEST(nothingIsStoredWhileScanning);
    CPPUNIT_TEST(writerAloneDoesNotKeepTheFetch);
    CPPUNIT_TEST_SUITE_END();

public:
    /// a 304's head replaces the stored one (a hit and a restart see it),
    /// the body's bytes untouched and the file's inode the same
    void freshenReplacesTheHeadOnly()
    {
        TempDir t;
        Comm::Loop loop;
        const auto path = Disk::Layout(t.dir).pathOf(0);
        std::string body;
        const std::string fresh =
            "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\nCache-Control: max-age=600\r\n"
            "Date: Thu, 01 Jan 2026 00:00:00 GMT\r\n\r\n";
        struct stat before {
        }, after{};
        {
            Disk::Cache cache(loop, t.settings);
            cache.drain();
            auto entry = MakeEntry();
            CPPUNIT_ASSERT(cache.store(Key, entry, 100000));
            body = AppendBody(*entry, 100000);
            entry->complete();
            cache.drain();
            CPPUNIT_ASSERT_EQUAL(0, ::stat(path.c_str(), &before));
            auto freshened = TestStore::MakeReply(fresh, 1234);
            cache.freshen(Key, *freshened);
            cache.drain();
            CPPUNIT_ASSERT_EQUAL(uint64_t(1), cache.stats().freshened);
            const auto hit = cache.open(Key);
            CPPUNIT_ASSERT(hit);
            CPPUNIT_ASSERT_EQUAL(fresh, hit->head);
            CPPUNIT_ASSERT_EQUAL(int64_t(1234), hit->meta.responseTime);
            CPPUNIT_ASSERT(body == ReadFile(path).substr(hit->bodyOffset));
        }
        CPPUNIT_ASSERT_EQUAL(0, ::stat(path.c_str(), &after));
        CPPUNIT_ASSERT_EQUAL(before.st_ino, after.st_ino);
        CPPUNIT_ASSERT_EQUAL(before.st_size, after.st_size);
        // a restart finds the freshened object
        Disk::Cache again(loop, t.settings);
        again.drain();
        const auto hit = again.open(Key);
        CPPUNIT_ASSERT(hit);
        CPPUNIT_ASSERT_EQUAL(fresh, hit->head);
    }

    /// the variants of a Vary reply: found by their names (after a restart
    /// too), erased with their URL, replaced by a plain object or by
    /// variants of other names
    void variantsLiveAndGoTogether()
    {
        TempDir t;
        Comm::Loop loop;
        const auto en = Store::MakeVariantKey(Key, "accept-language:en\n");
        const auto fr = Store::MakeVariantKey(Key, "accept-language:fr\n");
        const auto gz = Store::MakeVariantKey(Key, "accept-encoding:gzip\n");
        auto put = [&](Disk::Cache& cache, const std::string& key) {
            auto entry = MakeEntry();
            CPPUNIT_ASSERT(cache.store(key, entry, 100000));
            AppendBody(*entry, 100000);
            entry->complete();
            cache.drain();
        };
        {
            Disk::Cache cache(loop, t.settings);
            cache.drain();
            put(cache, en);
            put(cache, fr);
            CPPUNIT_ASSERT_EQUAL(std::string("accept-language"), *cache.varyNames(Key));
            CPPUNIT_ASSERT(cache.contains(en) && cache.contains(fr));
        }
        Disk::Cache cache(loop, t.settings);
        cache.drain();
        CPPUNIT_ASSERT_EQUAL(std::string("accept-language"), *cache.varyNames(Key));
        CPPUNIT_ASSERT(cache.contains(en) && cache.contains(fr));
        put(cache, gz); // other names
        CPPUNIT_ASSERT_EQUAL(std::string("accept-encoding"), *cache.varyNames(Key));
        CPPUNIT_ASSERT(!cache.contains(en) && !cache.contains(fr) && cache.contains(gz));
        put(cache, Key); // a plain object
        CPPUNIT_ASSERT(!cache.varyNames(Key));
        CPPUNIT_ASSERT(!cache.contains(gz) && cache.contains(Key));
        put(cache, en); // a variant replaces the plain object
        CPPUNIT_ASSERT(!cache.contains(Key) && cache.contains(en));
        CPPUNIT_ASSERT(cache.erase(Key)); // the URL: every variant
        CPPUNIT_ASSERT(!cache.contains(en));
        CPPUNIT_ASSERT(!cache.varyNames(Key));
        cache.drain();
        CPPUNIT_ASSERT_EQUAL(size_t(0), cache.stats().dirs[0].objects);
    }

    void storedFileHoldsHeaderKeyHeadBody()
    {
        TempDir t;
        Comm::Loop loop;
        Disk::Cache cache(loop, t.settings);
        cache.drain(); // the start-up scan
        auto entry = MakeEntry();
        CPPUNIT_ASSERT(cache.store(Key, entry, 100000));
        const auto body = AppendBody(*entry, 100000);
        entry->complete();
        cache.drain();

        const auto path = Disk::Layout(t.dir).pathOf(0);
        CPPUNIT_ASSERT(!Exists(path + ".tmp"));
        const auto file = ReadFile(path);
        const auto meta = Disk::DecodeHeader(file);
        CPPUNIT_ASSERT(meta);
        CPPUNIT_ASSERT_EQUAL(meta->fileSize(), uint64_t(file.size()));
        CPPUNIT_ASSERT_EQUAL(Key, file.substr(64, Key.size()));
        CPPUNIT_ASSERT_EQUAL(Head, std::string(Disk::HeadIn(*meta, file)));
        CPPUNIT_ASSERT(body == file.substr(meta->bodyOffset()));

        auto hit = cache.open(Key);
        CPPUNIT_ASSERT(hit);
        CPPUNIT_ASSERT_EQUAL(Head, hit->head);
        CPPUNIT_ASSERT_EQUAL(uint64_t(100000), hit->bodyLength);
        CPPUNIT_ASSERT_EQUAL(meta->bodyOffset(), hit->bodyOffset);
        const auto s = cache.stats();
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), s.stored);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), s.hits);
        CPPUNIT_ASSERT_EQUAL(size_t(1), s.dirs[0].objects);
        CPPUNIT_ASSERT_EQUAL(uint64_t(file.size()), s.bytesWritten);
    }

    void writesFromTheEntrysBlocks()
    {
        TempDir t;
        Comm::Loop loop;
        Disk::Cache cache(loop, t.settings);
        cache.drain(); // the start-up scan
        auto entry = MakeEntry();
        CPPUNIT_ASSERT(cache.store(Key, entry, std::nullopt));
        auto block = Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), std::string(1000, 'x'));
        const auto before = block->refCount();
        entry->append(Sbuf::Slice(block, 0, 1000));
        // the writer took the slice (a reference, not a copy) and moved on,
        // so the entry, kept by no index, released it: one reference, the writer's
        CPPUNIT_ASSERT_EQUAL(before + 1, block->refCount());
        CPPUNIT_ASSERT(entry->body().isEmpty());
        entry->complete();
        cache.drain();
        entry = nullptr;
        CPPUNIT_ASSERT_EQUAL(before, block->refCount()); // given back once written
        CPPUNIT_ASSERT(cache.open(Key));
    }

    void writerNeverHoldsTheProducerBack()
    {
        TempDir t;
        Comm::Loop loop;
        Disk::Cache cache(loop, t.settings);
        cache.drain(); // the start-up scan
        auto entry = MakeEntry();
        CPPUNIT_ASSERT(cache.store(Key, entry, std::nullopt));
        // the disk writer is the only reader: the gap (16 KB) never fills
        // while its jobs are out, and nothing is held behind it
        AppendBody(*entry, 200000);
        CPPUNIT_ASSERT(entry->canProduce());
        CPPUNIT_ASSERT(entry->body().length() <= 16 * 1024);
        entry->complete();
        cache.drain();
        CPPUNIT_ASSERT(cache.open(Key));
    }

    void writtenBlocksAreReadIntoAgain()
    {
        TempDir t;
        Comm::Loop loop;
        Disk::Cache cache(loop, t.settings);
        cache.drain(); // the start-up scan
        auto& pool = Sbuf::DefaultPool();
        const size_t capBefore = pool.maxFreeMappedBytes();
        auto entry = MakeEntry();
        CPPUNIT_ASSERT(cache.store(Key, entry, std::nullopt));
        // the forwarder's bulk reads: 1 MB blocks, two per job here; the
        // blocks a finished job gives back must be read into again, not
        // unmapped (and fresh ones mapped and faulted in) past the pool's cap
        constexpr size_t Block = 1 << 20;
        uint64_t mapped = 0;
        for (int i = 0; i < 24; ++i) {
            if (i == 4)
                mapped = pool.stats().total.systemAllocations; // after the first jobs
            auto block = Sbuf::MemBlob::Make(pool, Block);
            auto space = block->reserveSpace();
            std::fill(space.begin(), space.end(), char('a' + i % 23));
            block->commit(Block);
            entry->append(Sbuf::Slice(block, 0, Block));
            if (i % 2)
                cache.drain();
        }
        CPPUNIT_ASSERT_EQUAL(mapped, pool.stats().total.systemAllocations);
        entry->complete();
        cache.drain();
        entry = nullptr;
        CPPUNIT_ASSERT(cache.open(Key));
        // once no object is being written, the pool's cap and what it keeps are as before
        for (int i = 0; i < 10 && pool.maxFreeMappedBytes() != capBefore; ++i)
            loop.runOnce(Comm::Milliseconds(10)); // the writer is destroyed from the loop
        CPPUNIT_ASSERT_EQUAL(size_t(0), cache.stats().writing);
        CPPUNIT_ASSERT_EQUAL(capBefore, pool.maxFreeMappedBytes());
        CPPUNIT_ASSERT(pool.freeMappedBytes() <= capBefore);
    }

    void failedFetchLeavesNoFile()
    {
        TempDir t;
        Comm::Loop loop;
        Disk::Cache cache(loop, t.settings);
        cache.drain(); // the start-up scan
        auto entry = MakeEntry();
        CPPUNIT_ASSERT(cache.store(Key, entry, 100000));
        AppendBody(*entry, 50000);
        cache.drain(); // part of it written to the temporary file
        entry->fail("origin reset");
        cache.drain();
        const auto path = Disk::Layout(t.dir).pathOf(0);
        CPPUNIT_ASSERT(!Exists(path));
        CPPUNIT_ASSERT(!Exists(path + ".tmp"));
        CPPUNIT_ASSERT(!cache.contains(Key));
        CPPUNIT_ASSERT(!cache.open(Key));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), cache.stats().abandoned);
    }

    void fullDiskStopsStoring()
    {
        TempDir t;
        Comm::Loop loop;
        Disk::Cache cache(loop, t.settings);
        cache.drain(); // the start-up scan
        // the first object's temporary file is /dev/full: every write fails with ENOSPC
        const auto temp = Disk::Layout(t.dir).tempPathOf(0);
        CPPUNIT_ASSERT_EQUAL(0, ::symlink("/dev/full", temp.c_str()));
        auto entry = MakeEntry();
        CPPUNIT_ASSERT(cache.store(Key, entry, 100000));
        AppendBody(*entry, 100000);
        entry->complete();
        cache.drain();
        CPPUNIT_ASSERT(!cache.contains(Key));
        const auto s = cache.stats();
        CPPUNIT_ASSERT(s.dirs[0].full);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), s.abandoned);
        CPPUNIT_ASSERT(!cache.admits(1000));
        CPPUNIT_ASSERT(!cache.store("GET http://example.com/other", MakeEntry(), 1000));
    }

    /// objects arriving faster than the I/O threads write them: once they
    /// are MaxBacklog jobs behind (no job finished: the loop does not turn),
    /// store() refuses, and stores again once they caught up
    void backlogRefusesNewObjects()
    {
        TempDir t;
        Comm::Loop loop;
        Disk::Cache cache(loop, t.settings);
        cache.drain(); // the start-up scan
        std::vector<Store::EntryRef> entries;
        size_t stored = 0;
        for (size_t i = 0; i <= Disk::Cache::MaxBacklog; ++i) {
            auto entry = MakeEntry();
            if (!cache.store(Key + std::to_string(i), entry, 1000))
                break;
            ++stored;
            AppendBody(*entry, 1000);
            entry->complete();
            entries.push_back(entry);
        }
        CPPUNIT_ASSERT_EQUAL(Disk::Cache::MaxBacklog, stored);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), cache.stats().busy);
        cache.drain();
        CPPUNIT_ASSERT(cache.contains(Key + "0"));
        CPPUNIT_ASSERT(cache.store("GET http://example.com/later", MakeEntry(), 1000));
    }

    void tornFileIsNeverServed()
    {
        TempDir t;
        Comm::Loop loop;
        Disk::Cache cache(loop, t.settings);
        cache.drain(); // the start-up scan
        for (int i = 0; i < 3; ++i) {
            auto entry = MakeEntry();
            CPPUNIT_ASSERT(cache.store(Key + std::to_string(i), entry, 100000));
            AppendBody(*entry, 100000);
            entry->complete();
        }
        cache.drain();
        const Disk::Layout layout(t.dir);
        // cut short; a changed head; a header of zeros
        CPPUNIT_ASSERT_EQUAL(0, ::truncate(layout.pathOf(0).c_str(), 100000));
        {
            std::fstream f(layout.pathOf(1), std::ios::in | std::ios::out | std::ios::binary);
            f.seekp(64 + Key.size() + 1 + 10);
            f.put('X');
        }
        {
            std::fstream f(layout.pathOf(2), std::ios::in | std::ios::out | std::ios::binary);
            f.write(std::string(64, '\0').data(), 64);
        }
        for (int i = 0; i < 3; ++i) {
            CPPUNIT_ASSERT(!cache.open(Key + std::to_string(i)));
            CPPUNIT_ASSERT(!cache.contains(Key + std::to_string(i)));
        }
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), cache.stats().refused);
        cache.drain();
        CPPUNIT_ASSERT(!Exists(layout.pathOf(0))); // removed
    }

    /// a new Cache over the same directory finds every object stored
    /// whole, removes temporary and torn files, and numbers new files after
    /// the ones found
    void restartFindsWholeFilesOnly()
    {
        TempDir t;
        const Disk::Layout layout(t.dir);
        std::string body;
        {
            Comm::Loop loop;
            Disk::Cache cache(loop, t.settings);
            cache.drain();
            for (int i = 0; i < 3; ++i) {
                auto entry = MakeEntry();
                CPPUNIT_ASSERT(cache.store(Key + std::to_string(i), entry, 100000));
                body = AppendBody(*entry, 100000);
                entry->complete();
            }
            // a fourth object still being written when the process stops
            auto partial = MakeEntry();
            CPPUNIT_ASSERT(cache.store(Key + "3", partial, 100000));
            AppendBody(*partial, 50000);
            cache.drain();
            CPPUNIT_ASSERT(Exists(layout.tempPathOf(3)));
            // as after kill -9: copy the temporary file away before the cache removes it
            CPPUNIT_ASSERT_EQUAL(0, ::link(layout.tempPathOf(3).c_str(), (t.path + "/partial").c_str()));
        }
        CPPUNIT_ASSERT_EQUAL(0, ::rename((t.path + "/partial").c_str(), layout.tempPathOf(3).c_str()));
        CPPUNIT_ASSERT_EQUAL(0, ::truncate(layout.pathOf(1).c_str(), 1000)); // torn
        Comm::Loop loop;
        Disk::Cache cache(loop, t.settings);
        cache.drain();
        CPPUNIT_ASSERT(cache.contains(Key + "0"));
        CPPUNIT_ASSERT(!cache.contains(Key + "1"));
        CPPUNIT_ASSERT(cache.contains(Key + "2"));
        CPPUNIT_ASSERT(!cache.contains(Key + "3"));
        CPPUNIT_ASSERT(!Exists(layout.tempPathOf(3)));
        CPPUNIT_ASSERT(!Exists(layout.pathOf(1)));
        const auto hit = cache.open(Key + "2");
        CPPUNIT_ASSERT(hit);
        CPPUNIT_ASSERT_EQUAL(uint64_t(100000), hit->bodyLength);
        // a new object gets a number after every file found
        auto entry = MakeEntry();
        CPPUNIT_ASSERT(cache.store(Key + "4", entry, 100));
        AppendBody(*entry, 100);
        entry->complete();
        cache.drain();
        CPPUNIT_ASSERT(Exists(layout.pathOf(3)));
        CPPUNIT_ASSERT(cache.open(Key + "0"));
    }

    void nothingIsStoredWhileScanning()
    {
        TempDir t;
        Comm::Loop loop;
        Disk::Cache cache(loop, t.settings);
        CPPUNIT_ASSERT(cache.stats().dirs[0].rebuilding);
        CPPUNIT_ASSERT(!cache.store(Key, MakeEntry(), 100));
        cache.drain();
        CPPUNIT_ASSERT(!cache.stats().dirs[0].rebuilding);
        CPPUNIT_ASSERT(cache.store(Key, MakeEntry(), 100));
    }

    /// the writer is a follower: when the last client leaves, the
    /// producer hears it (and stops, failing the entry: nothing is kept)
    void writerAloneDoesNotKeepTheFetch()
    {
        TempDir t;
        Comm::Loop loop;
        Disk::Cache cache(loop, t.settings);
        cache.drain();
        auto entry = MakeEntry();
        Producer producer;
        entry->setProducer(&producer);
        Client client;
        entry->addReader(client);
        CPPUNIT_ASSERT(cache.store(Key, entry, 100000));
        AppendBody(*entry, 1000);
        entry->removeReader(client);
        CPPUNIT_ASSERT(producer.gone);
        CPPUNIT_ASSERT(!entry->hasReaders());
        entry->fail("every client left");
        entry->setProducer(nullptr);
        cache.drain();
        CPPUNIT_ASSERT(!Exists(Disk::Layout(t.dir).tempPathOf(0)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), cache.stats().abandoned);
        CPPUNIT_ASSERT_EQUAL(size_t(0), cache.stats().dirs[0].objects);
    }

    void limitsPickTheDirectory()
    {
        TempDir t;
        auto small = t.dir;
        small.path = t.path + "/small";
        small.maxSize = 1000;
        CPPUNIT_ASSERT_EQUAL(std::string(), Disk::Layout(small).create());
        auto big = t.dir;
        big.path = t.path + "/big";
        big.minSize = 1001;
        CPPUNIT_ASSERT_EQUAL(std::string(), Disk::Layout(big).create());
        t.settings.cacheDirs = {small, big};
        Comm::Loop loop;
        Disk::Cache cache(loop, t.settings);
        cache.drain();                                     // the start-up scan
        CPPUNIT_ASSERT(!cache.admits(uint64_t(33) << 20)); // past maximum_object_size
        auto a = MakeEntry();
        CPPUNIT_ASSERT(cache.store("GET http://a/", a, 500));
        AppendBody(*a, 500);
        a->complete();
        auto b = MakeEntry();
        CPPUNIT_ASSERT(cache.store("GET http://b/", b, 5000));
        AppendBody(*b, 5000);
        b->complete();
        cache.drain();
        CPPUNIT_ASSERT(Exists(Disk::Layout(small).pathOf(0)));
        CPPUNIT_ASSERT(Exists(Disk::Layout(big).pathOf(0)));
        const auto s = cache.stats();
        CPPUNIT_ASSERT_EQUAL(size_t(1), s.dirs[0].objects);
        CPPUNIT_ASSERT_EQUAL(size_t(1), s.dirs[1].objects);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestWriter);
