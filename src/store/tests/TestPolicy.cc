/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/Policy.h"

#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

const char* const AllPolicies[] = {"lru", "heap GDSF", "heap LFUDA", "heap LRU"};

/// a node with a name, as an index record embeds one
struct Object : Store::PolicyNode {
    explicit Object(int i, uint64_t bytes = 1) : id(i)
    {
        size = bytes;
        references = 1;
    }
    int id;
};

std::unique_ptr<Store::Policy> Make(const char* words)
{
    auto policy = Store::MakePolicy(words);
    CPPUNIT_ASSERT_MESSAGE(words, policy);
    return policy;
}

/// the id of the next object evicted
int EvictId(Store::Policy& policy)
{
    auto* node = policy.evict();
    CPPUNIT_ASSERT(node);
    return static_cast<Object*>(node)->id;
}

} // namespace

/// Tests of the replacement policies: their order properties.
class TestPolicy : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestPolicy);
    CPPUNIT_TEST(factoryTakesSquidWords);
    CPPUNIT_TEST(emptyPolicyHasNoVictim);
    CPPUNIT_TEST(lruEvictsLeastRecentlyTouched);
    CPPUNIT_TEST(removeTakesAnyNodeOut);
    CPPUNIT_TEST(lfudaKeepsFrequentlyUsed);
    CPPUNIT_TEST(gdsfEvictsBigRarelyUsedBeforeSmall);
    CPPUNIT_TEST(gdsfKeepsBigPopularOverSmallUnused);
    CPPUNIT_TEST(agingMakesOldPopularObjectsEvictable);
    CPPUNIT_TEST(removeDoesNotAge);
    CPPUNIT_TEST(victimIsTheMinimumUnderRandomOperations);
    CPPUNIT_TEST(nodeCostIsFortyBytes);
    CPPUNIT_TEST_SUITE_END();

public:
    void factoryTakesSquidWords()
    {
        CPPUNIT_ASSERT_EQUAL(std::string_view("lru"), Make("lru")->name());
        CPPUNIT_ASSERT_EQUAL(std::string_view("heap GDSF"), Make("heap GDSF")->name());
        CPPUNIT_ASSERT_EQUAL(std::string_view("heap GDSF"), Make("heap")->name());
        CPPUNIT_ASSERT_EQUAL(std::string_view("heap LFUDA"), Make("heap LFUDA")->name());
        CPPUNIT_ASSERT_EQUAL(std::string_view("heap LRU"), Make(" heap\tLRU ")->name());
        for (const auto* bad : {"", "LRU", "lru GDSF", "heap gdsf", "heap LFU", "heap GDSF extra", "fifo"})
            CPPUNIT_ASSERT_MESSAGE(bad, !Store::MakePolicy(bad));
    }

    void emptyPolicyHasNoVictim()
    {
        for (const auto* words : AllPolicies) {
            auto policy = Make(words);
            CPPUNIT_ASSERT(!policy->victim());
            CPPUNIT_ASSERT(!policy->evict());
            CPPUNIT_ASSERT_EQUAL(size_t(0), policy->count());
        }
    }

    void lruEvictsLeastRecentlyTouched()
    {
        for (const auto* words : {"lru", "heap LRU"}) {
            auto policy = Make(words);
            std::deque<Object> objects;
            for (int i = 0; i < 5; ++i)
                policy->add(objects.emplace_back(i));
            policy->touch(objects[0]);
            policy->touch(objects[2]);
            policy->touch(objects[0]);
            // never touched, in insertion order, then by last touch
            for (const int expected : {1, 3, 4, 2, 0})
                CPPUNIT_ASSERT_EQUAL_MESSAGE(words, expected, EvictId(*policy));
            CPPUNIT_ASSERT(!policy->victim());
        }
    }

    void removeTakesAnyNodeOut()
    {
        for (const auto* words : AllPolicies) {
            auto policy = Make(words);
            std::deque<Object> objects;
            for (int i = 0; i < 6; ++i)
                policy->add(objects.emplace_back(i));
            policy->remove(objects[0]); // the victim
            policy->remove(objects[3]); // from the middle
            policy->remove(objects[5]); // the last added
            CPPUNIT_ASSERT_EQUAL(size_t(3), policy->count());
            std::vector<int> left;
            while (policy->victim())
                left.push_back(EvictId(*policy));
            std::sort(left.begin(), left.end());
            CPPUNIT_ASSERT_MESSAGE(words, (left == std::vector<int>{1, 2, 4}));
        }
    }

    void lfudaKeepsFrequentlyUsed()
    {
        auto policy = Make("heap LFUDA");
        std::deque<Object> objects;
        for (int i = 0; i < 4; ++i)
            policy->add(objects.emplace_back(i));
        for (int i = 0; i < 5; ++i)
            policy->touch(objects[0]); // popular, and not recently used afterwards
        policy->touch(objects[1]);
        policy->touch(objects[3]); // objects 2 is used least; 3 was touched last among the twice-used
        CPPUNIT_ASSERT_EQUAL(2, EvictId(*policy));
        CPPUNIT_ASSERT_EQUAL(1, EvictId(*policy)); // same count as 3, used less recently
        CPPUNIT_ASSERT_EQUAL(3, EvictId(*policy));
        CPPUNIT_ASSERT_EQUAL(0, EvictId(*policy));
    }

    void gdsfEvictsBigRarelyUsedBeforeSmall()
    {
        auto policy = Make("heap GDSF");
        std::deque<Object> objects;
        auto& small = objects.emplace_back(0, 1024);
        auto& big = objects.emplace_back(1, 1024 * 1024);
        auto& medium = objects.emplace_back(2, 64 * 1024);
        policy->add(small);
        policy->add(big);
        policy->add(medium);
        policy->touch(big); // even used again, and more recently: 2 / 1 MB < 1 / 64 KB
        CPPUNIT_ASSERT_EQUAL(1, EvictId(*policy));
        CPPUNIT_ASSERT_EQUAL(2, EvictId(*policy));
        CPPUNIT_ASSERT_EQUAL(0, EvictId(*policy));
    }

    void gdsfKeepsBigPopularOverSmallUnused()
    {
        auto policy = Make("heap GDSF");
        std::deque<Object> objects;
        auto& small = objects.emplace_back(0, 1000);
        auto& big = objects.emplace_back(1, 4000);
        policy->add(small);
        policy->add(big);
        for (int i = 0; i < 5; ++i)
            policy->touch(big); // 6 / 4000 > 1 / 1000
        CPPUNIT_ASSERT_EQUAL(0, EvictId(*policy));
    }

    /// A popular object that stops being used is evicted once newcomers have
    /// aged the cache past its key, under both aging policies; without aging
    /// (LFU), it would stay forever.
    void agingMakesOldPopularObjectsEvictable()
    {
        for (const auto* words : {"heap LFUDA", "heap GDSF"}) {
            auto policy = Make(words);
            std::deque<Object> objects;
            auto& popular = objects.emplace_back(-1, 1);
            policy->add(popular);
            for (int i = 0; i < 9; ++i)
                policy->touch(popular); // key 10
            int evictedAt = -1;
            // a stream of one-hit objects through a cache with room for 2
            for (int round = 0; round < 100 && evictedAt < 0; ++round) {
                policy->add(objects.emplace_back(round, 1));
                if (EvictId(*policy) == -1)
                    evictedAt = round;
            }
            CPPUNIT_ASSERT_MESSAGE(words, evictedAt >= 8);  // kept while popular
            CPPUNIT_ASSERT_MESSAGE(words, evictedAt <= 10); // evicted once L reached its key
            CPPUNIT_ASSERT_MESSAGE(words, policy->age() >= 9.0);
        }
    }

    void removeDoesNotAge()
    {
        for (const auto* words : {"heap LFUDA", "heap GDSF"}) {
            auto policy = Make(words);
            Object a(0), b(1);
            policy->add(a);
            policy->touch(a);
            policy->add(b);
            policy->remove(a);
            CPPUNIT_ASSERT_EQUAL(0.0, policy->age());
            CPPUNIT_ASSERT_EQUAL(1, EvictId(*policy));
            CPPUNIT_ASSERT_EQUAL(1.0, policy->age()); // b's key: 0 + 1 reference (of size 1)
        }
    }

    /// property: after any sequence of add/touch/remove/evict, victim() is
    /// the node with the smallest (key, lastReference), the key computed by
    /// Squid's formula with the aging factor in force when the node was last
    /// added or touched
    void victimIsTheMinimumUnderRandomOperations()
    {
        for (const auto* words : AllPolicies) {
            const std::string name(words);
            auto policy = Make(words);
            std::mt19937 random(7);
            std::deque<Object> objects;
            std::map<Object*, double> keys; // the model: nodes in the policy and their keys
            double age = 0;
            const auto keyOf = [&](const Object& o) {
                if (name == "heap GDSF")
                    return age + double(o.references) / double(o.size);
                if (name == "heap LFUDA")
                    return age + double(o.references);
                return double(o.lastReference);
            };
            for (int step = 0; step < 5000; ++step) {
                const auto op = random() % 10;
                if (op < 4 || keys.empty()) {
                    auto& o = objects.emplace_back(step, 1 + random() % 100000);
                    policy->add(o);
                    keys[&o] = keyOf(o);
                } else {
                    auto it = keys.begin();
                    std::advance(it, long(random() % keys.size()));
                    Object& o = *it->first;
                    if (op < 8) {
                        policy->touch(o);
                        it->second = keyOf(o);
                    } else if (op < 9) {
                        policy->remove(o);
                        keys.erase(it);
                    } else {
                        auto* victim = static_cast<Object*>(policy->evict());
                        CPPUNIT_ASSERT(keys.count(victim));
                        if (name == "heap GDSF" || name == "heap LFUDA")
                            age = keys[victim];
                        keys.erase(victim);
                    }
                }
                CPPUNIT_ASSERT_EQUAL(keys.size(), policy->count());
                Object* expected = nullptr;
                for (const auto& [o, key] : keys) {
                    if (!expected || key < keys[expected] ||
                        (key == keys[expected] && o->lastReference < expected->lastReference))
                        expected = o;
                }
                CPPUNIT_ASSERT_MESSAGE(name, policy->victim() == expected);
                if (name != "lru" && expected)
                    CPPUNIT_ASSERT_EQUAL(keys[expected], expected->links.heap.key);
            }
            CPPUNIT_ASSERT_EQUAL(age, policy->age());
        }
    }

    void nodeCostIsFortyBytes()
    {
        // the node is part of every cached object's record (see Policy.h)
        CPPUNIT_ASSERT_EQUAL(size_t(40), sizeof(Store::PolicyNode));
        auto policy = Make("heap GDSF");
        std::deque<Object> objects;
        for (int i = 0; i < 1000; ++i)
            policy->add(objects.emplace_back(i));
        // the heap's array: 8 bytes per object, up to twice that while spare capacity lasts
        CPPUNIT_ASSERT(policy->memoryFootprint() >= 8 * 1000);
        CPPUNIT_ASSERT(policy->memoryFootprint() <= 16 * 1000);
        CPPUNIT_ASSERT_EQUAL(size_t(0), Make("lru")->memoryFootprint());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestPolicy);
