/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The `auth_param` directive, as Squid 5.7 reads it (src/auth/*/Config.cc there).

#include "cuttle.h"
#include "config/Handlers.h"
#include "config/Units.h"

#include <algorithm>

namespace {

using namespace Config;
using namespace Config::Handlers;

/// The words of the line from `from` on, joined by one blank.
std::string Rest(const std::vector<std::string>& w, size_t from)
{
    std::string text;
    for (size_t i = from; i < w.size(); ++i)
        text += (i > from ? " " : "") + w[i];
    return text;
}

/// `auth_param SCHEME NAME on|off`
void ParseSchemeOnOff(DirectiveCall& call, const std::string& scheme, bool& value)
{
    const auto& w = call.line.words;
    if (w.size() < 4)
        call.error("auth_param " + scheme + " " + w[2] + " needs on or off");
    else
        ParseOnOff(call, w[3], value);
}

/// `auth_param SCHEME NAME TIME`
void ParseSchemeDuration(DirectiveCall& call, const std::string& scheme, Duration& value)
{
    size_t pos = 3;
    Duration parsed{};
    const auto r = Units::ParseDuration(call.line.words, pos, parsed);
    if (!r.ok)
        call.error("bad auth_param " + scheme + " " + call.line.words[2] + " value: " + r.why);
    else
        value = parsed;
}

/// The parameters every scheme has (program, children, realm, utf8, key_extras); false
/// when `param` is none of them.
template <typename SchemeSettings>
bool ParseCommonParam(DirectiveCall& call, const std::string& scheme, SchemeSettings& s)
{
    const auto& w = call.line.words;
    const auto& param = w[2];
    if (param == "program") {
        if (w.size() < 4) {
            call.error("auth_param " + scheme + " program needs the helper's path");
            return true;
        }
        s.program.assign(w.begin() + 3, w.end());
        if (s.program.size() == 1 && s.program[0] == "none")
            s.program.clear();
    } else if (param == "children") {
        ParseHelperChildren(call, 3, s.children);
    } else if (param == "realm") {
        if (w.size() < 4) {
            call.error("auth_param " + scheme + " realm needs a text");
            return true;
        }
        s.realm = Rest(w, 3);
        if (s.realm.find('"') != std::string::npos)
            call.error("auth_param " + scheme +
                       " realm cannot hold a double quote: it goes inside realm=\"...\"");
    } else if (param == "utf8") {
        ParseSchemeOnOff(call, scheme, s.utf8);
    } else if (param == "key_extras") {
        call.error(
            "auth_param " + scheme +
            " key_extras is not implemented by cuttle: refusing it, as the helper would decide without "
            "what it adds");
    } else {
        return false;
    }
    return true;
}

void ParseBasicParam(DirectiveCall& call, AuthBasicSettings& basic)
{
    const auto& w = call.line.words;
    const auto& param = w[2];
    if (ParseCommonParam(call, "basic", basic))
        return;
    if (param == "credentialsttl") {
        ParseSchemeDuration(call, "basic", basic.credentialsTtl);
    } else if (param == "casesensitive") {
        ParseSchemeOnOff(call, "basic", basic.caseSensitive);
    } else {
        call.error("unknown auth_param basic parameter '" + param +
                   "': use program, children, realm, credentialsttl, casesensitive or utf8");
    }
}

void ParseDigestParam(DirectiveCall& call, AuthDigestSettings& digest)
{
    const auto& w = call.line.words;
    const auto& param = w[2];
    if (ParseCommonParam(call, "digest", digest))
        return;
    if (param == "nonce_garbage_interval") {
        ParseSchemeDuration(call, "digest", digest.nonceGarbageInterval);
    } else if (param == "nonce_max_duration") {
        ParseSchemeDuration(call, "digest", digest.nonceMaxDuration);
    } else if (param == "nonce_max_count") {
        if (w.size() < 4 || !ParseCount(w[3], digest.nonceMaxCount) || digest.nonceMaxCount == 0)
            call.error("auth_param digest nonce_max_count needs a positive number of uses");
    } else if (param == "nonce_strictness") {
        ParseSchemeOnOff(call, "digest", digest.nonceStrictness);
    } else if (param == "check_nonce_count") {
        ParseSchemeOnOff(call, "digest", digest.checkNonceCount);
    } else if (param == "post_workaround") {
        ParseSchemeOnOff(call, "digest", digest.postWorkaround);
    } else {
        call.error("unknown auth_param digest parameter '" + param +
                   "': use program, children, realm, nonce_garbage_interval, nonce_max_duration, "
                   "nonce_max_count, nonce_strictness, check_nonce_count, post_workaround or utf8");
    }
}

} // namespace

void Config::Handlers::AuthParamHandler(DirectiveCall& call)
{
    const auto& w = call.line.words;
    if (w.size() < 3) {
        call.error("auth_param needs a scheme and a parameter: auth_param basic program /path/to/helper");
        return;
    }
    const auto& scheme = w[1];
    if (scheme == "ntlm" || scheme == "negotiate") {
        call.error("auth_param " + scheme +
                   " is not implemented by cuttle (only basic and digest are): refusing it, as the logins it "
                   "would require could not be checked");
        return;
    }
    if (scheme != "basic" && scheme != "digest") {
        call.error("unknown authentication scheme '" + scheme +
                   "': Squid 5.7 has basic, digest, ntlm and "
                   "negotiate");
        return;
    }
    auto& schemes = call.settings.authSchemes;
    if (std::find(schemes.begin(), schemes.end(), scheme) == schemes.end())
        schemes.push_back(scheme);
    if (scheme == "basic")
        ParseBasicParam(call, call.settings.authBasic);
    else
        ParseDigestParam(call, call.settings.authDigest);
}
