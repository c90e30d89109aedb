/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "client/DetachedFetch.h"
#include "base/TextException.h"
#include "client/Services.h"
#include "comm/Loop.h"
#include "config/Settings.h"
#include "errors/Templates.h"
#include "log/AccessLog.h"
#include "server/Forwarder.h"
#include "store/InFlight.h"
#include "store/Index.h"
#include "config/Settings.h"
#include "http/RequestParser.h"
#include "http/ReplyParser.h"
#include "log/CacheLog.h"
#include "sbuf/BlockPool.h"
#include "sbuf/MemBlob.h"
#include "server/Forwarder.h"

#include <ctime>

namespace {

/// the stored head with every field the 304 sent in place of the stored
/// ones of that name (never the framing)
std::string MergedHead(const Store::Reply& stored, const Store::Reply& fresh)
{
    auto replaced = [&](std::string_view name) {
        if (Http::EqualsIgnoreCase(name, "Content-Length") ||
            Http::EqualsIgnoreCase(name, "Transfer-Encoding"))
            return false;
        return fresh.findField(name).has_value();
    };
    std::string head = "HTTP/" + std::to_string(stored.versionMajor) + "." +
                       std::to_string(stored.versionMinor) + " " + std::to_string(stored.status) + " " +
                       std::string(stored.reason()) + "\r\n";
    for (const auto f : stored.fields()) {
        if (!replaced(f.name))
            head.append(f.name).append(": ").append(f.value).append("\r\n");
    }
    for (const auto f : fresh.fields()) {
        if (replaced(f.name))
            head.append(f.name).append(": ").append(f.value).append("\r\n");
    }
    head.append("\r\n");
    return head;
}

} // namespace

void Client::FreshenStored(Store::Entry& stored, const Store::Reply& notModified)
{
    const auto* old = stored.reply();
    if (!old)
        return;
    // the merged head is the one permitted header copy: a new small block
    auto block = Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), MergedHead(*old, notModified));
    Http::ReplyParser parser(block->size() + 1);
    if (parser.parse(block->view()) != Http::ParseResult::Done)
        return;
    auto merged = std::make_unique<Store::Reply>(*old);
    merged->block = block;
    merged->head = block->view();
    merged->setReason(parser.reason());
    merged->setFields(parser.fields());
    merged->requestTime = notModified.requestTime;
    merged->responseTime = notModified.responseTime;
    stored.replaceReply(std::move(merged));
}

std::optional<std::string> Client::StoreFetched(Services& services, const StoreSpec& spec,
                                                const Store::EntryRef& entry, Server::Forwarder* forwarder)
{
    const auto& reply = *entry->reply();
    const auto& settings = services.settings();
    auto& cache = services.cache();
    auto facts =
        Store::ResponseFacts::FromFields(reply.status, reply.fields(), reply.requestTime, reply.responseTime);
    facts.contentLocationIsTarget = spec.contentLocationIsTarget;
    auto verdict = Store::IsStorable(spec.facts, facts, spec.rule);
    // negative_ttl (Squid 5.7): an error reply that says nothing about its
    // own freshness is kept for negative_ttl
    const auto negativeTtl = std::chrono::duration_cast<std::chrono::seconds>(settings.negativeTtl).count();
    const bool isNegative = spec.facts.method == Http::Method::Get && reply.status >= 400 &&
                            negativeTtl > 0 && !facts.cc.maxAge && !facts.cc.sMaxAge && !facts.hasExpires &&
                            !facts.cc.noStore && !facts.cc.hasPrivate();
    if (isNegative)
        verdict = Store::Verdict{true, "negative_ttl"};
    if (!verdict) {
        debugs(20, 3, "not storing " << spec.cacheKey << ": " << verdict.reason);
        return std::nullopt;
    }
    // an object that is stale at once and has no validator could never be
    // served nor revalidated: keeping it only costs memory
    if (!isNegative && !spec.rule.storeStale && !facts.hasEtag && !facts.lastModified &&
        Store::FreshnessLifetime(facts, spec.rule) <= 0) {
        debugs(20, 3, "not storing " << spec.cacheKey << ": stale at once, with no validator");
        return std::nullopt;
    }
    if (reply.contentLength && (*reply.contentLength > settings.maximumObjectSizeInMemory ||
                                *reply.contentLength < settings.minimumObjectSize)) {
        debugs(20, 3, "not storing " << spec.cacheKey << ": its size is outside the object size limits");
        return std::nullopt;
    }
    Http::RequestParser parser(spec.requestHead.size() + 1);
    parser.parse(spec.requestHead);
    const auto fullKey = cache.insert(spec.cacheKey, entry, parser.fields());
    if (!fullKey)
        return std::nullopt;
    debugs(20, 3, "storing " << spec.cacheKey << " as " << *fullKey);
    if (isNegative)
        entry->setNegativeUntil(reply.responseTime + negativeTtl);
    if (forwarder)
        forwarder->chargeTo(cache, *fullKey, settings.maximumObjectSizeInMemory, settings.minimumObjectSize);
    return fullKey;
}

Client::DetachedFetch::DetachedFetch(Services& services, StoreSpec&& spec, Server::Request&& request)
    : services_(services), spec_(std::move(spec))
{
    reply_ = MakeRef<Store::Entry>(services_.settings().readAheadGap);
    auto limits = services_.forwardLimits();
    limits.quickAbortMin = -1; // a replacement worth storing is finished without a client
    forwarder_ =
        std::make_unique<Server::Forwarder>(services_.forwarding(), limits, std::move(request), reply_);
}

Client::DetachedFetch::DetachedFetch(Services& services, StoreSpec&& spec, Server::ForwarderPtr&& forwarder,
                                     const Store::EntryRef& reply, Store::Reader& owner)
    : services_(services), spec_(std::move(spec)), reply_(reply), forwarder_(std::move(forwarder))
{
    Must(!reply_->reply());
    reply_->replaceReader(owner, *this);
    started_ = true;
}

Client::DetachedFetch::~DetachedFetch()
{
    if (!decided_)
        reply_->removeReader(*this);
    forwarder_.reset();
}

void Client::DetachedFetch::start()
{
    if (started_)
        return;
    started_ = true;
    reply_->addReader(*this);
    forwarder_->start();
}

bool Client::DetachedFetch::isDone() const
{
    return decided_ && (!forwarder_ || forwarder_->isDone());
}

void Client::DetachedFetch::setDoneHandler(std::function<void()> handler)
{
    doneHandler_ = std::move(handler);
    if (forwarder_)
        forwarder_->setDoneHandler([this] { noteMaybeDone(); });
    noteMaybeDone();
}

void Client::DetachedFetch::noteMaybeDone()
{
    if (!doneHandler_ || !isDone())
        return;
    const auto handler = std::move(doneHandler_);
    doneHandler_ = nullptr;
    handler();
}

void Client::DetachedFetch::noteDataAvailable()
{
    if (decided_)
        return;
    if (reply_->reply() || reply_->hasFailed() || reply_->isComplete())
        decide();
}

void Client::DetachedFetch::decide()
{
    decided_ = true;
    // newcomers from now on find the index's answer (a fetch taken over
    // from its client was joinable until its head)
    services_.inFlight().forget(reply_, spec_.cacheKey, spec_.staleKey);
    auto& cache = services_.cache();
    const auto* reply = reply_->reply();
    if (!reply) {
        debugs(20, 3, "detached fetch of " << spec_.cacheKey << " failed: " << reply_->failure());
    } else if (reply->status == 304 && spec_.stale) {
        FreshenStored(*spec_.stale, *reply);
        cache.touch(spec_.staleKey, *spec_.stale);
        debugs(20, 3, "revalidation of " << spec_.cacheKey << ": unmodified");
    } else if (spec_.stale && reply->status >= 500) {
        // never replaces the stale object: the clients reading this fetch
        // each choose between it and the stale object (max_stale, stale-if-error)
        debugs(20, 3, "revalidation of " << spec_.cacheKey << ": status " << reply->status);
    } else if (StoreFetched(services_, spec_, reply_, forwarder_.get())) {
        debugs(20, 3, "detached fetch of " << spec_.cacheKey << ": stored");
    }
    // the forwarder goes on for the other readers, finishes a stored object
    // alone (quick_abort_*), or stops
    reply_->removeReader(*this);
    noteMaybeDone();
}
