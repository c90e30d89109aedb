/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "client/DetachedFetch.h"
#include "acl/AccessList.h"
#include "proxy/Instance.h"
#include "comm/Loop.h"
#include "config/Parser.h"
#include "http/RequestParser.h"
#include "sbuf/BlockPool.h"
#include "sbuf/MemBlob.h"
#include "store/Key.h"
#include "store/tests/Replies.h"

#include <cppunit/extensions/HelperMacros.h>

#include <ctime>
#include <memory>
#include <string>

namespace {

/// the URL every test's request asks for
const std::string Url = "http://example.test/object";
/// a plain GET of Url, with no caching directives
const std::string RequestHead = "GET " + Url + " HTTP/1.1\r\nHost: example.test\r\n\r\n";

/// an entry with no reply head yet, as a fetch makes it
Store::EntryRef MakeEntry()
{
    return MakeRef<Store::Entry>(64 * 1024);
}

/// a reader that records, when told, whether the entry was stored by then
class Joiner : public Store::Reader {
public:
    explicit Joiner(Store::Entry& e) : entry(e) {}
    void noteDataAvailable() override
    {
        ++notes;
        keptWhenTold = entry.isKept();
    }
    const Sbuf::Cursor& cursor() const override { return cur; }
    Store::Entry& entry;
    Sbuf::Cursor cur;
    int notes = 0;
    bool keptWhenTold = false;
};

/// a fetch in flight read by two clients, the first of which left: a
/// DetachedFetch took its place
struct TakenOver {
    TakenOver(Proxy::Instance& server, Store::FetchSpec&& spec)
        : entry(MakeEntry()), owner(*entry), other(*entry)
    {
        entry->addReader(owner);
        entry->addReader(other);
        fetch = std::make_unique<Client::DetachedFetch>(server, std::move(spec), nullptr, entry, owner);
    }
    ~TakenOver()
    {
        fetch.reset();
        entry->removeReader(other);
    }
    Store::EntryRef entry;
    Joiner owner; ///< the client that left
    Joiner other; ///< a client still waiting
    std::unique_ptr<Client::DetachedFetch> fetch;
};

} // namespace

/// Client::DetachedFetch taking over a fetch whose client left before its
/// head, through a configured Proxy::Instance (no origin: the reply heads are
/// set on the entries as the forwarder would set them).
class TestDetachedFetch : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestDetachedFetch);
    CPPUNIT_TEST(storeFetchedTakesSquidConfLimits);
    CPPUNIT_TEST(storeMissDecidesWithTheRequestsFacts);
    CPPUNIT_TEST(takenOverFetchIsStoredBeforeTheOthersAreTold);
    CPPUNIT_TEST(takenOverFetchNotStorableLeavesTheOthersToFetch);
    CPPUNIT_TEST(takenOverFetchKeepsItsClientsStoreMiss);
    CPPUNIT_TEST(takenOverRevalidationFreshensOn304);
    CPPUNIT_TEST(takenOverRevalidationKeepsTheStaleObjectOn5xx);
    CPPUNIT_TEST_SUITE_END();

public:
    void tearDown() override
    {
        server_.reset();
        loop_.reset();
    }

    void storeFetchedTakesSquidConfLimits()
    {
        // Store::Admit() decides (store/tests/TestAdmission); StoreFetched()
        // gives it squid.conf's limits
        start("negative_ttl 30 seconds\nmaximum_object_size_in_memory 1 KB\nminimum_object_size 10 bytes\n");
        auto error = MakeEntry();
        error->setReply(TestStore::MakeReply("HTTP/1.1 500 Oops\r\nContent-Length: 10\r\n\r\n"));
        CPPUNIT_ASSERT(Client::StoreFetched(*server_, spec(), error, nullptr, nullptr));
        CPPUNIT_ASSERT_EQUAL(error->reply()->responseTime + 30, error->negativeUntil());
        const std::string fresh = "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: ";
        for (const char* length : {"1025", "9"}) {
            auto entry = MakeEntry();
            entry->setReply(TestStore::MakeReply(fresh + length + "\r\n\r\n"));
            CPPUNIT_ASSERT(!Client::StoreFetched(*server_, spec(), entry, nullptr, nullptr));
        }
        auto fits = MakeEntry();
        fits->setReply(TestStore::MakeReply(fresh + "1024\r\n\r\n"));
        const auto key = Client::StoreFetched(*server_, spec(), fits, nullptr, nullptr);
        CPPUNIT_ASSERT(key);
        CPPUNIT_ASSERT_EQUAL(Store::MakeKey("GET", Url), *key);
        CPPUNIT_ASSERT(found() == fits);
    }

    void storeMissDecidesWithTheRequestsFacts()
    {
        // the reply's status and the request's fields both count; no facts,
        // with rules, keep the reply out (a fetch whose client's facts are gone)
        start("acl notfound http_status 404\nacl private req_header X-Private .\n"
              "store_miss deny notfound\nstore_miss deny private\nstore_miss allow all\n");
        const std::string head = "Cache-Control: max-age=60\r\nContent-Length: 5\r\n\r\n";
        Acl::Checklist facts;
        facts.srcAddr = *Acl::Address::Parse("127.0.0.1"); // `all` matches a set address
        auto ok = MakeEntry();
        ok->setReply(TestStore::MakeReply("HTTP/1.1 200 OK\r\n" + head));
        CPPUNIT_ASSERT(!Client::StoreFetched(*server_, spec(), ok, nullptr, nullptr));
        CPPUNIT_ASSERT(Client::StoreFetched(*server_, spec(), ok, nullptr, &facts));
        auto missing = MakeEntry();
        missing->setReply(TestStore::MakeReply("HTTP/1.1 404 Not Found\r\n" + head));
        CPPUNIT_ASSERT(!Client::StoreFetched(*server_, spec(), missing, nullptr, &facts));
        auto privateOne = MakeEntry();
        privateOne->setReply(TestStore::MakeReply("HTTP/1.1 200 OK\r\n" + head));
        auto privateSpec = spec();
        privateSpec.requestHead = "GET " + Url + " HTTP/1.1\r\nHost: example.test\r\nX-Private: 1\r\n\r\n";
        CPPUNIT_ASSERT(!Client::StoreFetched(*server_, privateSpec, privateOne, nullptr, &facts));
    }

    void takenOverFetchIsStoredBeforeTheOthersAreTold()
    {
        start();
        TakenOver t(*server_, spec());
        int doneCalls = 0;
        t.fetch->setDoneHandler([&doneCalls] { ++doneCalls; });
        // newcomers may join it until its head
        server_->inFlight().setPendingMiss(spec().cacheKey, t.entry);
        CPPUNIT_ASSERT_EQUAL(size_t(2), t.entry->readerCount());
        CPPUNIT_ASSERT(!t.fetch->isDone());
        CPPUNIT_ASSERT_EQUAL(0, doneCalls);
        t.entry->setReply(TestStore::MakeReply(
            "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 5\r\n\r\n"));
        CPPUNIT_ASSERT_EQUAL(0, t.owner.notes);
        CPPUNIT_ASSERT_EQUAL(1, t.other.notes);
        CPPUNIT_ASSERT(t.other.keptWhenTold);
        CPPUNIT_ASSERT(found() == t.entry);
        CPPUNIT_ASSERT(!server_->inFlight().pendingMiss(spec().cacheKey));
        // decided (and with no forwarder of its own here, done): it left the
        // readers and said so once, which is when its owner destroys it
        CPPUNIT_ASSERT(t.fetch->isDone());
        CPPUNIT_ASSERT_EQUAL(1, doneCalls);
        t.fetch->setDoneHandler([&doneCalls] { doneCalls += 10; }); // set when done: called at once
        CPPUNIT_ASSERT_EQUAL(11, doneCalls);
        CPPUNIT_ASSERT_EQUAL(size_t(1), t.entry->readerCount());
    }

    void takenOverFetchNotStorableLeavesTheOthersToFetch()
    {
        start();
        TakenOver t(*server_, spec());
        t.entry->setReply(
            TestStore::MakeReply("HTTP/1.1 200 OK\r\nCache-Control: private, max-age=60\r\n\r\n"));
        CPPUNIT_ASSERT_EQUAL(1, t.other.notes);
        CPPUNIT_ASSERT(!t.other.keptWhenTold);
        CPPUNIT_ASSERT_EQUAL(size_t(0), server_->cache().objectCount());
        CPPUNIT_ASSERT(t.fetch->isDone());
    }

    void takenOverFetchKeepsItsClientsStoreMiss()
    {
        // the client that left had a store_miss rule on its source: the
        // fetch that took its place decides with its facts, and without
        // them keeps the reply out
        start("acl lan src 10.0.0.0/8\nstore_miss deny lan\nstore_miss allow all\n");
        const std::string storable =
            "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 5\r\n\r\n";
        for (const char* client : {"10.1.2.3", "192.0.2.1", ""}) {
            TakenOver t(*server_, spec());
            if (*client) {
                Acl::Checklist facts;
                facts.srcAddr = *Acl::Address::Parse(client);
                t.fetch->setStoreFacts(facts);
            }
            t.entry->setReply(TestStore::MakeReply(storable));
            const bool wanted = std::string(client) == "192.0.2.1";
            CPPUNIT_ASSERT_EQUAL_MESSAGE(client, wanted, t.other.keptWhenTold);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(client, size_t(wanted ? 1 : 0), server_->cache().objectCount());
            server_->cache().erase(Store::MakeKey("GET", Url));
        }
    }

    void takenOverRevalidationFreshensOn304()
    {
        start();
        auto stale = storedStale();
        auto s = spec();
        s.stale = stale;
        s.staleKey = server_->cache().findVariant(Store::MakeKey("GET", Url), requestFields()).key;
        TakenOver t(*server_, std::move(s));
        t.entry->setReply(TestStore::MakeReply(
            "HTTP/1.1 304 Not Modified\r\nETag: \"s\"\r\nCache-Control: max-age=60\r\n\r\n"));
        CPPUNIT_ASSERT_EQUAL(1, t.other.notes);
        // the stored head took the 304's fields, and stays what is stored
        CPPUNIT_ASSERT(found() == stale);
        CPPUNIT_ASSERT_EQUAL(size_t(1), server_->cache().objectCount());
        CPPUNIT_ASSERT_EQUAL(std::string("max-age=60"),
                             std::string(stale->reply()->findField("Cache-Control").value_or("")));
        CPPUNIT_ASSERT_EQUAL(std::string("3"),
                             std::string(stale->reply()->findField("Content-Length").value_or("")));
    }

    void takenOverRevalidationKeepsTheStaleObjectOn5xx()
    {
        start();
        auto stale = storedStale();
        auto s = spec();
        s.stale = stale;
        TakenOver t(*server_, std::move(s));
        t.entry->setReply(TestStore::MakeReply(
            "HTTP/1.1 500 Oops\r\nCache-Control: max-age=60\r\nContent-Length: 0\r\n\r\n"));
        CPPUNIT_ASSERT(found() == stale);
        CPPUNIT_ASSERT(!t.entry->isKept());
        CPPUNIT_ASSERT_EQUAL(std::string("max-age=0"),
                             std::string(stale->reply()->findField("Cache-Control").value_or("")));
    }

private:
    /// a Server configured with squid.conf.default's caching and extra lines
    void start(const std::string& extra = "")
    {
        Config::Parser parser;
        auto settings =
            parser.parseText("http_port 127.0.0.1:0\ncache_log /dev/null\npid_filename none\n"
                             "access_log none\nerror_directory " TOP_SRCDIR "/errors/templates\n" +
                                 extra,
                             "test.conf");
        CPPUNIT_ASSERT(settings);
        loop_ = std::make_unique<Comm::Loop>();
        server_ = std::make_unique<Proxy::Instance>(*loop_);
        server_->configure(std::shared_ptr<const Config::Settings>(std::move(settings)), true);
    }

    /// a GET of Url with no caching directives, under the built-in rule
    Store::FetchSpec spec() const
    {
        Store::FetchSpec s;
        s.cacheKey = Store::MakeKey("GET", Url);
        s.requestHead = RequestHead;
        return s;
    }

    /// the fields of RequestHead (parser_ holds the bytes they name)
    std::vector<Http::HeaderField> requestFields()
    {
        parser_ = std::make_unique<Http::RequestParser>(RequestHead.size() + 1);
        parser_->parse(RequestHead);
        return parser_->fields();
    }

    /// what the cache holds for a GET of Url, or null
    Store::EntryRef found()
    {
        return server_->cache().findVariant(Store::MakeKey("GET", Url), requestFields()).entry;
    }

    /// a complete stored object of 3 bytes that is stale at once (ETag "s")
    Store::EntryRef storedStale()
    {
        auto stale = MakeEntry();
        stale->setReply(TestStore::MakeReply(
            "HTTP/1.1 200 OK\r\nETag: \"s\"\r\nCache-Control: max-age=0\r\nContent-Length: 3\r\n\r\n"));
        auto blob = Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), "abc");
        stale->append(Sbuf::Slice(blob));
        stale->complete();
        CPPUNIT_ASSERT(Client::StoreFetched(*server_, spec(), stale, nullptr, nullptr));
        return stale;
    }

    std::unique_ptr<Comm::Loop> loop_;
    std::unique_ptr<Proxy::Instance> server_;
    std::unique_ptr<Http::RequestParser> parser_;
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestDetachedFetch);
