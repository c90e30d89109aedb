/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/Key.h"

#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace {

using Fields = std::vector<Http::HeaderField>;
using Values = std::vector<std::string_view>;

/// the vary key of fields for one Vary value
std::string KeyOf(std::string_view vary, const Fields& fields)
{
    const Values values{vary};
    const auto key = Store::VaryKey(values, fields);
    CPPUNIT_ASSERT(key);
    return *key;
}

} // namespace

/// Tests of the store keys and of Vary normalisation and matching.
class TestKey : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestKey);
    CPPUNIT_TEST(headIsKeyedAsGet);
    CPPUNIT_TEST(otherMethodsKeepTheirToken);
    CPPUNIT_TEST(urlsNormaliseAsSquid);
    CPPUNIT_TEST(keyRejectsNonCanonicalBytes);
    CPPUNIT_TEST(variantKeyKeepsItsBase);
    CPPUNIT_TEST(varyNamesAreSortedLowercasedUnique);
    CPPUNIT_TEST(varyStarOrBadNameNeverMatches);
    CPPUNIT_TEST(orderOfDifferentFieldsDoesNotMatter);
    CPPUNIT_TEST(orderOfSameNameLinesMatters);
    CPPUNIT_TEST(caseOfNamesDoesNotMatter);
    CPPUNIT_TEST(whitespaceAroundCommasDoesNotMatter);
    CPPUNIT_TEST(whitespaceInsideAnElementMatters);
    CPPUNIT_TEST(quotedCommasAreLeftAlone);
    CPPUNIT_TEST(linesCombineAsOneList);
    CPPUNIT_TEST(absentDiffersFromEmpty);
    CPPUNIT_TEST(unselectedFieldsDoNotMatter);
    CPPUNIT_TEST(noVaryMatchesEveryRequest);
    CPPUNIT_TEST(randomWhitespaceAndOrderKeepTheKey);
    CPPUNIT_TEST_SUITE_END();

public:
    void headIsKeyedAsGet()
    {
        const std::string url = "http://example.com/a";
        CPPUNIT_ASSERT_EQUAL(std::string("GET http://example.com/a"), Store::MakeKey("GET", url));
        CPPUNIT_ASSERT_EQUAL(Store::MakeKey("GET", url), Store::MakeKey("HEAD", url));
    }

    void otherMethodsKeepTheirToken()
    {
        const std::string url = "http://example.com/a";
        CPPUNIT_ASSERT(Store::MakeKey("POST", url) != Store::MakeKey("GET", url));
        CPPUNIT_ASSERT_EQUAL(std::string("POST http://example.com/a"), Store::MakeKey("POST", url));
        // methods are case-sensitive (RFC 9110 section 9.1): "get" is not GET, "head" not HEAD
        CPPUNIT_ASSERT(Store::MakeKey("get", url) != Store::MakeKey("GET", url));
        CPPUNIT_ASSERT(Store::MakeKey("head", url) != Store::MakeKey("GET", url));
    }

    void urlsNormaliseAsSquid()
    {
        const auto base = Store::MakeKeyFromUrl("GET", "http://example.com/a?b=C");
        CPPUNIT_ASSERT(base);
        for (const auto* same : {"HTTP://Example.COM/a?b=C", "http://example.com:80/a?b=C",
                                 "http://user:pw@example.com/a?b=C", "http://example.com/a?b=C#frag"}) {
            const auto key = Store::MakeKeyFromUrl("GET", same);
            CPPUNIT_ASSERT_MESSAGE(same, key && *key == *base);
        }
        for (const auto* other :
             {"http://example.com/A?b=C", "http://example.com/a?b=c", "http://example.com:8080/a?b=C",
              "https://example.com/a?b=C", "http://example.com/a/../a?b=C", "http://example.com/%61?b=C"}) {
            const auto key = Store::MakeKeyFromUrl("GET", other);
            CPPUNIT_ASSERT_MESSAGE(other, key && *key != *base);
        }
        CPPUNIT_ASSERT_EQUAL(std::string("GET http://example.com/"),
                             *Store::MakeKeyFromUrl("HEAD", "http://EXAMPLE.com:80"));
        CPPUNIT_ASSERT_EQUAL(std::string("GET https://example.com:8443/x"),
                             *Store::MakeKeyFromUrl("GET", "https://example.com:8443/x"));
        CPPUNIT_ASSERT(!Store::MakeKeyFromUrl("GET", "/origin-form"));
    }

    void keyRejectsNonCanonicalBytes()
    {
        CPPUNIT_ASSERT_THROW(Store::MakeKey("GET", "http://a/b c"), std::exception);
        CPPUNIT_ASSERT_THROW(Store::MakeKey("GET", "http://a/b\nc"), std::exception);
    }

    void variantKeyKeepsItsBase()
    {
        const auto key = Store::MakeKey("GET", "http://example.com/");
        const auto variant = Store::MakeVariantKey(key, "accept-encoding:gzip\n");
        CPPUNIT_ASSERT(variant != key);
        CPPUNIT_ASSERT_EQUAL(std::string_view(key), Store::BaseKey(variant));
        CPPUNIT_ASSERT_EQUAL(std::string_view(key), Store::BaseKey(key));
    }

    void varyNamesAreSortedLowercasedUnique()
    {
        const Values a{"Accept-Encoding, User-Agent"};
        const Values b{"user-agent", "ACCEPT-ENCODING ,accept-encoding", ""};
        CPPUNIT_ASSERT_EQUAL(std::string("accept-encoding,user-agent"), Store::VaryNames(a));
        CPPUNIT_ASSERT_EQUAL(Store::VaryNames(a), Store::VaryNames(b));
        // normalised names are a valid Vary value that normalises to itself
        const std::string normalised = Store::VaryNames(a);
        const Values again{normalised};
        CPPUNIT_ASSERT_EQUAL(Store::VaryNames(a), Store::VaryNames(again));
        CPPUNIT_ASSERT_EQUAL(std::string(), Store::VaryNames(Values{}));
        CPPUNIT_ASSERT_EQUAL(std::string(), Store::VaryNames(Values{" , "}));

        const Fields reply{
            {"Content-Type", "text/plain"}, {"vary", "User-Agent"}, {"Vary", "Accept-Encoding"}};
        CPPUNIT_ASSERT_EQUAL(std::string("accept-encoding,user-agent"), Store::VaryNamesOf(reply));
    }

    void varyStarOrBadNameNeverMatches()
    {
        const Fields request{{"Accept-Encoding", "gzip"}};
        for (const auto* vary : {"*", "Accept-Encoding, *", "Accept Encoding", "\"quoted\""}) {
            const Values values{vary};
            CPPUNIT_ASSERT_EQUAL_MESSAGE(vary, std::string("*"), Store::VaryNames(values));
            CPPUNIT_ASSERT_MESSAGE(vary, !Store::VaryKey(values, request));
            // not even the request that caused the response matches
            CPPUNIT_ASSERT_MESSAGE(vary, !Store::VaryMatches(values, "", request));
            CPPUNIT_ASSERT_MESSAGE(vary, !Store::VaryMatches(values, "accept-encoding:gzip\n", request));
        }
        CPPUNIT_ASSERT(Store::IsVaryAny("*"));
        CPPUNIT_ASSERT(!Store::IsVaryAny(""));
    }

    void orderOfDifferentFieldsDoesNotMatter()
    {
        const Fields a{{"Accept-Encoding", "gzip"}, {"Host", "x"}, {"Accept-Language", "en"}};
        const Fields b{{"Accept-Language", "en"}, {"Accept-Encoding", "gzip"}, {"Host", "x"}};
        CPPUNIT_ASSERT_EQUAL(KeyOf("Accept-Encoding, Accept-Language", a),
                             KeyOf("Accept-Encoding, Accept-Language", b));
        // and the order of the names in Vary does not matter either
        CPPUNIT_ASSERT_EQUAL(KeyOf("Accept-Encoding, Accept-Language", a),
                             KeyOf("Accept-Language, Accept-Encoding", a));
    }

    void orderOfSameNameLinesMatters()
    {
        // RFC 9110 section 5.3: lines combine in order, and list order may be significant
        const Fields a{{"Accept-Encoding", "gzip"}, {"Accept-Encoding", "br"}};
        const Fields b{{"Accept-Encoding", "br"}, {"Accept-Encoding", "gzip"}};
        CPPUNIT_ASSERT(KeyOf("Accept-Encoding", a) != KeyOf("Accept-Encoding", b));
    }

    void caseOfNamesDoesNotMatter()
    {
        const Fields a{{"accept-encoding", "gzip"}};
        const Fields b{{"ACCEPT-ENCODING", "gzip"}};
        CPPUNIT_ASSERT_EQUAL(KeyOf("Accept-Encoding", a), KeyOf("accept-ENCODING", b));
        // values keep their case: whether it matters is the field's business
        const Fields c{{"Accept-Encoding", "GZIP"}};
        CPPUNIT_ASSERT(KeyOf("Accept-Encoding", a) != KeyOf("Accept-Encoding", c));
    }

    void whitespaceAroundCommasDoesNotMatter()
    {
        const std::string expected = KeyOf("Accept-Encoding", {{"Accept-Encoding", "gzip,deflate,br"}});
        CPPUNIT_ASSERT_EQUAL(std::string("accept-encoding:gzip,deflate,br\n"), expected);
        for (const auto* value : {"gzip, deflate, br", "gzip ,deflate ,br", "gzip\t,\tdeflate,  br",
                                  "gzip,, deflate, ,br", ", gzip,deflate,br,"}) {
            CPPUNIT_ASSERT_EQUAL_MESSAGE(value, expected,
                                         KeyOf("Accept-Encoding", {{"Accept-Encoding", value}}));
        }
    }

    void whitespaceInsideAnElementMatters()
    {
        CPPUNIT_ASSERT(KeyOf("User-Agent", {{"User-Agent", "curl/8 (x86)"}}) !=
                       KeyOf("User-Agent", {{"User-Agent", "curl/8  (x86)"}}));
        CPPUNIT_ASSERT(KeyOf("Accept-Encoding", {{"Accept-Encoding", "gzip deflate"}}) !=
                       KeyOf("Accept-Encoding", {{"Accept-Encoding", "gzip,deflate"}}));
    }

    void quotedCommasAreLeftAlone()
    {
        const auto spaced = KeyOf("X-Tag", {{"X-Tag", "\"a, b\", c"}});
        CPPUNIT_ASSERT_EQUAL(std::string("x-tag:\"a, b\",c\n"), spaced);
        CPPUNIT_ASSERT(spaced != KeyOf("X-Tag", {{"X-Tag", "\"a,b\", c"}}));
        CPPUNIT_ASSERT_EQUAL(std::string("x-tag:\"a\\\", b\",c\n"),
                             KeyOf("X-Tag", {{"X-Tag", "\"a\\\", b\" , c"}}));
    }

    void linesCombineAsOneList()
    {
        const Fields lines{{"Accept-Encoding", "gzip"}, {"Accept-Encoding", "br"}};
        const Fields one{{"Accept-Encoding", "gzip, br"}};
        const Fields withEmpty{
            {"Accept-Encoding", "gzip"}, {"Accept-Encoding", ""}, {"accept-encoding", " br"}};
        CPPUNIT_ASSERT_EQUAL(KeyOf("Accept-Encoding", one), KeyOf("Accept-Encoding", lines));
        CPPUNIT_ASSERT_EQUAL(KeyOf("Accept-Encoding", one), KeyOf("Accept-Encoding", withEmpty));
    }

    void absentDiffersFromEmpty()
    {
        const Fields absent{{"Host", "x"}};
        const Fields empty{{"Host", "x"}, {"Accept-Encoding", ""}};
        const Fields blank{{"Accept-Encoding", " , "}};
        CPPUNIT_ASSERT_EQUAL(std::string("accept-encoding\n"), KeyOf("Accept-Encoding", absent));
        CPPUNIT_ASSERT_EQUAL(std::string("accept-encoding:\n"), KeyOf("Accept-Encoding", empty));
        CPPUNIT_ASSERT(KeyOf("Accept-Encoding", absent) != KeyOf("Accept-Encoding", empty));
        CPPUNIT_ASSERT_EQUAL(KeyOf("Accept-Encoding", empty), KeyOf("Accept-Encoding", blank));
        // with two names, which one is absent still shows
        CPPUNIT_ASSERT(KeyOf("A, B", {{"A", ""}}) != KeyOf("A, B", {{"B", ""}}));
        CPPUNIT_ASSERT(KeyOf("A, B", {{"A", "x"}}) != KeyOf("A, B", {{"B", "x"}}));
    }

    void unselectedFieldsDoNotMatter()
    {
        const Fields a{{"Accept-Encoding", "gzip"}, {"User-Agent", "a"}, {"Cookie", "x=1"}};
        const Fields b{{"Accept-Encoding", "gzip"}, {"User-Agent", "b"}};
        const Values vary{"Accept-Encoding"};
        const auto stored = Store::VaryKey(vary, a);
        CPPUNIT_ASSERT(stored);
        CPPUNIT_ASSERT(Store::VaryMatches(vary, *stored, b));
        CPPUNIT_ASSERT(!Store::VaryMatches(vary, *stored, {{"Accept-Encoding", "br"}}));
        CPPUNIT_ASSERT(!Store::VaryMatches(vary, *stored, {}));
    }

    void noVaryMatchesEveryRequest()
    {
        const Values none;
        CPPUNIT_ASSERT_EQUAL(std::string(), *Store::VaryKey(none, {{"Accept-Encoding", "gzip"}}));
        CPPUNIT_ASSERT(Store::VaryMatches(none, "", {}));
        CPPUNIT_ASSERT(Store::VaryMatches(none, "", {{"User-Agent", "x"}}));
    }

    /// property: any split of a list into lines, any whitespace around its
    /// commas and any order of the other fields give the same key
    void randomWhitespaceAndOrderKeepTheKey()
    {
        std::mt19937 random(42);
        const std::vector<std::string> elements{"gzip", "deflate;q=0.5", "br", "\"x, y\"", "identity"};
        const Values vary{"accept-encoding, X-Other, User-Agent"};
        const Fields reference{{"Accept-Encoding", "gzip,deflate;q=0.5,br,\"x, y\",identity"},
                               {"User-Agent", "agent 1.0"}};
        const auto expected = Store::VaryKey(vary, reference);
        CPPUNIT_ASSERT(expected);
        const char* spaces[] = {"", " ", "\t", "  ", " \t "};
        for (int round = 0; round < 500; ++round) {
            std::vector<std::string> lines(1);
            for (size_t i = 0; i < elements.size(); ++i) {
                if (i > 0 && random() % 3 == 0)
                    lines.emplace_back();
                auto& line = lines.back();
                if (!line.empty())
                    line += std::string(spaces[random() % 5]) + "," + spaces[random() % 5];
                line += elements[i];
            }
            std::vector<std::string> storage = lines;
            storage.push_back("agent 1.0");
            storage.push_back("irrelevant");
            Fields fields;
            for (size_t i = 0; i < lines.size(); ++i)
                fields.push_back({(random() % 2) ? "Accept-Encoding" : "ACCEPT-encoding", storage[i]});
            // insert the other fields anywhere: they do not reorder the Accept-Encoding lines
            fields.insert(fields.begin() + long(random() % (fields.size() + 1)),
                          {"user-agent", storage[storage.size() - 2]});
            fields.insert(fields.begin() + long(random() % (fields.size() + 1)), {"Host", storage.back()});
            const auto key = Store::VaryKey(vary, fields);
            CPPUNIT_ASSERT(key);
            CPPUNIT_ASSERT_EQUAL(*expected, *key);
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestKey);
