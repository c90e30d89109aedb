/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The children syntax of helper programs (Squid 5.7's
/// Helper::ChildConfig::parseConfig()), the extras of url_rewrite_program
/// and store_id_program, and external_acl_type.

#include "cuttle.h"
#include "config/Handlers.h"

void Config::Handlers::ParseHelperChildren(DirectiveCall& call, size_t pos, HelperChildren& children)
{
    const auto& w = call.line.words;
    const std::string what = pos == 3 ? w[0] + " " + w[1] + " " + w[2] : w[0];
    HelperChildren parsed;
    if (w.size() <= pos || !ParseCount(w[pos], parsed.children) || parsed.children == 0) {
        call.error("bad " + what + ": expecting a number of helpers above 0");
        return;
    }
    for (size_t i = pos + 1; i < w.size(); ++i) {
        const auto eq = w[i].find('=');
        const std::string key = w[i].substr(0, eq);
        unsigned* field = key == "startup"       ? &parsed.startup
                          : key == "idle"        ? &parsed.idle
                          : key == "concurrency" ? &parsed.concurrency
                          : key == "queue-size"  ? &parsed.queueSize
                                                 : nullptr;
        if (!field || eq == std::string::npos || !ParseCount(w[i].substr(eq + 1), *field)) {
            call.error("bad " + what + " option '" + w[i] +
                       "': use startup=N, idle=N, concurrency=N or queue-size=N");
            return;
        }
    }
    children = parsed;
}

void Config::Handlers::HelperExtrasHandler(DirectiveCall& call)
{
    // only Squid's default, which Rewrite.cc sends: another format would
    // have the helper decide on words it was not configured for
    static const std::string Default = "%>a/%>A %un %>rm myip=%la myport=%lp";
    std::string value;
    for (size_t i = 1; i < call.line.words.size(); ++i)
        value += (i > 1 ? " " : "") + call.line.words[i];
    if (Lexer::IsQuoted(value))
        value = Lexer::Unquote(value);
    if (value != Default)
        call.error(Name(call) + " other than Squid's default \"" + Default +
                   "\" is not implemented by cuttle: refusing it, as the helper would decide on other words");
}

void Config::Handlers::ExternalAclTypeHandler(DirectiveCall& call)
{
    std::string why;
    if (!call.settings.acls.defineExternalType(call.args(), why))
        call.error(why);
}
