/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/Lookup.h"
#include "log/CacheLog.h"
#include "store/InFlight.h"
#include "store/Index.h"
#include "store/Key.h"

namespace {

/// what asks the origin when the request allows it, and is Unavailable otherwise
Store::Lookup OriginOrUnavailable(Store::Lookup&& lookup, const Store::RequestFacts& facts)
{
    // RFC 9111 5.2.1.7: only-if-cached; Squid answers 504
    if (facts.cc.onlyIfCached)
        lookup.kind = Store::Lookup::Kind::Unavailable;
    return std::move(lookup);
}

} // namespace

Store::Lookup Store::LookUp(Index& index, InFlight& inFlight, const std::string& cacheKey,
                            const std::vector<Http::HeaderField>& fields, const RequestFacts& facts,
                            const RefreshRule& rule, const LookupOptions& options, DiskTier* disk)
{
    using Kind = Lookup::Kind;
    const bool mayJoin = options.collapsedForwarding && !options.hasBody;
    Lookup answer;

    const auto nothingStored = [&]() {
        if (mayJoin)
            answer.entry = inFlight.joinableMiss(cacheKey);
        if (answer.entry) {
            answer.kind = Kind::Join;
            return std::move(answer);
        }
        return OriginOrUnavailable(std::move(answer), facts);
    };

    // a complete stored object, in memory or (answer.file) on disk: a hit,
    // stale served now while a background request asks (RFC 5861), a
    // reload, or a conditional request (which another client's about the
    // same object answers too, with collapsed_forwarding)
    const auto decide = [&](const EntryRef& entry, const std::string& key, const char* where) {
        const auto response = ResponseFacts::Of(*entry->reply());
        const auto reuse = IsFresh(facts, response, rule, options.now);
        debugs(20, 3,
               where << " " << key << ": " << reuse.reason << " (age " << reuse.age << ", lifetime "
                     << reuse.lifetime << ")");
        if (reuse.use == Reuse::Reload) {
            answer.kind = Kind::Reload;
            answer.entry = nullptr;
            answer.fullKey.clear();
            answer.file = nullptr;
            return OriginOrUnavailable(std::move(answer), facts);
        }
        answer.entry = entry;
        answer.fullKey = key;
        answer.age = reuse.age;
        if (reuse.isServable()) {
            answer.kind = Kind::Hit;
        } else if (reuse.use == Reuse::Validate && reuse.lifetime <= reuse.age &&
                   !inFlight.isDetached(cacheKey) &&
                   MayServeStale(StaleUse::WhileRevalidating, facts, response, rule, options.now,
                                 options.maxStale)) {
            answer.kind = Kind::StaleHit;
        } else {
            answer.kind = Kind::Validate;
            if (mayJoin)
                answer.revalidation = inFlight.joinableRevalidation(key, entry);
            return OriginOrUnavailable(std::move(answer), facts);
        }
        if (!answer.file)
            index.touch(key, *entry);
        return std::move(answer);
    };

    const auto found = index.findVariant(cacheKey, fields);
    // the disk, when memory has nothing the request selects: the variant of
    // its Vary objects that the request selects, else its object under the
    // key unless memory says the URL varies
    std::optional<std::string> diskKey;
    if (!found && disk) {
        if (const auto names = disk->varyNames(cacheKey)) {
            if (const auto varyKey = VaryKey(*names, fields))
                diskKey = MakeVariantKey(cacheKey, *varyKey);
        } else if (!index.varyNames(cacheKey)) {
            diskKey = cacheKey;
        }
    }
    if (diskKey) {
        if (auto stored = disk->find(*diskKey, options.diskMayWait)) {
            // served from the file (a 304 first, for a conditional)
            answer.file = std::move(stored->file);
            if (!stored->entry) {
                answer.kind = Kind::DiskCold;
                return answer;
            }
            return decide(stored->entry, *diskKey, "on disk");
        }
    }
    if (!found)
        return nothingStored();
    const auto& entry = found.entry;
    if (!entry->isComplete()) {
        // an object being stored: read it as it arrives, from offset 0; a
        // request that forbids contacting the origin reads it whatever
        // collapsed_forwarding says, as Squid does
        if ((options.collapsedForwarding || facts.cc.onlyIfCached) && !options.hasBody) {
            answer.kind = Kind::Join;
            answer.entry = entry;
            return answer;
        }
        return OriginOrUnavailable(std::move(answer), facts);
    }
    if (entry->negativeUntil() && (options.now >= entry->negativeUntil() || facts.wantsReload())) {
        // negative_ttl expired (or the client asks for a reload): as if nothing were stored
        index.erase(found.key);
        return nothingStored();
    }
    if (entry->negativeUntil()) {
        // negative_ttl: an error reply without freshness of its own, kept briefly as Squid does
        index.touch(found.key, *entry);
        answer.entry = entry;
        answer.fullKey = found.key;
        answer.kind = Kind::NegativeHit;
        answer.age = options.now - entry->reply()->responseTime;
        return answer;
    }
    return decide(entry, found.key, "stored");
}
