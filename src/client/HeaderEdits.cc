/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file squid.conf's header rules (Config::HeaderRules) applied to the
/// heads cuttle sends: the forwarded request's, and each reply's to a
/// client (from the origin, from the cache, or an error page). The heads
/// are edited after they are built, and only when rules are configured:
/// without them nothing here runs.

#include "cuttle.h"

#include "client/AclFields.h"
#include "client/Connection.h"
#include "client/Headers.h"
#include "client/Services.h"
#include "errors/PageContext.h"
#include "http/FieldSyntax.h"
#include "http/Head.h"
#include "http/RequestParser.h"
#include "log/AccessRecord.h"
#include "store/Entry.h"

namespace {

/// fields the rules never touch: the hop's framing and connection, which
/// cuttle writes itself (Squid 5.7 removes them and breaks the message)
bool isProtected(std::string_view name)
{
    return Http::EqualsIgnoreCase(name, "Content-Length") ||
           Http::EqualsIgnoreCase(name, "Transfer-Encoding") || Http::EqualsIgnoreCase(name, "Connection");
}

} // namespace

std::string Client::SoftwareName(const Config::Settings& settings)
{
    return settings.httpdSuppressVersionString ? std::string(PACKAGE_NAME) : Errors::SoftwareName();
}

void Client::ApplyHeaderRules(std::string& head, const Config::HeaderRules& rules,
                              const Acl::Checklist& facts, const Log::FormatFacts& format)
{
    if (rules.isEmpty())
        return;
    // the head is cuttle's own: CRLF line ends, "Name: value" fields, an
    // empty line, and maybe a body after it
    const size_t firstEnd = head.find("\r\n");
    if (firstEnd == std::string::npos)
        return;
    std::string out;
    out.reserve(head.size() + 128);
    out.append(head, 0, firstEnd + 2);
    size_t pos = firstEnd + 2;
    for (;;) { // each line ends the loop or moves pos on
        const size_t end = head.find("\r\n", pos);
        if (end == std::string::npos)
            return; // not a whole head: leave it
        if (end == pos)
            break; // the empty line
        const std::string_view line(head.data() + pos, end - pos);
        pos = end + 2;
        const size_t colon = line.find(':');
        const std::string_view name = line.substr(0, colon);
        const std::string* replacement = nullptr;
        if (colon == std::string_view::npos || isProtected(name) || !rules.hasAccessRules()) {
            out.append(line).append("\r\n");
            continue;
        }
        switch (rules.check(name, facts, replacement)) {
        case Config::HeaderRules::Verdict::Keep:
            out.append(line).append("\r\n");
            break;
        case Config::HeaderRules::Verdict::Replace:
            Http::AppendField(out, name, *replacement);
            break;
        case Config::HeaderRules::Verdict::Remove:
            break;
        }
    }
    for (const auto& a : rules.additions()) {
        if (a.acls.size() == 0 || a.acls.check(facts) == Acl::Answer::Allowed)
            Http::AppendField(out, a.name, a.value.expand(format));
    }
    Http::EndHead(out);
    out.append(head, pos + 2); // what follows the head (an error page's body) stays
    head = std::move(out);
}

Log::FormatFacts Client::Connection::headerFormatFacts(const Acl::Checklist& facts) const
{
    Log::FormatFacts format;
    format.clientAddress = peerHost_;
    format.method = facts.method;
    format.url = facts.url;
    format.user = facts.user;
    format.start = requestStart_;
    if (facts.request)
        format.requestField = [&facts](std::string_view name) { return facts.request->get(name); };
    return format;
}

Acl::Checklist Client::Connection::headerFacts() const
{
    if (tx_ && tx_->headerFacts)
        return *tx_->headerFacts;
    // an error page before the request's facts were gathered: what the connection knows
    Acl::Checklist facts;
    facts.srcAddr = peerAddress_;
    facts.localAddr = localAddress_;
    facts.localPort = localPort_;
    if (pendingLog_) {
        facts.method = pendingLog_->method;
        facts.url = pendingLog_->url;
    }
    return facts;
}

void Client::Connection::editRequestHead(std::string& head) const
{
    const auto& rules = services_.settings().requestHeaderRules;
    if (rules.isEmpty())
        return;
    auto facts = headerFacts();
    const AclFields requestFields(parser_.fields());
    facts.request = &requestFields;
    ApplyHeaderRules(head, rules, facts, headerFormatFacts(facts));
}

void Client::Connection::editReplyHead(std::string& head, const std::string& requestHead,
                                       const Store::Reply* reply, int status) const
{
    const auto& rules = services_.settings().replyHeaderRules;
    if (rules.isEmpty())
        return;
    // as http_reply_access sees them: the request's facts (its fields
    // parsed again from its copy) and the reply's
    auto facts = headerFacts();
    Http::RequestParser again(requestHead.size() + 1);
    again.parse(requestHead);
    const AclFields requestFields(again.fields());
    if (!requestHead.empty())
        facts.request = &requestFields;
    std::optional<AclFields> replyFields;
    if (reply) {
        replyFields.emplace(reply->fields());
        facts.reply = &*replyFields;
    }
    facts.replyStatus = status;
    ApplyHeaderRules(head, rules, facts, headerFormatFacts(facts));
}
