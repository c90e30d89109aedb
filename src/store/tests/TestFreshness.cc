/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/Freshness.h"
#include "http/Date.h"

#include <cppunit/extensions/HelperMacros.h>

#include <limits>
#include <string>
#include <utility>
#include <vector>

using namespace Store;

namespace {

/// An arbitrary "now" for the tests (2023-11-14 22:13:20 UTC).
constexpr time_t T0 = 1700000000;
constexpr int64_t Minute = 60;
constexpr int64_t Hour = 3600;
constexpr int64_t Day = 86400;

using Fields = std::vector<std::pair<std::string, std::string>>;

std::vector<Http::HeaderField> Head(const Fields& fields)
{
    std::vector<Http::HeaderField> head;
    for (const auto& [name, value] : fields)
        head.push_back(Http::HeaderField{name, value});
    return head;
}

/// A reply received at `received` for a request sent at `sent`.
ResponseFacts Response(int status, const Fields& fields, time_t sent = T0, time_t received = T0)
{
    return ResponseFacts::FromFields(status, Head(fields), sent, received);
}

/// A 200 reply with a Date of T0, received at T0.
ResponseFacts Ok(Fields fields)
{
    fields.insert(fields.begin(), {"Date", Http::FormatHttpDate(T0)});
    return Response(200, fields);
}

RequestFacts Get(const Fields& fields = {})
{
    return RequestFacts::FromFields(Http::Method::Get, Head(fields));
}

std::string At(int64_t offset)
{
    return Http::FormatHttpDate(T0 + offset);
}

/// Squid's refresh_pattern line `REGEX MIN PERCENT MAX`, minutes as in squid.conf.
RefreshRule Rule(int64_t minMinutes, int64_t percent, int64_t maxMinutes)
{
    RefreshRule r;
    r.min = minMinutes * Minute;
    r.percent = percent;
    r.max = maxMinutes * Minute;
    return r;
}

const RefreshRule Default; // no refresh_pattern matched: Squid's 0 20% 4320

} // namespace

/// RFC 9111 freshness, age and storability, with Squid's refresh_pattern.
class TestFreshness : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestFreshness);
    CPPUNIT_TEST(factsComeFromTheFirstFieldOfEachName);
    CPPUNIT_TEST(requestFactsReadAuthorizationAndPragma);
    CPPUNIT_TEST(onlyGetIsStored);
    CPPUNIT_TEST(postWithContentLocationAndExplicitFreshnessIsStored);
    CPPUNIT_TEST(onlyFinalUnderstoodStatusesAreStored);
    CPPUNIT_TEST(noStoreForbidsStoringUnlessIgnored);
    CPPUNIT_TEST(privateForbidsStoringUnlessIgnored);
    CPPUNIT_TEST(mustUnderstandOverridesNoStoreForUnderstoodStatuses);
    CPPUNIT_TEST(authorizationNeedsExplicitPermission);
    CPPUNIT_TEST(somethingMustMakeItCacheable);
    CPPUNIT_TEST(heuristicallyCacheableStatusesAreRfc9110s);
    CPPUNIT_TEST(sMaxAgeWinsThenMaxAgeThenExpires);
    CPPUNIT_TEST(expiresMinusDate);
    CPPUNIT_TEST(expiresWithoutDateUsesResponseTime);
    CPPUNIT_TEST(invalidExpiresMeansAlreadyExpired);
    CPPUNIT_TEST(invalidMaxAgeMeansStale);
    CPPUNIT_TEST(duplicatesFirstOccurrenceWins);
    CPPUNIT_TEST(hugeValuesSaturateAt2To31);
    CPPUNIT_TEST(dateInTheFutureDoesNotSkewLifetimeOrAge);
    CPPUNIT_TEST(heuristicOnlyWithoutExplicitFreshness);
    CPPUNIT_TEST(heuristicOnlyForHeuristicStatusesOrPublic);
    CPPUNIT_TEST(squidLastModifiedFactorArithmetic);
    CPPUNIT_TEST(squidMinAppliesOnlyWithoutLastModified);
    CPPUNIT_TEST(squidDefaultPatternsArithmetic);
    CPPUNIT_TEST(squidOverrideExpireAndLastmod);
    CPPUNIT_TEST(heuristicArithmeticNeverOverflows);
    CPPUNIT_TEST(currentAgeIsRfc9111Section423);
    CPPUNIT_TEST(currentAgeUsesAgeAndResponseDelay);
    CPPUNIT_TEST(currentAgeNeverNegative);
    CPPUNIT_TEST(currentAgeSaturates);
    CPPUNIT_TEST(invalidAgeIsIgnored);
    CPPUNIT_TEST(ageListTakesItsFirstMember);
    CPPUNIT_TEST(datesInObsoleteFormsAndAnyCaseCount);
    CPPUNIT_TEST(ageHeaderValue);
    CPPUNIT_TEST(freshWhileLifetimeExceedsAge);
    CPPUNIT_TEST(requestMaxAge);
    CPPUNIT_TEST(immutableIgnoresRequestMaxAgeWhileFresh);
    CPPUNIT_TEST(requestMinFresh);
    CPPUNIT_TEST(requestMaxStale);
    CPPUNIT_TEST(revalidateDirectivesForbidStaleUse);
    CPPUNIT_TEST(responseNoCacheForcesValidation);
    CPPUNIT_TEST(privateStoredByIgnorePrivateIsAlwaysValidated);
    CPPUNIT_TEST(refreshImsSendsIfModifiedSinceToTheOrigin);
    CPPUNIT_TEST(requestNoCacheAndPragma);
    CPPUNIT_TEST(refreshPatternReloadOptions);
    CPPUNIT_TEST(staleWhileRevalidateWindow);
    CPPUNIT_TEST(staleIfErrorWindow);
    CPPUNIT_TEST(maxStaleBoundsStaleOnError);
    CPPUNIT_TEST(staleUseForbiddenByDirectivesAndReloads);
    CPPUNIT_TEST_SUITE_END();

public:
    void factsComeFromTheFirstFieldOfEachName()
    {
        const auto r = Response(203,
                                {{"date", At(-10)},
                                 {"DATE", At(-999)},
                                 {"Expires", At(100)},
                                 {"expires", At(5000)},
                                 {"Last-Modified", At(-Day)},
                                 {"last-modified", At(-2 * Day)},
                                 {"Age", "7"},
                                 {"AGE", "700"},
                                 {"Cache-Control", "public"},
                                 {"cache-control", "max-age=30, must-revalidate"},
                                 {"ETag", "\"x\""}},
                                T0 - 1, T0);
        CPPUNIT_ASSERT_EQUAL(203, r.status);
        CPPUNIT_ASSERT(r.date && *r.date == T0 - 10);
        CPPUNIT_ASSERT(r.hasExpires && r.expires && *r.expires == T0 + 100);
        CPPUNIT_ASSERT(r.lastModified && *r.lastModified == T0 - Day);
        CPPUNIT_ASSERT_EQUAL(int64_t(7), r.age);
        // every Cache-Control line is one list (RFC 9110 section 5.3)
        CPPUNIT_ASSERT(r.cc.isPublic && r.cc.mustRevalidate && r.cc.maxAge && *r.cc.maxAge == 30);
        CPPUNIT_ASSERT(r.hasEtag);
        CPPUNIT_ASSERT_EQUAL(T0 - 1, r.requestTime);
        CPPUNIT_ASSERT_EQUAL(T0, r.responseTime);
        CPPUNIT_ASSERT_EQUAL(T0 - 10, r.dateValue());

        const auto bare = Response(200, {}, T0, T0 + 3);
        CPPUNIT_ASSERT(!bare.date && !bare.hasExpires && !bare.expires && !bare.lastModified &&
                       !bare.hasEtag);
        CPPUNIT_ASSERT_EQUAL(int64_t(0), bare.age);
        CPPUNIT_ASSERT_EQUAL(T0 + 3, bare.dateValue()); // RFC 9110 6.6.1
    }

    void requestFactsReadAuthorizationAndPragma()
    {
        const auto q = RequestFacts::FromFields(
            Http::Method::Get, Head({{"authorization", "Basic eDp5"}, {"Pragma", "no-cache"}, {"X", "y"}}));
        CPPUNIT_ASSERT(q.method == Http::Method::Get);
        CPPUNIT_ASSERT(q.hasAuthorization);
        CPPUNIT_ASSERT(q.pragmaNoCache);
        CPPUNIT_ASSERT(q.cc.isEmpty());
        CPPUNIT_ASSERT(q.wantsReload());
        const auto plain = Get();
        CPPUNIT_ASSERT(!plain.hasAuthorization && !plain.pragmaNoCache && !plain.wantsReload());
        // RFC 9111 5.4: Pragma is ignored when Cache-Control is present and understood
        CPPUNIT_ASSERT(!Get({{"Pragma", "no-cache"}, {"Cache-Control", "max-age=10"}}).wantsReload());
        CPPUNIT_ASSERT(Get({{"Pragma", "no-cache"}, {"Cache-Control", "x-unknown"}}).wantsReload());
        CPPUNIT_ASSERT(Get({{"Cache-Control", "no-cache"}}).wantsReload());
        CPPUNIT_ASSERT(Get({{"Cache-Control", "no-cache=\"x\""}}).wantsReload());
    }

    void onlyGetIsStored()
    {
        const auto r = Ok({{"Cache-Control", "max-age=60"}});
        CPPUNIT_ASSERT(IsStorable(Get(), r, Default));
        const auto head = IsStorable(RequestFacts::FromFields(Http::Method::Head, {}), r, Default);
        CPPUNIT_ASSERT(!head);
        CPPUNIT_ASSERT_EQUAL(std::string("HEAD (a stored GET answers it)"), std::string(head.reason));
        for (const auto m : {Http::Method::Post, Http::Method::Put, Http::Method::Delete,
                             Http::Method::Options, Http::Method::Connect, Http::Method::Other})
            CPPUNIT_ASSERT(!IsStorable(RequestFacts::FromFields(m, {}), r, Default));
    }

    void postWithContentLocationAndExplicitFreshnessIsStored()
    {
        // RFC 9110 9.3.3: explicit freshness and a Content-Location that is the target
        const auto post = RequestFacts::FromFields(Http::Method::Post, {});
        const auto reply = [](const Fields& fields, bool contentLocationIsTarget) {
            auto r = Ok(fields);
            r.contentLocationIsTarget = contentLocationIsTarget;
            return r;
        };
        for (const Fields& explicitly :
             {Fields{{"Cache-Control", "max-age=60"}}, Fields{{"Cache-Control", "s-maxage=60"}},
              Fields{{"Expires", At(60)}}, Fields{{"Cache-Control", "max-age=0"}}})
            CPPUNIT_ASSERT(IsStorable(post, reply(explicitly, true), Default));
        const auto elsewhere = IsStorable(post, reply({{"Cache-Control", "max-age=60"}}, false), Default);
        CPPUNIT_ASSERT(!elsewhere);
        CPPUNIT_ASSERT_EQUAL(std::string("POST without a Content-Location naming its target"),
                             std::string(elsewhere.reason));
        // public, or a heuristically cacheable status, is not explicit freshness
        for (const Fields& implicitly :
             {Fields{}, Fields{{"Cache-Control", "public"}}, Fields{{"Last-Modified", At(-Day)}}}) {
            const auto v = IsStorable(post, reply(implicitly, true), Default);
            CPPUNIT_ASSERT_EQUAL(std::string("POST without explicit freshness"), std::string(v.reason));
        }
        // the other rules still hold
        CPPUNIT_ASSERT(!IsStorable(post, reply({{"Cache-Control", "max-age=60, no-store"}}, true), Default));
        CPPUNIT_ASSERT(!IsStorable(post, reply({{"Cache-Control", "max-age=60, private"}}, true), Default));
        CPPUNIT_ASSERT(
            !IsStorable(RequestFacts::FromFields(Http::Method::Post, Head({{"Cache-Control", "no-store"}})),
                        reply({{"Cache-Control", "max-age=60"}}, true), Default));
        // only POST: PUT's reply is never stored
        CPPUNIT_ASSERT(!IsStorable(RequestFacts::FromFields(Http::Method::Put, {}),
                                   reply({{"Cache-Control", "max-age=60"}}, true), Default));
    }

    void onlyFinalUnderstoodStatusesAreStored()
    {
        const Fields fresh = {{"Cache-Control", "max-age=60"}};
        for (const int s : {100, 101, 103, 0, -1})
            CPPUNIT_ASSERT_EQUAL(std::string("the status is not final"),
                                 std::string(IsStorable(Get(), Response(s, fresh), Default).reason));
        CPPUNIT_ASSERT(!IsStorable(Get(), Response(206, fresh), Default));
        CPPUNIT_ASSERT(!IsStorable(Get(), Response(304, fresh), Default));
        // RFC 9111 section 3: a final status the cache does not know is
        // storable with explicit freshness or public (and no must-understand)
        for (const int s : {299, 306, 418, 499, 599}) {
            CPPUNIT_ASSERT_MESSAGE(std::to_string(s), IsStorable(Get(), Response(s, fresh), Default));
            for (const char* cc : {"s-maxage=60", "public", "max-age=0"})
                CPPUNIT_ASSERT_MESSAGE(cc, IsStorable(Get(), Response(s, {{"Cache-Control", cc}}), Default));
            CPPUNIT_ASSERT(IsStorable(Get(), Response(s, {{"Expires", "0"}}), Default));
            // nothing explicit: never heuristically cacheable
            CPPUNIT_ASSERT(!IsStorable(Get(), Response(s, {{"Last-Modified", At(-Day)}}), Default));
            // reused while fresh
            const auto r = Response(s, {{"Date", At(0)}, {"Cache-Control", "max-age=60"}});
            CPPUNIT_ASSERT(IsFresh(Get(), r, Default, T0 + 59).use == Reuse::Fresh);
            CPPUNIT_ASSERT(IsFresh(Get(), r, Default, T0 + 60).use == Reuse::Validate);
        }
        for (const int s : {600, 999, 1000})
            CPPUNIT_ASSERT_MESSAGE(std::to_string(s), !IsStorable(Get(), Response(s, fresh), Default));
        for (const int s : {200, 201, 203, 204, 300, 301, 302, 303, 307, 308, 400, 403,
                            404, 410, 414, 421, 426, 500, 501, 502, 503, 504, 505})
            CPPUNIT_ASSERT_MESSAGE(std::to_string(s), IsStorable(Get(), Response(s, fresh), Default));
    }

    void noStoreForbidsStoringUnlessIgnored()
    {
        const auto r = Ok({{"Cache-Control", "no-store, max-age=60"}});
        const auto v = IsStorable(Get(), r, Default);
        CPPUNIT_ASSERT(!v);
        CPPUNIT_ASSERT_EQUAL(std::string("no-store"), std::string(v.reason));
        RefreshRule ignore;
        ignore.ignoreNoStore = true;
        CPPUNIT_ASSERT(IsStorable(Get(), r, ignore));
        // RFC 9111 5.2.1.5: the request's no-store too, whatever the rule says
        const auto q = Get({{"Cache-Control", "no-store"}});
        CPPUNIT_ASSERT(!IsStorable(q, Ok({{"Cache-Control", "max-age=60"}}), ignore));
    }

    void privateForbidsStoringUnlessIgnored()
    {
        CPPUNIT_ASSERT(!IsStorable(Get(), Ok({{"Cache-Control", "private, max-age=60"}}), Default));
        // qualified private: cuttle does not strip fields, so it stores nothing
        const auto qualified = Ok({{"Cache-Control", "private=\"Set-Cookie\", max-age=60"}});
        CPPUNIT_ASSERT_EQUAL(std::string("private"),
                             std::string(IsStorable(Get(), qualified, Default).reason));
        RefreshRule ignore;
        ignore.ignorePrivate = true;
        CPPUNIT_ASSERT(IsStorable(Get(), qualified, ignore));
    }

    void mustUnderstandOverridesNoStoreForUnderstoodStatuses()
    {
        // RFC 9111 5.2.2.3: "must-understand, no-store" is stored by a cache
        // that understands the status, and not by one that does not.
        const Fields cc = {{"Cache-Control", "must-understand, no-store, max-age=60"}};
        CPPUNIT_ASSERT(IsStorable(Get(), Response(200, cc), Default));
        CPPUNIT_ASSERT(IsStorable(Get(), Response(404, cc), Default));
        const auto unknown = IsStorable(Get(), Response(299, cc), Default);
        CPPUNIT_ASSERT(!unknown);
        CPPUNIT_ASSERT_EQUAL(std::string("must-understand and a status cuttle does not understand"),
                             std::string(unknown.reason));
        CPPUNIT_ASSERT(!IsStorable(Get(), Response(206, cc), Default));
        // private still forbids
        CPPUNIT_ASSERT(
            !IsStorable(Get(), Response(200, {{"Cache-Control", "must-understand, private"}}), Default));
    }

    void authorizationNeedsExplicitPermission()
    {
        // RFC 9111 3.5
        const auto q = Get({{"Authorization", "Bearer x"}});
        CPPUNIT_ASSERT(!IsStorable(q, Ok({{"Cache-Control", "max-age=60"}}), Default));
        CPPUNIT_ASSERT(!IsStorable(q, Ok({}), Default));
        CPPUNIT_ASSERT(!IsStorable(q, Ok({{"Expires", At(60)}}), Default));
        CPPUNIT_ASSERT(IsStorable(q, Ok({{"Cache-Control", "public"}}), Default));
        CPPUNIT_ASSERT(IsStorable(q, Ok({{"Cache-Control", "s-maxage=60"}}), Default));
        CPPUNIT_ASSERT(IsStorable(q, Ok({{"Cache-Control", "max-age=60, must-revalidate"}}), Default));
        CPPUNIT_ASSERT(!IsStorable(q, Ok({{"Cache-Control", "max-age=60, proxy-revalidate"}}), Default));
    }

    void somethingMustMakeItCacheable()
    {
        // RFC 9111 section 3's "at least one of"
        const auto storable = [](int status, const Fields& f, const RefreshRule& rule = Default) {
            return IsStorable(Get(), Response(status, f), rule).yes;
        };
        CPPUNIT_ASSERT(!storable(302, {}));
        CPPUNIT_ASSERT(!storable(500, {{"Last-Modified", At(-Day)}}));
        CPPUNIT_ASSERT(storable(302, {{"Cache-Control", "public"}}));
        CPPUNIT_ASSERT(storable(302, {{"Cache-Control", "max-age=60"}}));
        CPPUNIT_ASSERT(storable(302, {{"Cache-Control", "s-maxage=60"}}));
        CPPUNIT_ASSERT(storable(307, {{"Expires", At(60)}}));
        CPPUNIT_ASSERT(storable(307, {{"Expires", "0"}})); // storable, but stale at once
        CPPUNIT_ASSERT(storable(200, {}));
        CPPUNIT_ASSERT(storable(404, {}));
        CPPUNIT_ASSERT(storable(501, {}));
        // store-stale keeps what is stale on arrival; it does not make a
        // status storable that section 3 forbids (as Squid 5.7)
        RefreshRule storeStale;
        storeStale.storeStale = true;
        CPPUNIT_ASSERT(!storable(500, {}, storeStale));
        CPPUNIT_ASSERT(!storable(302, {{"ETag", "\"s3\""}}, storeStale));
        CPPUNIT_ASSERT(storable(200, {}, storeStale));
    }

    void heuristicallyCacheableStatusesAreRfc9110s()
    {
        for (int s = 100; s < 600; ++s) {
            const bool listed = s == 200 || s == 203 || s == 204 || s == 206 || s == 300 || s == 301 ||
                                s == 308 || s == 404 || s == 405 || s == 410 || s == 414 || s == 501;
            CPPUNIT_ASSERT_EQUAL_MESSAGE(std::to_string(s), listed, IsHeuristicallyCacheable(s));
        }
    }

    void sMaxAgeWinsThenMaxAgeThenExpires()
    {
        // RFC 9111 4.2.1, for a shared cache
        CPPUNIT_ASSERT_EQUAL(int64_t(10), FreshnessLifetime(Ok({{"Cache-Control", "max-age=100, s-maxage=10"},
                                                                {"Expires", At(1000)}}),
                                                            Default));
        CPPUNIT_ASSERT_EQUAL(
            int64_t(100),
            FreshnessLifetime(Ok({{"Cache-Control", "max-age=100"}, {"Expires", At(1000)}}), Default));
        CPPUNIT_ASSERT_EQUAL(
            int64_t(0),
            FreshnessLifetime(Ok({{"Cache-Control", "max-age=0"}, {"Expires", At(1000)}}), Default));
        CPPUNIT_ASSERT_EQUAL(int64_t(1000), FreshnessLifetime(Ok({{"Expires", At(1000)}}), Default));
        // RFC 9111 5.2's example forms: max-age=5 and max-age="5"
        CPPUNIT_ASSERT_EQUAL(int64_t(5), FreshnessLifetime(Ok({{"Cache-Control", "max-age=5"}}), Default));
        CPPUNIT_ASSERT_EQUAL(int64_t(5),
                             FreshnessLifetime(Ok({{"Cache-Control", "max-age=\"5\""}}), Default));
        // explicit freshness beats a Last-Modified heuristic, even when shorter
        CPPUNIT_ASSERT_EQUAL(int64_t(1), FreshnessLifetime(Ok({{"Cache-Control", "max-age=1"},
                                                               {"Last-Modified", At(-100 * Day)}}),
                                                           Default));
    }

    void expiresMinusDate()
    {
        // RFC 9111 5.3's example date, with a Date an hour earlier
        const auto r = Response(
            200, {{"Date", "Thu, 01 Dec 1994 15:00:00 GMT"}, {"Expires", "Thu, 01 Dec 1994 16:00:00 GMT"}});
        CPPUNIT_ASSERT_EQUAL(Hour, FreshnessLifetime(r, Default));
        CPPUNIT_ASSERT_EQUAL(int64_t(0), FreshnessLifetime(Ok({{"Expires", At(0)}}), Default));
        CPPUNIT_ASSERT_EQUAL(int64_t(0), FreshnessLifetime(Ok({{"Expires", At(-Day)}}), Default));
        // older date formats are dates too (RFC 9110 5.6.7)
        const auto rfc850 = Response(
            200, {{"Date", "Sunday, 06-Nov-94 08:49:37 GMT"}, {"Expires", "Sun Nov  6 09:49:37 1994"}}, T0,
            T0);
        CPPUNIT_ASSERT_EQUAL(Hour, FreshnessLifetime(rfc850, Default));
    }

    void expiresWithoutDateUsesResponseTime()
    {
        const auto r = Response(200, {{"Expires", At(300)}}, T0 - 1, T0);
        CPPUNIT_ASSERT_EQUAL(int64_t(300), FreshnessLifetime(r, Default));
        // an unparsable Date is treated as missing
        const auto bad = Response(200, {{"Date", "yesterday"}, {"Expires", At(300)}}, T0 - 1, T0);
        CPPUNIT_ASSERT(!bad.date);
        CPPUNIT_ASSERT_EQUAL(int64_t(300), FreshnessLifetime(bad, Default));
    }

    void invalidExpiresMeansAlreadyExpired()
    {
        // RFC 9111 5.3: "0" and other invalid dates are in the past; no
        // heuristic applies, since Expires is present
        for (const char* bad : {"0", "-1", "tomorrow", "", "Thu, 01 Dec 1994 16:00:00 UTC"}) {
            const auto r = Ok({{"Expires", bad}, {"Last-Modified", At(-100 * Day)}});
            CPPUNIT_ASSERT_MESSAGE(bad, r.hasExpires && !r.expires);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(bad, int64_t(0), FreshnessLifetime(r, Default));
            CPPUNIT_ASSERT_MESSAGE(bad, IsFresh(Get(), r, Default, T0).use == Reuse::Validate);
            CPPUNIT_ASSERT_MESSAGE(bad, IsStorable(Get(), r, Default));
        }
        // max-age still wins over an invalid Expires (4.2.1's order)
        CPPUNIT_ASSERT_EQUAL(
            int64_t(60), FreshnessLifetime(Ok({{"Expires", "0"}, {"Cache-Control", "max-age=60"}}), Default));
    }

    void invalidMaxAgeMeansStale()
    {
        // RFC 9111 4.2.1: an invalid value makes the response stale
        for (const char* cc : {"max-age=abc", "max-age=-1", "max-age=1.5", "s-maxage=x, max-age=60"}) {
            const auto r = Ok({{"Cache-Control", cc}, {"Expires", At(1000)}, {"Last-Modified", At(-Day)}});
            CPPUNIT_ASSERT_EQUAL_MESSAGE(cc, int64_t(0), FreshnessLifetime(r, Default));
            CPPUNIT_ASSERT_MESSAGE(cc, IsStorable(Get(), r, Default));
        }
    }

    void duplicatesFirstOccurrenceWins()
    {
        // RFC 9111 4.2.1: two max-age directives, two Expires lines
        CPPUNIT_ASSERT_EQUAL(int64_t(100),
                             FreshnessLifetime(Ok({{"Cache-Control", "max-age=100, max-age=5"}}), Default));
        CPPUNIT_ASSERT_EQUAL(int64_t(100), FreshnessLifetime(Ok({{"Cache-Control", "max-age=100"},
                                                                 {"Cache-Control", "max-age=5"}}),
                                                             Default));
        CPPUNIT_ASSERT_EQUAL(int64_t(100),
                             FreshnessLifetime(Ok({{"Expires", At(100)}, {"Expires", At(5000)}}), Default));
        CPPUNIT_ASSERT_EQUAL(int64_t(0),
                             FreshnessLifetime(Ok({{"Expires", "0"}, {"Expires", At(5000)}}), Default));
        // an invalid first max-age makes it stale even when a valid one follows
        CPPUNIT_ASSERT_EQUAL(int64_t(0),
                             FreshnessLifetime(Ok({{"Cache-Control", "max-age=x, max-age=100"}}), Default));
        // two Date lines: the first is the one Expires is measured from
        const auto r = Response(200, {{"Date", At(-50)}, {"Date", At(0)}, {"Expires", At(50)}});
        CPPUNIT_ASSERT_EQUAL(int64_t(100), FreshnessLifetime(r, Default));
    }

    void hugeValuesSaturateAt2To31()
    {
        CPPUNIT_ASSERT_EQUAL(
            MaxAge, FreshnessLifetime(Ok({{"Cache-Control", "max-age=99999999999999999999999"}}), Default));
        CPPUNIT_ASSERT_EQUAL(MaxAge,
                             FreshnessLifetime(Ok({{"Cache-Control", "s-maxage=2147483648"}}), Default));
        CPPUNIT_ASSERT_EQUAL(int64_t(2147483647),
                             FreshnessLifetime(Ok({{"Cache-Control", "max-age=2147483647"}}), Default));
        CPPUNIT_ASSERT_EQUAL(MaxAge,
                             FreshnessLifetime(Ok({{"Expires", "Fri, 31 Dec 9999 23:59:59 GMT"}}), Default));
        // a Date in year 1 and an Expires in 9999: no overflow, saturated
        const auto r = Response(
            200, {{"Date", "Mon, 01 Jan 0001 00:00:00 GMT"}, {"Expires", "Fri, 31 Dec 9999 23:59:59 GMT"}});
        CPPUNIT_ASSERT_EQUAL(MaxAge, FreshnessLifetime(r, Default));
        // values set directly, at the ends of time_t
        ResponseFacts extreme;
        extreme.hasExpires = true;
        extreme.expires = std::numeric_limits<time_t>::max();
        extreme.date = std::numeric_limits<time_t>::min();
        CPPUNIT_ASSERT_EQUAL(MaxAge, FreshnessLifetime(extreme, Default));
        extreme.expires = std::numeric_limits<time_t>::min();
        extreme.date = std::numeric_limits<time_t>::max();
        CPPUNIT_ASSERT_EQUAL(int64_t(0), FreshnessLifetime(extreme, Default));
        // a saturated lifetime against a saturated age is stale, not fresh
        auto old = Ok({{"Cache-Control", "max-age=99999999999"}, {"Age", "99999999999"}});
        CPPUNIT_ASSERT(IsFresh(Get(), old, Default, T0).use == Reuse::Validate);
    }

    void dateInTheFutureDoesNotSkewLifetimeOrAge()
    {
        // The origin's clock is an hour ahead: Expires - Date uses its clock
        // on both sides, and apparent_age is 0, not negative.
        const auto r = Response(200, {{"Date", At(Hour)}, {"Expires", At(Hour + 600)}}, T0, T0);
        CPPUNIT_ASSERT_EQUAL(int64_t(600), FreshnessLifetime(r, Default));
        CPPUNIT_ASSERT_EQUAL(int64_t(0), CurrentAge(r, T0));
        CPPUNIT_ASSERT_EQUAL(int64_t(599), CurrentAge(r, T0 + 599));
        CPPUNIT_ASSERT(IsFresh(Get(), r, Default, T0 + 599).use == Reuse::Fresh);
        CPPUNIT_ASSERT(IsFresh(Get(), r, Default, T0 + 600).use == Reuse::Validate);
        // an origin clock an hour behind: apparent_age counts the hour
        const auto behind = Response(200, {{"Date", At(-Hour)}, {"Cache-Control", "max-age=7200"}}, T0, T0);
        CPPUNIT_ASSERT_EQUAL(Hour, CurrentAge(behind, T0));
        // Last-Modified in the future of Date gives no Last-Modified factor
        const auto lm = Ok({{"Last-Modified", At(Day)}});
        CPPUNIT_ASSERT_EQUAL(int64_t(0), FreshnessLifetime(lm, Default));
        CPPUNIT_ASSERT_EQUAL(Hour, FreshnessLifetime(lm, Rule(60, 20, 4320)));
    }

    void heuristicOnlyWithoutExplicitFreshness()
    {
        // RFC 9111 4.2.2: LM 10 days before Date, Squid's default 20% -> 2 days
        const Fields lm = {{"Last-Modified", At(-10 * Day)}};
        CPPUNIT_ASSERT_EQUAL(2 * Day, FreshnessLifetime(Ok(lm), Default));
        for (const Fields& explicitOne : std::vector<Fields>{{{"Cache-Control", "max-age=60"}},
                                                             {{"Cache-Control", "s-maxage=60"}},
                                                             {{"Expires", At(60)}}}) {
            Fields f = lm;
            f.insert(f.end(), explicitOne.begin(), explicitOne.end());
            CPPUNIT_ASSERT_EQUAL(int64_t(60), FreshnessLifetime(Ok(f), Default));
        }
        // no Last-Modified: MIN, 0 by default
        CPPUNIT_ASSERT_EQUAL(int64_t(0), FreshnessLifetime(Ok({}), Default));
    }

    void heuristicOnlyForHeuristicStatusesOrPublic()
    {
        const Fields lm = {{"Date", At(0)}, {"Last-Modified", At(-10 * Day)}};
        for (const int s : {200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501})
            CPPUNIT_ASSERT_EQUAL_MESSAGE(std::to_string(s), 2 * Day,
                                         FreshnessLifetime(Response(s, lm), Default));
        for (const int s : {201, 302, 303, 307, 400, 403, 500, 503})
            CPPUNIT_ASSERT_EQUAL_MESSAGE(std::to_string(s), int64_t(0),
                                         FreshnessLifetime(Response(s, lm), Default));
        // RFC 9111 4.2.2: a response marked public may be given a heuristic lifetime
        Fields pub = lm;
        pub.push_back({"Cache-Control", "public"});
        CPPUNIT_ASSERT_EQUAL(2 * Day, FreshnessLifetime(Response(302, pub), Default));
        CPPUNIT_ASSERT_EQUAL(
            Hour, FreshnessLifetime(Response(302, {{"Cache-Control", "public"}}), Rule(60, 20, 120)));
    }

    void squidLastModifiedFactorArithmetic()
    {
        // refresh_pattern . 0 20% 4320: PERCENT of (Date - LM), capped at MAX
        CPPUNIT_ASSERT_EQUAL(int64_t(720), FreshnessLifetime(Ok({{"Last-Modified", At(-Hour)}}), Default));
        CPPUNIT_ASSERT_EQUAL(int64_t(17280), FreshnessLifetime(Ok({{"Last-Modified", At(-Day)}}), Default));
        CPPUNIT_ASSERT_EQUAL(3 * Day, FreshnessLifetime(Ok({{"Last-Modified", At(-15 * Day)}}), Default));
        CPPUNIT_ASSERT_EQUAL(3 * Day, FreshnessLifetime(Ok({{"Last-Modified", At(-30 * Day)}}), Default));
        // truncated, as Squid's (time_t)(lmDelta * pct) is: 20% of 7 s is 1
        CPPUNIT_ASSERT_EQUAL(int64_t(1), FreshnessLifetime(Ok({{"Last-Modified", At(-7)}}), Default));
        // a percent over 100 (Squid allows it)
        CPPUNIT_ASSERT_EQUAL(Day + Day / 2,
                             FreshnessLifetime(Ok({{"Last-Modified", At(-Day)}}), Rule(0, 150, 525600)));
        // the fraction is measured from Date, not from when it was received
        const auto late = Response(200, {{"Date", At(-Day)}, {"Last-Modified", At(-2 * Day)}}, T0, T0);
        CPPUNIT_ASSERT_EQUAL(int64_t(17280), FreshnessLifetime(late, Default));
        // the freshness check agrees: fresh for 17280 s of age
        const auto r = Ok({{"Last-Modified", At(-Day)}});
        CPPUNIT_ASSERT(IsFresh(Get(), r, Default, T0 + 17279).use == Reuse::Fresh);
        CPPUNIT_ASSERT(IsFresh(Get(), r, Default, T0 + 17280).use == Reuse::Validate);
    }

    void squidMinAppliesOnlyWithoutLastModified()
    {
        // refresh_pattern ^ftp: 1440 20% 10080
        const RefreshRule ftp = Rule(1440, 20, 10080);
        CPPUNIT_ASSERT_EQUAL(Day, FreshnessLifetime(Ok({}), ftp));
        // a recent Last-Modified: the factor (720 s), not MIN (Squid's refreshStaleness step 3)
        CPPUNIT_ASSERT_EQUAL(int64_t(720), FreshnessLifetime(Ok({{"Last-Modified", At(-Hour)}}), ftp));
        // Last-Modified equal to Date: no factor, MIN
        CPPUNIT_ASSERT_EQUAL(Day, FreshnessLifetime(Ok({{"Last-Modified", At(0)}}), ftp));
        // an unparsable Last-Modified is none
        CPPUNIT_ASSERT_EQUAL(Day, FreshnessLifetime(Ok({{"Last-Modified", "last week"}}), ftp));
        // MAX caps MIN too (Squid checks MAX first)
        CPPUNIT_ASSERT_EQUAL(10 * Minute, FreshnessLifetime(Ok({}), Rule(60, 20, 10)));
    }

    void squidDefaultPatternsArithmetic()
    {
        // squid.conf.default's lines
        const RefreshRule gopher = Rule(1440, 0, 1440);
        CPPUNIT_ASSERT_EQUAL(Day, FreshnessLifetime(Ok({}), gopher));
        CPPUNIT_ASSERT_EQUAL(int64_t(0), FreshnessLifetime(Ok({{"Last-Modified", At(-Day)}}), gopher));
        const RefreshRule cgi = Rule(0, 0, 0);
        CPPUNIT_ASSERT_EQUAL(int64_t(0), FreshnessLifetime(Ok({{"Last-Modified", At(-365 * Day)}}), cgi));
        CPPUNIT_ASSERT_EQUAL(int64_t(60), FreshnessLifetime(Ok({{"Cache-Control", "max-age=60"}}), cgi));
        const RefreshRule dot = Rule(0, 20, 4320);
        CPPUNIT_ASSERT_EQUAL(int64_t(0), FreshnessLifetime(Ok({}), dot));
        CPPUNIT_ASSERT_EQUAL(2 * Day, FreshnessLifetime(Ok({{"Last-Modified", At(-10 * Day)}}), dot));
    }

    void squidOverrideExpireAndLastmod()
    {
        RefreshRule rule = Rule(60, 20, 1440);
        rule.overrideExpire = true;
        // MIN raises an explicit lifetime, never lowers it
        CPPUNIT_ASSERT_EQUAL(Hour, FreshnessLifetime(Ok({{"Cache-Control", "max-age=60"}}), rule));
        CPPUNIT_ASSERT_EQUAL(2 * Hour, FreshnessLifetime(Ok({{"Cache-Control", "max-age=7200"}}), rule));
        CPPUNIT_ASSERT_EQUAL(Hour, FreshnessLifetime(Ok({{"Expires", "0"}}), rule));
        CPPUNIT_ASSERT_EQUAL(Hour, FreshnessLifetime(Ok({{"Cache-Control", "max-age=oops"}}), rule));
        // an explicit lifetime past MAX stays (override-expire does not enforce staleness)
        CPPUNIT_ASSERT_EQUAL(10 * Day, FreshnessLifetime(Ok({{"Cache-Control", "max-age=864000"}}), rule));
        // without override-lastmod, a recent Last-Modified is not raised to MIN
        RefreshRule lastmod = Rule(60, 20, 1440);
        CPPUNIT_ASSERT_EQUAL(int64_t(720), FreshnessLifetime(Ok({{"Last-Modified", At(-Hour)}}), lastmod));
        lastmod.overrideLastmod = true;
        CPPUNIT_ASSERT_EQUAL(Hour, FreshnessLifetime(Ok({{"Last-Modified", At(-Hour)}}), lastmod));
        // and MAX still caps it
        lastmod.min = 2 * Day;
        CPPUNIT_ASSERT_EQUAL(Day, FreshnessLifetime(Ok({{"Last-Modified", At(-Hour)}}), lastmod));
        // override-lastmod does not touch explicit lifetimes
        CPPUNIT_ASSERT_EQUAL(int64_t(5), FreshnessLifetime(Ok({{"Cache-Control", "max-age=5"}}), lastmod));
    }

    void heuristicArithmeticNeverOverflows()
    {
        ResponseFacts r;
        r.date = std::numeric_limits<time_t>::max();
        r.lastModified = std::numeric_limits<time_t>::min();
        RefreshRule huge = Rule(0, std::numeric_limits<int32_t>::max(), 525600);
        CPPUNIT_ASSERT_EQUAL(365 * Day, FreshnessLifetime(r, huge));
        huge.max = std::numeric_limits<int64_t>::max();
        huge.min = std::numeric_limits<int64_t>::max();
        CPPUNIT_ASSERT_EQUAL(MaxAge, FreshnessLifetime(r, huge));
        r.lastModified.reset();
        CPPUNIT_ASSERT_EQUAL(MaxAge, FreshnessLifetime(r, huge));
        RefreshRule negative = Rule(-5, -5, -5);
        CPPUNIT_ASSERT_EQUAL(int64_t(0), FreshnessLifetime(Ok({{"Last-Modified", At(-Day)}}), negative));
    }

    void currentAgeIsRfc9111Section423()
    {
        // request sent at T0, reply (Date T0+1) received at T0+2, now T0+12:
        // apparent_age 1, response_delay 2, corrected_age_value 0+2,
        // corrected_initial_age 2, resident_time 10
        const auto r = Response(200, {{"Date", At(1)}}, T0, T0 + 2);
        CPPUNIT_ASSERT_EQUAL(int64_t(12), CurrentAge(r, T0 + 12));
        // apparent_age wins when the Date is older than the delay says
        const auto old = Response(200, {{"Date", At(-100)}}, T0, T0 + 2);
        CPPUNIT_ASSERT_EQUAL(int64_t(102), CurrentAge(old, T0 + 2));
        CPPUNIT_ASSERT_EQUAL(int64_t(112), CurrentAge(old, T0 + 12));
        // no Date: Date is response_time, apparent_age 0
        const auto noDate = Response(200, {}, T0, T0 + 3);
        CPPUNIT_ASSERT_EQUAL(int64_t(3), CurrentAge(noDate, T0 + 3));
        // the age at arrival of an immediate reply is 0
        CPPUNIT_ASSERT_EQUAL(int64_t(0), CurrentAge(Ok({}), T0));
    }

    void currentAgeUsesAgeAndResponseDelay()
    {
        // RFC 9111 5.1's example, Age: 60, from a cache with a correct clock
        const auto r = Response(200, {{"Date", At(-60)}, {"Age", "60"}}, T0, T0);
        CPPUNIT_ASSERT_EQUAL(int64_t(60), CurrentAge(r, T0));
        // Age from an upstream cache plus the delay of this hop
        const auto hop = Response(200, {{"Date", At(-50)}, {"Age", "100"}}, T0 - 2, T0);
        CPPUNIT_ASSERT_EQUAL(int64_t(102), CurrentAge(hop, T0));
        CPPUNIT_ASSERT_EQUAL(int64_t(132), CurrentAge(hop, T0 + 30));
        // an Age can make a reply stale on arrival
        const auto stale = Response(200, {{"Date", At(0)}, {"Age", "600"}, {"Cache-Control", "max-age=300"}});
        CPPUNIT_ASSERT(IsFresh(Get(), stale, Default, T0).use == Reuse::Validate);
    }

    void currentAgeNeverNegative()
    {
        // a clock that went back: now before response_time, response before request
        const auto r = Response(200, {{"Date", At(0)}}, T0 + 10, T0);
        CPPUNIT_ASSERT_EQUAL(int64_t(0), CurrentAge(r, T0 - 100));
        CPPUNIT_ASSERT_EQUAL(int64_t(5), CurrentAge(r, T0 + 5));
        // a Date in the future
        const auto future = Response(200, {{"Date", At(Day)}}, T0, T0);
        CPPUNIT_ASSERT_EQUAL(int64_t(0), CurrentAge(future, T0));
    }

    void currentAgeSaturates()
    {
        const auto big = Response(200, {{"Date", At(0)}, {"Age", "99999999999999999999999"}});
        CPPUNIT_ASSERT_EQUAL(MaxAge, big.age);
        CPPUNIT_ASSERT_EQUAL(MaxAge, CurrentAge(big, T0));
        CPPUNIT_ASSERT_EQUAL(MaxAge, CurrentAge(big, T0 + Day));
        const auto near = Response(200, {{"Date", At(0)}, {"Age", "2147483000"}});
        CPPUNIT_ASSERT_EQUAL(int64_t(2147483100), CurrentAge(near, T0 + 100));
        CPPUNIT_ASSERT_EQUAL(MaxAge, CurrentAge(near, T0 + 10000));
        // every term at its extreme at once
        ResponseFacts r;
        r.age = MaxAge;
        r.date = std::numeric_limits<time_t>::min();
        r.requestTime = std::numeric_limits<time_t>::min();
        r.responseTime = std::numeric_limits<time_t>::max();
        CPPUNIT_ASSERT_EQUAL(MaxAge, CurrentAge(r, std::numeric_limits<time_t>::max()));
        CPPUNIT_ASSERT_EQUAL(MaxAge, CurrentAge(r, std::numeric_limits<time_t>::min()));
        r.responseTime = std::numeric_limits<time_t>::min();
        r.age = 0;
        r.date = std::numeric_limits<time_t>::max();
        r.requestTime = std::numeric_limits<time_t>::max();
        CPPUNIT_ASSERT_EQUAL(MaxAge, CurrentAge(r, std::numeric_limits<time_t>::max()));
        CPPUNIT_ASSERT_EQUAL(int64_t(0), CurrentAge(r, std::numeric_limits<time_t>::min()));
    }

    void invalidAgeIsIgnored()
    {
        for (const char* bad : {"abc", "-5", "1.5", "", " 5x", "0x10"})
            CPPUNIT_ASSERT_EQUAL_MESSAGE(bad, int64_t(0), Response(200, {{"Age", bad}}).age);
        // the first Age counts
        CPPUNIT_ASSERT_EQUAL(int64_t(3), Response(200, {{"Age", "3"}, {"Age", "300"}}).age);
        CPPUNIT_ASSERT_EQUAL(int64_t(0), Response(200, {{"Age", "x"}, {"Age", "300"}}).age);
    }

    void datesInObsoleteFormsAndAnyCaseCount()
    {
        // RFC 9110 5.6.7's obsolete forms, and any letter case (RFC 9111
        // 4.2): T0 + 1 h is "Tue, 14 Nov 2023 23:13:20 GMT"
        for (const char* expires : {"Tue, 14 Nov 2023 23:13:20 GMT", "tue, 14 nov 2023 23:13:20 gmt",
                                    "Tuesday, 14-Nov-23 23:13:20 GMT", "TUESDAY, 14-NOV-23 23:13:20 GMT",
                                    "Tue Nov 14 23:13:20 2023", "tue nov 14 23:13:20 2023"}) {
            const auto r = Ok({{"Expires", expires}});
            CPPUNIT_ASSERT_EQUAL_MESSAGE(expires, int64_t(Hour), FreshnessLifetime(r, Default));
        }
        // an Expires that is not an HTTP-date means already expired (5.3)
        for (const char* expires : {"Tue, 14 Nov 2023 23:13:20 UTC", "tomorrow", "-1", "0"}) {
            const auto r = Ok({{"Expires", expires}});
            CPPUNIT_ASSERT_EQUAL_MESSAGE(expires, int64_t(0), FreshnessLifetime(r, Default));
            CPPUNIT_ASSERT(IsStorable(Get(), r, Default));
        }
        // Date and Last-Modified in any case too: 10% of a day from a lower-case Last-Modified
        const auto r = Response(200, {{"date", "tue, 14 nov 2023 22:13:20 gmt"},
                                      {"Last-Modified", "monday, 13-nov-23 22:13:20 gmt"}});
        CPPUNIT_ASSERT(r.date && *r.date == T0 && r.lastModified && *r.lastModified == T0 - Day);
        CPPUNIT_ASSERT_EQUAL(int64_t(Day / 5), FreshnessLifetime(r, Default));
    }

    void ageListTakesItsFirstMember()
    {
        // RFC 9111 5.1: a list-based Age counts by its first member, so a
        // max-age=3600 reply with "Age: 7200, 0" is stale
        const auto r =
            Response(200, {{"Date", At(0)}, {"Cache-Control", "max-age=3600"}, {"Age", "7200, 0"}});
        CPPUNIT_ASSERT_EQUAL(int64_t(7200), r.age);
        CPPUNIT_ASSERT(IsFresh(Get(), r, Default, T0).use == Reuse::Validate);
        CPPUNIT_ASSERT_EQUAL(int64_t(0), Response(200, {{"Age", "0, 7200"}}).age);
        CPPUNIT_ASSERT_EQUAL(int64_t(5), Response(200, {{"Age", " 5 ,"}}).age);
        CPPUNIT_ASSERT_EQUAL(int64_t(5), Response(200, {{"Age", "5,x"}}).age);
        // a first member that is not delta-seconds: the field is ignored
        for (const char* bad : {"x, 7200", ", 7200", "-1, 7200", "1.5, 7200"})
            CPPUNIT_ASSERT_EQUAL_MESSAGE(bad, int64_t(0), Response(200, {{"Age", bad}}).age);
    }

    void ageHeaderValue()
    {
        CPPUNIT_ASSERT_EQUAL(std::string("0"), AgeHeaderValue(0));
        CPPUNIT_ASSERT_EQUAL(std::string("0"), AgeHeaderValue(-5));
        CPPUNIT_ASSERT_EQUAL(std::string("60"), AgeHeaderValue(60));
        CPPUNIT_ASSERT_EQUAL(std::string("2147483647"), AgeHeaderValue(2147483647));
        CPPUNIT_ASSERT_EQUAL(std::string("2147483648"), AgeHeaderValue(MaxAge));
        CPPUNIT_ASSERT_EQUAL(std::string("2147483648"), AgeHeaderValue(std::numeric_limits<int64_t>::max()));
        CPPUNIT_ASSERT_EQUAL(std::string("0"), AgeHeaderValue(std::numeric_limits<int64_t>::min()));
        // what a hit says, from CurrentAge
        const auto r = Response(200, {{"Date", At(-60)}, {"Age", "60"}}, T0, T0);
        CPPUNIT_ASSERT_EQUAL(std::string("70"), AgeHeaderValue(CurrentAge(r, T0 + 10)));
    }

    void freshWhileLifetimeExceedsAge()
    {
        // RFC 9111 4.2: response_is_fresh = (freshness_lifetime > current_age)
        const auto r = Ok({{"Cache-Control", "max-age=60"}});
        auto v = IsFresh(Get(), r, Default, T0 + 59);
        CPPUNIT_ASSERT(v.use == Reuse::Fresh && v.isServable());
        CPPUNIT_ASSERT_EQUAL(int64_t(59), v.age);
        CPPUNIT_ASSERT_EQUAL(int64_t(60), v.lifetime);
        v = IsFresh(Get(), r, Default, T0 + 60);
        CPPUNIT_ASSERT(v.use == Reuse::Validate && !v.isServable());
        CPPUNIT_ASSERT_EQUAL(std::string("stale"), std::string(v.reason));
        // must-revalidate changes nothing while fresh
        CPPUNIT_ASSERT(
            IsFresh(Get(), Ok({{"Cache-Control", "max-age=60, must-revalidate"}}), Default, T0 + 1).use ==
            Reuse::Fresh);
    }

    void requestMaxAge()
    {
        // RFC 9111 5.2.1.1: an age less than or equal to max-age
        const auto r = Ok({{"Cache-Control", "max-age=600"}});
        CPPUNIT_ASSERT(IsFresh(Get({{"Cache-Control", "max-age=50"}}), r, Default, T0 + 100).use ==
                       Reuse::Validate);
        CPPUNIT_ASSERT(IsFresh(Get({{"Cache-Control", "max-age=100"}}), r, Default, T0 + 100).use ==
                       Reuse::Fresh);
        CPPUNIT_ASSERT(IsFresh(Get({{"Cache-Control", "max-age=0"}}), r, Default, T0).use == Reuse::Fresh);
        CPPUNIT_ASSERT(IsFresh(Get({{"Cache-Control", "max-age=0"}}), r, Default, T0 + 1).use ==
                       Reuse::Validate);
        // an invalid request max-age reads as 0
        CPPUNIT_ASSERT(IsFresh(Get({{"Cache-Control", "max-age=soon"}}), r, Default, T0 + 1).use ==
                       Reuse::Validate);
        // max-age with max-stale: both must hold
        const auto stale = Ok({{"Cache-Control", "max-age=60"}});
        CPPUNIT_ASSERT(
            IsFresh(Get({{"Cache-Control", "max-age=100, max-stale"}}), stale, Default, T0 + 90).use ==
            Reuse::Stale);
        CPPUNIT_ASSERT(
            IsFresh(Get({{"Cache-Control", "max-age=100, max-stale"}}), stale, Default, T0 + 101).use ==
            Reuse::Validate);
    }

    void immutableIgnoresRequestMaxAgeWhileFresh()
    {
        const auto r = Ok({{"Cache-Control", "max-age=31536000, immutable"}});
        CPPUNIT_ASSERT(IsFresh(Get({{"Cache-Control", "max-age=0"}}), r, Default, T0 + Day).use ==
                       Reuse::Fresh);
        // stale, immutable no longer applies
        const auto old = Ok({{"Cache-Control", "max-age=60, immutable"}});
        CPPUNIT_ASSERT(IsFresh(Get({{"Cache-Control", "max-age=0"}}), old, Default, T0 + 61).use ==
                       Reuse::Validate);
        // stale, it is validated like any other, with or without request directives
        CPPUNIT_ASSERT(IsFresh(Get(), old, Default, T0 + 61).use == Reuse::Validate);
        CPPUNIT_ASSERT(IsFresh(Get(), old, Default, T0 + 59).use == Reuse::Fresh);
        // a forced reload (no-cache, or Pragma: no-cache alone) still reloads
        // (RFC 8246 section 2: "unless explicitly overridden by the user"), as in Squid 5.7
        CPPUNIT_ASSERT(IsFresh(Get({{"Cache-Control", "no-cache"}}), r, Default, T0 + 1).use ==
                       Reuse::Reload);
        CPPUNIT_ASSERT(IsFresh(Get({{"Pragma", "no-cache"}}), r, Default, T0 + 1).use == Reuse::Reload);
    }

    void requestMinFresh()
    {
        // RFC 9111 5.2.1.3: still fresh for at least min-fresh seconds
        const auto r = Ok({{"Cache-Control", "max-age=600"}});
        CPPUNIT_ASSERT(IsFresh(Get({{"Cache-Control", "min-fresh=500"}}), r, Default, T0 + 100).use ==
                       Reuse::Fresh);
        CPPUNIT_ASSERT(IsFresh(Get({{"Cache-Control", "min-fresh=501"}}), r, Default, T0 + 100).use ==
                       Reuse::Validate);
        // min-fresh=0 is plain freshness
        CPPUNIT_ASSERT(IsFresh(Get({{"Cache-Control", "min-fresh=0"}}), r, Default, T0 + 599).use ==
                       Reuse::Fresh);
        // a client that wants freshness does not get a stale response through max-stale
        CPPUNIT_ASSERT(
            IsFresh(Get({{"Cache-Control", "min-fresh=1, max-stale"}}), r, Default, T0 + 700).use ==
            Reuse::Validate);
    }

    void requestMaxStale()
    {
        // RFC 9111 5.2.1.2: stale by 40 s
        const auto r = Ok({{"Cache-Control", "max-age=60"}});
        const time_t now = T0 + 100;
        auto v = IsFresh(Get({{"Cache-Control", "max-stale=40"}}), r, Default, now);
        CPPUNIT_ASSERT(v.use == Reuse::Stale && v.isServable());
        CPPUNIT_ASSERT(IsFresh(Get({{"Cache-Control", "max-stale=39"}}), r, Default, now).use ==
                       Reuse::Validate);
        CPPUNIT_ASSERT(IsFresh(Get({{"Cache-Control", "max-stale"}}), r, Default, now).use == Reuse::Stale);
        CPPUNIT_ASSERT(IsFresh(Get({{"Cache-Control", "max-stale=99999999999"}}), r, Default, now).use ==
                       Reuse::Stale);
        // an invalid max-stale value is ignored
        CPPUNIT_ASSERT(IsFresh(Get({{"Cache-Control", "max-stale=x"}}), r, Default, now).use ==
                       Reuse::Validate);
        // a response that is fresh is Fresh, not Stale
        CPPUNIT_ASSERT(IsFresh(Get({{"Cache-Control", "max-stale"}}), r, Default, T0).use == Reuse::Fresh);
    }

    void revalidateDirectivesForbidStaleUse()
    {
        // RFC 9111 5.2.2.2, 5.2.2.8, 5.2.2.10 and 4.2.4
        const RequestFacts anyStale = Get({{"Cache-Control", "max-stale"}});
        for (const char* cc : {"max-age=60, must-revalidate", "max-age=60, proxy-revalidate", "s-maxage=60",
                               "max-age=600, s-maxage=60", "max-age=60, s-maxage=bad"}) {
            const auto v = IsFresh(anyStale, Ok({{"Cache-Control", cc}}), Default, T0 + 100);
            CPPUNIT_ASSERT_MESSAGE(cc, v.use == Reuse::Validate);
        }
        CPPUNIT_ASSERT_EQUAL(
            std::string("stale and must-revalidate"),
            std::string(
                IsFresh(anyStale, Ok({{"Cache-Control", "max-age=1, must-revalidate"}}), Default, T0 + 9)
                    .reason));
    }

    void privateStoredByIgnorePrivateIsAlwaysValidated()
    {
        // Squid's ENTRY_REVALIDATE_ALWAYS: stored, but validated before each use
        RefreshRule ignore;
        ignore.ignorePrivate = true;
        const auto r = Ok({{"Cache-Control", "private, max-age=600"}});
        CPPUNIT_ASSERT(IsStorable(Get(), r, ignore));
        const auto v = IsFresh(Get(), r, ignore, T0 + 1);
        CPPUNIT_ASSERT(v.use == Reuse::Validate);
        CPPUNIT_ASSERT_EQUAL(std::string("private (stored by refresh_pattern ignore-private)"),
                             std::string(v.reason));
        CPPUNIT_ASSERT(IsFresh(Get(), Ok({{"Cache-Control", "max-age=600"}}), ignore, T0 + 1).use ==
                       Reuse::Fresh);
    }

    void refreshImsSendsIfModifiedSinceToTheOrigin()
    {
        const auto r = Ok({{"Cache-Control", "max-age=600"}});
        const auto ims = Get({{"If-Modified-Since", At(-Day)}});
        CPPUNIT_ASSERT(ims.hasIfModifiedSince);
        CPPUNIT_ASSERT(IsFresh(ims, r, Default, T0 + 1).use == Reuse::Fresh); // answered from the cache
        RefreshRule refreshIms;
        refreshIms.refreshIms = true;
        const auto v = IsFresh(ims, r, refreshIms, T0 + 1);
        CPPUNIT_ASSERT(v.use == Reuse::Validate);
        CPPUNIT_ASSERT(IsFresh(Get(), r, refreshIms, T0 + 1).use == Reuse::Fresh); // without IMS: a hit
    }

    void responseNoCacheForcesValidation()
    {
        // RFC 9111 5.2.2.4: even when fresh; a qualified no-cache too (cuttle
        // does not strip the named fields)
        for (const char* cc : {"no-cache, max-age=600", "no-cache=\"Set-Cookie\", max-age=600"}) {
            const auto r = Ok({{"Cache-Control", cc}});
            CPPUNIT_ASSERT_MESSAGE(cc, IsStorable(Get(), r, Default));
            const auto v = IsFresh(Get(), r, Default, T0 + 1);
            CPPUNIT_ASSERT_MESSAGE(cc, v.use == Reuse::Validate);
            CPPUNIT_ASSERT_EQUAL(std::string("no-cache in the response"), std::string(v.reason));
            CPPUNIT_ASSERT(IsFresh(Get({{"Cache-Control", "max-stale"}}), r, Default, T0 + 1).use ==
                           Reuse::Validate);
        }
        // RFC 9111 5.4: Pragma in a response means nothing
        CPPUNIT_ASSERT(
            IsFresh(Get(), Ok({{"Pragma", "no-cache"}, {"Cache-Control", "max-age=60"}}), Default, T0).use ==
            Reuse::Fresh);
    }

    void requestNoCacheAndPragma()
    {
        const auto r = Ok({{"Cache-Control", "max-age=600"}});
        auto v = IsFresh(Get({{"Cache-Control", "no-cache"}}), r, Default, T0 + 1);
        CPPUNIT_ASSERT(v.use == Reuse::Reload);
        CPPUNIT_ASSERT_EQUAL(std::string("no-cache in the request"), std::string(v.reason));
        // RFC 9111 5.4: Pragma: no-cache without Cache-Control
        v = IsFresh(Get({{"Pragma", "no-cache"}}), r, Default, T0 + 1);
        CPPUNIT_ASSERT(v.use == Reuse::Reload);
        CPPUNIT_ASSERT_EQUAL(std::string("Pragma: no-cache"), std::string(v.reason));
        // ... and ignored when a Cache-Control cuttle understands is there
        CPPUNIT_ASSERT(
            IsFresh(Get({{"Pragma", "no-cache"}, {"Cache-Control", "max-stale=5"}}), r, Default, T0 + 1)
                .use == Reuse::Fresh);
        CPPUNIT_ASSERT(
            IsFresh(Get({{"Pragma", "no-cache"}, {"Cache-Control", "x-other"}}), r, Default, T0 + 1).use ==
            Reuse::Reload);
    }

    void refreshPatternReloadOptions()
    {
        const auto r = Ok({{"Cache-Control", "max-age=600"}});
        const auto reload = Get({{"Cache-Control", "no-cache"}});
        RefreshRule ims;
        ims.reloadIntoIms = true;
        CPPUNIT_ASSERT(IsFresh(reload, r, ims, T0 + 1).use == Reuse::Validate);
        RefreshRule ignore;
        ignore.ignoreReload = true;
        CPPUNIT_ASSERT(IsFresh(reload, r, ignore, T0 + 1).use == Reuse::Fresh);
        CPPUNIT_ASSERT(IsFresh(Get({{"Pragma", "no-cache"}}), r, ignore, T0 + 1).use == Reuse::Fresh);
        // Squid checks ignore-reload first
        ignore.reloadIntoIms = true;
        CPPUNIT_ASSERT(IsFresh(reload, r, ignore, T0 + 1).use == Reuse::Fresh);
        // ignoring a reload does not make a stale response fresh
        CPPUNIT_ASSERT(IsFresh(reload, r, ignore, T0 + 700).use == Reuse::Validate);
    }

    void staleWhileRevalidateWindow()
    {
        // RFC 5861 section 3's example
        const auto r = Ok({{"Cache-Control", "max-age=600, stale-while-revalidate=30"}});
        const auto swr = [&](time_t now, const RequestFacts& q = Get()) {
            return MayServeStale(StaleUse::WhileRevalidating, q, r, Default, now, 7 * Day).yes;
        };
        CPPUNIT_ASSERT(swr(T0 + 100)); // fresh
        CPPUNIT_ASSERT(swr(T0 + 610));
        CPPUNIT_ASSERT(swr(T0 + 630));
        CPPUNIT_ASSERT(!swr(T0 + 631));
        // the request's limits still hold
        CPPUNIT_ASSERT(!swr(T0 + 610, Get({{"Cache-Control", "max-age=605"}})));
        CPPUNIT_ASSERT(swr(T0 + 610, Get({{"Cache-Control", "max-age=610"}})));
        CPPUNIT_ASSERT(!swr(T0 + 610, Get({{"Cache-Control", "min-fresh=1"}})));
        // without the directive: no
        const auto plain = Ok({{"Cache-Control", "max-age=600"}});
        CPPUNIT_ASSERT(!MayServeStale(StaleUse::WhileRevalidating, Get(), plain, Default, T0 + 601, 7 * Day));
    }

    void staleIfErrorWindow()
    {
        // RFC 5861 section 4's example
        const auto r = Ok({{"Cache-Control", "max-age=600, stale-if-error=1200"}});
        const auto sie = [&](time_t now, const RequestFacts& q = Get()) {
            return MayServeStale(StaleUse::OnError, q, r, Default, now, 7 * Day);
        };
        CPPUNIT_ASSERT(sie(T0 + 1800));
        CPPUNIT_ASSERT_EQUAL(std::string("within stale-if-error"), std::string(sie(T0 + 1800).reason));
        CPPUNIT_ASSERT(!sie(T0 + 1801));
        // the request may grant a wider window (RFC 5861: also a request directive)
        CPPUNIT_ASSERT(sie(T0 + 2000, Get({{"Cache-Control", "stale-if-error=1400"}})));
        // a request's stale-if-error alone
        const auto plain = Ok({{"Cache-Control", "max-age=600"}});
        CPPUNIT_ASSERT(MayServeStale(StaleUse::OnError, Get({{"Cache-Control", "stale-if-error=60"}}), plain,
                                     Default, T0 + 660, 7 * Day));
        CPPUNIT_ASSERT(!MayServeStale(StaleUse::OnError, Get({{"Cache-Control", "stale-if-error=60"}}), plain,
                                      Default, T0 + 661, 7 * Day));
        // stale-if-error says nothing about revalidating in the background
        CPPUNIT_ASSERT(!MayServeStale(StaleUse::WhileRevalidating, Get(), r, Default, T0 + 601, 7 * Day));
    }

    void maxStaleBoundsStaleOnError()
    {
        // Squid: a stale hit is served when validation fails, up to max_stale
        const auto r = Ok({{"Cache-Control", "max-age=600"}});
        auto v = MayServeStale(StaleUse::OnError, Get(), r, Default, T0 + 600 + 7 * Day, 7 * Day);
        CPPUNIT_ASSERT(v);
        CPPUNIT_ASSERT_EQUAL(std::string("within max_stale"), std::string(v.reason));
        v = MayServeStale(StaleUse::OnError, Get(), r, Default, T0 + 601 + 7 * Day, 7 * Day);
        CPPUNIT_ASSERT(!v);
        CPPUNIT_ASSERT_EQUAL(std::string("stale past max_stale"), std::string(v.reason));
        CPPUNIT_ASSERT(!MayServeStale(StaleUse::OnError, Get(), r, Default, T0 + 601, 0));
        // the rule's max-stale=N overrides max_stale, either way
        RefreshRule rule;
        rule.maxStale = 60;
        CPPUNIT_ASSERT(MayServeStale(StaleUse::OnError, Get(), r, rule, T0 + 660, 7 * Day));
        CPPUNIT_ASSERT(!MayServeStale(StaleUse::OnError, Get(), r, rule, T0 + 661, 7 * Day));
        rule.maxStale = 3600;
        CPPUNIT_ASSERT(MayServeStale(StaleUse::OnError, Get(), r, rule, T0 + 4200, 0));
        // max_stale caps stale-if-error too
        const auto sie = Ok({{"Cache-Control", "max-age=600, stale-if-error=86400"}});
        CPPUNIT_ASSERT(!MayServeStale(StaleUse::OnError, Get(), sie, Default, T0 + 700, 60));
        CPPUNIT_ASSERT(MayServeStale(StaleUse::OnError, Get(), sie, Default, T0 + 660, 60));
    }

    void staleUseForbiddenByDirectivesAndReloads()
    {
        // no-cache (and a private reply stored under ignore-private) is never
        // reused without a successful validation, even while fresh
        for (const char* cc :
             {"no-cache, max-age=600", "no-cache=\"Set-Cookie\", max-age=600", "private, max-age=600"}) {
            const auto r = Ok({{"Cache-Control", cc}});
            CPPUNIT_ASSERT_MESSAGE(cc,
                                   !MayServeStale(StaleUse::OnError, Get(), r, Default, T0 + 10, 7 * Day));
        }
        CPPUNIT_ASSERT(MayServeStale(StaleUse::OnError, Get(), Ok({{"Cache-Control", "max-age=600"}}),
                                     Default, T0 + 10, 0));
        for (const char* cc :
             {"max-age=600, stale-if-error=1200, stale-while-revalidate=30, must-revalidate",
              "max-age=600, stale-if-error=1200, stale-while-revalidate=30, proxy-revalidate",
              "s-maxage=600, stale-if-error=1200, stale-while-revalidate=30",
              "no-cache, max-age=600, stale-if-error=1200, stale-while-revalidate=30"}) {
            const auto r = Ok({{"Cache-Control", cc}});
            CPPUNIT_ASSERT_MESSAGE(cc,
                                   !MayServeStale(StaleUse::OnError, Get(), r, Default, T0 + 610, 7 * Day));
            CPPUNIT_ASSERT_MESSAGE(
                cc, !MayServeStale(StaleUse::WhileRevalidating, Get(), r, Default, T0 + 610, 7 * Day));
        }
        const auto r = Ok({{"Cache-Control", "max-age=600, stale-if-error=1200, stale-while-revalidate=30"}});
        for (const auto why : {StaleUse::OnError, StaleUse::WhileRevalidating}) {
            CPPUNIT_ASSERT(
                !MayServeStale(why, Get({{"Cache-Control", "no-cache"}}), r, Default, T0 + 610, 7 * Day));
            CPPUNIT_ASSERT(!MayServeStale(why, Get({{"Pragma", "no-cache"}}), r, Default, T0 + 610, 7 * Day));
            RefreshRule ignore;
            ignore.ignoreReload = true;
            CPPUNIT_ASSERT(MayServeStale(why, Get({{"Pragma", "no-cache"}}), r, ignore, T0 + 610, 7 * Day));
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestFreshness);
