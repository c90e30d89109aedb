/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Store keys: the string an object is found by in the Store::Index,
/// and the Vary variant of a request (RFC 9111 section 4.1).
///
/// Layout of the strings (every part is printable ASCII; '\n' separates):
///
///     key          = method SP canonical-url                 "GET http://example.com/a?b"
///     variant key  = key LF vary-key                         (one object per variant)
///     vary names   = "" | "*" | name *( "," name )           sorted, lowercased, no duplicates
///     vary key     = *( name [ ":" value ] LF )              one line per name, in names order;
///                                                            no ":" when the request lacks the field
///
/// Method: Squid 5.7 keys GET and HEAD alike (a HEAD is answered from a
/// stored GET), so MakeKey() turns HEAD into GET. Any other method keeps its
/// own token, case and all (methods are case-sensitive, RFC 9110 section 9.1).
///
/// URL: the caller passes the canonical form Http::Url::canonical() makes,
/// which is the normalisation Squid 5.7 keys by: lowercase scheme and host,
/// no userinfo, no default port, no fragment, the path and query as sent (no
/// percent-decoding, no dot-segment removal), "/" for an empty path. Two URLs
/// that differ after that normalisation are different objects, as in Squid.
/// MakeKeyFromUrl() does the parse and normalisation for callers without a
/// parsed Http::Url.
///
/// Vary (RFC 9111 section 4.1): a stored response with Vary is reused only
/// for requests whose selecting fields match those of the request that
/// caused it. The fields match when, for each name, both requests lack the
/// field, or both have it with the same value after normalisation: field
/// lines with the same name combined in order with "," (RFC 9110 section
/// 5.3), whitespace around the commas of the list removed and empty list
/// elements dropped (RFC 9110 section 5.6.1), quoted strings left as sent.
/// A field that is present but empty differs from an absent one. `Vary: *`
/// (or a Vary value that is not a list of field names) never matches.
///
/// Two fields are normalised further by knowledge of their semantics (RFC
/// 9111 section 4.1 allows it), so that equivalent requests share a variant:
/// Accept-Language and Accept-Encoding, when every member is `token [ OWS
/// ";" OWS "q=" qvalue ]` (else the generic rule above applies). Members are
/// lowercased (language ranges, RFC 4647 section 2, and content codings, RFC
/// 9110 section 8.4.1, are case-insensitive), their weight written in its
/// shortest form and left out when it is 1 (`q=1.000`, `Q=1` and none are
/// the same; `q=0.50` is `q=0.5`; `q=0` members stay: they refuse), and they
/// are ordered by decreasing weight. Among members of equal weight, codings
/// are sorted by name (a client that weighs gzip and br alike accepts either,
/// whichever a server picks) and language ranges keep their order (servers
/// such as Apache's mod_negotiation prefer the first of equal languages, so
/// "da, en" and "en, da" may get different replies). x-gzip and x-compress
/// are gzip and compress (RFC 9110 section 8.4.1). Duplicates stay.
///
///     Accept-Language: EN-gb;Q=0.80 , da  -->  da,en-gb;q=0.8
///     Accept-Encoding: gzip, BR;q=1.0, x-gzip;q=0  -->  br,gzip,gzip;q=0

#pragma once

#include "http/RequestParser.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace Store {

/// The key of the object a request with this method and URL may be answered
/// with: `method SP canonicalUrl`, HEAD keyed as GET. canonicalUrl must be
/// the output of Http::Url::canonical() (throws when it holds a control
/// character or space, which canonical() never gives).
std::string MakeKey(std::string_view method, std::string_view canonicalUrl);

/// MakeKey() of any absolute URL, parsed and normalised by Http::Url
/// (HTTP://Example.COM:80/a#f keys as http://example.com/a); nullopt when
/// absoluteUrl is not an absolute URL Http::Url accepts.
std::optional<std::string> MakeKeyFromUrl(std::string_view method, std::string_view absoluteUrl);

/// The key of one variant of a Vary object: key LF varyKey.
std::string MakeVariantKey(std::string_view key, std::string_view varyKey);

/// The part of a variant key before its vary key (the key itself when it has none).
std::string_view BaseKey(std::string_view key);

/// 128 bits that stand for a key where its bytes are not kept (Disk::Index)
/// and where Squid prints its MD5 key (KeyDigest()): two 64-bit FNV-1a
/// hashes with different offsets. Not a security hash: two keys may share
/// one, so whoever finds an object by it compares the key the object holds.
struct KeyHash {
    uint64_t a = 0; ///< FNV-1a 64 from its standard offset
    uint64_t b = 0; ///< FNV-1a 64 from another offset
    bool operator==(const KeyHash&) const = default;
};

/// The KeyHash of key.
KeyHash HashKey(std::string_view key);

/// The normalised Vary names (VaryNames()) a variant key's vary key was
/// made with: its lines' field names, in order; "" for a key without one.
std::string VaryNamesOfVariantKey(std::string_view key);

/// The full key of the object a reply varying on varyNames (VaryNames(),
/// not "*") is stored under for a request with requestFields: key itself
/// when varyNames is empty, else its variant key.
std::string FullKeyOf(std::string_view key, std::string_view varyNames,
                      const std::vector<Http::HeaderField>& requestFields);

/// The selecting field names of a response, normalised: the names of every
/// Vary field line in varyValues, lowercased, sorted, without duplicates and
/// joined with ","; "" when there is none; "*" when a value is "*" or is not
/// a list of field names. The result is itself a valid Vary value.
std::string VaryNames(std::span<const std::string_view> varyValues);

/// VaryNames() of the Vary field lines among a response's fields.
std::string VaryNamesOf(Http::FieldsView responseFields);

/// Whether normalised names (VaryNames()) say the response never matches.
inline bool IsVaryAny(std::string_view varyNames)
{
    return varyNames == "*";
}

/// The vary key of a request: its values of the fields that varyValues
/// (the stored response's Vary field values, or their VaryNames()) select,
/// normalised as the file comment says; "" when varyValues name no field;
/// nullopt when they say `*` (no request ever matches).
std::optional<std::string> VaryKey(std::span<const std::string_view> varyValues,
                                   const std::vector<Http::HeaderField>& requestFields);

/// VaryKey() of a single normalised names string (a Vary marker's).
std::optional<std::string> VaryKey(std::string_view varyNames,
                                   const std::vector<Http::HeaderField>& requestFields);

/// Whether a response stored with varyValues for a request whose vary key
/// was storedVaryKey may answer a request with requestFields (never for `*`).
bool VaryMatches(std::span<const std::string_view> varyValues, std::string_view storedVaryKey,
                 const std::vector<Http::HeaderField>& requestFields);

} // namespace Store
