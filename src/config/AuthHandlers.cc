/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The `auth_param` directive, as Squid 5.7 reads it (src/auth/*/Config.cc there).

#include "cuttle.h"
#include "config/Handlers.h"
#include "config/Units.h"

namespace {

using namespace Config;

} // namespace

void Config::Handlers::AuthParamHandler(DirectiveCall& call)
{
    const auto& w = call.line.words;
    if (w.size() < 3) {
        call.error("auth_param needs a scheme and a parameter: auth_param basic program /path/to/helper");
        return;
    }
    const auto& scheme = w[1];
    if (scheme == "digest" || scheme == "ntlm" || scheme == "negotiate") {
        call.error("auth_param " + scheme +
                   " is not implemented by cuttle (only basic is): refusing it, as the logins it would "
                   "require could not be checked");
        return;
    }
    if (scheme != "basic") {
        call.error("unknown authentication scheme '" + scheme +
                   "': Squid 5.7 has basic, digest, ntlm and "
                   "negotiate");
        return;
    }
    auto& basic = call.settings.authBasic;
    const auto& param = w[2];
    const auto rest = [&w]() {
        std::string text;
        for (size_t i = 3; i < w.size(); ++i)
            text += (i > 3 ? " " : "") + w[i];
        return text;
    };
    if (param == "program") {
        if (w.size() < 4) {
            call.error("auth_param basic program needs the helper's path");
            return;
        }
        basic.program.assign(w.begin() + 3, w.end());
        if (basic.program.size() == 1 && basic.program[0] == "none")
            basic.program.clear();
    } else if (param == "children") {
        ParseHelperChildren(call, 3, basic.children);
    } else if (param == "realm") {
        if (w.size() < 4) {
            call.error("auth_param basic realm needs a text");
            return;
        }
        basic.realm = rest();
        if (basic.realm.find('"') != std::string::npos)
            call.error("auth_param basic realm cannot hold a double quote: it goes inside realm=\"...\"");
    } else if (param == "credentialsttl") {
        size_t pos = 3;
        Duration ttl{};
        const auto r = Units::ParseDuration(w, pos, ttl);
        if (!r.ok)
            call.error("bad auth_param basic credentialsttl value: " + r.why);
        else
            basic.credentialsTtl = ttl;
    } else if (param == "casesensitive" || param == "utf8") {
        bool value = false;
        if (w.size() >= 4 && ParseOnOff(call, w[3], value))
            (param == "utf8" ? basic.utf8 : basic.caseSensitive) = value;
        else if (w.size() < 4)
            call.error("auth_param basic " + param + " needs on or off");
    } else if (param == "key_extras") {
        call.error("auth_param basic key_extras is not implemented by cuttle: refusing it, as the helper "
                   "would decide without what it adds");
    } else {
        call.error("unknown auth_param basic parameter '" + param +
                   "': use program, children, realm, credentialsttl, casesensitive or utf8");
    }
}
