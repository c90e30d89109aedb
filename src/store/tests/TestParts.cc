/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/Parts.h"
#include "http/Date.h"
#include "sbuf/BlockPool.h"
#include "sbuf/MemBlob.h"
#include "store/tests/Replies.h"

#include <cppunit/extensions/HelperMacros.h>

#include <ctime>
#include <string>

namespace {

/// the object every test takes parts of: 100 distinct-looking bytes
const std::string Object = [] {
    std::string s;
    for (int i = 0; i < 100; ++i)
        s += char('A' + i % 53);
    return s;
}();

/// the head of a 206 of Object's bytes [first, last] with these extra fields
std::string PartHead(uint64_t first, uint64_t last, const std::string& extra = "ETag: \"v1\"\r\n")
{
    return "HTTP/1.1 206 Partial Content\r\nContent-Type: text/x-test\r\nCache-Control: max-age=60\r\n" +
           extra + "Content-Range: bytes " + std::to_string(first) + "-" + std::to_string(last) +
           "/100\r\nContent-Length: " + std::to_string(last - first + 1) + "\r\n\r\n";
}

/// Object's bytes [first, last] as a sequence at their offsets, in slices of at most piece bytes
Sbuf::SliceSequence PartBody(uint64_t first, uint64_t last, size_t piece = 7)
{
    Sbuf::SliceSequence body(first);
    for (uint64_t at = first; at <= last; at += piece) {
        const auto n = std::min<uint64_t>(piece, last + 1 - at);
        body.append(Sbuf::Slice(Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), Object.substr(at, n))));
    }
    return body;
}

/// the bytes of a complete entry's body
std::string BodyOf(const Store::Entry& entry)
{
    std::string out(entry.body().length(), '\0');
    entry.body().copyOut(entry.body().startOffset(), out);
    return out;
}

} // namespace

class TestParts : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestParts);
    CPPUNIT_TEST(onlyCombinablePartsHaveFacts);
    CPPUNIT_TEST(theWholeHeadIsA200OfTheCompleteLength);
    CPPUNIT_TEST(partsMergeUntilTheObjectIsWhole);
    CPPUNIT_TEST(anotherValidatorDropsTheHeldParts);
    CPPUNIT_TEST(theBudgetDropsLeastRecentlyUsedObjects);
    CPPUNIT_TEST(aCollectorFollowsWithoutHoldingTheFetchBack);
    CPPUNIT_TEST(aFailedPartKeepsWhatCameAndALongOneNothing);
    CPPUNIT_TEST_SUITE_END();

public:
    void onlyCombinablePartsHaveFacts();
    void theWholeHeadIsA200OfTheCompleteLength();
    void partsMergeUntilTheObjectIsWhole();
    void anotherValidatorDropsTheHeldParts();
    void theBudgetDropsLeastRecentlyUsedObjects();
    void aCollectorFollowsWithoutHoldingTheFetchBack();
    void aFailedPartKeepsWhatCameAndALongOneNothing();
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestParts);

void TestParts::onlyCombinablePartsHaveFacts()
{
    using Store::Parts;
    auto facts = Parts::FactsOf(*TestStore::MakeReply(PartHead(10, 19)));
    CPPUNIT_ASSERT(facts);
    CPPUNIT_ASSERT(facts->range == Http::ByteRange({10, 10}));
    CPPUNIT_ASSERT_EQUAL(uint64_t(100), facts->length);
    CPPUNIT_ASSERT_EQUAL(std::string("Ev1"), facts->validator);
    // RFC 9110 8.8.2.2: Last-Modified is strong 60 s before Date, not less
    const time_t now = ::time(nullptr);
    const auto dated = [now](time_t modifiedAgo) {
        return "Date: " + Http::FormatHttpDate(now) +
               "\r\nLast-Modified: " + Http::FormatHttpDate(now - modifiedAgo) + "\r\n";
    };
    facts = Parts::FactsOf(*TestStore::MakeReply(PartHead(0, 9, dated(60))));
    CPPUNIT_ASSERT(facts && facts->validator == "L" + std::to_string(now - 60));
    CPPUNIT_ASSERT(!Parts::FactsOf(*TestStore::MakeReply(PartHead(0, 9, dated(59)))));
    // no strong validator, Vary, no complete length, a length that disagrees, not a 206
    for (const std::string& head :
         {PartHead(0, 9, "ETag: W/\"v1\"\r\n"), PartHead(0, 9, ""),
          PartHead(0, 9, "ETag: \"v1\"\r\nVary: Accept\r\n"),
          std::string("HTTP/1.1 206 Partial Content\r\nETag: \"v1\"\r\nContent-Range: bytes 0-9/*\r\n"
                      "Content-Length: 10\r\n\r\n"),
          std::string("HTTP/1.1 206 Partial Content\r\nETag: \"v1\"\r\nContent-Range: bytes 0-9/100\r\n"
                      "Content-Length: 11\r\n\r\n"),
          std::string("HTTP/1.1 206 Partial Content\r\nETag: \"v1\"\r\nContent-Range: bytes 0-9/100\r\n"
                      "Content-Range: bytes 0-9/100\r\nContent-Length: 10\r\n\r\n"),
          std::string("HTTP/1.1 200 OK\r\nETag: \"v1\"\r\nContent-Range: bytes 0-9/100\r\nContent-Length: "
                      "10\r\n\r\n")})
        CPPUNIT_ASSERT_MESSAGE(head, !Parts::FactsOf(*TestStore::MakeReply(head)));
}

void TestParts::theWholeHeadIsA200OfTheCompleteLength()
{
    const auto part = TestStore::MakeReply(PartHead(10, 19), 12345);
    const auto whole = Store::Parts::WholeReplyOf(*part, 100);
    CPPUNIT_ASSERT(whole);
    CPPUNIT_ASSERT_EQUAL(200, whole->status);
    CPPUNIT_ASSERT_EQUAL(uint64_t(100), whole->contentLength.value_or(0));
    CPPUNIT_ASSERT(!whole->findField("Content-Range"));
    CPPUNIT_ASSERT_EQUAL(std::string("100"), std::string(whole->findField("Content-Length").value_or("")));
    CPPUNIT_ASSERT_EQUAL(std::string("\"v1\""), std::string(whole->findField("ETag").value_or("")));
    CPPUNIT_ASSERT_EQUAL(std::string("max-age=60"),
                         std::string(whole->findField("Cache-Control").value_or("")));
    CPPUNIT_ASSERT_EQUAL(time_t(12345), whole->responseTime);
}

void TestParts::partsMergeUntilTheObjectIsWhole()
{
    Store::Parts parts(1 << 20);
    const auto add = [&parts](uint64_t first, uint64_t last) {
        const auto reply = TestStore::MakeReply(PartHead(first, last));
        return parts.add("k", *reply, *Store::Parts::FactsOf(*reply), PartBody(first, last));
    };
    CPPUNIT_ASSERT(!add(0, 9));
    CPPUNIT_ASSERT(!add(50, 59));
    CPPUNIT_ASSERT(!add(55, 69)); // overlaps: one span 50-69
    CPPUNIT_ASSERT(!add(70, 79)); // touches: one span 50-79
    CPPUNIT_ASSERT_EQUAL(size_t(1), parts.objectCount());
    CPPUNIT_ASSERT(parts.head("k") && parts.head("k")->status == 200);
    auto cover = parts.cover("k", 52, 80);
    CPPUNIT_ASSERT(cover.entry && cover.entry->isComplete());
    CPPUNIT_ASSERT_EQUAL(uint64_t(50), cover.offset);
    CPPUNIT_ASSERT_EQUAL(Object.substr(50, 30), BodyOf(*cover.entry));
    CPPUNIT_ASSERT(!parts.cover("k", 5, 11).entry); // past the first span
    CPPUNIT_ASSERT(!parts.cover("k", 45, 55).entry);
    CPPUNIT_ASSERT(!parts.cover("other", 0, 1).entry);
    CPPUNIT_ASSERT(!add(10, 30));
    const auto whole = add(25, 99); // fills 31-49 and 80-99: the object is whole
    CPPUNIT_ASSERT(whole && whole->isComplete());
    CPPUNIT_ASSERT_EQUAL(200, whole->reply()->status);
    CPPUNIT_ASSERT_EQUAL(Object, BodyOf(*whole));
    CPPUNIT_ASSERT_EQUAL(size_t(0), parts.objectCount());
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), parts.bytes());
}

void TestParts::anotherValidatorDropsTheHeldParts()
{
    Store::Parts parts(1 << 20);
    auto reply = TestStore::MakeReply(PartHead(0, 49));
    CPPUNIT_ASSERT(!parts.add("k", *reply, *Store::Parts::FactsOf(*reply), PartBody(0, 49)));
    reply = TestStore::MakeReply(PartHead(50, 99, "ETag: \"v2\"\r\n"));
    CPPUNIT_ASSERT(!parts.add("k", *reply, *Store::Parts::FactsOf(*reply), PartBody(50, 99)));
    CPPUNIT_ASSERT(!parts.cover("k", 0, 1).entry);
    CPPUNIT_ASSERT(parts.cover("k", 50, 100).entry);
    CPPUNIT_ASSERT(parts.erase("k"));
    CPPUNIT_ASSERT(!parts.erase("k"));
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), parts.bytes());

    // a part arriving when its key is erased (the whole object was stored) is not kept
    auto entry = MakeRef<Store::Entry>(1 << 20);
    entry->setReply(TestStore::MakeReply(PartHead(0, 49)));
    parts.collect("k", entry, *Store::Parts::FactsOf(*entry->reply()), nullptr);
    entry->append(Sbuf::Slice(Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), Object.substr(0, 20))));
    CPPUNIT_ASSERT_EQUAL(size_t(1), parts.collecting());
    CPPUNIT_ASSERT(!parts.erase("k"));
    CPPUNIT_ASSERT_EQUAL(size_t(0), parts.collecting());
    CPPUNIT_ASSERT_EQUAL(size_t(0), entry->readerCount());
    entry->append(Sbuf::Slice(Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), Object.substr(20, 30))));
    entry->complete();
    CPPUNIT_ASSERT(!parts.head("k"));
}

void TestParts::theBudgetDropsLeastRecentlyUsedObjects()
{
    Store::Parts parts(1 << 20);
    const auto reply = TestStore::MakeReply(PartHead(0, 9));
    const auto facts = *Store::Parts::FactsOf(*reply);
    for (const char* key : {"a", "b", "c"})
        parts.add(key, *reply, facts, PartBody(0, 9, 10));
    const auto each = parts.bytes() / 3;
    CPPUNIT_ASSERT(each > 0);
    CPPUNIT_ASSERT(parts.cover("a", 0, 10).entry); // "b" is now the least recently used
    parts.setBudget(2 * each);
    CPPUNIT_ASSERT_EQUAL(size_t(2), parts.objectCount());
    CPPUNIT_ASSERT(!parts.head("b"));
    CPPUNIT_ASSERT(parts.head("a") && parts.head("c"));
    parts.setBudget(0);
    CPPUNIT_ASSERT_EQUAL(size_t(0), parts.objectCount());
    CPPUNIT_ASSERT(!parts.add("a", *reply, facts, PartBody(0, 9))); // a budget of 0 holds nothing
    CPPUNIT_ASSERT_EQUAL(size_t(0), parts.objectCount());
}

void TestParts::aCollectorFollowsWithoutHoldingTheFetchBack()
{
    Store::Parts parts(1 << 20);
    Store::EntryRef whole;
    auto collect = [&](uint64_t first, uint64_t last) {
        auto entry = MakeRef<Store::Entry>(1);
        entry->setReply(TestStore::MakeReply(PartHead(first, last)));
        parts.collect("k", entry, *Store::Parts::FactsOf(*entry->reply()),
                      [&whole](const Store::EntryRef& e) { whole = e; });
        CPPUNIT_ASSERT_EQUAL(size_t(1), parts.collecting());
        CPPUNIT_ASSERT(!entry->hasReaders()); // a follower: the fetch goes on without readers
        const auto body = PartBody(first, last, 4);
        Sbuf::Cursor cursor(body);
        std::vector<Sbuf::Slice> slices;
        cursor.share(body, slices, SIZE_MAX);
        for (const auto& slice : slices) {
            entry->append(slice);
            CPPUNIT_ASSERT(entry->canProduce()); // it took the bytes at once: a gap of 1 stays open
        }
        entry->complete();
        CPPUNIT_ASSERT_EQUAL(size_t(0), parts.collecting());
    };
    collect(0, 59);
    CPPUNIT_ASSERT(!whole);
    CPPUNIT_ASSERT(parts.cover("k", 0, 60).entry);
    collect(60, 99);
    CPPUNIT_ASSERT(whole);
    CPPUNIT_ASSERT_EQUAL(Object, BodyOf(*whole));
}

void TestParts::aFailedPartKeepsWhatCameAndALongOneNothing()
{
    Store::Parts parts(1 << 20);
    auto entry = MakeRef<Store::Entry>(1 << 20);
    entry->setReply(TestStore::MakeReply(PartHead(0, 49)));
    parts.collect("k", entry, *Store::Parts::FactsOf(*entry->reply()), nullptr);
    entry->append(Sbuf::Slice(Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), Object.substr(0, 20))));
    entry->fail("origin reset");
    CPPUNIT_ASSERT(parts.cover("k", 0, 20).entry);
    CPPUNIT_ASSERT(!parts.cover("k", 0, 21).entry);

    // complete but short of its Content-Range: not a part
    entry = MakeRef<Store::Entry>(1 << 20);
    entry->setReply(TestStore::MakeReply(PartHead(50, 99)));
    parts.collect("k", entry, *Store::Parts::FactsOf(*entry->reply()), nullptr);
    entry->append(Sbuf::Slice(Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), Object.substr(50, 20))));
    entry->complete();
    CPPUNIT_ASSERT(!parts.cover("k", 50, 51).entry);

    // more bytes than the budget holds: nothing is kept, the collector leaves at once
    parts.setBudget(4096);
    entry = MakeRef<Store::Entry>(1 << 20);
    entry->setReply(TestStore::MakeReply(PartHead(0, 99)));
    parts.collect("big", entry, *Store::Parts::FactsOf(*entry->reply()), nullptr);
    for (int i = 0; i < 2 && parts.collecting(); ++i)
        entry->append(
            Sbuf::Slice(Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), std::string(4096, 'x')), 0, 50));
    CPPUNIT_ASSERT_EQUAL(size_t(0), parts.collecting());
    entry->complete();
    CPPUNIT_ASSERT(!parts.head("big"));
    parts.setBudget(1 << 20);

    // more bytes than its Content-Range: nothing is kept, the collector leaves at once
    entry = MakeRef<Store::Entry>(1 << 20);
    entry->setReply(TestStore::MakeReply(PartHead(50, 59)));
    parts.collect("k", entry, *Store::Parts::FactsOf(*entry->reply()), nullptr);
    entry->append(Sbuf::Slice(Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), Object.substr(50, 11))));
    CPPUNIT_ASSERT_EQUAL(size_t(0), parts.collecting());
    entry->complete();
    CPPUNIT_ASSERT(!parts.cover("k", 50, 51).entry);
}
