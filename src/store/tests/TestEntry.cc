/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/Entry.h"
#include "base/TextException.h"
#include "sbuf/BlockPool.h"
#include "sbuf/MemBlob.h"

#include <cppunit/extensions/HelperMacros.h>

#include <climits>
#include <string>

#include <sys/uio.h>

namespace {

/// a producer that counts resumeProducing() calls
class CountingProducer : public Store::Producer {
public:
    void resumeProducing() override { ++resumes; }
    void noteReadersGone() override { gone = true; }
    int resumes = 0;
    bool gone = false;
};

/// a reader with a cursor that it moves when told to consume
class TestReader : public Store::Reader {
public:
    explicit TestReader(Store::Entry& e) : entry(e) {}
    void noteDataAvailable() override { ++notes; }
    const Sbuf::Cursor& cursor() const override { return cur; }
    /// reads up to n bytes, as a writev would, and returns them
    std::string consume(size_t n)
    {
        iovec iov[IOV_MAX];
        const size_t count = cur.gather(entry.body(), iov, IOV_MAX, n);
        std::string out;
        for (size_t i = 0; i < count; ++i)
            out.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
        cur.advance(entry.body(), out.size());
        entry.noteConsumed();
        return out;
    }
    Store::Entry& entry;
    Sbuf::Cursor cur;
    int notes = 0;
};

/// appends one block of n bytes of letter c
void appendBlock(Sbuf::BlockPool& pool, Store::Entry& e, size_t n, char c)
{
    auto blob = Sbuf::MemBlob::Make(pool, n);
    blob->append(std::string(n, c));
    e.append(Sbuf::Slice(blob));
}

} // namespace

/// Tests of Store::Entry: readers, flow control under read_ahead_gap, release.
class TestEntry : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestEntry);
    CPPUNIT_TEST(appendNotifiesEveryReader);
    CPPUNIT_TEST(producerStopsAtGapAndResumesWhenSlowestCatchesUp);
    CPPUNIT_TEST(slowReaderHoldsAtMostGapPlusOneBlock);
    CPPUNIT_TEST(keptEntryReleasesNothing);
    CPPUNIT_TEST(pinnedEntryReleasesNothingUntilUnpinned);
    CPPUNIT_TEST(lastReaderGoneTellsProducer);
    CPPUNIT_TEST(readerRemovedWhileNotifiedIsSkipped);
    CPPUNIT_TEST(replacedReaderKeepsItsPlace);
    CPPUNIT_TEST(completeAndFailNotifyOnce);
    CPPUNIT_TEST(heldNotificationsTellOnceAtTheOutermostRelease);
    CPPUNIT_TEST(holdWithNothingToTellTellsNothing);
    CPPUNIT_TEST(replyFieldsAreFoundIgnoringCase);
    CPPUNIT_TEST(smallKeptObjectIsCompactedOnce);
    CPPUNIT_TEST_SUITE_END();

public:
    void appendNotifiesEveryReader()
    {
        Sbuf::BlockPool pool;
        auto e = MakeRef<Store::Entry>(1024);
        TestReader a(*e), b(*e);
        e->addReader(a);
        e->addReader(b);
        appendBlock(pool, *e, 100, 'x');
        CPPUNIT_ASSERT_EQUAL(1, a.notes);
        CPPUNIT_ASSERT_EQUAL(1, b.notes);
        // both read the same bytes from the same block: no copy
        iovec ia, ib;
        CPPUNIT_ASSERT_EQUAL(size_t(1), a.cur.gather(e->body(), &ia, 1, 100));
        CPPUNIT_ASSERT_EQUAL(size_t(1), b.cur.gather(e->body(), &ib, 1, 100));
        CPPUNIT_ASSERT_EQUAL(ia.iov_base, ib.iov_base);
        e->removeReader(a);
        e->removeReader(b);
    }

    void producerStopsAtGapAndResumesWhenSlowestCatchesUp()
    {
        Sbuf::BlockPool pool;
        auto e = MakeRef<Store::Entry>(1000);
        CountingProducer p;
        e->setProducer(&p);
        TestReader fast(*e), slow(*e);
        e->addReader(fast);
        e->addReader(slow);
        appendBlock(pool, *e, 600, 'a');
        CPPUNIT_ASSERT(e->canProduce());
        CPPUNIT_ASSERT_EQUAL(uint64_t(400), e->produceRoom());
        appendBlock(pool, *e, 600, 'b');
        CPPUNIT_ASSERT(!e->canProduce());
        // the fast reader alone does not make room
        CPPUNIT_ASSERT_EQUAL(size_t(1200), fast.consume(5000).size());
        CPPUNIT_ASSERT(!e->canProduce());
        CPPUNIT_ASSERT_EQUAL(0, p.resumes);
        // the slowest moving under the gap resumes the producer
        CPPUNIT_ASSERT_EQUAL(size_t(300), slow.consume(300).size());
        CPPUNIT_ASSERT(e->canProduce());
        CPPUNIT_ASSERT_EQUAL(1, p.resumes);
        e->setProducer(nullptr);
        e->removeReader(fast);
        e->removeReader(slow);
    }

    void slowReaderHoldsAtMostGapPlusOneBlock()
    {
        Sbuf::BlockPool pool;
        const uint64_t gap = 64 * 1024;
        const size_t block = 16 * 1024;
        auto e = MakeRef<Store::Entry>(gap);
        TestReader r(*e);
        e->addReader(r);
        std::string seen;
        for (int round = 0; round < 200; ++round) {
            // the producer reads whole blocks while it may
            while (e->canProduce())
                appendBlock(pool, *e, block, char('a' + round % 26));
            CPPUNIT_ASSERT(e->body().length() <= gap + block);
            CPPUNIT_ASSERT(e->body().blockBytes() <= gap + block);
            // the reader takes a little
            r.consume(5000);
        }
        CPPUNIT_ASSERT(pool.stats().total.bytesInUse <= gap + block);
        e->removeReader(r);
    }

    void keptEntryReleasesNothing()
    {
        Sbuf::BlockPool pool;
        auto e = MakeRef<Store::Entry>(1 << 20);
        e->setKept(true);
        TestReader r(*e);
        e->addReader(r);
        for (int i = 0; i < 4; ++i)
            appendBlock(pool, *e, 1000, 'k');
        r.consume(4000);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), e->body().startOffset());
        CPPUNIT_ASSERT_EQUAL(uint64_t(4000), e->body().length());
        e->removeReader(r);
    }

    /// a revalidation's stale object, dropped by the index (not kept) while
    /// the 304 was awaited, keeps its body for the requester that will read
    /// it after a reader read all of it
    void pinnedEntryReleasesNothingUntilUnpinned()
    {
        Sbuf::BlockPool pool;
        auto e = MakeRef<Store::Entry>(1 << 20);
        for (int i = 0; i < 4; ++i)
            appendBlock(pool, *e, 1000, 'p');
        e->complete();
        {
            const Store::EntryPin pin(e);
            TestReader first(*e);
            e->addReader(first);
            first.consume(4000);
            CPPUNIT_ASSERT_EQUAL(uint64_t(0), e->body().startOffset()); // pinned: kept whole
            TestReader later(*e);
            e->addReader(later);
            CPPUNIT_ASSERT_EQUAL(size_t(4000), later.consume(4000).size());
            e->removeReader(later);
            e->removeReader(first);
        }
        TestReader r(*e);
        e->addReader(r);
        r.consume(4000);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4000), e->body().startOffset()); // unpinned: released behind the reader
        e->removeReader(r);
    }

    void lastReaderGoneTellsProducer()
    {
        auto e = MakeRef<Store::Entry>(100);
        CountingProducer p;
        e->setProducer(&p);
        TestReader a(*e), b(*e);
        e->addReader(a);
        e->addReader(b);
        e->removeReader(a);
        CPPUNIT_ASSERT(!p.gone);
        e->removeReader(b);
        CPPUNIT_ASSERT(p.gone);
        e->setProducer(nullptr);
    }

    void readerRemovedWhileNotifiedIsSkipped()
    {
        Sbuf::BlockPool pool;
        auto e = MakeRef<Store::Entry>(1 << 20);
        TestReader b(*e);
        // a reader that removes the next one when told
        struct Remover : TestReader {
            Remover(Store::Entry& e, TestReader& v) : TestReader(e), victim(v) {}
            void noteDataAvailable() override
            {
                ++notes;
                entry.removeReader(victim);
                entry.removeReader(*this);
            }
            TestReader& victim;
        } a(*e, b);
        e->addReader(a);
        e->addReader(b);
        appendBlock(pool, *e, 10, 'z');
        CPPUNIT_ASSERT_EQUAL(1, a.notes);
        CPPUNIT_ASSERT_EQUAL(0, b.notes);
        CPPUNIT_ASSERT_EQUAL(size_t(0), e->readerCount());
    }

    void replacedReaderKeepsItsPlace()
    {
        Sbuf::BlockPool pool;
        auto e = MakeRef<Store::Entry>(1 << 20);
        CountingProducer p;
        e->setProducer(&p);
        TestReader a(*e), b(*e), successor(*e);
        // a reader that records which reader was told before it
        struct Witness : TestReader {
            Witness(Store::Entry& e, TestReader& f) : TestReader(e), first(f) {}
            void noteDataAvailable() override
            {
                ++notes;
                firstWasTold = first.notes > 0;
            }
            TestReader& first;
            bool firstWasTold = false;
        } witness(*e, successor);
        e->addReader(a);
        e->addReader(witness);
        e->replaceReader(a, successor);
        CPPUNIT_ASSERT(!p.gone);
        CPPUNIT_ASSERT_EQUAL(size_t(2), e->readerCount());
        appendBlock(pool, *e, 10, 'z');
        CPPUNIT_ASSERT_EQUAL(0, a.notes);
        CPPUNIT_ASSERT_EQUAL(1, successor.notes);
        CPPUNIT_ASSERT(witness.firstWasTold);
        // the one replaced is no longer attached; the successor is, once
        CPPUNIT_ASSERT_THROW(e->replaceReader(a, b), TextException);
        CPPUNIT_ASSERT_THROW(e->replaceReader(witness, successor), TextException);
        e->removeReader(witness);
        CPPUNIT_ASSERT(!p.gone);
        e->removeReader(successor);
        CPPUNIT_ASSERT(p.gone);
        e->setProducer(nullptr);
    }

    void completeAndFailNotifyOnce()
    {
        auto e = MakeRef<Store::Entry>(100);
        TestReader r(*e);
        e->addReader(r);
        e->complete();
        e->complete();
        e->fail("late");
        CPPUNIT_ASSERT_EQUAL(1, r.notes);
        CPPUNIT_ASSERT(e->isComplete());
        CPPUNIT_ASSERT(!e->hasFailed());
        e->removeReader(r);
    }

    void heldNotificationsTellOnceAtTheOutermostRelease()
    {
        // a head, its body and the end in one read: one notification, at the
        // outermost release, with everything there to see
        Sbuf::BlockPool pool;
        auto e = MakeRef<Store::Entry>(1 << 20);
        TestReader r(*e);
        e->addReader(r);
        Store::Entry::NotificationHold outer(*e);
        {
            Store::Entry::NotificationHold inner(*e);
            e->setReply(std::make_unique<Store::Reply>());
            appendBlock(pool, *e, 100, 'a');
            inner.release();
        }
        appendBlock(pool, *e, 100, 'b');
        e->complete();
        CPPUNIT_ASSERT_EQUAL(0, r.notes);
        outer.release();
        CPPUNIT_ASSERT_EQUAL(1, r.notes);
        CPPUNIT_ASSERT(e->reply() && e->isComplete());
        CPPUNIT_ASSERT_EQUAL(std::string(100, 'a') + std::string(100, 'b'), r.consume(1000));
        outer.release(); // a second release does nothing
        CPPUNIT_ASSERT_EQUAL(1, r.notes);
        // the hold is over: each change tells at once again
        e->fail("late");
        e->removeReader(r);
    }

    void holdWithNothingToTellTellsNothing()
    {
        auto e = MakeRef<Store::Entry>(100);
        TestReader r(*e);
        e->addReader(r);
        {
            Store::Entry::NotificationHold hold(*e);
            hold.release();
        }
        CPPUNIT_ASSERT_EQUAL(0, r.notes);
        {
            // destroyed without release() (an exception): nobody is told, and
            // the entry is no longer held
            Store::Entry::NotificationHold hold(*e);
            e->setReply(std::make_unique<Store::Reply>());
        }
        CPPUNIT_ASSERT_EQUAL(0, r.notes);
        e->complete();
        CPPUNIT_ASSERT_EQUAL(1, r.notes);
        e->removeReader(r);
    }

    void smallKeptObjectIsCompactedOnce()
    {
        // a 1 KB object that arrived in a 16 KB read block (head first, body
        // after it) moves into one block of exactly its size, from no pool;
        // its head and field index follow it
        Sbuf::BlockPool pool;
        const std::string head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n";
        auto block = Sbuf::MemBlob::Make(pool, 16 * 1024);
        block->append(head);
        block->append(std::string(1024, 'b'));
        auto reply = std::make_unique<Store::Reply>();
        reply->block = block;
        reply->head = block->view().substr(0, head.size());
        reply->setFields({{reply->head.substr(17, 12), reply->head.substr(31, 10)}});
        auto e = MakeRef<Store::Entry>(1 << 20);
        e->setKept(true);
        e->setReply(std::move(reply));
        e->append(Sbuf::Slice(block, head.size(), 1024));
        TestReader r(*e);
        e->addReader(r);
        e->complete();
        CPPUNIT_ASSERT(!e->compactIfSmall()); // a reader's cursor names the slices
        e->removeReader(r);
        block = nullptr;
        CPPUNIT_ASSERT(e->compactIfSmall());
        CPPUNIT_ASSERT_EQUAL(uint64_t(head.size() + 1024), e->body().blockBytes());
        CPPUNIT_ASSERT(!e->body().slice(e->body().firstSequence()).blob()->isPooled());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1024), e->body().length());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), pool.copyStats().compactions);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.copyStats().bodyCopies);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.stats().total.blocksInUse); // the 16 KB block went back
        CPPUNIT_ASSERT(e->reply()->findField("Content-Type") == std::string_view("text/plain"));
        CPPUNIT_ASSERT(e->reply()->head == head);
        CPPUNIT_ASSERT(e->body().slice(e->body().firstSequence()).view() == std::string(1024, 'b'));
        CPPUNIT_ASSERT(!e->compactIfSmall()); // once
    }

    void replyFieldsAreFoundIgnoringCase()
    {
        Sbuf::BlockPool pool;
        auto blob = Sbuf::MemBlob::MakeCopy(pool, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n");
        auto reply = std::make_unique<Store::Reply>();
        reply->block = blob;
        const auto view = blob->view();
        reply->head = view;
        reply->setFields({{view.substr(17, 12), view.substr(31, 10)}});
        auto e = MakeRef<Store::Entry>(100);
        TestReader r(*e);
        e->addReader(r);
        e->setReply(std::move(reply));
        CPPUNIT_ASSERT_EQUAL(1, r.notes);
        CPPUNIT_ASSERT(e->reply()->findField("content-TYPE") == std::string_view("text/plain"));
        CPPUNIT_ASSERT(!e->reply()->findField("Content-Length"));
        e->removeReader(r);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestEntry);
