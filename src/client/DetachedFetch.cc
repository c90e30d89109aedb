/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "client/DetachedFetch.h"
#include "base/TextException.h"
#include "client/Services.h"
#include "client/AclFields.h"
#include "config/Settings.h"
#include "http/RequestParser.h"
#include "log/CacheLog.h"
#include "server/Forwarder.h"
#include "store/Admission.h"
#include "store/Parts.h"
#include "store/InFlight.h"
#include "store/Index.h"
#include "store/Revalidation.h"

#include <chrono>
#include <ctime>

namespace {

/// store_miss: whether its rules let the reply be stored, seeing the
/// request (its head parsed again) and the reply. No rules: yes; no facts,
/// or a rule that needs a lookup not made: no (Squid's check may wait for one)
bool StoreMissAllows(const Config::Settings& settings, const Acl::Checklist* storeFacts,
                     const std::string& requestHead, const Store::Entry& entry)
{
    if (settings.storeMiss.size() == 0)
        return true;
    const auto* reply = entry.reply();
    if (!storeFacts || !reply)
        return false;
    Acl::Checklist facts = *storeFacts;
    Http::RequestParser again(requestHead.size() + 1);
    again.parse(requestHead);
    const Client::AclFields requestFields(again.fields());
    const Client::AclFields replyFields(reply->fields());
    facts.request = &requestFields;
    facts.reply = &replyFields;
    facts.replyStatus = reply->status;
    return settings.storeMiss.check(facts) == Acl::Answer::Allowed;
}

} // namespace

Store::AdmissionLimits Client::AdmissionLimitsOf(const Config::Settings& settings)
{
    Store::AdmissionLimits limits;
    limits.negativeTtl = std::chrono::duration_cast<std::chrono::seconds>(settings.negativeTtl).count();
    limits.maxObjectSize = settings.maximumObjectSizeInMemory;
    limits.minObjectSize = settings.minimumObjectSize;
    limits.memoryTakesMisses = settings.memoryCacheMode != Config::MemoryCacheMode::Disk;
    limits.memoryTakesHits = settings.memoryCacheMode != Config::MemoryCacheMode::Network;
    return limits;
}

bool Client::PeerKeepsIt(const Server::Forwarder* forwarder)
{
    // cache_peer proxy-only: the parent keeps it, not cuttle
    return forwarder && forwarder->peer() && forwarder->peer()->config().proxyOnly;
}

std::optional<std::string> Client::StoreFetched(Services& services, const Store::FetchSpec& spec,
                                                const Store::EntryRef& entry, Server::Forwarder* forwarder,
                                                const Acl::Checklist* storeFacts)
{
    if (PeerKeepsIt(forwarder))
        return std::nullopt;
    const auto& settings = services.settings();
    if (!StoreMissAllows(settings, storeFacts, spec.requestHead, *entry)) {
        debugs(20, 3, "store_miss keeps " << spec.cacheKey << " out of the cache");
        return std::nullopt;
    }
    auto charge = Store::Admit(services.cache(), AdmissionLimitsOf(settings), spec, entry, services.disk());
    if (!charge)
        return std::nullopt;
    services.parts().erase(spec.cacheKey); // the whole object makes its parts useless
    auto fullKey = charge->key();
    if (forwarder)
        forwarder->chargeTo(std::move(*charge));
    return fullKey;
}

Client::DetachedFetch::DetachedFetch(Services& services, Store::FetchSpec&& spec, Server::Request&& request)
    : services_(services), spec_(std::move(spec))
{
    reply_ = MakeRef<Store::Entry>(services_.settings().readAheadGap);
    auto limits = services_.forwardLimits();
    limits.quickAbortMin = -1; // a replacement worth storing is finished without a client
    forwarder_ =
        std::make_unique<Server::Forwarder>(services_.forwarding(), limits, std::move(request), reply_);
}

Client::DetachedFetch::DetachedFetch(Services& services, Store::FetchSpec&& spec,
                                     Server::ForwarderPtr&& forwarder, const Store::EntryRef& reply,
                                     Store::Reader& owner)
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

bool Client::StaleMayAnswerErrors(const Config::Settings& settings, const Store::Entry* stale,
                                  const Store::RequestFacts& request, const Store::RefreshRule& rule)
{
    const auto* stored = stale ? stale->reply() : nullptr;
    if (!stored)
        return false;
    const auto response = Store::ResponseFacts::Of(*stored);
    const auto maxStale = std::chrono::duration_cast<std::chrono::seconds>(settings.maxStale).count();
    return bool(
        Store::MayServeStale(Store::StaleUse::OnError, request, response, rule, ::time(nullptr), maxStale));
}

void Client::DetachedFetch::setStoreFacts(const Acl::Checklist& facts)
{
    storeFacts_ = std::make_unique<Acl::Checklist>(facts);
    storeFacts_->answers = nullptr; // the client's lookups: gone with it
    storeFacts_->request = storeFacts_->reply = nullptr;
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
    } else if (spec_.stale) {
        // the clients reading this fetch each choose between its reply and
        // the stale object; what the reply means for the store is Revalidate()'s
        const auto outcome = Store::Revalidate(
            cache, spec_.staleKey, *spec_.stale, *reply,
            reply->status >= 500 &&
                StaleMayAnswerErrors(services_.settings(), spec_.stale.getRaw(), spec_.facts, spec_.rule),
            spec_.staleDisk);
        if (outcome == Store::Revalidated::Unmodified)
            debugs(20, 3, "revalidation of " << spec_.cacheKey << ": unmodified");
        else if (outcome == Store::Revalidated::ServeStale)
            debugs(20, 3,
                   "revalidation of " << spec_.cacheKey << ": status " << reply->status
                                      << "; the stale object stays");
        else if (StoreFetched(services_, spec_, reply_, forwarder_.get(), storeFacts_.get()))
            debugs(20, 3, "revalidation of " << spec_.cacheKey << ": stored the new reply");
    } else if (StoreFetched(services_, spec_, reply_, forwarder_.get(), storeFacts_.get())) {
        debugs(20, 3, "detached fetch of " << spec_.cacheKey << ": stored");
    }
    // the forwarder goes on for the other readers, finishes a stored object
    // alone (quick_abort_*), or stops
    reply_->removeReader(*this);
    noteMaybeDone();
}
