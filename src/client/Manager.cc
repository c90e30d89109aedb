/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Client::Connection's part in the cache manager: which requests are
/// for it, cachemgr_passwd, and writing the page (doc/design.md "The cache
/// manager"); the pages themselves are Mgr's, their figures Proxy::Instance's.

#include "cuttle.h"
#include "client/Connection.h"
#include "auth/Basic.h"
#include "client/Headers.h"
#include "client/Services.h"
#include "config/Settings.h"
#include "errors/PageContext.h"
#include "http/Date.h"
#include "http/Head.h"
#include "http/Url.h"
#include "log/AccessRecord.h"
#include "log/CacheLog.h"
#include "mgr/Action.h"
#include "mgr/Figures.h"
#include "mgr/Pages.h"
#include "mgr/Request.h"

#include <ctime>

#include <strings.h>

namespace {

/// what active_requests says a connection does (Squid's "FD desc")
const char* StateName(Client::Connection::State state)
{
    using State = Client::Connection::State;
    switch (state) {
    case State::ReadingHead:
        return "Reading next request";
    case State::Checking:
        return "Checking access";
    case State::Forwarding:
        return "Waiting for the origin";
    case State::Streaming:
        return "Sending the reply";
    case State::Tunneling:
        return "Tunneling";
    case State::Peeking:
        return "Peeking at TLS";
    case State::Writing:
        return "Writing a reply";
    case State::Lingering:
        return "Lingering";
    case State::Closed:
        return "Closed";
    }
    return "?";
}

} // namespace

bool Client::Connection::isManagerUrl(const Http::Url& url) const
{
    if (url.scheme() == "cache_object")
        return true;
    // Squid 5.7 (internalCheck(), internalHostnameIs()): its own name and
    // port; any other host, its own address included, is forwarded
    return url.scheme() == "http" && url.path().rfind(Mgr::InternalPrefix, 0) == 0 &&
           strcasecmp(url.host().c_str(), services_.visibleHostname().c_str()) == 0 &&
           url.port() == localPort_;
}

void Client::Connection::serveManager(const Http::Url& url, Errors::PageContext& context)
{
    const auto& settings = services_.settings();
    auto request = Mgr::ParseRequest(url.scheme() == "cache_object", url.path());
    if (request) {
        // Squid's CacheManager::ParseHeaders(): Basic credentials replace the URL's password
        if (const auto field = parser_.findField("Authorization"))
            if (const auto credentials = Auth::ParseBasic(*field))
                request->password = credentials->password;
    }
    if (pendingLog_) {
        // Squid 5.7 logs manager requests as misses answered by itself; the
        // logged URL leaves out the password
        pendingLog_->resultCode = "TCP_MISS";
        if (request && !request->password.empty()) {
            if (const auto at = pendingLog_->url.rfind("@" + request->password); at != std::string::npos)
                pendingLog_->url.erase(at, request->password.size() + 1);
        }
        context.url = pendingLog_->url;
    }
    const auto verdict = request
                             ? Mgr::Authorize(settings.managerPasswords, request->action, request->password)
                             : Mgr::Verdict::NotFound;
    if (verdict == Mgr::Verdict::NotFound) {
        reply(Http::StatusCode::NotFound, "ERR_INVALID_URL", context);
        return;
    }
    if (verdict == Mgr::Verdict::Unauthorized) {
        debugs(16, 1,
               "CacheManager: " << peerHost_ << ": "
                                << (request->password.empty() ? "password needed" : "incorrect password")
                                << " for '" << request->action << "'");
        reply(Http::StatusCode::Unauthorized, "ERR_CACHE_MGR_ACCESS_DENIED", context,
              {{"WWW-Authenticate", "Basic realm=\"" + request->action + "\""}});
        return;
    }
    // a page of every worker's list comes from the loop: the connection
    // waits (Checking) and reads nothing meanwhile
    managerPage_ =
        services_.managerPage(request->action, [this, action = request->action,
                                                head = context.request](std::optional<std::string> page) {
            answerManager(action, head, std::move(page));
        });
    if (managerPage_)
        state_ = State::Checking;
}

void Client::Connection::answerManager(const std::string& action, const std::string& requestHead,
                                       std::optional<std::string> page)
{
    const bool waited = managerPage_ != nullptr;
    managerPage_.reset(); // the gathering that calls us keeps itself
    if (waited && state_ != State::Checking)
        return; // closing
    const auto& settings = services_.settings();
    std::string body;
    const char* type = "text/plain;charset=utf-8";
    if (page) {
        body = std::move(*page);
        if (action == "metrics")
            type = Mgr::MetricsContentType;
    } else {
        // Squid 5.7's words; the command runs from the loop (its signal's handler), after this callback
        if (action == "reconfigure")
            body = "Reconfiguring Squid Process ....";
        else if (action == "rotate")
            body = "Rotating Squid Process Logs ....";
        debugs(16, 1, "CacheManager: " << peerHost_ << " requested " << action);
        services_.managerCommand(action);
    }
    if (pendingLog_) {
        pendingLog_->httpStatus = 200;
        pendingLog_->mimeType = type;
        pendingLog_->hierarchy = "HIER_NONE";
    }
    // Squid 5.7's head: a page that expires as it is made, so nothing stores it
    const auto now = Http::FormatHttpDate(std::time(nullptr));
    const auto& host = services_.visibleHostname();
    out_.clear();
    Http::AppendStatusLine(out_, 200);
    Http::AppendField(out_, "Server", SoftwareName(settings));
    Http::AppendField(out_, "Mime-Version", "1.0");
    Http::AppendField(out_, "Date", now);
    Http::AppendField(out_, "Content-Type", type);
    Http::AppendField(out_, "Expires", now);
    Http::AppendField(out_, "Last-Modified", now);
    Http::AppendField(out_, "Content-Length", std::to_string(body.size()));
    Http::AppendField(out_, "X-Cache", "MISS from " + host);
    if (settings.via)
        Http::AppendField(out_, "Via", "1.1 " + services_.viaName());
    Http::AppendField(out_, "Connection", closeAfterReply_ ? "close" : "keep-alive");
    Http::EndHead(out_);
    editReplyHead(out_, requestHead, nullptr, 200);
    noteReplyHead(out_);
    if (!requestIsHead_)
        out_ += body;
    outOffset_ = 0;
    state_ = State::Writing;
    armTimer(settings.readTimeout);
    if (waited) // from the loop: the reply goes now (a throw ends this connection only)
        services_.loop().guard(this, [this] { drive(); });
}

bool Client::Connection::describe(Mgr::ActiveRequest& out) const
{
    if (!pendingLog_ && !tx_ && !tunnel_)
        return false;
    out.fd = fd_.get();
    out.peer = peerHost_;
    out.local = localHost_ + ":" + std::to_string(localPort_);
    out.state = StateName(state_);
    out.requests = requests_;
    out.start = static_cast<double>(requestStart_.tv_sec) + static_cast<double>(requestStart_.tv_usec) / 1e6;
    if (pendingLog_) {
        out.uri = pendingLog_->url;
        out.logType = pendingLog_->resultCode;
        out.user = pendingLog_->user;
    }
    return true;
}
