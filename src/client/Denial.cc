/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Client::Connection::answerDenied(): what a client denied by
/// http_access or http_reply_access gets, ERR_ACCESS_DENIED or what a
/// deny_info line says (doc/design.md "Access control"); the misses
/// miss_access or a forwarding loop keep from the origin.

#include "cuttle.h"
#include "client/Connection.h"
#include "client/Headers.h"
#include "client/Services.h"
#include "config/Settings.h"
#include "errors/Page.h"
#include "errors/PageContext.h"
#include "http/FieldSyntax.h"
#include "http/Fields.h"
#include "log/AccessRecord.h"
#include "log/CacheLog.h"

void Client::Connection::answerDenied(Errors::PageContext& context, std::string_view lastAcl,
                                      const char* page)
{
    const auto& settings = services_.settings();
    const auto* info = settings.denyInfoFor(lastAcl);
    if (!info) {
        reply(Http::StatusCode::Forbidden, page, context);
        return;
    }
    switch (info->action) {
    case Config::DenyInfo::Action::Page:
        // Squid names the page with its status in X-Squid-Error ("404:ERR_X"); cuttle with its name only
        reply(info->status ? static_cast<Http::StatusCode>(info->status) : Http::StatusCode::Forbidden,
              info->target, context);
        return;
    case Config::DenyInfo::Action::Redirect: {
        // Squid 5.7's ErrorState::BuildHttpReply(): 302, or 307 for an
        // HTTP/1.1 request other than GET and HEAD, unless the line says
        int status = info->status;
        if (!status)
            status = clientIsHttp11_ && context.method != "GET" && context.method != "HEAD" ? 307 : 302;
        completePageContext(context);
        replyRedirect(
            status, Errors::ExpandDenyInfoUrl(info->target, context),
            {{"Content-Type", "text/html;charset=utf-8"},
             {"X-Squid-Error", std::to_string(info->status ? info->status : 403) + " Access Denied"}});
        if (pendingLog_)
            pendingLog_->mimeType = "text/html";
        return;
    }
    case Config::DenyInfo::Action::Reset:
        // Squid logs the reset with no status, no bytes and no type
        if (pendingLog_) {
            pendingLog_->httpStatus = 0;
            pendingLog_->bytesSent = 0;
            pendingLog_->mimeType.clear();
        }
        resetConnection();
        return;
    }
}

bool Client::Connection::missAllowed(const Acl::Checklist& facts, Errors::PageContext& context)
{
    const auto& rules = services_.settings().missAccess;
    if (rules.size() == 0)
        return true;
    // Squid 5.7 (FwdState::Start): the direct client's address, never the
    // indirect one; a fast check, so a rule that would need a lookup not
    // made yet denies here (Squid's DUNNO lets the request through)
    Acl::Checklist missFacts = facts;
    missFacts.srcAddr = peerAddress_;
    if (rules.check(missFacts) == Acl::Answer::Allowed)
        return true;
    if (pendingLog_)
        pendingLog_->resultCode = "TCP_MISS"; // TCP_MISS/403 HIER_NONE, as Squid logs it
    answerDenied(context, missFacts.lastAcl, "ERR_FORWARDING_DENIED");
    return false;
}

bool Client::Connection::loopDenied(Errors::PageContext& context)
{
    // Squid 5.7 (clientInterpretRequestHeaders, then processMiss): an
    // element of Via holding " NAME (SOFTWARE)", case-sensitive, whether or
    // not `via` is on; a hit is still served, a CONNECT is not checked
    std::string self; // made at the first Via field (most requests have none)
    bool looped = false;
    for (const auto& f : parser_.fields()) {
        if (!Http::EqualsIgnoreCase(f.name, "Via"))
            continue;
        if (self.empty())
            self = " " + services_.viaName();
        Http::ForEachListElement(f.value, [&](std::string_view element) {
            looped = element.find(self) != std::string_view::npos;
            return !looped;
        });
        if (looped)
            break;
    }
    if (!looped)
        return false;
    debugs(33, 1, "WARNING: Forwarding loop detected for:\n" << context.request);
    if (pendingLog_)
        pendingLog_->resultCode = "TCP_MISS"; // TCP_MISS/403 HIER_NONE, as Squid logs it
    reply(Http::StatusCode::Forbidden, "ERR_ACCESS_DENIED", context);
    return true;
}
