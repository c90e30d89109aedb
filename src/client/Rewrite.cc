/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Client::Connection::rewriteUrl() and askStoreId():
/// url_rewrite_program and store_id_program, as Squid 5.7's redirector and
/// store-ID helper (doc/design.md "URL rewriting and store IDs").

#include "cuttle.h"
#include "client/Connection.h"
#include "client/Services.h"
#include "errors/PageContext.h"
#include "http/Head.h"
#include "helper/Pool.h"
#include "helper/Reply.h"
#include "log/AccessRecord.h"
#include "log/CacheLog.h"

#include <cctype>
#include <cstdlib>

namespace {

/// What a rewriter's reply asks for.
struct Rewrite {
    enum class Kind { None, Rewrite, Redirect, Fail } kind = Kind::None;
    std::string url;  ///< the new URL (Rewrite, Redirect)
    int status = 302; ///< Redirect's status
};

bool IsRedirectStatus(int status)
{
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

/// Squid 5.7's reading of a rewriter reply (ClientRequestContext::clientRedirectDone()).
Rewrite Interpret(const Helper::Reply& reply)
{
    Rewrite r;
    switch (reply.result) {
    case Helper::Result::Okay:
        if (const auto* to = reply.findNote("rewrite-url")) {
            r.kind = Rewrite::Kind::Rewrite;
            r.url = *to;
        } else if (const auto* where = reply.findNote("url")) {
            r.kind = Rewrite::Kind::Redirect;
            r.url = *where;
            if (const auto* status = reply.findNote("status"))
                r.status = std::atoi(status->c_str());
            if (!IsRedirectStatus(r.status))
                r.kind = Rewrite::Kind::Fail;
        }
        return r;
    case Helper::Result::Unknown: {
        // the old protocol: "URL" rewrites, "30N:URL" redirects, "" keeps
        const auto& line = reply.other;
        if (line.empty())
            return r;
        if (line.size() > 4 && line[3] == ':' && std::isdigit(static_cast<unsigned char>(line[0]))) {
            r.status = std::atoi(line.substr(0, 3).c_str());
            r.kind = IsRedirectStatus(r.status) ? Rewrite::Kind::Redirect : Rewrite::Kind::Fail;
            r.url = line.substr(4);
            return r;
        }
        r.kind = Rewrite::Kind::Rewrite;
        r.url = line.substr(0, line.find(' '));
        return r;
    }
    case Helper::Result::Error: // ERR: keep the URL
        return r;
    case Helper::Result::BrokenHelper:
    case Helper::Result::Tt:
        break;
    }
    r.kind = Rewrite::Kind::Fail;
    return r;
}

} // namespace

bool Client::Connection::rewriteUrl(Http::Url& url, Log::AccessRecord& record, Errors::PageContext& context,
                                    Acl::Checklist& facts)
{
    auto* rewriter = services_.urlRewriter();
    const auto& settings = services_.settings();
    // only a plain deny skips the rewriter: rules it cannot decide (a
    // proxy_auth acl with unchecked credentials) keep the filter on
    if (!rewriter || parser_.method() == Http::Method::Connect ||
        (settings.urlRewriteAccess.size() != 0 &&
         settings.urlRewriteAccess.check(facts) == Acl::Answer::Denied))
        return true;

    const std::string original = url.canonical();
    const auto* answered = askHelper(*rewriter, &HelperAnswers::rewrite, original, record, facts);
    if (!answered)
        return false;
    if (answered->failure == Helper::Failure::Overloaded && settings.urlRewriteBypass)
        return true; // url_rewrite_bypass: busy rewriters are skipped
    const auto answer = Interpret(*answered);
    switch (answer.kind) {
    case Rewrite::Kind::None:
        return true;
    case Rewrite::Kind::Rewrite: {
        Http::Url to;
        if (!to.parse(answer.url) || to.scheme() != "http") {
            debugs(61, 1,
                   "WARNING: URL rewriter answered an invalid URL '" << answer.url << "' for " << original
                                                                     << "; keeping the URL");
            return true;
        }
        url = to;
        // the rules from here on see the rewritten request, as Squid's do;
        // a dst acl sees the addresses of a rewritten host only when it is
        // an address (destinationKnown()'s one answer is the original host's)
        if (url.host() != facts.dstHost) {
            facts.dstHost = url.host();
            facts.dstAddrs.clear();
        }
        facts.dstPort = url.port();
        facts.urlScheme = url.scheme();
        facts.urlPath = url.path();
        facts.url = url.canonical();
        record.url = url.canonical();
        context.url = record.url;
        context.serverHost = url.host();
        context.serverPort = url.port();
        if (settings.stripQueryTerms) {
            if (const auto q = record.url.find('?'); q != std::string::npos)
                record.url.resize(q + 1);
        }
        return true;
    }
    case Rewrite::Kind::Redirect: {
        // Squid: TCP_REDIRECT with the status and Location the rewriter chose
        record.resultCode = "TCP_REDIRECT";
        replyRedirect(answer.status, answer.url);
        return false;
    }
    case Rewrite::Kind::Fail:
        break;
    }
    // a rewriter that failed, hung or answered BH must not let the request
    // through unfiltered (squidGuard blocks sites): fail closed
    debugs(61, 1, "ERROR: URL rewriter failed for " << original << "; refusing the request");
    record.resultCode = "TCP_DENIED";
    reply(Http::StatusCode::InternalServerError, "ERR_GATEWAY_FAILURE", context);
    return false;
}

bool Client::Connection::askStoreId(const Http::Url& url, const Log::AccessRecord& record,
                                    const Acl::Checklist& facts, std::string& storeId)
{
    auto* helper = services_.storeIdHelper();
    const auto& settings = services_.settings();
    // only requests that may be looked up in the cache have a key to change
    const auto method = parser_.method();
    if (!helper || (method != Http::Method::Get && method != Http::Method::Head) ||
        (settings.storeIdAccess.size() != 0 && settings.storeIdAccess.check(facts) != Acl::Answer::Allowed))
        return true;
    const auto* answered = askHelper(*helper, &HelperAnswers::storeId, url.canonical(), record, facts);
    if (!answered)
        return false;
    // Squid 5.7 (ClientRequestContext::clientStoreIdDone): OK store-id=ID
    // keys the object by ID; anything else keeps the URL (a failure only
    // stops sharing, it lets nothing through)
    if (answered->result == Helper::Result::Okay) {
        if (const auto* id = answered->findNote("store-id"))
            storeId = *id;
    } else if (answered->result == Helper::Result::BrokenHelper &&
               !(answered->failure == Helper::Failure::Overloaded && settings.storeIdBypass)) {
        debugs(61, 1, "WARNING: store-ID helper failed for " << url.canonical() << "; keying it by its URL");
    }
    return true;
}

const Helper::Reply* Client::Connection::askHelper(Helper::Pool& pool, HelperAnswer HelperAnswers::*which,
                                                   const std::string& url, const Log::AccessRecord& record,
                                                   const Acl::Checklist& facts)
{
    // the answers live apart until a helper is asked: an idle connection stays small
    if (helperAnswers_) {
        if (const auto& answer = (*helperAnswers_).*which; answer && answer->first == url)
            return &answer->second;
    }
    // ask, and handle the head again with the answer (processBuffered());
    // the line is Squid's: URL, then the default url_rewrite_extras and
    // store_id_extras "%>a/%>A %un %>rm myip=%la myport=%lp" (%>A, the
    // client's name, is its address, as in Squid when no reverse lookup
    // was made)
    const std::string line = Helper::Rfc1738Escape(url) + " " + peerHost_ + "/" + peerHost_ + " " +
                             (facts.user.empty() ? "-" : Helper::Rfc1738Escape(facts.user)) + " " +
                             record.method + " myip=" + localHost_ + " myport=" + std::to_string(localPort_);
    state_ = State::Checking;
    pendingLog_.reset(); // made again when the head is handled again
    helperCheck_ = pool.submit(line, [this, which, url](const Helper::Reply& reply) {
        if (!helperAnswers_)
            helperAnswers_ = std::make_unique<HelperAnswers>();
        ((*helperAnswers_).*which).emplace(url, reply);
        resumeAfterCheck();
    });
    return nullptr;
}

void Client::Connection::replyRedirect(int status, const std::string& location,
                                       const std::vector<std::pair<std::string, std::string>>& extraFields)
{
    if (pendingLog_) {
        pendingLog_->httpStatus = status;
        pendingLog_->hierarchy = "HIER_NONE";
    }
    out_.clear();
    Http::AppendStatusLine(out_, status);
    Http::AppendField(out_, "Location", location);
    Http::AppendField(out_, "Content-Length", "0");
    for (const auto& [name, value] : extraFields)
        Http::AppendField(out_, name, value);
    Http::AppendField(out_, "X-Cache", "MISS from " + services_.visibleHostname());
    Http::AppendField(out_, "Connection", closeAfterReply_ ? "close" : "keep-alive");
    Http::EndHead(out_);
    editReplyHead(out_, std::string(), nullptr, status);
    noteReplyHead(out_);
    outOffset_ = 0;
    state_ = State::Writing;
    armTimer(services_.settings().readTimeout);
}
