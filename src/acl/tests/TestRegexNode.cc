/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/RegexNode.h"
#include "acl/tests/Helpers.h"
#include "base/Regex.h"

#include <cppunit/extensions/HelperMacros.h>

using namespace AclTest;

/// Acl::RegexNode: the regex acl types, each against its own text.
class TestRegexNode : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestRegexNode);
    CPPUNIT_TEST(urlRegexSeesTheWholeUrl);
    CPPUNIT_TEST(expressionsAreJoinedAsSquidJoinsThem);
    CPPUNIT_TEST(caseSensitiveUnlessDashI);
    CPPUNIT_TEST(plusIBetweenPatternsSwitchesBack);
    CPPUNIT_TEST(urlPathRegexSeesPathAndQuery);
    CPPUNIT_TEST(dstdomRegexSeesTheHost);
    CPPUNIT_TEST(browserAndRefererReadTheirFields);
    CPPUNIT_TEST(reqHeaderJoinsRepeatedFields);
    CPPUNIT_TEST(reqHeaderNeedsOneHeaderName);
    CPPUNIT_TEST(mimeTypes);
    CPPUNIT_TEST(replyAclsMatchNothingBeforeAReply);
    CPPUNIT_TEST(badRegexIsError);
    CPPUNIT_TEST(patternsFromFile);
    CPPUNIT_TEST_SUITE_END();

public:
    void expressionsAreJoinedAsSquidJoinsThem()
    {
        std::vector<std::unique_ptr<Regex>> checked, out;
        for (const char* p : {"^a", "b$", "(x)\\1", "c"})
            checked.push_back(std::make_unique<Regex>(p, false));
        checked.push_back(std::make_unique<Regex>("D", true));
        checked.push_back(std::make_unique<Regex>("e", true));
        Acl::RegexNode::Combine(checked, out);
        // a back reference stays alone; a change of case starts a new group
        CPPUNIT_ASSERT_EQUAL(size_t(4), out.size());
        CPPUNIT_ASSERT_EQUAL(std::string("^a|b$"), out[0]->pattern());
        CPPUNIT_ASSERT_EQUAL(std::string("(x)\\1"), out[1]->pattern());
        CPPUNIT_ASSERT_EQUAL(std::string("c"), out[2]->pattern());
        CPPUNIT_ASSERT_EQUAL(std::string("D|e"), out[3]->pattern());
        CPPUNIT_ASSERT(out[3]->ignoresCase());
        CPPUNIT_ASSERT(out[0]->matches(std::string("ab")) && out[0]->matches(std::string("xb")));
        CPPUNIT_ASSERT(!out[0]->matches(std::string("ba")));
        CPPUNIT_ASSERT(out[3]->matches(std::string("d")));

        // the same answers through an acl, joined or not
        Acl::Registry r;
        MustAcl(r, "u url_regex -i \\.exe$ ^http://[0-9.]+/ +i Secret");
        auto c = Facts("10.0.0.1");
        for (const auto& [url, expected] :
             std::vector<std::pair<std::string, bool>>{{"http://a.test/X.EXE", true},
                                                       {"http://10.0.0.1/y", true},
                                                       {"http://a.test/Secret", true},
                                                       {"http://a.test/secret", false},
                                                       {"http://a.test/exe", false}}) {
            c.url = url;
            CPPUNIT_ASSERT_EQUAL_MESSAGE(url, expected, Matches(r, "u", c));
        }
    }

    void urlRegexSeesTheWholeUrl()
    {
        Acl::Registry r;
        MustAcl(r, "u url_regex ^http://www\\.example\\.com/.*\\.exe$");
        auto f = Facts("10.0.0.1");
        f.url = "http://www.example.com/dl/setup.exe";
        CPPUNIT_ASSERT(Matches(r, "u", f));
        f.url = "http://www.example.com/dl/setup.exe.txt";
        CPPUNIT_ASSERT(!Matches(r, "u", f));
    }

    void caseSensitiveUnlessDashI()
    {
        Acl::Registry r;
        MustAcl(r, "cs url_regex \\.exe$");
        MustAcl(r, "ci url_regex -i \\.exe$");
        auto f = Facts("10.0.0.1");
        f.url = "http://a.test/SETUP.EXE";
        CPPUNIT_ASSERT(!Matches(r, "cs", f));
        CPPUNIT_ASSERT(Matches(r, "ci", f));
        // the next line of the same acl starts case sensitive again
        MustAcl(r, "ci url_regex \\.zip$");
        f.url = "http://a.test/A.ZIP";
        CPPUNIT_ASSERT(!Matches(r, "ci", f));
    }

    void plusIBetweenPatternsSwitchesBack()
    {
        Acl::Registry r;
        MustAcl(r, "u url_regex -i \\.exe$ +i \\.zip$ -i \\.msi$");
        auto f = Facts("10.0.0.1");
        for (const auto& [url, expected] :
             std::vector<std::pair<std::string, bool>>{{"http://a/X.EXE", true},
                                                       {"http://a/X.ZIP", false},
                                                       {"http://a/x.zip", true},
                                                       {"http://a/X.MSI", true}}) {
            f.url = url;
            CPPUNIT_ASSERT_EQUAL_MESSAGE(url, expected, Matches(r, "u", f));
        }
    }

    void urlPathRegexSeesPathAndQuery()
    {
        Acl::Registry r;
        MustAcl(r, "p urlpath_regex ^/cgi-bin/ \\?debug=1");
        CPPUNIT_ASSERT(Matches(r, "p", Facts("10.0.0.1", "GET", "a.test", 80, "http", "/cgi-bin/x")));
        CPPUNIT_ASSERT(Matches(r, "p", Facts("10.0.0.1", "GET", "a.test", 80, "http", "/x?debug=1")));
        CPPUNIT_ASSERT(!Matches(r, "p", Facts("10.0.0.1", "GET", "cgi-bin.test", 80, "http", "/x")));
    }

    void dstdomRegexSeesTheHost()
    {
        Acl::Registry r;
        MustAcl(r, "d dstdom_regex -n ^ads[0-9]*\\.");
        CPPUNIT_ASSERT(Matches(r, "d", Facts("10.0.0.1", "GET", "ads12.example.com")));
        CPPUNIT_ASSERT(!Matches(r, "d", Facts("10.0.0.1", "GET", "www.ads.example.com")));
    }

    void browserAndRefererReadTheirFields()
    {
        Acl::Registry r;
        MustAcl(r, "b browser -i ^curl/");
        MustAcl(r, "ref referer_regex ^https?://evil\\.test/");
        const FakeFields fields{{"user-agent", "CURL/8.0"}, {"Referer", "http://evil.test/page"}};
        auto f = Facts("10.0.0.1");
        CPPUNIT_ASSERT(!Matches(r, "b", f)); // no request fields: no match
        f.request = &fields;
        CPPUNIT_ASSERT(Matches(r, "b", f));
        CPPUNIT_ASSERT(Matches(r, "ref", f));
        const FakeFields none{{"Accept", "*/*"}};
        f.request = &none;
        CPPUNIT_ASSERT(!Matches(r, "b", f));
        CPPUNIT_ASSERT(!Matches(r, "ref", f));
    }

    void reqHeaderJoinsRepeatedFields()
    {
        Acl::Registry r;
        MustAcl(r, "h req_header X-Tag -i ^a, b$");
        const FakeFields fields{{"X-Tag", "A"}, {"Other", "x"}, {"x-tag", "B"}};
        auto f = Facts("10.0.0.1");
        f.request = &fields;
        CPPUNIT_ASSERT(Matches(r, "h", f));
    }

    void reqHeaderNeedsOneHeaderName()
    {
        Acl::Registry r;
        MustAcl(r, "h req_header X-One foo");
        MustAcl(r, "h req_header x-one bar"); // the same header, another case
        CPPUNIT_ASSERT(AclError(r, "h req_header X-Two baz").find("any-of") != std::string::npos);
        AclError(r, "empty req_header");
    }

    void mimeTypes()
    {
        Acl::Registry r;
        MustAcl(r, "up req_mime_type -i ^multipart/form-data");
        MustAcl(r, "js rep_mime_type -i ^application/javascript$");
        MustAcl(r, "untyped rep_mime_type ^$");
        const FakeFields request{{"Content-Type", "Multipart/Form-Data; boundary=x"}};
        const FakeFields reply{{"Content-Type", "application/javascript"}};
        const FakeFields bare{{"Server", "x"}};
        auto f = Facts("10.0.0.1");
        f.request = &request;
        CPPUNIT_ASSERT(Matches(r, "up", f));
        f.reply = &reply;
        CPPUNIT_ASSERT(Matches(r, "js", f));
        CPPUNIT_ASSERT(!Matches(r, "untyped", f));
        f.reply = &bare; // a reply without Content-Type is "" to rep_mime_type
        CPPUNIT_ASSERT(Matches(r, "untyped", f));
        f.request = &bare; // a request without one matches no req_mime_type
        CPPUNIT_ASSERT(!Matches(r, "up", f));
    }

    void replyAclsMatchNothingBeforeAReply()
    {
        Acl::Registry r;
        MustAcl(r, "rh rep_header Server .");
        MustAcl(r, "any rep_mime_type .*");
        const auto f = Facts("10.0.0.1");
        CPPUNIT_ASSERT(!Matches(r, "rh", f));
        CPPUNIT_ASSERT(!Matches(r, "any", f));
    }

    void badRegexIsError()
    {
        Acl::Registry r;
        CPPUNIT_ASSERT(AclError(r, "u url_regex (unclosed").find("(unclosed") != std::string::npos);
        CPPUNIT_ASSERT(!r.find("u"));
    }

    void patternsFromFile()
    {
        TempFile list("# patterns\n\\.exe$\n^http://blocked\\.\n");
        Acl::Registry r;
        MustAcl(r, "u url_regex -i " + list.quoted());
        auto f = Facts("10.0.0.1");
        f.url = "http://a.test/X.EXE";
        CPPUNIT_ASSERT(Matches(r, "u", f));
        f.url = "http://blocked.test/";
        CPPUNIT_ASSERT(Matches(r, "u", f));
        f.url = "http://ok.test/";
        CPPUNIT_ASSERT(!Matches(r, "u", f));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestRegexNode);
