/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The header rule directives (Config::HeaderRules):
/// request_header_access, reply_header_access, request_header_replace,
/// reply_header_replace, request_header_add and reply_header_add.

#include "cuttle.h"
#include "config/Handlers.h"

void Config::Handlers::HeaderAccessLine(DirectiveCall& call, HeaderRules& rules)
{
    std::string why;
    if (!rules.parseAccess(call.args(), call.settings.acls, why))
        call.error("bad " + Name(call) + ": " + why);
    else if (!why.empty())
        call.warning(Name(call) + ": " + why);
}

void Config::Handlers::HeaderReplaceLine(DirectiveCall& call, HeaderRules& rules)
{
    if (!NeedArgs(call, 2))
        return;
    // the value is the rest of the line (the lexer keeps it whole), or a quoted string
    std::string value = call.line.words[2];
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
        value = value.substr(1, value.size() - 2);
    if (value.find_first_of("\r\n") != std::string::npos) {
        call.error("bad " + Name(call) + ": the value may not hold a line break");
        return;
    }
    rules.setReplacement(call.line.words[1], value);
}

void Config::Handlers::HeaderAddLine(DirectiveCall& call, HeaderRules& rules)
{
    std::string why;
    if (!rules.parseAddition(call.args(), call.settings.acls, why))
        call.error("bad " + Name(call) + ": " + why);
}
