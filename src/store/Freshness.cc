/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "store/Freshness.h"
#include "store/Entry.h"
#include "http/Date.h"
#include "http/FieldSyntax.h"

#include <algorithm>
#include <limits>

namespace {

/// `v` kept in [0, MaxAge].
int64_t Clamp(int64_t v)
{
    return std::clamp<int64_t>(v, 0, Store::MaxAge);
}

/// a - b, saturating instead of overflowing (times come from the network).
int64_t SubSat(int64_t a, int64_t b)
{
    int64_t r = 0;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    return r;
}

bool Has(Http::FieldsView fields, std::string_view name)
{
    return fields.find(name).has_value();
}

/// The explicit lifetime of RFC 9111 4.2.1 for a shared cache, or nullopt.
std::optional<int64_t> ExplicitLifetime(const Store::ResponseFacts& r)
{
    // An invalid s-maxage or max-age makes the response stale (section
    // 4.2.1: "most restrictive"), and it is still the directive that decides.
    if (r.cc.sMaxAge)
        return Clamp(static_cast<int64_t>(*r.cc.sMaxAge));
    if (r.cc.sMaxAgeInvalid)
        return 0;
    if (r.cc.maxAge)
        return Clamp(static_cast<int64_t>(*r.cc.maxAge));
    if (r.cc.maxAgeInvalid)
        return 0;
    if (r.hasExpires) {
        if (!r.expires)
            return 0; // section 5.3: an invalid date, e.g. "0", means already expired
        return Clamp(SubSat(*r.expires, r.dateValue()));
    }
    return std::nullopt;
}

/// Squid 5.7's refreshStaleness() heuristic as a lifetime (refresh.cc): the
/// Last-Modified factor when Last-Modified is before Date, else MIN; MAX caps
/// both; override-lastmod raises the factor to MIN.
int64_t HeuristicLifetime(const Store::ResponseFacts& r, const Store::RefreshRule& rule)
{
    const int64_t min = Clamp(rule.min);
    const int64_t max = Clamp(rule.max);
    int64_t lifetime = min;
    if (r.lastModified) {
        const int64_t lmDelta = SubSat(r.dateValue(), *r.lastModified);
        if (lmDelta > 0) {
            int64_t product = 0;
            const int64_t percent = std::max<int64_t>(rule.percent, 0);
            lifetime = __builtin_mul_overflow(lmDelta, percent, &product) ? Store::MaxAge : product / 100;
            if (rule.overrideLastmod)
                lifetime = std::max(lifetime, min);
        }
    }
    return std::min(Clamp(lifetime), max);
}

/// The request's Cache-Control and Pragma ask for a reload that the rule
/// does not ignore (Squid: ignore-reload).
bool Reloads(const Store::RequestFacts& q, const Store::RefreshRule& rule)
{
    return q.wantsReload() && !rule.ignoreReload;
}

/// Response directives that forbid any stale use (RFC 9111 4.2.4, 5.2.2.2,
/// 5.2.2.8, 5.2.2.10; no-cache: 5.2.2.4).
const char* StaleForbidden(const Store::ResponseFacts& r)
{
    if (r.cc.hasNoCache())
        return "no-cache in the response";
    if (r.cc.mustRevalidate)
        return "stale and must-revalidate";
    if (r.cc.proxyRevalidate)
        return "stale and proxy-revalidate";
    if (r.cc.sMaxAge || r.cc.sMaxAgeInvalid)
        return "stale and s-maxage (implies proxy-revalidate)";
    return nullptr;
}

} // namespace

Store::ResponseFacts Store::ResponseFacts::Of(const Reply& reply)
{
    return FromFields(reply.status, reply.fields(), reply.requestTime, reply.responseTime);
}

Store::ResponseFacts Store::ResponseFacts::FromFields(int status, Http::FieldsView fields, time_t requestTime,
                                                      time_t responseTime)
{
    ResponseFacts r;
    r.status = status;
    // one pass over the fields (every reply a forwarder reads comes here):
    // each name is compared only with the names of its length, and of each
    // field but Cache-Control (a list, RFC 9110 5.3) the first one counts
    std::vector<std::string_view> cacheControl;
    std::optional<std::string_view> date, expires, lastModified, age;
    using Http::EqualsIgnoreCase;
    for (const auto f : fields) {
        switch (f.name.size()) {
        case 3:
            if (!age && EqualsIgnoreCase(f.name, "Age"))
                age = f.value;
            break;
        case 4:
            if (EqualsIgnoreCase(f.name, "Date")) {
                if (!date)
                    date = f.value;
            } else if (EqualsIgnoreCase(f.name, "ETag")) {
                r.hasEtag = true;
            }
            break;
        case 7:
            if (EqualsIgnoreCase(f.name, "Expires")) {
                r.hasExpires = true;
                if (!expires)
                    expires = f.value;
            }
            break;
        case 13:
            if (EqualsIgnoreCase(f.name, "Cache-Control"))
                cacheControl.push_back(f.value);
            else if (!lastModified && EqualsIgnoreCase(f.name, "Last-Modified"))
                lastModified = f.value;
            break;
        default:
            break;
        }
    }
    r.cc = Http::ParseCacheControl(cacheControl);
    const auto parseDate =
        [responseTime](const std::optional<std::string_view>& value) -> std::optional<time_t> {
        return value ? Http::ParseCacheDate(*value, responseTime) : std::nullopt;
    };
    r.date = parseDate(date);
    r.expires = parseDate(expires);
    r.lastModified = parseDate(lastModified);
    if (age) {
        // RFC 9111 5.1: of a list-based value the first member counts; an
        // invalid value (after that) is ignored
        const auto first = Http::TrimOws(age->substr(0, age->find(',')));
        if (const auto seconds = Http::ParseDeltaSeconds(first))
            r.age = Clamp(static_cast<int64_t>(*seconds));
    }
    r.requestTime = requestTime;
    r.responseTime = responseTime;
    return r;
}

Store::RequestFacts Store::RequestFacts::FromFields(Http::Method method, Http::FieldsView fields)
{
    RequestFacts q;
    q.method = method;
    q.hasAuthorization = Has(fields, "Authorization");
    q.cc = Http::ParseCacheControl(Http::FieldValues(fields, "Cache-Control"));
    q.pragmaNoCache = Http::PragmaHasNoCache(Http::FieldValues(fields, "Pragma"));
    q.hasIfModifiedSince = Has(fields, "If-Modified-Since");
    return q;
}

bool Store::IsHeuristicallyCacheable(int status)
{
    switch (status) {
    case 200:
    case 203:
    case 204:
    case 206:
    case 300:
    case 301:
    case 308:
    case 404:
    case 405:
    case 410:
    case 414:
    case 501:
        return true;
    default:
        return false;
    }
}

bool Store::IsUnderstoodStatus(int status)
{
    // RFC 9110 section 15's final codes; 206 and 304 need caching rules the
    // store does not implement (combining ranges, updating a stored response).
    if ((status >= 200 && status <= 205) || (status >= 300 && status <= 303) || status == 305 ||
        status == 307 || status == 308)
        return true;
    if ((status >= 400 && status <= 417) || status == 421 || status == 422 || status == 426)
        return true;
    return status >= 500 && status <= 505;
}

Store::Verdict Store::IsStorable(const RequestFacts& request, const ResponseFacts& response,
                                 const RefreshRule& rule)
{
    // Section 3, in its order.
    if (request.method == Http::Method::Post) {
        // RFC 9110 9.3.3: only with explicit freshness and a Content-Location
        // that is the POST's target, and then it answers a later GET
        if (!response.contentLocationIsTarget)
            return {false, "POST without a Content-Location naming its target"};
        if (!response.cc.sMaxAge && !response.cc.sMaxAgeInvalid && !response.cc.maxAge &&
            !response.cc.maxAgeInvalid && !response.hasExpires)
            return {false, "POST without explicit freshness"};
    } else if (request.method != Http::Method::Get) {
        return {false, request.method == Http::Method::Head ? "HEAD (a stored GET answers it)"
                                                            : "the method is not cacheable"};
    }
    const int status = response.status;
    if (status < 200)
        return {false, "the status is not final"};
    if (status > 599)
        return {false, "not a status code (RFC 9110 section 15: 100 to 599)"};
    if (status == 206)
        return {false, "206: partial responses are not stored"};
    if (status == 304)
        return {false, "304: it updates a stored response"};
    // A status cuttle does not know is stored like any other final one, by
    // the explicit freshness or public it comes with (it is not heuristically
    // cacheable), unless must-understand asks the cache to know it.
    if (response.cc.mustUnderstand && !IsUnderstoodStatus(status))
        return {false, "must-understand and a status cuttle does not understand"};
    if (request.cc.noStore)
        return {false, "no-store in the request"};
    // Section 5.2.2.3: must-understand with an understood status overrides no-store.
    if (response.cc.noStore && !response.cc.mustUnderstand && !rule.ignoreNoStore)
        return {false, "no-store"};
    if (response.cc.hasPrivate() && !rule.ignorePrivate)
        return {false, "private"};
    // Section 3.5: a shared cache stores a response to an authenticated
    // request only when the response allows it explicitly.
    if (request.hasAuthorization && !response.cc.isPublic && !response.cc.sMaxAge &&
        !response.cc.mustRevalidate)
        return {false, "Authorization without public, s-maxage or must-revalidate"};
    if (response.cc.isPublic)
        return {true, "public"};
    if (response.cc.sMaxAge || response.cc.sMaxAgeInvalid)
        return {true, "s-maxage"};
    if (response.cc.maxAge || response.cc.maxAgeInvalid)
        return {true, "max-age"};
    if (response.hasExpires)
        return {true, "Expires"};
    if (IsHeuristicallyCacheable(status))
        return {true, "a heuristically cacheable status"};
    // (store-stale keeps a reply that is stale on arrival; it does not make
    // a status storable that section 3 forbids, as Squid 5.7 does not either)
    return {false, "no explicit freshness and a status that is not heuristically cacheable"};
}

int64_t Store::FreshnessLifetime(const ResponseFacts& response, const RefreshRule& rule)
{
    if (const auto lifetime = ExplicitLifetime(response)) {
        // Squid's override-expire: MIN applies even against an explicit expiry.
        if (rule.overrideExpire)
            return std::max(*lifetime, Clamp(rule.min));
        return *lifetime;
    }
    // Section 4.2.2: heuristics only for heuristically cacheable statuses
    // and responses marked public.
    if (!IsHeuristicallyCacheable(response.status) && !response.cc.isPublic)
        return 0;
    return HeuristicLifetime(response, rule);
}

int64_t Store::CurrentAge(const ResponseFacts& response, time_t now)
{
    // Section 4.2.3, term by term; each kept in [0, MaxAge] so that the
    // sums cannot overflow and a clock going back cannot make an age negative.
    const int64_t apparentAge = Clamp(SubSat(response.responseTime, response.dateValue()));
    const int64_t responseDelay = Clamp(SubSat(response.responseTime, response.requestTime));
    const int64_t correctedAgeValue = Clamp(response.age + responseDelay);
    const int64_t correctedInitialAge = std::max(apparentAge, correctedAgeValue);
    const int64_t residentTime = Clamp(SubSat(now, response.responseTime));
    return Clamp(correctedInitialAge + residentTime);
}

Store::Reusability Store::IsFresh(const RequestFacts& request, const ResponseFacts& response,
                                  const RefreshRule& rule, time_t now)
{
    Reusability r;
    r.age = CurrentAge(response, now);
    r.lifetime = FreshnessLifetime(response, rule);
    const bool fresh = r.lifetime > r.age;
    const auto decide = [&r](Reuse use, const char* reason) {
        r.use = use;
        r.reason = reason;
        return r;
    };

    // Section 4: a stored no-cache response is never used without validation.
    if (response.cc.hasNoCache())
        return decide(Reuse::Validate, "no-cache in the response");
    // A private response is stored only under refresh_pattern ignore-private;
    // Squid then validates it before every use all the same (its
    // ENTRY_REVALIDATE_ALWAYS), so that one user's reply reaches another only
    // when the origin says it has not changed.
    if (response.cc.hasPrivate())
        return decide(Reuse::Validate, "private (stored by refresh_pattern ignore-private)");
    // Section 5.2.1.4 and 5.4; Squid's refreshCheck() for the options.
    if (request.wantsReload()) {
        if (rule.reloadIntoIms && !rule.ignoreReload)
            return decide(Reuse::Validate, "client reload (refresh_pattern reload-into-ims)");
        if (!rule.ignoreReload)
            return decide(Reuse::Reload,
                          request.cc.hasNoCache() ? "no-cache in the request" : "Pragma: no-cache");
    }
    // Squid's refresh-ims: a client's If-Modified-Since goes to the origin.
    if (rule.refreshIms && request.hasIfModifiedSince)
        return decide(Reuse::Validate, "If-Modified-Since (refresh_pattern refresh-ims)");
    // Section 5.2.1.1 (an invalid value reads as 0, the most restrictive);
    // RFC 8246 as Squid reads it: a fresh immutable response ignores it.
    if ((request.cc.maxAge || request.cc.maxAgeInvalid) && !(response.cc.immutable && fresh)) {
        const int64_t maxAge = request.cc.maxAge ? Clamp(static_cast<int64_t>(*request.cc.maxAge)) : 0;
        if (r.age > maxAge)
            return decide(Reuse::Validate, "older than the request's max-age");
    }
    if (fresh) {
        // Section 5.2.1.3: still fresh for min-fresh more seconds.
        if (request.cc.minFresh && r.lifetime - r.age < Clamp(static_cast<int64_t>(*request.cc.minFresh)))
            return decide(Reuse::Validate, "not fresh for the request's min-fresh");
        return decide(Reuse::Fresh, "fresh");
    }

    // Stale: section 4.2.4.
    if (const char* why = StaleForbidden(response))
        return decide(Reuse::Validate, why);
    if (request.cc.minFresh)
        return decide(Reuse::Validate, "stale and the request wants min-fresh");
    const int64_t staleness = r.age - r.lifetime;
    if (request.cc.maxStaleAny)
        return decide(Reuse::Stale, "stale within the request's max-stale");
    if (request.cc.maxStale && staleness <= Clamp(static_cast<int64_t>(*request.cc.maxStale)))
        return decide(Reuse::Stale, "stale within the request's max-stale");
    return decide(Reuse::Validate, "stale");
}

Store::Verdict Store::MayServeStale(StaleUse why, const RequestFacts& request, const ResponseFacts& response,
                                    const RefreshRule& rule, time_t now, int64_t maxStaleSeconds)
{
    // RFC 9111 5.2.2.4: a no-cache response is never reused without a
    // successful validation, fresh or not; nor is a private one stored under
    // ignore-private (validated before every use, as in IsFresh())
    if (response.cc.hasNoCache())
        return {false, "no-cache: reused only after a successful validation"};
    if (response.cc.hasPrivate())
        return {false, "private: reused only after a successful validation"};
    const int64_t age = CurrentAge(response, now);
    const int64_t lifetime = FreshnessLifetime(response, rule);
    if (lifetime > age)
        return {true, "fresh"};
    if (const char* forbidden = StaleForbidden(response))
        return {false, forbidden};
    if (Reloads(request, rule))
        return {false, "the client asked for a reload"};
    const int64_t staleness = age - lifetime;

    if (why == StaleUse::WhileRevalidating) {
        // RFC 5861 section 3; the request's own limits still hold.
        if (!response.cc.staleWhileRevalidate)
            return {false, "no stale-while-revalidate"};
        if (staleness > Clamp(static_cast<int64_t>(*response.cc.staleWhileRevalidate)))
            return {false, "stale past stale-while-revalidate"};
        if (request.cc.minFresh)
            return {false, "the request wants min-fresh"};
        if ((request.cc.maxAge || request.cc.maxAgeInvalid) &&
            age > (request.cc.maxAge ? Clamp(static_cast<int64_t>(*request.cc.maxAge)) : 0))
            return {false, "older than the request's max-age"};
        return {true, "within stale-while-revalidate"};
    }

    // OnError: Squid serves a stale hit when validation fails unless it is
    // staler than max_stale or the rule's max-stale=N (refreshCheck()'s
    // failOnValidationError); RFC 5861 section 4's stale-if-error, from the
    // response or the request, narrows that window.
    const int64_t limit = Clamp(rule.maxStale >= 0 ? rule.maxStale : maxStaleSeconds);
    std::optional<int64_t> granted;
    if (response.cc.staleIfError)
        granted = Clamp(static_cast<int64_t>(*response.cc.staleIfError));
    if (request.cc.staleIfError)
        granted = std::max(granted.value_or(0), Clamp(static_cast<int64_t>(*request.cc.staleIfError)));
    if (staleness > limit)
        return {false,
                rule.maxStale >= 0 ? "stale past the refresh_pattern max-stale" : "stale past max_stale"};
    if (granted && staleness > *granted)
        return {false, "stale past stale-if-error"};
    return {true, granted ? "within stale-if-error" : "within max_stale"};
}

std::string Store::AgeHeaderValue(int64_t age)
{
    return std::to_string(Clamp(age));
}
