/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "disk/Cache.h"
#include "disk/PartWriter.h"
#include "disk/tests/TempDir.h"
#include "disk/tests/Worker.h"
#include "sbuf/BlockPool.h"
#include "sbuf/MemBlob.h"
#include "store/Parts.h"
#include "store/tests/Replies.h"

#include <cppunit/extensions/HelperMacros.h>

#include <filesystem>
#include <string>
#include <unistd.h>

namespace {

const std::string Key = "GET http://example.com/image.iso";
constexpr uint64_t Length = 300000;

/// the object: Length bytes of a pattern
const std::string Object = [] {
    std::string s(Length, '\0');
    for (size_t i = 0; i < s.size(); ++i)
        s[i] = char('a' + (i * 7 + i / 251) % 26);
    return s;
}();

/// A 206 of Object's bytes [first, last] under validator etag, its head
/// arrived, streaming; the caller appends its body with Append()
struct Part {
    Part(uint64_t from, uint64_t to, const std::string& etag = "v1") : first(from), last(to)
    {
        entry = MakeRef<Store::Entry>(64 * 1024);
        entry->setReply(TestStore::MakeReply(
            "HTTP/1.1 206 Partial Content\r\nCache-Control: max-age=600\r\nETag: \"" + etag +
            "\"\r\nContent-Range: bytes " + std::to_string(first) + "-" + std::to_string(last) + "/" +
            std::to_string(Length) + "\r\nContent-Length: " + std::to_string(last - first + 1) + "\r\n\r\n"));
        facts = *Store::Parts::FactsOf(*entry->reply());
    }
    /// the whole reply head, for DiskTier::storePart()
    std::unique_ptr<Store::Reply> whole() const
    {
        return Store::Parts::WholeReplyOf(*entry->reply(), Length);
    }
    /// stores the part under key in cache and writes its bytes (drained); whether cache took it
    bool writeInto(Disk::Cache& cache, const std::string& key = Key)
    {
        if (!cache.storePart(key, entry, facts, whole()))
            return false;
        append();
        cache.drain();
        return true;
    }
    /// appends the part's bytes (extra more than it announced) in 16 KB blocks, then completes
    void append(uint64_t extra = 0)
    {
        for (uint64_t at = first; at <= last + extra; at += 16 * 1024) {
            const auto n = std::min<uint64_t>(16 * 1024, last + extra + 1 - at);
            const auto bytes = at + n <= Length ? Object.substr(at, n) : std::string(n, 'x');
            entry->append(Sbuf::Slice(Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), bytes)));
        }
        entry->complete();
    }
    uint64_t first, last;
    Store::EntryRef entry;
    Store::PartFacts facts;
};

/// the bytes a DiskPart's file holds
std::string BytesOf(const Store::DiskPart& part)
{
    std::string out(part.file->length(), '\0');
    CPPUNIT_ASSERT_EQUAL(ssize_t(out.size()),
                         ::pread(part.file->fd(), out.data(), out.size(), off_t(part.file->offset())));
    return out;
}

/// the body of the object stored whole under Key in cache (a hit), or "" when none
std::string StoredBody(Disk::Cache& cache)
{
    const auto hit = cache.open(Key);
    if (!hit || hit->bodyLength != Length)
        return std::string();
    std::string body(Length, '\0');
    CPPUNIT_ASSERT_EQUAL(ssize_t(Length),
                         ::pread(hit->file.get(), body.data(), Length, off_t(hit->bodyOffset)));
    return body;
}

/// the .tmp files under dir
size_t TempFiles(const std::string& dir)
{
    size_t n = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
        n += e.path().extension() == ".tmp";
    return n;
}

} // namespace

/// Disk::Cache's parts: PartObject's spans, PartWriter, the commit.
class TestParts : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestParts);
    CPPUNIT_TEST(spansMerge);
    CPPUNIT_TEST(partsServeThenBecomeAStoreFile);
    CPPUNIT_TEST(anotherValidatorOrAWholeObjectDropsTheParts);
    CPPUNIT_TEST(aLongPartIsNoPartAndARestartRemovesParts);
    CPPUNIT_TEST(aMissThatStopsShortIsItsFirstPart);
    CPPUNIT_TEST(partsFromTwoWorkersMeetInOneFile);
    CPPUNIT_TEST(partsTakeAtMostHalfTheDirectory);
    CPPUNIT_TEST(aPartRacingTheWholeObjectIsDropped);
    CPPUNIT_TEST_SUITE_END();

public:
    void spansMerge()
    {
        Disk::PartObject o;
        o.length = 100;
        o.addSpan(10, 20);
        o.addSpan(30, 40);
        CPPUNIT_ASSERT_EQUAL(size_t(2), o.spans.size());
        o.addSpan(20, 30); // touches both
        CPPUNIT_ASSERT_EQUAL(size_t(1), o.spans.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(40), o.spans.at(10));
        o.addSpan(5, 15);
        o.addSpan(35, 50);
        CPPUNIT_ASSERT_EQUAL(uint64_t(50), o.spans.at(5));
        o.addSpan(7, 7); // empty
        CPPUNIT_ASSERT(!o.isCovered());
        o.addSpan(0, 100);
        CPPUNIT_ASSERT(o.isCovered());
    }

    /// two parts: the first serves its bytes from the .tmp file; together
    /// they make a store file that open() finds whole, and no .tmp is left
    void partsServeThenBecomeAStoreFile()
    {
        TestDisk::TempDir t;
        Comm::Loop loop;
        Disk::Cache cache(loop, t.settings);
        cache.drain();
        Part a(0, 99999);
        CPPUNIT_ASSERT(cache.storePart(Key, a.entry, a.facts, a.whole()));
        CPPUNIT_ASSERT(!a.entry->hasReaders()); // a follower
        CPPUNIT_ASSERT(!cache.partHead(Key));   // nothing written yet
        a.append();
        cache.drain();
        CPPUNIT_ASSERT(cache.partHead(Key));
        CPPUNIT_ASSERT_EQUAL(200, cache.partHead(Key)->status);
        auto part = cache.findPart(Key, 1000, 2000);
        CPPUNIT_ASSERT(part && part->entry && part->file);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), part->offset);
        CPPUNIT_ASSERT(Object.substr(0, 100000) == BytesOf(*part));
        CPPUNIT_ASSERT(!cache.findPart(Key, 99000, 100001));
        CPPUNIT_ASSERT(!cache.contains(Key));
        CPPUNIT_ASSERT_EQUAL(size_t(1), TempFiles(t.path));

        Part b(100000, Length - 1);
        CPPUNIT_ASSERT(b.writeInto(cache));
        CPPUNIT_ASSERT(cache.contains(Key));
        CPPUNIT_ASSERT_EQUAL(size_t(0), cache.partObjectCount());
        CPPUNIT_ASSERT(!cache.partHead(Key));
        CPPUNIT_ASSERT(Object == StoredBody(cache));
        const auto hit = cache.open(Key);
        CPPUNIT_ASSERT(hit && hit->head.find("HTTP/1.1 200 OK\r\n") == 0);
        CPPUNIT_ASSERT(hit->head.find("Content-Range") == std::string::npos);
        CPPUNIT_ASSERT_EQUAL(size_t(0), TempFiles(t.path));
        loop.runOnce(Comm::Milliseconds(10)); // the writers are destroyed from the loop
    }

    /// a part under another validator replaces the parts held (their file
    /// removed); a whole object stored under the key drops them too, and
    /// erase() reports them
    void anotherValidatorOrAWholeObjectDropsTheParts()
    {
        TestDisk::TempDir t;
        Comm::Loop loop;
        Disk::Cache cache(loop, t.settings);
        cache.drain();
        Part a(0, 99999);
        CPPUNIT_ASSERT(a.writeInto(cache));
        Part b(100000, 199999, "v2");
        CPPUNIT_ASSERT(b.writeInto(cache));
        CPPUNIT_ASSERT(!cache.findPart(Key, 0, 10));
        CPPUNIT_ASSERT(cache.findPart(Key, 100000, 100010));
        CPPUNIT_ASSERT_EQUAL(size_t(1), TempFiles(t.path));
        CPPUNIT_ASSERT(cache.erase(Key));
        cache.drain();
        CPPUNIT_ASSERT(!cache.partHead(Key));
        CPPUNIT_ASSERT_EQUAL(size_t(0), TempFiles(t.path));

        Part c(0, 99999);
        CPPUNIT_ASSERT(c.writeInto(cache));
        auto whole = MakeRef<Store::Entry>(64 * 1024);
        whole->setReply(c.whole());
        CPPUNIT_ASSERT(cache.store(Key, whole, Length));
        CPPUNIT_ASSERT(!cache.partHead(Key));
        loop.runOnce(Comm::Milliseconds(10));
    }

    /// a 206 longer than its Content-Range leaves no span; the .tmp file of
    /// parts is gone after a restart
    void aLongPartIsNoPartAndARestartRemovesParts()
    {
        TestDisk::TempDir t;
        Comm::Loop loop;
        {
            Disk::Cache cache(loop, t.settings);
            cache.drain();
            Part a(0, 99999);
            CPPUNIT_ASSERT(cache.storePart(Key, a.entry, a.facts, a.whole()));
            a.append(100);
            cache.drain();
            CPPUNIT_ASSERT(!cache.findPart(Key, 0, 10));
            Part b(100000, 199999);
            CPPUNIT_ASSERT(b.writeInto(cache));
            CPPUNIT_ASSERT(cache.findPart(Key, 100000, 100010));
            CPPUNIT_ASSERT_EQUAL(size_t(1), TempFiles(t.path));
            loop.runOnce(Comm::Milliseconds(10));
        }
        CPPUNIT_ASSERT_EQUAL(size_t(1), TempFiles(t.path)); // left by the stop
        Disk::Cache again(loop, t.settings);
        again.drain();
        CPPUNIT_ASSERT_EQUAL(size_t(0), TempFiles(t.path));
        CPPUNIT_ASSERT(!again.partHead(Key));
    }

    /// a miss stored on disk whose fetch fails keeps what was written as
    /// the first part of its object (a download to be resumed), which a 206
    /// of the rest completes; without a strong validator its file goes
    void aMissThatStopsShortIsItsFirstPart()
    {
        TestDisk::TempDir t;
        Comm::Loop loop;
        Disk::Cache cache(loop, t.settings);
        cache.drain();
        const auto miss = [&](const std::string& validator) {
            auto entry = MakeRef<Store::Entry>(64 * 1024);
            entry->setReply(TestStore::MakeReply("HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\n" +
                                                 validator + "Content-Length: " + std::to_string(Length) +
                                                 "\r\n\r\n"));
            CPPUNIT_ASSERT(cache.store(Key, entry, Length));
            for (uint64_t at = 0; at < 100000; at += 10000)
                entry->append(
                    Sbuf::Slice(Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), Object.substr(at, 10000))));
            entry->fail("the client left");
            cache.drain();
            loop.runOnce(Comm::Milliseconds(10));
        };
        miss("");
        CPPUNIT_ASSERT(!cache.partHead(Key));
        CPPUNIT_ASSERT_EQUAL(size_t(0), TempFiles(t.path));

        miss("ETag: \"v1\"\r\n");
        CPPUNIT_ASSERT(cache.partHead(Key));
        auto part = cache.findPart(Key, 5000, 100000);
        CPPUNIT_ASSERT(part);
        CPPUNIT_ASSERT(Object.substr(0, 100000) == BytesOf(*part));
        CPPUNIT_ASSERT(!cache.findPart(Key, 5000, 100001));
        Part rest(100000, Length - 1);
        CPPUNIT_ASSERT(rest.writeInto(cache));
        CPPUNIT_ASSERT(Object == StoredBody(cache));
        CPPUNIT_ASSERT_EQUAL(size_t(0), TempFiles(t.path));
        loop.runOnce(Comm::Milliseconds(10));
    }

    /// with workers on one shelf, a part that one worker wrote and a part
    /// that another wrote make one object, which both find
    void partsFromTwoWorkersMeetInOneFile()
    {
        TestDisk::TempDir t;
        const auto shelf = std::make_shared<Disk::Shelf>(true);
        Comm::Loop loop;
        Disk::Cache first(loop, t.settings, shelf);
        first.drain();
        Part a(0, 99999);
        CPPUNIT_ASSERT(a.writeInto(first));
        TestDisk::Worker second(t.settings, shelf);
        second.run([](Disk::Cache& cache) {
            CPPUNIT_ASSERT(cache.partHead(Key)); // the first worker's part
            Part b(100000, Length - 1);
            CPPUNIT_ASSERT(cache.storePart(Key, b.entry, b.facts, b.whole()));
            b.append();
        });
        CPPUNIT_ASSERT_EQUAL(size_t(0), first.partObjectCount());
        CPPUNIT_ASSERT(Object == StoredBody(first));
        second.run([](Disk::Cache& cache) { CPPUNIT_ASSERT(cache.contains(Key)); });
        loop.runOnce(Comm::Milliseconds(10));
    }

    /// the objects with parts take at most half a cache_dir: a new one
    /// drops the least recently used idle one, and is refused when the
    /// others are all being written
    void partsTakeAtMostHalfTheDirectory()
    {
        TestDisk::TempDir t;
        t.settings.cacheDirs[0].maxBytes = 1000000; // room for the parts of one 300,000-byte object
        Comm::Loop loop;
        Disk::Cache cache(loop, t.settings);
        cache.drain();
        const std::string other = Key + "?2", third = Key + "?3";
        Part a(0, 99999);
        CPPUNIT_ASSERT(a.writeInto(cache));
        Part b(0, 99999);
        CPPUNIT_ASSERT(cache.storePart(other, b.entry, b.facts, b.whole())); // Key's parts go
        CPPUNIT_ASSERT(!cache.partHead(Key));
        Part c(0, 99999);
        CPPUNIT_ASSERT(!cache.storePart(third, c.entry, c.facts, c.whole())); // other's are being written
        b.append();
        cache.drain();
        CPPUNIT_ASSERT(cache.partHead(other));
        CPPUNIT_ASSERT_EQUAL(size_t(1), cache.partObjectCount());
        CPPUNIT_ASSERT_EQUAL(size_t(1), TempFiles(t.path));
        loop.runOnce(Comm::Milliseconds(10));
    }

    /// a 206 that arrives while the whole object is being stored starts
    /// parts, which the whole object's commit drops (file and all); once
    /// the whole object is stored, no part is started
    void aPartRacingTheWholeObjectIsDropped()
    {
        TestDisk::TempDir t;
        Comm::Loop loop;
        Disk::Cache cache(loop, t.settings);
        cache.drain();
        Part a(0, 99999);
        auto whole = MakeRef<Store::Entry>(64 * 1024);
        whole->setReply(a.whole());
        CPPUNIT_ASSERT(cache.store(Key, whole, Length));
        CPPUNIT_ASSERT(a.writeInto(cache));
        CPPUNIT_ASSERT(cache.partHead(Key));
        for (uint64_t at = 0; at < Length; at += 50000)
            whole->append(
                Sbuf::Slice(Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), Object.substr(at, 50000))));
        whole->complete();
        cache.drain();
        CPPUNIT_ASSERT(cache.contains(Key));
        CPPUNIT_ASSERT(!cache.partHead(Key));
        CPPUNIT_ASSERT_EQUAL(size_t(0), TempFiles(t.path));
        Part b(100000, 199999);
        CPPUNIT_ASSERT(!cache.storePart(Key, b.entry, b.facts, b.whole()));
        loop.runOnce(Comm::Milliseconds(10));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestParts);
