/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "client/Revalidation.h"
#include "client/Server.h"
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

Client::Revalidation::Revalidation(Server& server, Spec&& spec, ::Server::Request&& request)
    : server_(server), spec_(std::move(spec))
{
    reply_ = MakeRef<Store::Entry>(server_.settings().readAheadGap);
    auto limits = server_.forwardLimits();
    limits.quickAbortMin = -1; // a replacement worth storing is finished without a client
    forwarder_ =
        std::make_unique<::Server::Forwarder>(server_.forwarding(), limits, std::move(request), reply_);
}

Client::Revalidation::~Revalidation()
{
    if (!decided_)
        reply_->removeReader(*this);
    forwarder_.reset();
}

void Client::Revalidation::start()
{
    reply_->addReader(*this);
    forwarder_->start();
}

bool Client::Revalidation::isDone() const
{
    return decided_ && (!forwarder_ || forwarder_->isDone());
}

void Client::Revalidation::noteDataAvailable()
{
    if (decided_)
        return;
    if (reply_->reply() || reply_->hasFailed() || reply_->isComplete())
        decide();
}

void Client::Revalidation::decide()
{
    decided_ = true;
    auto& cache = server_.cache();
    const auto* reply = reply_->reply();
    if (!reply) {
        debugs(20, 3, "background revalidation of " << spec_.cacheKey << " failed: " << reply_->failure());
    } else if (reply->status == 304) {
        FreshenStored(*spec_.stale, *reply);
        cache.touch(spec_.staleKey, *spec_.stale);
        debugs(20, 3, "background revalidation of " << spec_.cacheKey << ": unmodified");
    } else {
        const auto facts = Store::ResponseFacts::FromFields(reply->status, reply->fields(),
                                                            reply->requestTime, reply->responseTime);
        const bool fits = !reply->contentLength || (*reply->contentLength <= spec_.maxObjectSize &&
                                                    *reply->contentLength >= spec_.minObjectSize);
        if (reply->status < 500 && fits && Store::IsStorable(spec_.facts, facts, spec_.rule)) {
            Http::RequestParser parser(spec_.requestHead.size() + 1);
            parser.parse(spec_.requestHead);
            if (const auto fullKey = cache.insert(spec_.cacheKey, reply_, parser.fields())) {
                forwarder_->chargeTo(cache, *fullKey, spec_.maxObjectSize, spec_.minObjectSize);
                debugs(20, 3, "background revalidation of " << spec_.cacheKey << ": replaced");
            }
        }
    }
    // the forwarder finishes a stored replacement alone, or stops
    reply_->removeReader(*this);
}
