/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file follow_x_forwarded_for, acl_uses_indirect_client and
/// log_uses_indirect_client (doc/design.md "Access control").

#include "cuttle.h"
#include "client/IndirectClient.h"
#include "client/AclFields.h"
#include "client/Connection.h"
#include "client/Services.h"
#include "config/Settings.h"
#include "log/AccessRecord.h"

#include <cctype>

Acl::Address Client::FollowXForwardedFor(const Acl::Address& direct, std::string_view xff,
                                         const std::function<bool(const Acl::Address&)>& trusts)
{
    // Squid 5.7 walks the list from its end, one item per allowed check
    const auto isSeparator = [](char c) { return c == ',' || std::isspace(static_cast<unsigned char>(c)); };
    Acl::Address current = direct;
    while (trusts(current)) {
        size_t end = xff.size();
        while (end > 0 && isSeparator(xff[end - 1]))
            --end;
        size_t start = end;
        while (start > 0 && !isSeparator(xff[start - 1]))
            --start;
        if (start == end)
            break; // nothing left
        const auto hop = Acl::Address::ParseLenient(xff.substr(start, end - start));
        if (!hop)
            break;
        current = *hop;
        xff = xff.substr(0, start);
    }
    return current;
}

void Client::Connection::findIndirectClient(Acl::Checklist& facts, Log::AccessRecord& record)
{
    const auto& settings = services_.settings();
    if (settings.followXForwardedFor.size() == 0)
        return;
    const auto xff = AclFields(parser_.fields()).get("X-Forwarded-For");
    if (!xff)
        return; // Squid checks nothing without the field
    // each hop is checked as the src of the follow_x_forwarded_for rules
    Acl::Checklist hopFacts = facts;
    const auto indirect = FollowXForwardedFor(peerAddress_, *xff, [&](const Acl::Address& hop) {
        hopFacts.srcAddr = hop;
        return settings.followXForwardedFor.check(hopFacts) == Acl::Answer::Allowed;
    });
    if (settings.aclUsesIndirectClient)
        facts.srcAddr = indirect;
    if (settings.logUsesIndirectClient)
        record.clientAddress = indirect.toString();
}
