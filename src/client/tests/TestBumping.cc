/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "client/Bumping.h"
#include "acl/Registry.h"
#include "base/TlsErrors.h"
#include "config/Parser.h"

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

/// the Settings of a squid.conf text that must parse without a word
std::unique_ptr<Config::Settings> Conf(const std::string& text)
{
    Config::Parser parser;
    auto settings = parser.parseText(text, "bump.conf");
    CPPUNIT_ASSERT(settings);
    CPPUNIT_ASSERT_MESSAGE(text, parser.diagnostics().empty());
    return settings;
}

using Signer = Tls::MintSpec::Signer;

} // namespace

/// Client::DecideBump(): Squid 5's order of ssl_bump rules at each step;
/// Client::DecideMinting(): sslproxy_cert_sign, _adapt and their defaults.
class TestBumping : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestBumping);
    CPPUNIT_TEST(noMatchSplices);
    CPPUNIT_TEST(stepsSelectTheirRules);
    CPPUNIT_TEST(peekAndStareAreIgnoredAtStepThree);
    CPPUNIT_TEST(signingDefaultsFollowTheOriginsErrors);
    CPPUNIT_TEST(refusedErrorGetsTheDefaultCertificate);
    CPPUNIT_TEST(configuredSigningComesFirst);
    CPPUNIT_TEST(firstAdaptationOfEachAlgorithmApplies);
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

    void signingDefaultsFollowTheOriginsErrors()
    {
        const auto settings = Conf("sslproxy_cert_error allow all\n");
        auto facts = ConnectFacts();
        const auto signer = [&](std::vector<int> errors) {
            facts.tlsErrors = std::move(errors);
            const auto spec = Client::DecideMinting(*settings, facts, "origin.test");
            CPPUNIT_ASSERT(spec);
            return spec->signer;
        };
        CPPUNIT_ASSERT(signer({}) == Signer::Trusted);
        CPPUNIT_ASSERT(signer({X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY}) == Signer::Untrusted);
        CPPUNIT_ASSERT(signer({X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT}) == Signer::Self);
        // Squid's first default wins when both match
        CPPUNIT_ASSERT(signer({X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_CERT_UNTRUSTED}) ==
                       Signer::Untrusted);
        // an expired certificate is mimicked, expired, under the trusted CA
        CPPUNIT_ASSERT(signer({X509_V_ERR_CERT_HAS_EXPIRED}) == Signer::Trusted);
        CPPUNIT_ASSERT_EQUAL(size_t(1), facts.tlsErrors.size());
    }

    void refusedErrorGetsTheDefaultCertificate()
    {
        auto facts = ConnectFacts();
        facts.tlsErrors = {X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT};
        CPPUNIT_ASSERT(!Client::DecideMinting(*Conf(""), facts, "origin.test"));
        const auto settings = Conf("sslproxy_cert_error allow ssl::certSelfSigned\n");
        CPPUNIT_ASSERT(Client::DecideMinting(*settings, facts, "origin.test"));
        facts.tlsErrors = {X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, SquidX509VErrDomainMismatch};
        CPPUNIT_ASSERT(!Client::DecideMinting(*settings, facts, "origin.test"));
        CPPUNIT_ASSERT_EQUAL(size_t(2), facts.tlsErrors.size());
    }

    void configuredSigningComesFirst()
    {
        const auto settings = Conf("acl mine ssl::server_name .mine.test\n"
                                   "acl expired ssl_error X509_V_ERR_CERT_HAS_EXPIRED\n"
                                   "sslproxy_cert_error allow all\n"
                                   "sslproxy_cert_sign signTrusted mine\n"
                                   "sslproxy_cert_sign signSelf expired\n");
        auto facts = ConnectFacts();
        facts.tlsErrors = {X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT};
        facts.tlsSni = "www.mine.test";
        CPPUNIT_ASSERT(Client::DecideMinting(*settings, facts, "origin.test")->signer == Signer::Trusted);
        facts.tlsSni = "www.other.test";
        CPPUNIT_ASSERT(Client::DecideMinting(*settings, facts, "origin.test")->signer == Signer::Untrusted);
        facts.tlsErrors = {X509_V_ERR_CERT_HAS_EXPIRED};
        CPPUNIT_ASSERT(Client::DecideMinting(*settings, facts, "origin.test")->signer == Signer::Self);
    }

    void firstAdaptationOfEachAlgorithmApplies()
    {
        const auto settings = Conf("acl mismatch ssl_error SQUID_X509_V_ERR_DOMAIN_MISMATCH\n"
                                   "sslproxy_cert_error allow all\n"
                                   "sslproxy_cert_adapt setCommonName{fixed.test} mismatch\n"
                                   "sslproxy_cert_adapt setCommonName all\n"
                                   "sslproxy_cert_adapt setValidAfter mismatch\n"
                                   "sslproxy_cert_adapt setValidBefore !all\n");
        auto facts = ConnectFacts();
        facts.tlsErrors = {SquidX509VErrDomainMismatch};
        auto spec = Client::DecideMinting(*settings, facts, "origin.test");
        CPPUNIT_ASSERT_EQUAL(std::string("fixed.test"), spec->commonName);
        CPPUNIT_ASSERT(spec->caNotAfter);
        CPPUNIT_ASSERT(!spec->caNotBefore);
        CPPUNIT_ASSERT(spec->signer == Signer::Trusted);
        facts.tlsErrors.clear();
        spec = Client::DecideMinting(*settings, facts, "origin.test");
        CPPUNIT_ASSERT_EQUAL(std::string("origin.test"), spec->commonName);
        CPPUNIT_ASSERT(!spec->caNotAfter);
        CPPUNIT_ASSERT_EQUAL(std::string(" setCommonName=origin.test"), spec->key());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestBumping);
