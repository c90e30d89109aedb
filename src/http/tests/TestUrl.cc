/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/Url.h"

#include <cppunit/extensions/HelperMacros.h>

/// Http::Url: absolute-form targets.
class TestUrl : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestUrl);
    CPPUNIT_TEST(parsesHostPortPath);
    CPPUNIT_TEST(defaultsPortByScheme);
    CPPUNIT_TEST(parsesIpv6Literal);
    CPPUNIT_TEST(lowercasesSchemeAndHost);
    CPPUNIT_TEST(acceptsSquidsCacheObjectScheme);
    CPPUNIT_TEST(emptyPathIsSlash);
    CPPUNIT_TEST(rejectsOriginForm);
    CPPUNIT_TEST(rejectsBadPortsAndHosts);
    CPPUNIT_TEST(rejectsUrlsOfMaxLength);
    CPPUNIT_TEST(canonicalDropsUserinfoDefaultPortAndFragment);
    CPPUNIT_TEST(canonicalReparsesToTheSameParts);
    CPPUNIT_TEST_SUITE_END();

public:
    void parsesHostPortPath();
    void defaultsPortByScheme();
    void parsesIpv6Literal();
    void lowercasesSchemeAndHost();
    void acceptsSquidsCacheObjectScheme();
    void emptyPathIsSlash();
    void rejectsOriginForm();
    void rejectsBadPortsAndHosts();
    void rejectsUrlsOfMaxLength();
    void canonicalDropsUserinfoDefaultPortAndFragment();
    void canonicalReparsesToTheSameParts();
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestUrl);

void TestUrl::parsesHostPortPath()
{
    Http::Url u;
    CPPUNIT_ASSERT(u.parse("http://example.com:8080/a/b?c=d"));
    CPPUNIT_ASSERT_EQUAL(std::string("http"), u.scheme());
    CPPUNIT_ASSERT_EQUAL(std::string("example.com"), u.host());
    CPPUNIT_ASSERT_EQUAL(uint16_t(8080), u.port());
    CPPUNIT_ASSERT(u.hasExplicitPort());
    CPPUNIT_ASSERT_EQUAL(std::string("/a/b?c=d"), u.path());
}

void TestUrl::defaultsPortByScheme()
{
    Http::Url u;
    CPPUNIT_ASSERT(u.parse("http://h/"));
    CPPUNIT_ASSERT_EQUAL(uint16_t(80), u.port());
    CPPUNIT_ASSERT(!u.hasExplicitPort());
    CPPUNIT_ASSERT(u.parse("https://h/"));
    CPPUNIT_ASSERT_EQUAL(uint16_t(443), u.port());
    CPPUNIT_ASSERT(u.parse("http://h:/"));
    CPPUNIT_ASSERT_EQUAL(uint16_t(80), u.port());
}

void TestUrl::parsesIpv6Literal()
{
    Http::Url u;
    CPPUNIT_ASSERT(u.parse("http://[::1]:3128/x"));
    CPPUNIT_ASSERT_EQUAL(std::string("::1"), u.host());
    CPPUNIT_ASSERT(u.isIpv6Host());
    CPPUNIT_ASSERT_EQUAL(std::string("[::1]"), u.authorityHost());
    CPPUNIT_ASSERT_EQUAL(uint16_t(3128), u.port());
    CPPUNIT_ASSERT(!u.parse("http://[::1/x"));
    CPPUNIT_ASSERT(!u.parse("http://[zz]/x"));
    CPPUNIT_ASSERT(!u.parse("http://[::1]x/"));
}

void TestUrl::lowercasesSchemeAndHost()
{
    Http::Url u;
    CPPUNIT_ASSERT(u.parse("HTTP://Example.COM/Path"));
    CPPUNIT_ASSERT_EQUAL(std::string("http"), u.scheme());
    CPPUNIT_ASSERT_EQUAL(std::string("example.com"), u.host());
    CPPUNIT_ASSERT_EQUAL(std::string("/Path"), u.path()); // paths are case-sensitive
}

void TestUrl::acceptsSquidsCacheObjectScheme()
{
    // squidclient's manager URLs; '_' is no scheme character otherwise (RFC 3986 section 3.1)
    Http::Url url;
    CPPUNIT_ASSERT(url.parse("CACHE_OBJECT://127.0.0.1/info@secret"));
    CPPUNIT_ASSERT_EQUAL(std::string("cache_object"), url.scheme());
    CPPUNIT_ASSERT_EQUAL(std::string("/info@secret"), url.path());
    CPPUNIT_ASSERT(!url.parse("cache_objects://127.0.0.1/info"));
    CPPUNIT_ASSERT(!url.parse("my_scheme://127.0.0.1/info"));
}

void TestUrl::emptyPathIsSlash()
{
    Http::Url u;
    CPPUNIT_ASSERT(u.parse("http://h"));
    CPPUNIT_ASSERT_EQUAL(std::string("/"), u.path());
    CPPUNIT_ASSERT(u.parse("http://h?q"));
    CPPUNIT_ASSERT_EQUAL(std::string("/?q"), u.path());
}

void TestUrl::rejectsOriginForm()
{
    Http::Url u;
    CPPUNIT_ASSERT(!u.parse("/index.html"));
    CPPUNIT_ASSERT(!u.parse("*"));
    CPPUNIT_ASSERT(!u.parse("example.com:443")); // authority-form is CONNECT's, not a Url
}

void TestUrl::rejectsBadPortsAndHosts()
{
    Http::Url u;
    CPPUNIT_ASSERT(!u.parse("http://h:0/"));
    CPPUNIT_ASSERT(!u.parse("http://h:65536/"));
    CPPUNIT_ASSERT(!u.parse("http://h:80a/"));
    CPPUNIT_ASSERT(!u.parse("http:///x"));
    CPPUNIT_ASSERT(!u.parse("http://h h/"));
    CPPUNIT_ASSERT(!u.parse("http://h<x>/"));
    CPPUNIT_ASSERT(u.parse("http://user:pw@h:81/"));
    CPPUNIT_ASSERT_EQUAL(std::string("h"), u.host());
    CPPUNIT_ASSERT_EQUAL(uint16_t(81), u.port());
}

void TestUrl::rejectsUrlsOfMaxLength()
{
    Http::Url u;
    const std::string prefix = "http://h/";
    CPPUNIT_ASSERT(u.parse(prefix + std::string(Http::Url::MaxLength - 1 - prefix.size(), 'a')));
    CPPUNIT_ASSERT(!u.parse(prefix + std::string(Http::Url::MaxLength - prefix.size(), 'a')));
    CPPUNIT_ASSERT(!u.parse(prefix + std::string(70000, 'a')));
}

void TestUrl::canonicalDropsUserinfoDefaultPortAndFragment()
{
    Http::Url u;
    CPPUNIT_ASSERT(u.parse("HTTP://User:pw@Example.COM:80/a?b#frag"));
    CPPUNIT_ASSERT_EQUAL(std::string("http://example.com/a?b"), u.canonical());
    CPPUNIT_ASSERT(u.canonical().find("pw") == std::string::npos);
    CPPUNIT_ASSERT(u.parse("http://h:8080"));
    CPPUNIT_ASSERT_EQUAL(std::string("http://h:8080/"), u.canonical());
    CPPUNIT_ASSERT(u.parse("https://[::1]:443/x"));
    CPPUNIT_ASSERT_EQUAL(std::string("https://[::1]/x"), u.canonical());
    CPPUNIT_ASSERT(u.parse("http://[::1]:81/x"));
    CPPUNIT_ASSERT_EQUAL(std::string("http://[::1]:81/x"), u.canonical());
}

void TestUrl::canonicalReparsesToTheSameParts()
{
    for (const char* text : {"http://a:b@H:1/p?q", "ftp://[fe80::1]/", "https://x.y:443", "http://h:/"}) {
        Http::Url u, again;
        CPPUNIT_ASSERT_MESSAGE(text, u.parse(text));
        CPPUNIT_ASSERT_MESSAGE(text, again.parse(u.canonical()));
        CPPUNIT_ASSERT_EQUAL(u.scheme(), again.scheme());
        CPPUNIT_ASSERT_EQUAL(u.host(), again.host());
        CPPUNIT_ASSERT_EQUAL(u.port(), again.port());
        CPPUNIT_ASSERT_EQUAL(u.path(), again.path());
        CPPUNIT_ASSERT_EQUAL(u.canonical(), again.canonical()); // a fixed point
    }
}
