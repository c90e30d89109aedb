/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Store::LookUp(): what the cache can do for a GET or HEAD, decided
/// in one place (RFC 9111 section 4, RFC 5861, Squid 5.7's negative_ttl and
/// collapsed_forwarding). The client side only acts on the answer: which
/// entry to stream, and how.
///
///     Index::findVariant(key, request fields)
///       nothing         --> a pending miss to join (collapsed) ? Join : Miss
///       still arriving  --> collapsed, or only-if-cached       ? Join : Miss
///       negative_ttl    --> not expired, no reload             ? NegativeHit
///                           (expired: erased, then as nothing)
///       IsFresh() servable                                     --> Hit
///       stale, stale-while-revalidate allows, none running     --> StaleHit
///       the client asks for a reload                           --> Reload
///       otherwise                                              --> Validate (with the pending
///                                                                  revalidation to join, if any)
///     and whatever would ask the origin is Unavailable to an only-if-cached request
///
/// A hit (Hit, NegativeHit, StaleHit) is counted in the index (touch()).
///
/// When the memory index has nothing under the key, the disk store
/// (Store::DiskTier) is asked (for the variant the request selects when
/// the disk holds variants of the URL): its object is a Hit when fresh, Validate when
/// stale (a reload is Reload), with `file` set (the body is sent from the
/// file, after a 304 too; doc/caching.md "The disk cache"). A disk object is
/// a new entry at each lookup, so no other client's revalidation of it is
/// joined.

#pragma once

#include "store/DiskTier.h"
#include "store/Entry.h"
#include "store/Freshness.h"
#include "http/Fields.h"

#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

namespace Store {

class Index;
class InFlight;

/// The circumstances of a lookup besides the request itself.
struct LookupOptions {
    time_t now = 0;                   ///< the time of the decision
    int64_t maxStale = 0;             ///< max_stale, in seconds
    bool collapsedForwarding = false; ///< collapsed_forwarding is on
    bool hasBody = false;             ///< the request has a body (it never joins another fetch)
    /// the disk store may read an object's head from the disk on the loop
    /// (it was warmed for this request already); otherwise a head that is
    /// not in the page cache is the answer DiskCold
    bool diskMayWait = false;
};

/// LookUp()'s answer (see the file comment).
struct Lookup {
    /// what the cache can do
    enum class Kind {
        Miss,        ///< nothing usable: forward
        Join,        ///< read `entry`, a fetch in flight, from offset 0
        Hit,         ///< serve `entry`, fresh (or stale as the request's max-stale allows)
        NegativeHit, ///< serve `entry`, an error kept for negative_ttl
        StaleHit,    ///< serve `entry` now; revalidate it in the background
        Reload,      ///< forward unconditionally (the client asked for a reload)
        Validate,    ///< forward a conditional request about `entry`
        Unavailable, ///< only-if-cached, and nothing may answer without the origin: 504
        /// the disk store has the object, its head not in the page cache:
        /// warm `file` (the file's front) off the loop, then look up again
        DiskCold
    };

    Kind kind = Kind::Miss; ///< the answer
    EntryRef entry;         ///< the stored object, or the fetch to join
    std::string fullKey;    ///< the stored object's full key (with its variant)
    int64_t age = 0;        ///< the stored object's current age, for the hits
    EntryRef revalidation;  ///< Validate: a pending conditional request to join, or null
    StoredFileRef file; ///< a Hit or Validate from the disk store: the body's file (entry has no body bytes);
                        ///< DiskCold: the front
};

/// What the cache can do for a GET or HEAD with cacheKey (Store::MakeKey()),
/// the request's fields (Vary selects on them) and caching directives, and
/// the refresh_pattern rule that matches its URL (see the file comment).
/// Touches a hit in index; erases an expired negative_ttl object; may make
/// a mirror of another worker's fetch to join (InFlight::joinableMiss()).
/// disk, when given, is asked when index has nothing under cacheKey.
Lookup LookUp(Index& index, InFlight& inFlight, const std::string& cacheKey,
              const std::vector<Http::HeaderField>& fields, const RequestFacts& facts,
              const RefreshRule& rule, const LookupOptions& options, DiskTier* disk = nullptr);

} // namespace Store
