/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "client/Lookups.h"
#include "acl/Registry.h"
#include "helper/Reply.h"

#include <cppunit/extensions/HelperMacros.h>

#include <chrono>
#include <fstream>
#include <optional>

#include <sys/stat.h>
#include <unistd.h>

using namespace std::chrono_literals;

namespace {

/// runs the loop until done() or 10 s passed; returns done()
bool RunUntil(Comm::Loop& loop, const std::function<bool()>& done)
{
    const auto deadline = Comm::Clock::now() + 10s;
    while (!done() && Comm::Clock::now() < deadline)
        loop.runOnce(10ms);
    return done();
}

/// a Registry with one external_acl_type line
Acl::Registry With(const std::string& line)
{
    Acl::Registry r;
    std::vector<std::string> words;
    size_t pos = 0;
    while (pos < line.size()) {
        const auto end = std::min(line.find(' ', pos), line.size());
        words.push_back(line.substr(pos, end - pos));
        pos = end + 1;
    }
    std::string why;
    CPPUNIT_ASSERT_MESSAGE(why, r.defineExternalType(words, why));
    return r;
}

Acl::Lookup Ext(const std::string& helper, std::vector<std::string> words)
{
    return Acl::Lookup{Acl::Lookup::Kind::External, helper, std::move(words)};
}

/// a helper that answers OK for "yes", BH for "bh", ERR otherwise, and counts its lines in FILE
const char* const Script = "while read -r w; do echo x >> \"$1\"; case $w in yes) echo 'OK user=u%20v';; "
                           "bh) echo BH;; *) echo ERR;; esac; done";

} // namespace

/// Client::Lookups: external_acl_type helpers and the cache of their answers.
class TestLookups : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestLookups);
    CPPUNIT_TEST(requestLineEscapesEachWord);
    CPPUNIT_TEST(repliesAsAclsReadThem);
    CPPUNIT_TEST(answersAreCachedButNotFailures);
    CPPUNIT_TEST(unknownTypeAnswersError);
    CPPUNIT_TEST(userAddressesExpire);
    CPPUNIT_TEST_SUITE_END();

public:
    void requestLineEscapesEachWord()
    {
        CPPUNIT_ASSERT_EQUAL(std::string("a%20b - c/d"), Client::Lookups::RequestLine({"a b", "", "c/d"}));
    }

    void repliesAsAclsReadThem()
    {
        using V = Acl::LookupResult::Verdict;
        const auto ok = Client::Lookups::Interpret(Helper::ParseReply("OK user=a tag=t x=1"));
        CPPUNIT_ASSERT(ok.verdict == V::Match);
        CPPUNIT_ASSERT_EQUAL(size_t(3), ok.notes.size());
        CPPUNIT_ASSERT(Client::Lookups::Interpret(Helper::ParseReply("ERR")).verdict == V::NoMatch);
        CPPUNIT_ASSERT(Client::Lookups::Interpret(Helper::ParseReply("BH")).verdict == V::Error);
        CPPUNIT_ASSERT(Client::Lookups::Interpret(Helper::ParseReply("whatever")).verdict == V::Error);
    }

    void answersAreCachedButNotFailures()
    {
        const std::string base = "/tmp/lookups-unit-" + std::to_string(::getpid());
        {
            std::ofstream script(base + ".sh");
            script << "#!/bin/sh\n" << Script << "\n";
        }
        ::chmod((base + ".sh").c_str(), 0755);
        Comm::Loop loop;
        Client::Lookups lookups(loop);
        lookups.configure(
            With("t children-max=1 ttl=60 negative_ttl=60 %SRC " + base + ".sh " + base + ".count"), 1s);
        Client::LookupAnswers answers;
        const auto ask = [&](const std::string& word) {
            answers.beginCheck(lookups); // a new request each time
            std::optional<Acl::LookupResult::Verdict> got;
            const auto lookup = Ext("t", {word});
            answers.start(lookup, [&] { got = answers.find(lookup)->verdict; });
            CPPUNIT_ASSERT(RunUntil(loop, [&got] { return got.has_value(); }));
            return *got;
        };
        using V = Acl::LookupResult::Verdict;
        CPPUNIT_ASSERT(ask("yes") == V::Match);
        CPPUNIT_ASSERT(ask("no") == V::NoMatch);
        CPPUNIT_ASSERT(ask("bh") == V::Error);
        const auto now = Client::Lookups::Clock::now();
        const auto* yes = lookups.find(Ext("t", {"yes"}), now);
        CPPUNIT_ASSERT(yes && yes->verdict == V::Match);
        CPPUNIT_ASSERT_EQUAL(std::string("u v"), yes->notes.at(0).second);
        CPPUNIT_ASSERT(lookups.find(Ext("t", {"no"}), now));
        CPPUNIT_ASSERT(!lookups.find(Ext("t", {"bh"}), now));        // BH is not cached
        CPPUNIT_ASSERT(!lookups.find(Ext("t", {"yes"}), now + 61s)); // past ttl
        answers.beginCheck(lookups); // the check again: the answer it waited for is there
        CPPUNIT_ASSERT(answers.find(Ext("t", {"bh"})));
        answers.beginCheck(lookups); // the next request asks again
        CPPUNIT_ASSERT(!answers.find(Ext("t", {"bh"})));
        lookups.configure(With("t %SRC " + base + ".sh " + base + ".count"), 1s); // a reconfigure
        CPPUNIT_ASSERT(!lookups.find(Ext("t", {"yes"}), now));                    // drops the cache
        ::unlink((base + ".sh").c_str());
        ::unlink((base + ".count").c_str());
    }

    void userAddressesExpire()
    {
        Client::UserAddresses seen;
        seen.setTtl(60s);
        const auto now = Client::UserAddresses::Clock::now();
        seen.note("alice", "10.0.0.1", now - 120s); // expired
        seen.note("alice", "10.0.0.2", now);
        seen.note("alice", "10.0.0.3", now);
        seen.note("alice", "10.0.0.3", now); // the same address once
        CPPUNIT_ASSERT_EQUAL(size_t(2), seen.count("alice"));
        CPPUNIT_ASSERT_EQUAL(size_t(0), seen.count("bob"));
        seen.forget("alice", "10.0.0.2");
        CPPUNIT_ASSERT_EQUAL(size_t(1), seen.count("alice"));
        seen.forgetAll("alice");
        CPPUNIT_ASSERT_EQUAL(size_t(0), seen.count("alice"));
    }

    void unknownTypeAnswersError()
    {
        Comm::Loop loop;
        Client::Lookups lookups(loop);
        Client::LookupAnswers answers;
        answers.beginCheck(lookups);
        bool done = false;
        answers.start(Ext("nosuch", {"x"}), [&done] { done = true; });
        CPPUNIT_ASSERT(!done); // never from inside start()
        CPPUNIT_ASSERT(RunUntil(loop, [&done] { return done; }));
        const auto* r = answers.find(Ext("nosuch", {"x"}));
        CPPUNIT_ASSERT(r && r->verdict == Acl::LookupResult::Verdict::Error);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestLookups);
