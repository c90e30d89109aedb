/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Client::Connection::answerDenied(): what a client denied by
/// http_access or http_reply_access gets, ERR_ACCESS_DENIED or what a
/// deny_info line says (doc/design.md "Access control").

#include "cuttle.h"
#include "client/Connection.h"
#include "client/Services.h"
#include "config/Settings.h"
#include "errors/Page.h"
#include "errors/PageContext.h"
#include "log/AccessRecord.h"

void Client::Connection::answerDenied(Errors::PageContext& context, std::string_view lastAcl)
{
    const auto& settings = services_.settings();
    const auto* info = settings.denyInfoFor(lastAcl);
    if (!info) {
        reply(Http::StatusCode::Forbidden, "ERR_ACCESS_DENIED", context);
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
