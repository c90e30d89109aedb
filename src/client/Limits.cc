/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Client::Connection's limits on a transaction (doc/design.md "A
/// request's life"): request_body_max_size on the request body,
/// reply_body_max_size and http_reply_access on the reply, and the reset
/// that ends a connection Squid's way.

#include "cuttle.h"
#include "client/Limits.h"
#include "client/Connection.h"
#include "client/AclFields.h"
#include "client/Services.h"
#include "config/Settings.h"
#include "errors/PageContext.h"
#include "http/RequestParser.h"
#include "log/AccessRecord.h"
#include "log/CacheLog.h"

#include <sys/socket.h>

bool Client::Connection::requestBodyIsTooBig(Errors::PageContext& context)
{
    // Squid 5.7's clientProcessRequest(): before the callouts (http_access
    // included), a Content-Length over the limit is answered 413 and the
    // connection closes after it (the body is not read)
    const uint64_t limit = services_.settings().requestBodyMaxSize;
    const auto length = parser_.contentLength();
    if (limit == 0 || !length || *length <= limit)
        return false;
    debugs(33, 2,
           "request body of " << *length << " bytes from " << peerHost_ << " over request_body_max_size");
    if (pendingLog_)
        pendingLog_->resultCode = "NONE_NONE";
    closeAfterReply_ = true;
    reply(Http::StatusCode::ContentTooLarge, "ERR_TOO_BIG", context);
    return true;
}

bool Client::Connection::chunkedBodyIsTooBig()
{
    // Squid 5.7 (ConnStateData::handleChunkedRequestBody, then
    // abortChunkedRequestBody without an error page): a chunked body that
    // grows past the limit resets the connection, logged NONE_NONE/000
    const uint64_t limit = services_.settings().requestBodyMaxSize;
    if (limit == 0 || tx_->body->entry->body().endOffset() <= limit)
        return false;
    debugs(33, 2, "chunked request body from " << peerHost_ << " grew past request_body_max_size");
    if (pendingLog_) {
        pendingLog_->resultCode = "NONE_NONE";
        pendingLog_->httpStatus = 0;
        pendingLog_->hierarchy = "HIER_NONE";
        pendingLog_->peerAddress.clear();
        pendingLog_->mimeType.clear();
        pendingLog_->bytesSent = 0;
    }
    resetConnection(); // (which ends the body: the forwarder stops sending it)
    return true;
}

void Client::Connection::resetConnection()
{
    // SO_LINGER with a zero timeout: close() sends RST, as Squid's comm_reset_close()
    const linger reset{1, 0};
    (void)::setsockopt(fd_.get(), SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
    close();
}

bool Client::Connection::replyIsDenied(bool isOwner)
{
    // the request's facts, with the reply's head (the request's own bytes
    // may be gone: its fields are parsed again from its copy)
    const auto& settings = services_.settings();
    auto& facts = *tx_->replyFacts;
    const auto& head = tx_->pageContext->request;
    Http::RequestParser again(head.size() + 1);
    again.parse(head);
    const AclFields requestFields(again.fields());
    const auto& stored = *tx_->reply->reply();
    const AclFields replyFields(stored.fields());
    facts.request = &requestFields;
    facts.reply = &replyFields;
    facts.replyStatus = stored.status;
    facts.hierCode = isOwner ? hierarchyCode() : "HIER_NONE";
    if (isOwner && tx_->forwarder->peer())
        facts.peerName = tx_->forwarder->peer()->name();

    // Squid 5.7's clientReplyContext::processReplyAccess(): the size first
    // (HttpReply::expectedBodyTooLarge()), then http_reply_access
    const char* templateName = nullptr; // ERR_ACCESS_DENIED: answerDenied() (deny_info) decides
    if (!settings.replyBodyMaxSizes.empty()) {
        const bool noBody = requestIsHead_ || tx_->notModified;
        const int64_t limit = settings.replyBodyMaxSizeFor(facts);
        if (ExpectedBodyIsTooBig(limit, stored, *tx_->reply, noBody))
            templateName = "ERR_TOO_BIG";
        else if (!noBody)
            tx_->replyBodyLimit = limit; // replyGrewTooBig() watches the body
    }
    if (!templateName && settings.httpReplyAccess.size() != 0 &&
        settings.httpReplyAccess.check(facts) != Acl::Answer::Allowed)
        templateName = "ERR_ACCESS_DENIED";
    facts.request = facts.reply = nullptr;
    if (!templateName)
        return false;
    // Squid 5.7: the reply is replaced by the page (403), logged TCP_DENIED_REPLY
    const auto context = std::move(tx_->pageContext);
    const std::string peer = isOwner ? tx_->forwarder->peerHost() : std::string();
    const auto logPeer = [&] {
        if (pendingLog_ && !peer.empty()) {
            pendingLog_->hierarchy = hierarchyCode();
            pendingLog_->peerAddress = peer;
        }
    };
    if (pendingLog_)
        pendingLog_->resultCode = "TCP_DENIED_REPLY";
    logPeer(); // (a deny_info TCP_RESET logs at once)
    stopForwarding();
    if (std::string_view(templateName) == "ERR_ACCESS_DENIED")
        answerDenied(*context, facts.lastAcl);
    else
        reply(Http::StatusCode::Forbidden, templateName, *context);
    if (state_ == State::Closed)
        return true;
    logPeer();
    // written from the loop, not from inside the forwarder or the lookup
    kick_ = services_.loop().defer([this] { drive(); }, this);
    return true;
}

bool Client::Connection::replyGrewTooBig(bool caught)
{
    // a reply whose length was not known when it started (chunked or
    // close-delimited): once the body passes reply_body_max_size, the
    // client gets the bytes up to the limit and is cut off, as Squid's
    // ClientSocketContext::socketState() does (STREAM_FAILED); logged as
    // Squid does, with the bytes sent
    if (tx_->replyBodyLimit < 0)
        return false;
    const auto limit = uint64_t(tx_->replyBodyLimit);
    if (tx_->reply->body().endOffset() <= limit)
        return false;
    if (tx_->writer.bodyBytesWritten() < limit) {
        tx_->writer.setBodyEnd(limit);
        if (caught) // the write stopped before the limit was set: go on from the loop
            kick_ = services_.loop().defer([this] { streamSome(); }, this);
        return false;
    }
    debugs(33, 2, "reply to " << peerHost_ << " grew past reply_body_max_size; closing");
    close();
    return true;
}

bool Client::ExpectedBodyIsTooBig(int64_t limit, const Store::Reply& reply, const Store::Entry& entry,
                                  bool noBody)
{
    if (limit < 0 || noBody)
        return false;
    // RFC 9110 section 6.4.1: no content in 1xx, 204 and 304 replies
    if ((reply.status >= 100 && reply.status < 200) || reply.status == 204 || reply.status == 304)
        return false;
    // the length announced, or the length of a body already complete (a hit)
    if (reply.contentLength)
        return *reply.contentLength > uint64_t(limit);
    return entry.isComplete() && entry.body().endOffset() > uint64_t(limit);
}
