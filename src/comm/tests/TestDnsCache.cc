/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "comm/DnsCache.h"

#include <cppunit/extensions/HelperMacros.h>

#include <string>
#include <thread>
#include <vector>

using Comm::DnsCache;
using Kind = Comm::DnsCache::Kind;
using namespace std::chrono_literals;

namespace {

Comm::DnsAnswer AddressAnswer(const std::string& ip)
{
    Comm::DnsAnswer a;
    a.addresses.push_back(*Comm::Address::Parse(ip, 0));
    return a;
}

} // namespace

/// Comm::DnsCache: the resolvers' ipcache and fqdncache.
class TestDnsCache : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestDnsCache);
    CPPUNIT_TEST(keptUntilItExpires);
    CPPUNIT_TEST(theTwoCachesAreApart);
    CPPUNIT_TEST(fullCacheDropsTheExpiredFirst);
    CPPUNIT_TEST(limitZeroKeepsNothing);
    CPPUNIT_TEST(threadsShareIt);
    CPPUNIT_TEST_SUITE_END();

public:
    void keptUntilItExpires()
    {
        DnsCache cache;
        const auto t0 = Comm::Clock::now();
        cache.remember(Kind::Addresses, "a.test", AddressAnswer("192.0.2.1"), t0, 100ms, 8);
        const auto found = cache.find(Kind::Addresses, "a.test", t0 + 99ms);
        CPPUNIT_ASSERT(found);
        CPPUNIT_ASSERT_EQUAL(std::string("192.0.2.1"), found->addresses.at(0).host());
        CPPUNIT_ASSERT(!cache.find(Kind::Addresses, "a.test", t0 + 100ms));
        size_t listed = 0;
        cache.forEach(Kind::Addresses, t0 + 40ms,
                      [&](const std::string& key, const Comm::DnsAnswer&, Comm::Milliseconds left) {
                          ++listed;
                          CPPUNIT_ASSERT_EQUAL(std::string("a.test"), key);
                          CPPUNIT_ASSERT(left == 60ms);
                      });
        CPPUNIT_ASSERT_EQUAL(size_t(1), listed);
        cache.forEach(Kind::Addresses, t0 + 100ms,
                      [&](const std::string&, const Comm::DnsAnswer&, Comm::Milliseconds) { ++listed; });
        CPPUNIT_ASSERT_EQUAL(size_t(1), listed); // an expired entry is not listed
        cache.clear();
        CPPUNIT_ASSERT_EQUAL(size_t(0), cache.size(Kind::Addresses));
    }

    void theTwoCachesAreApart()
    {
        DnsCache cache;
        const auto t0 = Comm::Clock::now();
        Comm::DnsAnswer names;
        names.names = {"host.test"};
        cache.remember(Kind::Names, "192.0.2.1", names, t0, 1000ms, 8);
        CPPUNIT_ASSERT(!cache.find(Kind::Addresses, "192.0.2.1", t0));
        CPPUNIT_ASSERT(cache.find(Kind::Names, "192.0.2.1", t0)->names == names.names);
        CPPUNIT_ASSERT_EQUAL(size_t(1), cache.size(Kind::Names));
        CPPUNIT_ASSERT_EQUAL(size_t(0), cache.size(Kind::Addresses));
    }

    void fullCacheDropsTheExpiredFirst()
    {
        DnsCache cache;
        const auto t0 = Comm::Clock::now();
        cache.remember(Kind::Addresses, "old.test", AddressAnswer("192.0.2.1"), t0, 10ms, 2);
        cache.remember(Kind::Addresses, "live.test", AddressAnswer("192.0.2.2"), t0, 1000ms, 2);
        cache.remember(Kind::Addresses, "new.test", AddressAnswer("192.0.2.3"), t0 + 20ms, 1000ms, 2);
        CPPUNIT_ASSERT_EQUAL(size_t(2), cache.size(Kind::Addresses));
        CPPUNIT_ASSERT(cache.find(Kind::Addresses, "live.test", t0 + 20ms));
        CPPUNIT_ASSERT(cache.find(Kind::Addresses, "new.test", t0 + 20ms));
        // nothing expired: one entry goes, whichever, and the limit holds
        cache.remember(Kind::Addresses, "third.test", AddressAnswer("192.0.2.4"), t0 + 30ms, 1000ms, 2);
        CPPUNIT_ASSERT_EQUAL(size_t(2), cache.size(Kind::Addresses));
        CPPUNIT_ASSERT(cache.find(Kind::Addresses, "third.test", t0 + 30ms));
        // an update of a kept key makes no room
        cache.remember(Kind::Addresses, "third.test", AddressAnswer("192.0.2.5"), t0 + 30ms, 1000ms, 2);
        CPPUNIT_ASSERT_EQUAL(size_t(2), cache.size(Kind::Addresses));
        CPPUNIT_ASSERT_EQUAL(std::string("192.0.2.5"),
                             cache.find(Kind::Addresses, "third.test", t0 + 30ms)->addresses.at(0).host());
    }

    void limitZeroKeepsNothing()
    {
        DnsCache cache;
        cache.remember(Kind::Names, "192.0.2.1", Comm::DnsAnswer(), Comm::Clock::now(), 1000ms, 0);
        CPPUNIT_ASSERT_EQUAL(size_t(0), cache.size(Kind::Names));
    }

    /// workers N: four threads remembering and finding at once (the
    /// ThreadSanitizer build, make check-threads, checks the locking)
    void threadsShareIt()
    {
        DnsCache cache;
        const auto t0 = Comm::Clock::now();
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t) {
            threads.emplace_back([&cache, t0, t] {
                for (int i = 0; i < 2000; ++i) {
                    const std::string key = "n" + std::to_string((i * 7 + t) % 50) + ".test";
                    cache.remember(Kind::Addresses, key, AddressAnswer("192.0.2.9"), t0, 1000ms, 40);
                    (void)cache.find(Kind::Addresses, key, t0);
                    if (i % 500 == 0)
                        cache.forEach(Kind::Addresses, t0,
                                      [](const std::string&, const Comm::DnsAnswer&, Comm::Milliseconds) {});
                }
            });
        }
        for (auto& thread : threads)
            thread.join();
        CPPUNIT_ASSERT(cache.size(Kind::Addresses) <= 40);
        CPPUNIT_ASSERT(cache.size(Kind::Addresses) >= 1);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestDnsCache);
