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

Store::Lookup Store::LookUp(Index& index, const InFlight& inFlight, const std::string& cacheKey,
                            const std::vector<Http::HeaderField>& fields, const RequestFacts& facts,
                            const RefreshRule& rule, const LookupOptions& options, DiskTier* disk)
{
    using Kind = Lookup::Kind;
    const bool mayJoin = options.collapsedForwarding && !options.hasBody;
    Lookup answer;

    const auto nothingStored = [&]() {
        if (mayJoin)
            answer.entry = inFlight.pendingMiss(cacheKey);
        if (answer.entry) {
            answer.kind = Kind::Join;
            return std::move(answer);
        }
        return OriginOrUnavailable(std::move(answer), facts);
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
            if (!stored->entry) {
                answer.kind = Kind::DiskCold;
                answer.file = std::move(stored->file);
                return answer;
            }
            const auto reuse = IsFresh(facts, ResponseFacts::Of(*stored->entry->reply()), rule, options.now);
            debugs(20, 3,
                   "on disk " << cacheKey << ": " << reuse.reason << " (age " << reuse.age << ", lifetime "
                              << reuse.lifetime << ")");
            if (reuse.use == Reuse::Reload) {
                answer.kind = Kind::Reload;
                return OriginOrUnavailable(std::move(answer), facts);
            }
            answer.age = reuse.age;
            // fresh: served from the file; stale: asked about with a conditional
            // request, and after a 304 served from the file, or served now
            // while a background request asks (stale-while-revalidate)
            answer.kind = reuse.isServable() ? Kind::Hit : Kind::Validate;
            if (answer.kind == Kind::Validate && reuse.lifetime <= reuse.age &&
                !inFlight.isDetached(cacheKey) &&
                MayServeStale(StaleUse::WhileRevalidating, facts, ResponseFacts::Of(*stored->entry->reply()),
                              rule, options.now, options.maxStale))
                answer.kind = Kind::StaleHit;
            answer.entry = std::move(stored->entry);
            answer.file = std::move(stored->file);
            answer.fullKey = *diskKey;
            if (answer.kind != Kind::Validate)
                return answer;
            // collapsed_forwarding: another client's conditional request
            // about the same file answers this one too
            if (mayJoin)
                answer.revalidation = inFlight.pendingRevalidation(*diskKey, answer.entry);
            return OriginOrUnavailable(std::move(answer), facts);
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

    answer.entry = entry;
    answer.fullKey = found.key;
    if (entry->negativeUntil()) {
        // negative_ttl: an error reply without freshness of its own, kept briefly as Squid does
        index.touch(found.key, *entry);
        answer.kind = Kind::NegativeHit;
        answer.age = options.now - entry->reply()->responseTime;
        return answer;
    }
    const auto response = ResponseFacts::Of(*entry->reply());
    const auto reuse = IsFresh(facts, response, rule, options.now);
    debugs(20, 3,
           "stored " << found.key << ": " << reuse.reason << " (age " << reuse.age << ", lifetime "
                     << reuse.lifetime << ")");
    answer.age = reuse.age;
    if (reuse.isServable()) {
        index.touch(found.key, *entry);
        answer.kind = Kind::Hit;
        return answer;
    }
    if (reuse.use == Reuse::Validate && reuse.lifetime <= reuse.age && !inFlight.isDetached(cacheKey) &&
        MayServeStale(StaleUse::WhileRevalidating, facts, response, rule, options.now, options.maxStale)) {
        // RFC 5861: serve the stale object now and ask the origin in the background
        index.touch(found.key, *entry);
        answer.kind = Kind::StaleHit;
        return answer;
    }
    if (reuse.use == Reuse::Reload) {
        answer.kind = Kind::Reload;
        answer.entry = nullptr;
        answer.fullKey.clear();
        return OriginOrUnavailable(std::move(answer), facts);
    }
    answer.kind = Kind::Validate;
    // collapsed_forwarding: another client's conditional request for this
    // very object answers this one too
    if (mayJoin)
        answer.revalidation = inFlight.pendingRevalidation(found.key, entry);
    return OriginOrUnavailable(std::move(answer), facts);
}
