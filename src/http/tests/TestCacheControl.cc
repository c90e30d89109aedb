/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/CacheControl.h"

#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <random>
#include <string>
#include <string_view>
#include <vector>

/// Http::CacheControl: Cache-Control and Pragma directives (RFC 9111 section 5.2).
class TestCacheControl : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestCacheControl);
    CPPUNIT_TEST(rfcExamples);
    CPPUNIT_TEST(everyDirectiveIsRecognised);
    CPPUNIT_TEST(namesAreCaseInsensitive);
    CPPUNIT_TEST(quotedValuesAreAccepted);
    CPPUNIT_TEST(deltaSecondsSaturate);
    CPPUNIT_TEST(invalidMaxAgeMeansStale);
    CPPUNIT_TEST(firstOccurrenceWins);
    CPPUNIT_TEST(fieldNameListsAccumulateLowercased);
    CPPUNIT_TEST(commasInsideQuotedStringsDoNotSplit);
    CPPUNIT_TEST(malformedPiecesAreSkipped);
    CPPUNIT_TEST(malformedRestrictionsStillRestrict);
    CPPUNIT_TEST(relaxingFlagsNeedTheirPlainForm);
    CPPUNIT_TEST(requestDirectives);
    CPPUNIT_TEST(emptinessAndUnknownDirectives);
    CPPUNIT_TEST(severalLinesAreOneList);
    CPPUNIT_TEST(orderOfDistinctDirectivesDoesNotMatter);
    CPPUNIT_TEST(pragmaNoCache);
    CPPUNIT_TEST(fieldValuesCollectsEveryLine);
    CPPUNIT_TEST(garbageNeverThrows);
    CPPUNIT_TEST_SUITE_END();

public:
    void rfcExamples();
    void everyDirectiveIsRecognised();
    void namesAreCaseInsensitive();
    void quotedValuesAreAccepted();
    void deltaSecondsSaturate();
    void invalidMaxAgeMeansStale();
    void firstOccurrenceWins();
    void fieldNameListsAccumulateLowercased();
    void commasInsideQuotedStringsDoNotSplit();
    void malformedPiecesAreSkipped();
    void malformedRestrictionsStillRestrict();
    void relaxingFlagsNeedTheirPlainForm();
    void requestDirectives();
    void emptinessAndUnknownDirectives();
    void severalLinesAreOneList();
    void orderOfDistinctDirectivesDoesNotMatter();
    void pragmaNoCache();
    void fieldValuesCollectsEveryLine();
    void garbageNeverThrows();
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestCacheControl);

namespace {

using Names = std::vector<std::string>;

Http::CacheControl Parse(std::string_view value)
{
    return Http::ParseCacheControl({value});
}

} // namespace

void TestCacheControl::rfcExamples()
{
    // RFC 9111 section 5.2.3: an extension next to a known directive
    auto cc = Parse("private, community=\"UCI\"");
    CPPUNIT_ASSERT(cc.isPrivate && cc.privateFields.empty());
    CPPUNIT_ASSERT(cc.hasUnknown);
    // RFC 9111 section 5.2.1.1 / 5.2.2.1: max-age=0 is fresh for 0 seconds
    cc = Parse("max-age=0");
    CPPUNIT_ASSERT(cc.maxAge == 0u && !cc.maxAgeInvalid);
    // RFC 5861 sections 3 and 4
    cc = Parse("max-age=600, stale-while-revalidate=30");
    CPPUNIT_ASSERT(cc.maxAge == 600u && cc.staleWhileRevalidate == 30u);
    cc = Parse("max-age=600, stale-if-error=1200");
    CPPUNIT_ASSERT(cc.maxAge == 600u && cc.staleIfError == 1200u);
    // RFC 8246 section 2
    cc = Parse("max-age=31536000, immutable");
    CPPUNIT_ASSERT(cc.maxAge == 31536000u && cc.immutable);
    // RFC 9111 section 5.2.2.3 (must-understand goes with no-store)
    cc = Parse("must-understand, no-store");
    CPPUNIT_ASSERT(cc.mustUnderstand && cc.noStore);
    // RFC 9111 section 5.2.2.4 / 5.2.2.7: qualified forms
    cc = Parse("no-cache=\"Set-Cookie\", private=\"Authorization\"");
    CPPUNIT_ASSERT(!cc.noCache && cc.noCacheFields == Names{"set-cookie"});
    CPPUNIT_ASSERT(!cc.isPrivate && cc.privateFields == Names{"authorization"});
    CPPUNIT_ASSERT(cc.hasNoCache() && cc.hasPrivate());
}

void TestCacheControl::everyDirectiveIsRecognised()
{
    const auto cc =
        Parse("max-age=1, s-maxage=2, no-store, no-cache, no-transform, private, public, "
              "must-revalidate, proxy-revalidate, must-understand, immutable, "
              "stale-while-revalidate=3, stale-if-error=4, max-stale=5, min-fresh=6, only-if-cached");
    CPPUNIT_ASSERT(cc.maxAge == 1u && cc.sMaxAge == 2u);
    CPPUNIT_ASSERT(cc.noStore && cc.noCache && cc.noTransform && cc.isPrivate && cc.isPublic);
    CPPUNIT_ASSERT(cc.mustRevalidate && cc.proxyRevalidate && cc.mustUnderstand && cc.immutable);
    CPPUNIT_ASSERT(cc.staleWhileRevalidate == 3u && cc.staleIfError == 4u);
    CPPUNIT_ASSERT(cc.maxStale == 5u && !cc.maxStaleAny && cc.minFresh == 6u && cc.onlyIfCached);
    CPPUNIT_ASSERT(!cc.hasUnknown && !cc.maxAgeInvalid && !cc.sMaxAgeInvalid);
    CPPUNIT_ASSERT(cc.hasKnown() && !cc.isEmpty());
}

void TestCacheControl::namesAreCaseInsensitive()
{
    const auto lower = Parse("max-age=5, no-store, private=\"x-a\", s-maxage=7");
    CPPUNIT_ASSERT(Parse("MAX-AGE=5, No-Store, PRIVATE=\"X-A\", S-MaxAge=7") == lower);
    CPPUNIT_ASSERT(Parse("Max-Age=5, NO-STORE, Private=\"x-A\", s-MAXAGE=7") == lower);
}

void TestCacheControl::quotedValuesAreAccepted()
{
    CPPUNIT_ASSERT(Parse("max-age=\"60\"").maxAge == 60u);
    CPPUNIT_ASSERT(Parse("s-maxage=\"60\"").sMaxAge == 60u);
    CPPUNIT_ASSERT(Parse("max-age=\"6\\0\"").maxAge == 60u); // a quoted-pair is the character
    CPPUNIT_ASSERT(Parse("max-age=\"\"").maxAgeInvalid);
    CPPUNIT_ASSERT(Parse("max-age=\" 60\"").maxAgeInvalid);
    // the token form of a field list is accepted too
    CPPUNIT_ASSERT(Parse("no-cache=Set-Cookie").noCacheFields == Names{"set-cookie"});
    // BWS around "=" is tolerated
    CPPUNIT_ASSERT(Parse("max-age = 60").maxAge == 60u);
}

void TestCacheControl::deltaSecondsSaturate()
{
    CPPUNIT_ASSERT(Parse("max-age=2147483647").maxAge == 2147483647u);
    CPPUNIT_ASSERT(Parse("max-age=2147483648").maxAge == Http::MaxDeltaSeconds);
    CPPUNIT_ASSERT(Parse("max-age=2147483649").maxAge == Http::MaxDeltaSeconds);
    CPPUNIT_ASSERT(Parse("max-age=18446744073709551616").maxAge == Http::MaxDeltaSeconds);
    CPPUNIT_ASSERT(Parse("max-age=" + std::string(5000, '9')).maxAge == Http::MaxDeltaSeconds);
    CPPUNIT_ASSERT(Parse("max-age=000000000000000000000000042").maxAge == 42u);
    CPPUNIT_ASSERT(Parse("stale-if-error=99999999999").staleIfError == Http::MaxDeltaSeconds);
    CPPUNIT_ASSERT(Parse("min-fresh=99999999999").minFresh == Http::MaxDeltaSeconds);

    // any value: saturated min(value, 2^31), never wrapped
    std::mt19937_64 rng(1);
    for (int i = 0; i < 10000; ++i) {
        const uint64_t v = rng() >> (rng() % 64);
        const auto parsed = Http::ParseDeltaSeconds(std::to_string(v));
        CPPUNIT_ASSERT(parsed == std::min(v, Http::MaxDeltaSeconds));
    }
    CPPUNIT_ASSERT(!Http::ParseDeltaSeconds(""));
    CPPUNIT_ASSERT(!Http::ParseDeltaSeconds("-1"));
    CPPUNIT_ASSERT(!Http::ParseDeltaSeconds("+1"));
    CPPUNIT_ASSERT(!Http::ParseDeltaSeconds("1 "));
}

void TestCacheControl::invalidMaxAgeMeansStale()
{
    const char* const bad[] = {"max-age",      "max-age=",   "max-age=-1",  "max-age=1.5",    "max-age=abc",
                               "max-age=0x10", "max-age=\"", "max-age=1e3", "max-age=\"-1\"", "max-age=60 s"};
    for (const char* text : bad) {
        const auto cc = Parse(text);
        CPPUNIT_ASSERT_MESSAGE(text, cc.maxAgeInvalid && !cc.maxAge);
        CPPUNIT_ASSERT_MESSAGE(text, cc.hasKnown());
    }
    const auto s = Parse("s-maxage=never");
    CPPUNIT_ASSERT(s.sMaxAgeInvalid && !s.sMaxAge && !s.maxAgeInvalid);
    // invalid stale-* and min-fresh are ignored instead
    const auto cc = Parse("stale-while-revalidate=x, stale-if-error, min-fresh=-5");
    CPPUNIT_ASSERT(!cc.staleWhileRevalidate && !cc.staleIfError && !cc.minFresh && !cc.hasKnown());
}

void TestCacheControl::firstOccurrenceWins()
{
    CPPUNIT_ASSERT(Parse("max-age=5, max-age=10").maxAge == 5u);
    CPPUNIT_ASSERT(Http::ParseCacheControl({"max-age=5", "max-age=10"}).maxAge == 5u);
    // an invalid first one is still the first: stale
    auto cc = Parse("max-age=x, max-age=10");
    CPPUNIT_ASSERT(cc.maxAgeInvalid && !cc.maxAge);
    cc = Parse("max-age=10, max-age=x");
    CPPUNIT_ASSERT(!cc.maxAgeInvalid && cc.maxAge == 10u);
    CPPUNIT_ASSERT(Parse("s-maxage=1, s-maxage=2").sMaxAge == 1u);
    CPPUNIT_ASSERT(Parse("stale-if-error=1, stale-if-error=2").staleIfError == 1u);
    CPPUNIT_ASSERT(Parse("stale-while-revalidate=1, stale-while-revalidate=2").staleWhileRevalidate == 1u);
    CPPUNIT_ASSERT(Parse("min-fresh=1, min-fresh=2").minFresh == 1u);
    cc = Parse("max-stale, max-stale=5");
    CPPUNIT_ASSERT(cc.maxStaleAny && !cc.maxStale);
    cc = Parse("max-stale=5, max-stale");
    CPPUNIT_ASSERT(!cc.maxStaleAny && cc.maxStale == 5u);
}

void TestCacheControl::fieldNameListsAccumulateLowercased()
{
    auto cc = Parse("private=\"Set-Cookie, X-A\", private=\"x-a,X-B\"");
    CPPUNIT_ASSERT(cc.privateFields == (Names{"set-cookie", "x-a", "x-b"}));
    CPPUNIT_ASSERT(!cc.isPrivate);
    // an unqualified one anywhere wins over lists
    cc = Parse("no-cache=\"a\", no-cache");
    CPPUNIT_ASSERT(cc.noCache && cc.noCacheFields == Names{"a"});
    // empty elements of the list are skipped; an empty list is unqualified
    CPPUNIT_ASSERT(Parse("no-cache=\" , a,, \"").noCacheFields == Names{"a"});
    cc = Parse("no-cache=\"\"");
    CPPUNIT_ASSERT(cc.noCache && cc.noCacheFields.empty());
    // a list that is not field names: the most restrictive reading
    cc = Parse("private=\"a b\"");
    CPPUNIT_ASSERT(cc.isPrivate && cc.privateFields.empty());
}

void TestCacheControl::commasInsideQuotedStringsDoNotSplit()
{
    auto cc = Parse("foo=\"a, max-age=5, no-store\", max-age=10");
    CPPUNIT_ASSERT(cc.maxAge == 10u && !cc.noStore && cc.hasUnknown);
    cc = Parse("community=\"x\\\", no-store\", public");
    CPPUNIT_ASSERT(!cc.noStore && cc.isPublic); // an escaped quote does not end the string
    cc = Parse("private=\"a, b\", no-store");
    CPPUNIT_ASSERT(cc.privateFields == (Names{"a", "b"}) && cc.noStore);
}

void TestCacheControl::malformedPiecesAreSkipped()
{
    auto cc = Parse("\"bad\", no-store");
    CPPUNIT_ASSERT(cc.noStore);
    cc = Parse("=5, public, ;;, max-age=3");
    CPPUNIT_ASSERT(cc.isPublic && cc.maxAge == 3u);
    cc = Parse("foo bar, immutable, x=\"unterminated, max-age=1");
    CPPUNIT_ASSERT(cc.immutable && !cc.maxAge &&
                   !cc.maxAgeInvalid); // the quote swallows the rest of the line
    cc = Http::ParseCacheControl({"x=\"unterminated, no-store", "max-age=1"});
    CPPUNIT_ASSERT(!cc.noStore && cc.maxAge == 1u); // but not the next line
    cc = Parse("a=b=c, public");
    CPPUNIT_ASSERT(cc.isPublic);
    cc = Parse("foo=\"x\"y, public");
    CPPUNIT_ASSERT(cc.isPublic);
}

void TestCacheControl::malformedRestrictionsStillRestrict()
{
    auto cc = Parse("max-age=60 junk, public");
    CPPUNIT_ASSERT(cc.maxAgeInvalid && !cc.maxAge && cc.isPublic);
    cc = Parse("no-store junk, must-revalidate=1, proxy-revalidate \"x\", no-transform=\"");
    CPPUNIT_ASSERT(cc.noStore && cc.mustRevalidate && cc.proxyRevalidate && cc.noTransform);
    cc = Parse("private=\"set-cookie, no-store");
    CPPUNIT_ASSERT(cc.isPrivate && cc.privateFields.empty() && !cc.noStore);
    cc = Parse("no-cache=\"a\" b");
    CPPUNIT_ASSERT(cc.noCache && cc.noCacheFields.empty());
}

void TestCacheControl::relaxingFlagsNeedTheirPlainForm()
{
    auto cc = Parse("public=1, immutable=\"yes\", must-understand x, only-if-cached=0");
    CPPUNIT_ASSERT(!cc.isPublic && !cc.immutable && !cc.mustUnderstand && !cc.onlyIfCached);
    cc = Parse("max-stale=soon, stale-if-error 5");
    CPPUNIT_ASSERT(!cc.maxStale && !cc.maxStaleAny && !cc.staleIfError);
}

void TestCacheControl::requestDirectives()
{
    auto cc = Parse("no-cache, max-stale, min-fresh=10, only-if-cached");
    CPPUNIT_ASSERT(cc.noCache && cc.maxStaleAny && cc.minFresh == 10u && cc.onlyIfCached);
    cc = Parse("max-age=0, max-stale=300");
    CPPUNIT_ASSERT(cc.maxAge == 0u && cc.maxStale == 300u && !cc.maxStaleAny);
    cc = Parse("no-store");
    CPPUNIT_ASSERT(cc.noStore && !cc.noCache);
}

void TestCacheControl::emptinessAndUnknownDirectives()
{
    CPPUNIT_ASSERT(Http::ParseCacheControl({}).isEmpty());
    CPPUNIT_ASSERT(Parse("").isEmpty());
    CPPUNIT_ASSERT(Parse(" , ,, ").isEmpty());
    CPPUNIT_ASSERT(Parse("\"junk\"").isEmpty());
    auto cc = Parse("x-custom=1, ext");
    CPPUNIT_ASSERT(!cc.isEmpty() && !cc.hasKnown() && cc.hasUnknown);
    cc = Parse("no-store");
    CPPUNIT_ASSERT(!cc.isEmpty() && cc.hasKnown() && !cc.hasUnknown);
    CPPUNIT_ASSERT(Parse("") == Http::CacheControl());
}

void TestCacheControl::severalLinesAreOneList()
{
    const std::vector<std::string> pieces = {"max-age=5",       "no-cache=\"A\"", "private",   "x=\"1,2\"",
                                             "must-revalidate", "max-stale",      "s-maxage=9"};
    std::string joined;
    std::vector<std::string_view> lines;
    for (const auto& p : pieces) {
        joined += (joined.empty() ? "" : ", ") + p;
        lines.push_back(p);
    }
    CPPUNIT_ASSERT(Http::ParseCacheControl(lines) == Parse(joined));
    // and every split of the joined list into two lines at a comma
    for (size_t at = joined.find(','); at != std::string::npos; at = joined.find(',', at + 1)) {
        const std::string_view all(joined);
        if (all.substr(0, at).find('"') != std::string_view::npos &&
            std::count(joined.begin(), joined.begin() + static_cast<std::ptrdiff_t>(at), '"') % 2)
            continue; // a comma inside a quoted string is not a split point
        CPPUNIT_ASSERT(Http::ParseCacheControl({all.substr(0, at), all.substr(at + 1)}) == Parse(joined));
    }
}

void TestCacheControl::orderOfDistinctDirectivesDoesNotMatter()
{
    std::vector<std::string> pieces = {
        "max-age=5",        "no-cache=\"A, b\"", "private=\"c\"",    "no-store",
        "public",           "must-revalidate",   "proxy-revalidate", "immutable",
        "stale-if-error=7", "min-fresh=1",       "max-stale",        "only-if-cached",
        "x-ext=\"q,r\"",    "s-maxage=\"9\"",    "no-transform",     "must-understand"};
    auto join = [](const std::vector<std::string>& v) {
        std::string s;
        for (const auto& p : v)
            s += p + " ,";
        return s;
    };
    const auto reference = Parse(join(pieces));
    std::mt19937 rng(2);
    for (int i = 0; i < 200; ++i) {
        std::shuffle(pieces.begin(), pieces.end(), rng);
        const auto cc = Parse(join(pieces));
        // field lists keep the order sent; compare them as sets
        auto a = cc, b = reference;
        std::sort(a.noCacheFields.begin(), a.noCacheFields.end());
        std::sort(b.noCacheFields.begin(), b.noCacheFields.end());
        CPPUNIT_ASSERT(a == b);
    }
}

void TestCacheControl::pragmaNoCache()
{
    CPPUNIT_ASSERT(Http::PragmaHasNoCache({"no-cache"}));
    CPPUNIT_ASSERT(Http::PragmaHasNoCache({"No-Cache"}));
    CPPUNIT_ASSERT(Http::PragmaHasNoCache({"foo, no-cache"}));
    CPPUNIT_ASSERT(Http::PragmaHasNoCache({"foo=\"bar\"", " NO-CACHE "}));
    CPPUNIT_ASSERT(!Http::PragmaHasNoCache({}));
    CPPUNIT_ASSERT(!Http::PragmaHasNoCache({"foo=\"no-cache\""}));
    CPPUNIT_ASSERT(!Http::PragmaHasNoCache({"no-cache-please"}));
    CPPUNIT_ASSERT(!Http::PragmaHasNoCache({"x-no-cache"}));
    // RFC 9111 5.4: Pragma is for a request whose Cache-Control says nothing understood
    CPPUNIT_ASSERT(!Parse("community=\"UCI\"").hasKnown());
}

void TestCacheControl::fieldValuesCollectsEveryLine()
{
    const std::vector<Http::HeaderField> fields = {
        {"Cache-Control", "max-age=5"}, {"Host", "x"}, {"cache-control", "no-store"}, {"CACHE-CONTROL", ""}};
    const auto values = Http::FieldValues(fields, "Cache-Control");
    CPPUNIT_ASSERT_EQUAL(size_t(3), values.size());
    CPPUNIT_ASSERT(values[0].data() == fields[0].value.data()); // views, not copies
    CPPUNIT_ASSERT(values[1] == "no-store");
    CPPUNIT_ASSERT(Http::FieldValues(fields, "Pragma").empty());
    const auto cc = Http::ParseCacheControl(values);
    CPPUNIT_ASSERT(cc.maxAge == 5u && cc.noStore);
}

void TestCacheControl::garbageNeverThrows()
{
    std::mt19937 rng(3);
    const std::vector<std::string> words = {"max-age", "s-maxage",  "no-cache", "private", "no-store",
                                            "public",  "max-stale", "=",        "\"",      "\\",
                                            ",",       " ",         "\t",       "5",       "99999999999",
                                            "x",       "A-b",       ";",        "\x80",    "\x01"};
    for (int i = 0; i < 50000; ++i) {
        std::string text;
        const int n = int(rng() % 16);
        for (int k = 0; k < n; ++k)
            text += rng() % 8 ? words[rng() % words.size()] : std::string(1, static_cast<char>(rng()));
        const auto cc = Parse(text);
        if (cc.maxAge) // every value is within range
            CPPUNIT_ASSERT(*cc.maxAge <= Http::MaxDeltaSeconds && !cc.maxAgeInvalid);
        if (cc.sMaxAge)
            CPPUNIT_ASSERT(*cc.sMaxAge <= Http::MaxDeltaSeconds);
        for (const auto& f : cc.privateFields) // lowercased tokens only
            CPPUNIT_ASSERT(!f.empty() &&
                           std::none_of(f.begin(), f.end(), [](char c) { return c >= 'A' && c <= 'Z'; }));
        // the same list split at the end into a second line adds nothing
        CPPUNIT_ASSERT(Http::ParseCacheControl({text, ""}) == cc);
        Http::PragmaHasNoCache({text});
    }
}
