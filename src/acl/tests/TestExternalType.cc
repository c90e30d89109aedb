/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/ExternalType.h"
#include "acl/tests/Helpers.h"

#include <cppunit/extensions/HelperMacros.h>

using namespace AclTest;

namespace {

std::unique_ptr<Acl::ExternalType> MustParse(const std::string& line)
{
    std::string why;
    auto t = Acl::ExternalType::Parse(Words(line), why);
    CPPUNIT_ASSERT_MESSAGE(line + ": " + why, t != nullptr);
    return t;
}

std::string Refused(const std::string& line)
{
    std::string why;
    CPPUNIT_ASSERT_MESSAGE(line, Acl::ExternalType::Parse(Words(line), why) == nullptr);
    CPPUNIT_ASSERT(!why.empty());
    return why;
}

} // namespace

/// Acl::ExternalType: external_acl_type lines and the request words they make.
class TestExternalType : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestExternalType);
    CPPUNIT_TEST(defaultsAreSquids);
    CPPUNIT_TEST(optionsAreRead);
    CPPUNIT_TEST(badLinesAreRefused);
    CPPUNIT_TEST(formatMakesWordsThenArguments);
    CPPUNIT_TEST(dataPlacesArguments);
    CPPUNIT_TEST(loginStopsTheCheckWithoutCredentials);
    CPPUNIT_TEST_SUITE_END();

public:
    void defaultsAreSquids()
    {
        const auto t = MustParse("t %SRC /bin/helper -x");
        CPPUNIT_ASSERT_EQUAL(std::string("t"), t->name());
        CPPUNIT_ASSERT_EQUAL(3600L, static_cast<long>(t->ttl().count()));
        CPPUNIT_ASSERT_EQUAL(3600L, static_cast<long>(t->negativeTtl().count()));
        CPPUNIT_ASSERT_EQUAL(5u, t->childrenMax());
        CPPUNIT_ASSERT_EQUAL(size_t(262144), t->cacheSize());
        CPPUNIT_ASSERT(t->program() == (std::vector<std::string>{"/bin/helper", "-x"}));
    }

    void optionsAreRead()
    {
        const auto t = MustParse("t ttl=5 children-max=3 children-startup=1 children-idle=2 concurrency=4 "
                                 "cache=10 ipv4 protocol=3.0 grace=0 %SRC /bin/h");
        CPPUNIT_ASSERT_EQUAL(5L, static_cast<long>(t->ttl().count()));
        CPPUNIT_ASSERT_EQUAL(5L, static_cast<long>(t->negativeTtl().count())); // negative_ttl follows ttl
        CPPUNIT_ASSERT_EQUAL(3u, t->childrenMax());
        CPPUNIT_ASSERT_EQUAL(1u, t->childrenStartup());
        CPPUNIT_ASSERT_EQUAL(2u, t->childrenIdle());
        CPPUNIT_ASSERT_EQUAL(4u, t->concurrency());
        CPPUNIT_ASSERT_EQUAL(size_t(10), t->cacheSize());
        CPPUNIT_ASSERT_EQUAL(
            7L, static_cast<long>(MustParse("t negative_ttl=7 ttl=5 %SRC /h")->negativeTtl().count()));
    }

    void badLinesAreRefused()
    {
        Refused("t");
        Refused("t %SRC");                   // no helper
        Refused("t /bin/h");                 // no format
        Refused("t ttl=x %SRC /bin/h");      // bad number
        Refused("t bogus=1 %SRC /bin/h");    // unknown option
        Refused("t grace=50 %SRC /bin/h");   // not implemented
        Refused("t protocol=2.5 %SRC /h");   // not implemented
        Refused("t children-max=0 %SRC /h"); // no helper could run
        CPPUNIT_ASSERT(Refused("t %USER_CERT /bin/h").find("not implemented") != std::string::npos);
        Refused("t %<{Server} /bin/h"); // reply headers: not implemented
    }

    void formatMakesWordsThenArguments()
    {
        const auto t = MustParse("t %SRC %>{X-A} %>{X-L:;k} %METHOD %PROTO %DST %PORT %PATH %ACL %un /h");
        const FakeFields fields{{"X-A", "a b"}, {"X-L", "j=1; k=2"}};
        auto f = Facts("10.0.0.1", "GET", "example.com", 8080, "http", "/p?q");
        f.request = &fields;
        const auto words = t->requestWords(f, "myacl", {"arg1", "arg2"});
        CPPUNIT_ASSERT(words);
        const std::vector<std::string> expected{"10.0.0.1", "a b",  "2",     "GET", "HTTP", "example.com",
                                                "8080",     "/p?q", "myacl", "",    "arg1", "arg2"};
        CPPUNIT_ASSERT(*words == expected);
    }

    void dataPlacesArguments()
    {
        const auto t = MustParse("t %DATA %SRC /h");
        const auto words = t->requestWords(Facts("10.0.0.1"), "a", {"x", "y"});
        CPPUNIT_ASSERT(*words == (std::vector<std::string>{"x", "y", "10.0.0.1"}));
        CPPUNIT_ASSERT(*t->requestWords(Facts("10.0.0.1"), "a", {}) ==
                       (std::vector<std::string>{"", "10.0.0.1"}));
    }

    void loginStopsTheCheckWithoutCredentials()
    {
        const auto t = MustParse("t %SRC %LOGIN /h");
        auto f = Facts("10.0.0.1");
        CPPUNIT_ASSERT(!t->requestWords(f, "a", {}));
        CPPUNIT_ASSERT(f.interruption == Acl::Answer::AuthRequired);
        f.auth = Acl::AuthState::Unchecked;
        CPPUNIT_ASSERT(!t->requestWords(f, "a", {}));
        CPPUNIT_ASSERT(f.interruption == Acl::Answer::Pending);
        CPPUNIT_ASSERT(f.lookup.kind == Acl::Lookup::Kind::Credentials);
        f.auth = Acl::AuthState::Valid;
        f.user = "alice";
        CPPUNIT_ASSERT(*t->requestWords(f, "a", {}) == (std::vector<std::string>{"10.0.0.1", "alice", ""}));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestExternalType);
