/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/Admission.h"
#include "http/RequestParser.h"
#include "log/CacheLog.h"
#include "store/Index.h"
#include "store/Key.h"

Store::Charge::Charge(Index& index, std::string fullKey, const AdmissionLimits& limits, DiskTier* disk)
    : index_(&index), key_(std::move(fullKey)), limits_(limits), disk_(disk)
{}

void Store::Charge::update(Entry& entry)
{
    if (!index_)
        return;
    if (entry.body().endOffset() > limits_.maxObjectSize) {
        // a body of unknown length grew past maximum_object_size_in_memory:
        // the disk store may take it from its first byte, which memory still
        // holds (as Squid swaps out what leaves memory); else it streams on
        // without being kept (blocks released behind the readers)
        index_->erase(key_);
        entry.setKept(false);
        if (disk_ && disk_->store(key_, EntryRef(&entry), std::nullopt))
            debugs(20, 3, "storing " << key_ << " on disk: it outgrew memory");
        entry.noteConsumed();
        index_ = nullptr;
        return;
    }
    if (entry.isComplete() && entry.body().endOffset() < limits_.minObjectSize) {
        // a body of unknown length ended under minimum_object_size (a known
        // Content-Length is weighed by Admit()): not kept
        index_->erase(key_);
        index_ = nullptr;
        return;
    }
    if (!index_->update(key_, entry))
        index_ = nullptr; // evicted or abandoned: the entry streams on, unkept
}

std::optional<Store::Charge> Store::Admit(Index& index, const AdmissionLimits& limits, const FetchSpec& spec,
                                          const EntryRef& entry, DiskTier* disk)
{
    const auto& reply = *entry->reply();
    auto facts = ResponseFacts::Of(reply);
    facts.contentLocationIsTarget = spec.contentLocationIsTarget;
    auto verdict = IsStorable(spec.facts, facts, spec.rule);
    // negative_ttl (Squid 5.7): an error reply that says nothing about its
    // own freshness is kept for negative_ttl
    const bool isNegative = spec.facts.method == Http::Method::Get && reply.status >= 400 &&
                            limits.negativeTtl > 0 && !facts.cc.maxAge && !facts.cc.sMaxAge &&
                            !facts.hasExpires && !facts.cc.noStore && !facts.cc.hasPrivate();
    if (isNegative)
        verdict = Verdict{true, "negative_ttl"};
    if (!verdict) {
        debugs(20, 3, "not storing " << spec.cacheKey << ": " << verdict.reason);
        return std::nullopt;
    }
    // an object that is stale at once and has no validator could never be
    // served nor revalidated: keeping it only costs memory
    if (!isNegative && !spec.rule.storeStale && !facts.hasEtag && !facts.lastModified &&
        FreshnessLifetime(facts, spec.rule) <= 0) {
        debugs(20, 3, "not storing " << spec.cacheKey << ": stale at once, with no validator");
        return std::nullopt;
    }
    if (reply.contentLength && *reply.contentLength < limits.minObjectSize) {
        debugs(20, 3, "not storing " << spec.cacheKey << ": it is under minimum_object_size");
        return std::nullopt;
    }
    const bool memoryTakes = limits.memoryTakesMisses && index.budget() != 0 &&
                             (!reply.contentLength || *reply.contentLength <= limits.maxObjectSize);
    // Vary selects on the fields of the request that caused the reply
    Http::RequestParser parser(spec.requestHead.size() + 1);
    parser.parse(spec.requestHead);
    if (!memoryTakes) {
        // the disk store takes objects of any length, each variant of a Vary
        // reply under its variant key as memory does, but not one kept for
        // negative_ttl (which it does not record)
        const auto names = VaryNamesOf(reply.fields());
        if (disk && !isNegative && !IsVaryAny(names)) {
            const auto fullKey = FullKeyOf(spec.cacheKey, names, parser.fields());
            if (disk->store(fullKey, entry, reply.contentLength)) {
                debugs(20, 3, "storing " << spec.cacheKey << " on disk");
                index.erase(fullKey); // an older copy in memory would be found first
                return Charge(fullKey);
            }
        }
        debugs(20, 3, "not storing " << spec.cacheKey << ": its size is outside the object size limits");
        return std::nullopt;
    }
    if (isNegative) // before it is stored: another worker may copy it from then on
        entry->setNegativeUntil(reply.responseTime + limits.negativeTtl);
    auto fullKey = index.insert(spec.cacheKey, entry, parser.fields());
    if (!fullKey)
        return std::nullopt;
    debugs(20, 3, "storing " << spec.cacheKey << " as " << *fullKey);
    if (disk)
        disk->erase(*fullKey); // an older copy on disk must not come back after an eviction
    Charge charge(index, std::move(*fullKey), limits, reply.contentLength ? nullptr : disk);
    charge.update(*entry);
    return charge;
}

void Store::Promote(Index& index, const AdmissionLimits& limits, DiskTier& disk, const FetchSpec& spec,
                    const Entry& hit, const StoredFileRef& file)
{
    if (!limits.memoryTakesHits || index.budget() == 0 || !hit.reply() ||
        file->length() > limits.maxObjectSize)
        return;
    auto entry = MakeRef<Entry>(1); // complete before any reader comes: no read-ahead gap applies
    entry->setReply(std::make_unique<Reply>(*hit.reply()));
    const uint64_t length = file->length();
    disk.readBody(file, [&index, limits, entry, length, key = spec.cacheKey,
                         request = spec.requestHead](std::vector<Sbuf::Slice>&& body) {
        uint64_t read = 0;
        for (const auto& slice : body)
            read += slice.length();
        if (read != length)
            return; // the read failed: the disk copy serves on
        for (const auto& slice : body)
            entry->append(slice);
        entry->complete();
        Http::RequestParser parser(request.size() + 1);
        parser.parse(request);
        if (index.holds(key, parser.fields()))
            return; // memory took one meanwhile (a miss stored, another promotion)
        if (auto fullKey = index.insert(key, entry, parser.fields())) {
            debugs(20, 3, "keeping the disk hit " << *fullKey << " in memory too");
            Charge(index, std::move(*fullKey), limits).update(*entry);
        }
    });
}
