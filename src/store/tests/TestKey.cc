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
    CPPUNIT_TEST(variantKeySaysItsNames);
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
    CPPUNIT_TEST(acceptLanguageIsNormalisedBySemantics);
    CPPUNIT_TEST(acceptEncodingIsNormalisedBySemantics);
    CPPUNIT_TEST(weightedListsThatDoNotParseKeepTheGenericRule);
    CPPUNIT_TEST(randomEquivalentAcceptLanguagesShareAKey);
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

    /// a variant key says the Vary names it was made with (the disk store
    /// rebuilds its variants from its keys alone), and FullKeyOf() makes it
    void variantKeySaysItsNames()
    {
        const auto key = Store::MakeKey("GET", "http://example.com/");
        CPPUNIT_ASSERT_EQUAL(std::string(), Store::VaryNamesOfVariantKey(key));
        const Fields request{{"Accept-Language", "fr"}, {"Cookie", "a=b:c"}};
        const auto full = Store::FullKeyOf(key, "accept-encoding,accept-language,cookie", request);
        CPPUNIT_ASSERT_EQUAL(std::string_view(key), Store::BaseKey(full));
        CPPUNIT_ASSERT_EQUAL(std::string("accept-encoding,accept-language,cookie"),
                             Store::VaryNamesOfVariantKey(full));
        CPPUNIT_ASSERT_EQUAL(key, Store::FullKeyOf(key, "", request));
        CPPUNIT_ASSERT_THROW(Store::FullKeyOf(key, "*", request), std::exception);
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
        const Fields a{{"X-Tag", "gzip"}, {"X-Tag", "br"}};
        const Fields b{{"X-Tag", "br"}, {"X-Tag", "gzip"}};
        CPPUNIT_ASSERT(KeyOf("X-Tag", a) != KeyOf("X-Tag", b));
    }

    void caseOfNamesDoesNotMatter()
    {
        const Fields a{{"accept-encoding", "gzip"}};
        const Fields b{{"ACCEPT-ENCODING", "gzip"}};
        CPPUNIT_ASSERT_EQUAL(KeyOf("Accept-Encoding", a), KeyOf("accept-ENCODING", b));
        // values keep their case, unless the field is one cuttle knows
        CPPUNIT_ASSERT(KeyOf("X-Tag", {{"X-Tag", "gzip"}}) != KeyOf("X-Tag", {{"X-Tag", "GZIP"}}));
    }

    void whitespaceAroundCommasDoesNotMatter()
    {
        const std::string expected = KeyOf("X-Tag", {{"X-Tag", "gzip,deflate,br"}});
        CPPUNIT_ASSERT_EQUAL(std::string("x-tag:gzip,deflate,br\n"), expected);
        for (const auto* value : {"gzip, deflate, br", "gzip ,deflate ,br", "gzip\t,\tdeflate,  br",
                                  "gzip,, deflate, ,br", ", gzip,deflate,br,"}) {
            CPPUNIT_ASSERT_EQUAL_MESSAGE(value, expected, KeyOf("X-Tag", {{"X-Tag", value}}));
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

    void acceptLanguageIsNormalisedBySemantics()
    {
        const auto key = [](const char* value) {
            return KeyOf("Accept-Language", {{"Accept-Language", value}});
        };
        CPPUNIT_ASSERT_EQUAL(std::string("accept-language:da,en-gb;q=0.8,en;q=0.7\n"),
                             key("da, en-gb;q=0.8, en;q=0.7"));
        // case, whitespace, the weight's spelling and the order by weight do not matter
        for (const char* same :
             {"DA, EN-GB;Q=0.8, en;q=0.7", "da;q=1, en-gb ; q=0.800,en;q=0.70", "en;q=0.7, en-gb;q=0.8, da",
              "en-GB;q=0.8,da;q=1.000,En;q=0.7", "da,,en-gb;q=0.8,  en;q=0.7 ,"})
            CPPUNIT_ASSERT_EQUAL_MESSAGE(same, key("da, en-gb;q=0.8, en;q=0.7"), key(same));
        // lines combine before the members are ordered
        CPPUNIT_ASSERT_EQUAL(key("da, en;q=0.5"), KeyOf("Accept-Language", {{"Accept-Language", "en;q=0.5"},
                                                                            {"Accept-Language", "da"}}));
        // what differs in meaning still differs: weights, members, equal weights' order, q=0
        CPPUNIT_ASSERT(key("da, en;q=0.5") != key("da, en;q=0.6"));
        CPPUNIT_ASSERT(key("da, en") != key("en, da"));
        CPPUNIT_ASSERT(key("da") != key("da, en;q=0"));
        CPPUNIT_ASSERT(key("da") != key("da, da"));
        CPPUNIT_ASSERT_EQUAL(std::string("accept-language:*;q=0.001,en;q=0\n"), key("EN;q=0.000, *;q=0.001"));
        // absent and empty still differ
        CPPUNIT_ASSERT(KeyOf("Accept-Language", {}) != key(""));
    }

    void acceptEncodingIsNormalisedBySemantics()
    {
        const auto key = [](const char* value) {
            return KeyOf("Accept-Encoding", {{"Accept-Encoding", value}});
        };
        CPPUNIT_ASSERT_EQUAL(std::string("accept-encoding:br,deflate,gzip\n"), key("gzip, deflate, br"));
        // equal weights are sorted: any order, case, spelling of the weight or x- alias
        for (const char* same :
             {"br, gzip, deflate", "GZIP, Deflate, BR", "deflate;q=1, x-gzip, br;Q=1.0", "br,deflate,gzip"})
            CPPUNIT_ASSERT_EQUAL_MESSAGE(same, key("gzip, deflate, br"), key(same));
        CPPUNIT_ASSERT_EQUAL(std::string("accept-encoding:br,gzip;q=0.5,identity;q=0\n"),
                             key("identity;q=0, x-gzip;q=0.50, BR"));
        CPPUNIT_ASSERT(key("gzip") != key("gzip, br"));
        CPPUNIT_ASSERT(key("gzip;q=0.5, br") != key("gzip, br;q=0.5"));
        CPPUNIT_ASSERT(key("gzip") != key("gzip, identity;q=0"));
        CPPUNIT_ASSERT(KeyOf("Accept-Encoding", {}) != key(""));
    }

    void weightedListsThatDoNotParseKeepTheGenericRule()
    {
        // a member that is not token [;q=qvalue]: the whole value is kept as sent
        // (only whitespace around commas and empty members go)
        for (const char* odd : {"gzip deflate", "en;q=2", "en;q=0.1234", "en;q=1.1", "en;level=1",
                                "\"x, y\", gzip", "en;q=", "en;q=.5", ";q=0.5"}) {
            const std::string expected = std::string("accept-language:") + odd + "\n";
            const auto key = KeyOf("Accept-Language", {{"Accept-Language", odd}});
            CPPUNIT_ASSERT_MESSAGE(odd, key.find("accept-language:") == 0);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(odd, KeyOf("X-Tag", {{"X-Tag", odd}}).substr(6), key.substr(16));
        }
        CPPUNIT_ASSERT(KeyOf("Accept-Encoding", {{"Accept-Encoding", "gzip deflate"}}) !=
                       KeyOf("Accept-Encoding", {{"Accept-Encoding", "gzip,deflate"}}));
    }

    /// property: a shuffle of members with distinct weights, in random case
    /// and spacing, with the weights written any way, keeps the key
    void randomEquivalentAcceptLanguagesShareAKey()
    {
        std::mt19937 random(7);
        const std::vector<std::pair<std::string, std::string>> members{
            {"fr-CH", ""}, {"fr", "0.9"}, {"en", "0.8"}, {"de", "0.7"}, {"*", "0.5"}, {"it", "0"}};
        const auto expected = KeyOf(
            "Accept-Language", {{"Accept-Language", "fr-ch, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5, it;q=0"}});
        const char* spaces[] = {"", " ", "\t", "  "};
        for (int round = 0; round < 300; ++round) {
            auto shuffled = members;
            std::shuffle(shuffled.begin(), shuffled.end(), random);
            std::string value;
            for (const auto& [tag, q] : shuffled) {
                if (!value.empty())
                    value += std::string(spaces[random() % 4]) + "," + spaces[random() % 4];
                std::string cased = tag;
                for (auto& c : cased)
                    c = random() % 2 ? char(std::toupper(c)) : char(std::tolower(c));
                value += cased;
                std::string weight = q.empty() ? (random() % 2 ? "" : "1.000") : q;
                if (!weight.empty() && weight.find('.') != std::string::npos && weight.size() < 5 &&
                    random() % 2)
                    weight += "0";
                if (!weight.empty())
                    value += std::string(spaces[random() % 4]) + ";" + spaces[random() % 4] +
                             (random() % 2 ? "q=" : "Q=") + weight;
            }
            CPPUNIT_ASSERT_EQUAL_MESSAGE(value, expected,
                                         KeyOf("Accept-Language", {{"Accept-Language", value}}));
        }
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
