/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Http::CacheControl: the Cache-Control directives of one message
/// (RFC 9111 section 5.2, RFC 5861), and Pragma: no-cache (section 5.4).
///
/// What it is: a plain struct of the directives cuttle acts on, filled once
/// per message from the values of every Cache-Control field line, in order
/// (several lines are one comma-separated list, RFC 9110 section 5.3). It
/// owns its few strings (field names of no-cache="..." and private="...",
/// lowercased) and keeps no view of the head, so the store may keep it
/// beside a reply or drop it. Request and reply directives share the struct;
/// which members mean anything depends on the message (see each member).
///
/// Grammar: `Cache-Control = #( token [ "=" ( token / quoted-string ) ] )`.
///
///     Cache-Control: max-age="60", private="Set-Cookie, X-A",, No-Store
///                    |name  | |v |  |name | |value         |  |name  |
///
/// - Names are case-insensitive; unknown directives are parsed (their
///   quoted-strings may hold commas) and skipped, and isEmpty() counts them.
/// - A value may be a token or a quoted-string: `max-age="60"` is accepted
///   (senders SHOULD NOT quote it, section 5.2; recipients may accept it).
/// - delta-seconds (section 1.2.2) above 2^31 saturate to 2147483648; a
///   value of any length never overflows.
/// - Whitespace around elements and around "=" is tolerated; empty list
///   elements are skipped.
/// - A malformed element (a name that is not a token, junk after a value, an
///   unterminated quoted-string, which swallows the rest of that line) is
///   skipped and the elements after it still count. When the malformed
///   element names a directive that restricts caching, the restriction is
///   kept, following section 4.2.1's "most restrictive" advice: max-age and
///   s-maxage become invalid (the reply is stale), and no-store,
///   must-revalidate, proxy-revalidate, no-transform, no-cache and private
///   hold (no-cache and private unqualified). Directives that relax
///   something (public, immutable, must-understand, max-stale, min-fresh,
///   stale-*, only-if-cached) are dropped when malformed, and the flags
///   among them also when given an argument they do not take.
///
/// Duplicates: for a directive with one value (max-age, s-maxage, max-stale,
/// min-fresh, stale-while-revalidate, stale-if-error) the FIRST occurrence
/// wins, valid or not. RFC 9111 section 4.2.1 allows either the first or
/// treating the reply as stale; the first is what Squid and most caches do,
/// and an invalid first max-age still makes the reply stale. no-cache and
/// private accumulate: an unqualified one anywhere wins, field lists are
/// merged.
///
/// Pure and thread-safe.

#pragma once

#include "http/RequestParser.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Http {

/// delta-seconds above this saturate to it (RFC 9111 section 1.2.2)
constexpr uint64_t MaxDeltaSeconds = 2147483648ULL;

/// the Cache-Control directives cuttle acts on, from every Cache-Control
/// field line of a message (RFC 9111 section 5.2); see the file comment
struct CacheControl {
    // response and request

    /// max-age as delta-seconds; an invalid value sets maxAgeInvalid instead
    std::optional<uint64_t> maxAge;
    /// max-age present but not delta-seconds (RFC 9111 4.2.1: treat the reply as stale)
    bool maxAgeInvalid = false;
    /// no-store
    bool noStore = false;
    /// no-cache without field names (reply), or as a request directive
    /// (a request that sent no-cache="x" has noCacheFields: use hasNoCache())
    bool noCache = false;
    /// no-cache="a, b" (lowercased field names; reply only)
    std::vector<std::string> noCacheFields;
    /// no-transform
    bool noTransform = false;

    // response only

    /// s-maxage as delta-seconds; an invalid value sets sMaxAgeInvalid instead
    std::optional<uint64_t> sMaxAge;
    /// s-maxage present but not delta-seconds (a shared cache treats the reply as stale)
    bool sMaxAgeInvalid = false;
    /// private without field names
    bool isPrivate = false;
    /// private="set-cookie" (lowercased field names)
    std::vector<std::string> privateFields;
    /// public
    bool isPublic = false;
    /// must-revalidate
    bool mustRevalidate = false;
    /// proxy-revalidate
    bool proxyRevalidate = false;
    /// must-understand
    bool mustUnderstand = false;
    /// immutable (RFC 8246)
    bool immutable = false;
    /// stale-while-revalidate (RFC 5861 section 3); an invalid value is ignored
    std::optional<uint64_t> staleWhileRevalidate;
    /// stale-if-error (RFC 5861 section 4; also a request directive); an invalid value is ignored
    std::optional<uint64_t> staleIfError;

    // request only

    /// max-stale with a value; an invalid value is ignored
    std::optional<uint64_t> maxStale;
    /// max-stale without a value: any staleness
    bool maxStaleAny = false;
    /// min-fresh; an invalid value is ignored
    std::optional<uint64_t> minFresh;
    /// only-if-cached
    bool onlyIfCached = false;

    /// a well-formed directive cuttle does not act on was present
    bool hasUnknown = false;

    /// whether no directive (known, or unknown but well-formed) was present
    bool isEmpty() const { return !hasKnown() && !hasUnknown; }
    /// whether a directive cuttle acts on was present (RFC 9111 5.4:
    /// Pragma is ignored when Cache-Control is "present and understood")
    bool hasKnown() const;
    /// no-cache in any form: unqualified, or with field names
    bool hasNoCache() const { return noCache || !noCacheFields.empty(); }
    /// private in any form: unqualified, or with field names
    bool hasPrivate() const { return isPrivate || !privateFields.empty(); }
    /// whether both hold the same directives
    bool operator==(const CacheControl&) const = default;
};

/// Parses the values of every Cache-Control field (in order) of a message.
CacheControl ParseCacheControl(const std::vector<std::string_view>& fieldValues);

/// Whether a request's Pragma values contain no-cache (case-insensitive;
/// with or without an argument). RFC 9111 5.4: honoured only when the
/// request has no Cache-Control a cache understands (!hasKnown()).
bool PragmaHasNoCache(const std::vector<std::string_view>& fieldValues);

/// The values of every field with this name (case-insensitive), in order,
/// pointing where the fields point.
std::vector<std::string_view> FieldValues(FieldsView fields, std::string_view name);

/// Parses a delta-seconds value (RFC 9111 1.2.2): 1*DIGIT, saturated to
/// MaxDeltaSeconds; nullopt when empty or not all digits.
std::optional<uint64_t> ParseDeltaSeconds(std::string_view text);

} // namespace Http
