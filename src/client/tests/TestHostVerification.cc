/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "client/HostVerification.h"
#include "comm/Address.h"
#include "http/Url.h"

#include <cppunit/extensions/HelperMacros.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

/// The URL of an intercepted request and the Host checks, against what
/// Squid 5.7 did with the same requests (test-suite/forwarding/intercept.sh
/// runs them for real): a Host is verified only by the original
/// destination's own address and port, whatever else it names.
class TestHostVerification : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestHostVerification);
    CPPUNIT_TEST(splitHostFieldAsSquid);
    CPPUNIT_TEST(originFormUrlComesFromHost);
    CPPUNIT_TEST(urlWithoutHostNamesTheOriginalDestination);
    CPPUNIT_TEST(absoluteFormIsKept);
    CPPUNIT_TEST(interceptedPortMustMatch);
    CPPUNIT_TEST(interceptedLiteralIsComparedAtOnce);
    CPPUNIT_TEST(interceptedNameNeedsLookup);
    CPPUNIT_TEST(resolvedAddressesMustIncludeTheDestination);
    CPPUNIT_TEST(noHostIsSkipped);
    CPPUNIT_TEST(absoluteFormIsVerifiedByItsAuthority);
    CPPUNIT_TEST_SUITE_END();

public:
    using Outcome = Client::HostCheck::Outcome;

    static Comm::Address Addr(const char* host, uint16_t port) { return *Comm::Address::Parse(host, port); }

    void splitHostFieldAsSquid()
    {
        auto f = Client::SplitHostField("a.test:8080");
        CPPUNIT_ASSERT_EQUAL(std::string("a.test"), f.host);
        CPPUNIT_ASSERT(f.hasPort);
        CPPUNIT_ASSERT_EQUAL(uint16_t(8080), f.port);
        f = Client::SplitHostField("a.test");
        CPPUNIT_ASSERT(!f.hasPort);
        f = Client::SplitHostField("[fd77::1]:81");
        CPPUNIT_ASSERT_EQUAL(std::string("[fd77::1]"), f.host);
        CPPUNIT_ASSERT_EQUAL(uint16_t(81), f.port);
        f = Client::SplitHostField("[fd77::1]");
        CPPUNIT_ASSERT_EQUAL(std::string("[fd77::1]"), f.host);
        CPPUNIT_ASSERT(!f.hasPort);
        // an empty port is a port part (port 0, which matches no destination)
        f = Client::SplitHostField("a.test:");
        CPPUNIT_ASSERT(f.hasPort);
        CPPUNIT_ASSERT_EQUAL(uint16_t(0), f.port);
        // a port Squid's strtoll() check refuses stays in the host
        for (const char* bad : {"a.test:x1", "a.test:0", "a.test:65536", "a.test:8080x"}) {
            f = Client::SplitHostField(bad);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(bad, std::string(bad), f.host);
            CPPUNIT_ASSERT_MESSAGE(bad, !f.hasPort);
        }
    }

    void originFormUrlComesFromHost()
    {
        const auto dst = Addr("10.77.0.1", 80);
        CPPUNIT_ASSERT_EQUAL(std::string("http://a.test/x?y"),
                             Client::InterceptedUrl("/x?y", std::string_view("a.test"), dst));
        // a bumped intercepted connection's requests
        CPPUNIT_ASSERT_EQUAL(std::string("https://a.test/x"),
                             Client::InterceptedUrl("/x", std::string_view("a.test"), dst, "https"));
        CPPUNIT_ASSERT_EQUAL(std::string("http://a.test:8080/p"),
                             Client::InterceptedUrl("/p", std::string_view("a.test:8080"), dst));
        // the Host is the URL's authority whatever address it names
        Http::Url url;
        CPPUNIT_ASSERT(url.parse(Client::InterceptedUrl("/m", std::string_view("b.test"), dst)));
        CPPUNIT_ASSERT_EQUAL(std::string("b.test"), url.host());
    }

    void urlWithoutHostNamesTheOriginalDestination()
    {
        CPPUNIT_ASSERT_EQUAL(std::string("http://10.77.0.1:80/n"),
                             Client::InterceptedUrl("/n", std::nullopt, Addr("10.77.0.1", 80)));
        CPPUNIT_ASSERT_EQUAL(std::string("http://[fd77::1]:8080/n"),
                             Client::InterceptedUrl("/n", std::nullopt, Addr("fd77::1", 8080)));
        Http::Url url;
        CPPUNIT_ASSERT(url.parse(Client::InterceptedUrl("/n", std::nullopt, Addr("10.77.0.1", 80))));
        CPPUNIT_ASSERT_EQUAL(std::string("http://10.77.0.1/n"), url.canonical()); // as Squid logs it
    }

    void absoluteFormIsKept()
    {
        const auto dst = Addr("10.77.0.1", 80);
        CPPUNIT_ASSERT_EQUAL(std::string("http://b.test/abs"),
                             Client::InterceptedUrl("http://b.test/abs", std::string_view("a.test"), dst));
        CPPUNIT_ASSERT_EQUAL(std::string("b.test:443"),
                             Client::InterceptedUrl("b.test:443", std::string_view("b.test"), dst));
    }

    void interceptedPortMustMatch()
    {
        const auto dst = Addr("10.77.0.1", 80);
        auto c = Client::CheckInterceptedHost(std::string_view("a.test:8080"), dst);
        CPPUNIT_ASSERT(c.outcome == Outcome::Failed);
        CPPUNIT_ASSERT_EQUAL(std::string("intercepted port"), c.mismatch);
        CPPUNIT_ASSERT_EQUAL(std::string("8080"), c.against);
        // a literal that names the destination still fails on another port
        CPPUNIT_ASSERT(Client::CheckInterceptedHost(std::string_view("10.77.0.1:81"), dst).failed());
        CPPUNIT_ASSERT(Client::CheckInterceptedHost(std::string_view("a.test:"), dst).failed());
        // the original port, named or not, goes on to the address check
        CPPUNIT_ASSERT(Client::CheckInterceptedHost(std::string_view("a.test:80"), dst).outcome ==
                       Outcome::NeedsLookup);
    }

    void interceptedLiteralIsComparedAtOnce()
    {
        const auto dst = Addr("10.77.0.1", 80);
        CPPUNIT_ASSERT(Client::CheckInterceptedHost(std::string_view("10.77.0.1"), dst).outcome ==
                       Outcome::Passed);
        CPPUNIT_ASSERT(Client::CheckInterceptedHost(std::string_view("10.77.0.2"), dst).failed());
        const auto dst6 = Addr("fd77::1", 80);
        CPPUNIT_ASSERT(Client::CheckInterceptedHost(std::string_view("[fd77::1]:80"), dst6).outcome ==
                       Outcome::Passed);
        CPPUNIT_ASSERT(Client::CheckInterceptedHost(std::string_view("[fd77::2]"), dst6).failed());
        // an IPv4 client reaching a dual-stack socket has a mapped destination
        const auto mapped = Addr("::ffff:10.77.0.1", 80);
        CPPUNIT_ASSERT(Client::CheckInterceptedHost(std::string_view("10.77.0.1"), mapped).outcome ==
                       Outcome::Passed);
    }

    void interceptedNameNeedsLookup()
    {
        const auto c = Client::CheckInterceptedHost(std::string_view("A.Test:80"), Addr("10.77.0.1", 80));
        CPPUNIT_ASSERT(c.outcome == Outcome::NeedsLookup);
        CPPUNIT_ASSERT_EQUAL(std::string("A.Test"), c.lookupHost);
    }

    void resolvedAddressesMustIncludeTheDestination()
    {
        const auto dst = Addr("10.77.0.1", 80);
        // ports of the answer do not matter: the port was checked before
        CPPUNIT_ASSERT(Client::CheckResolvedHost({Addr("10.77.0.2", 0), Addr("10.77.0.1", 0)}, dst).outcome ==
                       Outcome::Passed);
        const auto c = Client::CheckResolvedHost({Addr("10.77.0.2", 0), Addr("fd77::1", 0)}, dst);
        CPPUNIT_ASSERT(c.failed());
        CPPUNIT_ASSERT_EQUAL(std::string("local IP"), c.mismatch);
        CPPUNIT_ASSERT_EQUAL(std::string("any domain IP"), c.against);
        // a lookup that failed verifies nothing
        CPPUNIT_ASSERT(Client::CheckResolvedHost({}, dst).failed());
    }

    void noHostIsSkipped()
    {
        CPPUNIT_ASSERT(Client::CheckInterceptedHost(std::nullopt, Addr("10.77.0.1", 80)).outcome ==
                       Outcome::Skipped);
    }

    void absoluteFormIsVerifiedByItsAuthority()
    {
        const std::optional<std::string_view> a("a.test");
        // origin-form: the Host field, or nothing
        CPPUNIT_ASSERT_EQUAL(std::string("a.test"), *Client::HostToVerify("/x", false, a));
        CPPUNIT_ASSERT(!Client::HostToVerify("/x", false, std::nullopt));
        // absolute-form: the URL's authority, whatever Host says (Squid
        // replaces Host with it); without Host nothing is verified, as in
        // Squid (and the request is not cached)
        CPPUNIT_ASSERT_EQUAL(std::string("b.test"), *Client::HostToVerify("http://b.test/x", false, a));
        CPPUNIT_ASSERT(!Client::HostToVerify("http://b.test/x", false, std::nullopt));
        CPPUNIT_ASSERT_EQUAL(std::string("b.test"), *Client::HostToVerify("http://B.test:80/x", false, a));
        CPPUNIT_ASSERT_EQUAL(std::string("b.test:8080"),
                             *Client::HostToVerify("http://b.test:8080/x", false, a));
        CPPUNIT_ASSERT_EQUAL(std::string("[fd77::2]:81"),
                             *Client::HostToVerify("http://[fd77::2]:81/", false, a));
        // CONNECT: its authority, port always
        CPPUNIT_ASSERT_EQUAL(std::string("b.test:443"), *Client::HostToVerify("b.test:443", true, a));
        // so an absolute URL naming another host fails though Host would pass
        const auto dst = Addr("10.77.0.1", 80);
        const auto host = Client::HostToVerify("http://10.77.0.2/x", false, std::string_view("10.77.0.1"));
        CPPUNIT_ASSERT(Client::CheckInterceptedHost(std::string_view(*host), dst).failed());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestHostVerification);
