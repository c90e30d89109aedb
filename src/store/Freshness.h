/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Store freshness: whether a response may be stored, how long it stays
/// fresh, how old it is, and whether a stored response may answer a request
/// (RFC 9111 sections 3, 4.2, 5.2 and 5.4, RFC 5861), with Squid 5.7's
/// refresh_pattern as the heuristic.
///
/// Everything here is a pure function of plain values: a response is a
/// ResponseFacts (status, parsed Cache-Control, Date, Expires,
/// Last-Modified, Age, and the request_time and response_time of RFC 9111
/// section 4.2.3), a request is a RequestFacts (method, Authorization,
/// Cache-Control, Pragma), and the refresh_pattern line that matched the
/// URL is a RefreshRule. Both Facts can be made from the header fields of
/// a parsed head (FromFields()), and they own everything they hold, so a
/// store entry may keep its ResponseFacts. No clock is read: `now` is a
/// parameter. Times are POSIX seconds (time_t); durations are seconds in
/// [0, MaxAge].
///
///     request_time      response_time                 now
///          |  response_delay  |      resident_time     |
///          |----------------->|----------------------->|
///               origin: Date, Age    (in the store)
///
///     current_age = max(apparent_age, Age + response_delay) + resident_time
///     fresh      <=> freshness_lifetime > current_age
///
/// Why RefreshRule is defined here: the layering (test-suite/source/
/// layering.sh) lets store include base, sbuf, http, log and store headers
/// only, and config may not include store's. Config::RefreshPattern
/// (config/Settings.h) has the same fields with the same names and units;
/// the client and server sides, which may use both, copy the pattern that
/// Config::Settings::refreshPatternFor() found into a RefreshRule. A
/// default RefreshRule is Squid's built-in rule for URLs no refresh_pattern
/// matches (0 20% 4320).
///
/// Where cuttle chooses (and why):
/// - Only GET responses are stored; answering HEAD from a stored GET is the
///   caller's. The one exception: a response to POST with explicit
///   freshness and a Content-Location naming the POST's target may be
///   stored, for a later GET (RFC 9110 section 9.3.3; the caller stores it
///   under the GET key and sets contentLocationIsTarget).
///   206 and 304 are not stored (the store keeps whole representations; a
///   304 updates one). A final status cuttle does not
///   know (299, 499, 599) is stored with explicit freshness or public, as
///   RFC 9111 section 3 allows (RFC 7231 forbade it), unless the response
///   says must-understand; it is never heuristically cacheable. A code
///   outside 100..599 is not a status (RFC 9110 section 15) and not stored.
/// - no-cache and private with field names are treated as if unqualified:
///   the store does not strip the named fields, and RFC 9111 5.2.2.4 and
///   5.2.2.7 let a cache be stricter than the qualified forms. Squid does the
///   same.
/// - Heuristic freshness applies only when nothing explicit is present and
///   the status is heuristically cacheable (RFC 9110 section 15.1) or the
///   response says public (RFC 9111 section 4.2.2). Squid applies
///   refresh_pattern to any status; cuttle follows the RFC.
/// - The heuristic is Squid 5.7's refreshStaleness(): with a Last-Modified
///   before Date, PERCENT of (Date - Last-Modified) capped at MAX, and MIN
///   does not apply unless override-lastmod; otherwise MIN capped at MAX.
///   override-expire raises an explicit lifetime to MIN.
/// - Among duplicate Date, Expires, Last-Modified and Age fields the first
///   counts (RFC 9111 4.2.1); Cache-Control duplicates are Http::CacheControl's.
///   Dates are read in the three formats of RFC 9110 5.6.7 (IMF-fixdate,
///   rfc850, asctime) with names and "GMT" in any case (Http::ParseCacheDate,
///   RFC 9111 4.2).
///   An Expires that does not parse means "already expired" (RFC 9111 5.3);
///   a Date that does not parse is replaced by response_time (RFC 9110
///   6.6.1), as is a missing one. Of an Age with a list value ("7200, 0")
///   the first member counts; an Age whose first member is not
///   delta-seconds is ignored (0), as RFC 9111 5.1 says.
/// - A request's max-age is ignored while an immutable response (RFC 8246)
///   is fresh, as Squid does, so a browser reload does not revalidate it;
///   a forced reload (no-cache, Pragma: no-cache) still reloads (RFC 8246
///   section 2 leaves that to the user), and a stale one is validated.
/// - must-revalidate, proxy-revalidate, s-maxage and no-cache forbid every
///   stale use, stale-if-error and stale-while-revalidate included (RFC 9111
///   section 4.2.4 lists them as in-protocol prohibitions).
/// - When validation fails, a stale response may be served as Squid serves
///   it: for at most max_stale (or the rule's max-stale=N) past its
///   lifetime; a stale-if-error in the response or request narrows that
///   window (RFC 5861 section 4), never widens it past max_stale.

#pragma once

#include "http/CacheControl.h"
#include "http/Method.h"
#include "http/RequestParser.h"

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

namespace Store {

struct Reply;

/// The largest age and lifetime in seconds: 2^31 (RFC 9111 sections 1.2.2
/// and 5.1: a cache that cannot represent an age sends 2147483648).
constexpr int64_t MaxAge = 2147483648LL;

/// The refresh_pattern line that matched a URL (Squid 5.7's meaning); the
/// same fields as Config::RefreshPattern (see the file comment).
struct RefreshRule {
    int64_t min = 0;              ///< seconds a response without Last-Modified stays fresh
    int64_t percent = 20;         ///< of (Date - Last-Modified); may exceed 100
    int64_t max = 3 * 24 * 3600;  ///< seconds: the heuristic lifetime never exceeds it
    bool overrideExpire = false;  ///< an explicit lifetime is raised to min
    bool overrideLastmod = false; ///< a Last-Modified lifetime is raised to min
    bool reloadIntoIms = false;   ///< a client reload becomes a validation
    bool ignoreReload = false;    ///< a client reload (no-cache, Pragma: no-cache) is ignored
    bool ignoreNoStore = false;   ///< a response's no-store is ignored
    bool ignorePrivate = false;   ///< a response's private is ignored
    bool refreshIms = false;      ///< a client If-Modified-Since goes to the origin (the caller's)
    bool storeStale = false;      ///< store responses with no explicit or heuristic freshness
    int64_t maxStale = -1;        ///< seconds served stale when validation fails; < 0: max_stale
};

/// What the freshness rules need to know about a response.
struct ResponseFacts {
    int status = 200;                   ///< the status code
    Http::CacheControl cc;              ///< every Cache-Control field, parsed
    std::optional<time_t> date;         ///< the first Date, when it parses
    bool hasExpires = false;            ///< an Expires field is present (valid or not)
    std::optional<time_t> expires;      ///< the first Expires, when it parses
    std::optional<time_t> lastModified; ///< the first Last-Modified, when it parses
    int64_t age = 0; ///< the first member of the first Age, saturated at MaxAge; 0 when absent or invalid
    bool hasEtag = false; ///< an ETag field is present
    bool contentLocationIsTarget =
        false;               ///< Content-Location names the request's target (the caller sets it)
    time_t requestTime = 0;  ///< request_time: when the request that got it was sent
    time_t responseTime = 0; ///< response_time: when its head was received

    /// Facts from a reply head's fields; dates resolve two-digit years
    /// against responseTime.
    static ResponseFacts FromFields(int status, Http::FieldsView fields, time_t requestTime,
                                    time_t responseTime);
    /// Facts of a reply the store holds (FromFields() of its head and times).
    static ResponseFacts Of(const Reply& reply);

    /// The Date used in computations: the Date field, or response_time
    /// without a valid one (RFC 9110 section 6.6.1).
    time_t dateValue() const { return date.value_or(responseTime); }
};

/// What the freshness rules need to know about a request.
struct RequestFacts {
    Http::Method method = Http::Method::Get; ///< the request method
    bool hasAuthorization = false;           ///< an Authorization field is present
    Http::CacheControl cc;                   ///< every Cache-Control field, parsed
    bool pragmaNoCache = false;              ///< a Pragma field holds no-cache
    bool hasIfModifiedSince = false;         ///< an If-Modified-Since field is present (refresh-ims)

    /// Facts from a request head's fields.
    static RequestFacts FromFields(Http::Method method, Http::FieldsView fields);

    /// Whether the client asks for a reload: Cache-Control: no-cache (with
    /// or without an argument, which means nothing in a request), or
    /// Pragma: no-cache without a Cache-Control cuttle understands (RFC 9111 5.4).
    bool wantsReload() const { return cc.hasNoCache() || (pragmaNoCache && !cc.hasKnown()); }
};

/// A yes or no, with the reason cache.log gives (a static string).
struct Verdict {
    bool yes = false;        ///< the answer
    const char* reason = ""; ///< why, e.g. "no-store"

    /// The answer.
    explicit operator bool() const { return yes; }
};

/// How a stored response may answer a request.
enum class Reuse {
    Fresh,    ///< fresh enough for this request: serve it
    Stale,    ///< stale, but the request's max-stale accepts it (RFC 9111 5.2.1.2): serve it
    Validate, ///< ask the origin with a conditional request first
    Reload    ///< the client asked for a reload: forward it unconditionally (Squid's TCP_CLIENT_REFRESH_MISS)
};

/// IsFresh()'s answer.
struct Reusability {
    Reuse use = Reuse::Validate; ///< what to do
    const char* reason = "";     ///< why, for cache.log
    int64_t age = 0;             ///< current_age (CurrentAge())
    int64_t lifetime = 0;        ///< freshness_lifetime (FreshnessLifetime())

    /// Whether the stored response may be sent without asking the origin.
    bool isServable() const { return use == Reuse::Fresh || use == Reuse::Stale; }
};

/// Why a stale response would be served.
enum class StaleUse {
    WhileRevalidating, ///< the origin is asked in the background (stale-while-revalidate)
    OnError            ///< the validation failed: no answer, or a 5xx (stale-if-error, max_stale)
};

/// Status codes whose responses may be given a heuristic lifetime (RFC 9110
/// section 15.1): 200 203 204 206 300 301 308 404 405 410 414 501.
bool IsHeuristicallyCacheable(int status);

/// Status codes whose caching rules cuttle implements: every final status
/// defined by RFC 9110 except 206 and 304 (what must-understand asks about).
bool IsUnderstoodStatus(int status);

/// Whether a shared cache may store the response to this request (RFC 9111
/// section 3, 3.5 and 5.2); the reason names the rule that decided.
Verdict IsStorable(const RequestFacts& request, const ResponseFacts& response, const RefreshRule& rule);

/// freshness_lifetime in seconds (RFC 9111 4.2.1 for a shared cache, the
/// refresh_pattern heuristic of 4.2.2 when nothing explicit is present);
/// 0 when the response is stale on arrival. In [0, MaxAge].
int64_t FreshnessLifetime(const ResponseFacts& response, const RefreshRule& rule);

/// current_age at `now`, exactly as RFC 9111 4.2.3 computes it, with every
/// term kept in [0, MaxAge] (a clock that goes back, or a Date in the future,
/// never makes an age negative) and the sum saturating at MaxAge.
int64_t CurrentAge(const ResponseFacts& response, time_t now);

/// Whether the stored `response` may answer `request` at `now` without the
/// origin (RFC 9111 sections 4, 4.2, 4.2.4, 5.2.1, 5.2.2, 5.4).
/// only-if-cached is the caller's: it answers 504 when the result is not servable.
Reusability IsFresh(const RequestFacts& request, const ResponseFacts& response, const RefreshRule& rule,
                    time_t now);

/// Whether a stale `response` may be sent for `request` at `now` in case
/// `why` (RFC 5861 stale-while-revalidate and stale-if-error; Squid's
/// max_stale, given in seconds, and the rule's max-stale=N when validation
/// fails).
Verdict MayServeStale(StaleUse why, const RequestFacts& request, const ResponseFacts& response,
                      const RefreshRule& rule, time_t now, int64_t maxStaleSeconds);

/// The Age field value sent with a hit (RFC 9111 section 5.1): decimal
/// seconds, 0 for a negative age, 2147483648 at and past MaxAge.
std::string AgeHeaderValue(int64_t age);

} // namespace Store
