/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "client/Bumping.h"
#include "acl/Registry.h"

#include <cppunit/extensions/HelperMacros.h>

#include <sstream>

namespace {

using Action = Config::SslBumpRule::Action;

std::vector<std::string> Words(const std::string& line)
{
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string w; in >> w;)
        words.push_back(w);
    return words;
}

/// ssl_bump rules as squid.conf lines ("peek step1"), over the acls of `acls`
std::vector<Config::SslBumpRule> Rules(const Acl::Registry& acls, const std::vector<std::string>& lines)
{
    static const std::map<std::string, Action> actions = {{"peek", Action::Peek},
                                                          {"stare", Action::Stare},
                                                          {"splice", Action::Splice},
                                                          {"bump", Action::Bump},
                                                          {"terminate", Action::Terminate}};
    std::vector<Config::SslBumpRule> rules;
    for (const auto& line : lines) {
        auto words = Words(line);
        Config::SslBumpRule rule;
        rule.action = actions.at(words[0]);
        words[0] = "allow";
        std::string why;
        CPPUNIT_ASSERT_MESSAGE(why, rule.acls.parse(words, acls, why));
        rules.push_back(std::move(rule));
    }
    return rules;
}

} // namespace

/// Client::DecideBump(): Squid 5's order of ssl_bump rules at each step.
class TestBumping : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestBumping);
    CPPUNIT_TEST(noMatchSplices);
    CPPUNIT_TEST(stepsSelectTheirRules);
    CPPUNIT_TEST(peekAndStareAreIgnoredAtStepThree);
    CPPUNIT_TEST_SUITE_END();

    Acl::Registry acls_;

    /// the facts of a CONNECT from a client (the `all` acl matches its address)
    static Acl::Checklist ConnectFacts()
    {
        Acl::Checklist facts;
        facts.srcAddr = *Acl::Address::Parse("10.0.0.2");
        facts.method = "CONNECT";
        return facts;
    }

public:
    void setUp() override
    {
        for (const char* line : {"step1 at_step SslBump1", "step2 at_step SslBump2", "step3 at_step SslBump3",
                                 "banks ssl::server_name .bank.test"}) {
            std::string why;
            CPPUNIT_ASSERT_MESSAGE(why, acls_.parse(Words(line), why) == Acl::Registry::ParseOutcome::Ok);
        }
    }

    void noMatchSplices()
    {
        Acl::Checklist facts;
        CPPUNIT_ASSERT(Client::DecideBump({}, facts, 1) == Action::Splice);
        const auto rules = Rules(acls_, {"bump banks"});
        facts.dstHost = "www.example.test";
        CPPUNIT_ASSERT(Client::DecideBump(rules, facts, 1) == Action::Splice);
        CPPUNIT_ASSERT_EQUAL(1, facts.sslBumpStep);
    }

    void stepsSelectTheirRules()
    {
        const auto rules = Rules(acls_, {"peek step1", "splice step2 banks", "bump all"});
        auto facts = ConnectFacts();
        facts.dstHost = "10.0.0.1";
        CPPUNIT_ASSERT(Client::DecideBump(rules, facts, 1) == Action::Peek);
        facts.tlsSni = "www.bank.test";
        CPPUNIT_ASSERT(Client::DecideBump(rules, facts, 2) == Action::Splice);
        facts.tlsSni = "www.shop.test";
        CPPUNIT_ASSERT(Client::DecideBump(rules, facts, 2) == Action::Bump);
    }

    void peekAndStareAreIgnoredAtStepThree()
    {
        const auto rules = Rules(acls_, {"stare all", "peek all", "terminate step3"});
        auto facts = ConnectFacts();
        CPPUNIT_ASSERT(Client::DecideBump(rules, facts, 2) == Action::Stare);
        CPPUNIT_ASSERT(Client::DecideBump(rules, facts, 3) == Action::Terminate);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestBumping);
