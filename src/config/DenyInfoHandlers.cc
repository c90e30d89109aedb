/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The handler of `deny_info` (Squid 5.7's aclParseDenyInfoLine()
/// and ErrorDynamicPageInfo's checks).

#include "cuttle.h"
#include "config/Handlers.h"

#include <cctype>
#include <string>

namespace {

/// Why `pattern` is not a deny_info URL cuttle can expand; empty when it is.
std::string CheckUrlCodes(const std::string& pattern)
{
    for (size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] != '%')
            continue;
        if (i + 1 >= pattern.size())
            return "a % at the end of the URL";
        const char code = pattern[++i];
        if (code != '%' && Config::DenyInfoUrlCodes.find(code) == std::string_view::npos) {
            std::string known;
            for (const char c : Config::DenyInfoUrlCodes)
                known += std::string(" %") + c;
            return std::string("the code %") + code + " is not supported (cuttle expands" + known +
                   " and %%)";
        }
    }
    return {};
}

} // namespace

/// `deny_info ERR_PAGE|[NNN:]URL|[NNN:]ERR_PAGE|TCP_RESET ACL...`
void Config::Handlers::DenyInfoHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    const auto& w = call.line.words;
    DenyInfo info;
    std::string what = w[1];
    if (what == "TCP_RESET") {
        info.action = DenyInfo::Action::Reset;
    } else {
        // Squid: a leading status code and a colon, then a page name or a URL
        if (std::isdigit(static_cast<unsigned char>(what[0]))) {
            const auto colon = what.find(':');
            unsigned status = 0;
            if (colon == std::string::npos || !ParseCount(what.substr(0, colon), status) || status < 200 ||
                status > 599) {
                call.error("bad deny_info status in '" + what + "': use NNN:PAGE (200-599) or NNN:URL (3xx)");
                return;
            }
            info.status = int(status);
            what.erase(0, colon + 1);
        }
        const bool isUrl = what.find(':') != std::string::npos;
        info.action = isUrl ? DenyInfo::Action::Redirect : DenyInfo::Action::Page;
        if (info.status >= 300 && info.status < 400 && !isUrl) {
            call.error("deny_info " + w[1] + ": a " + std::to_string(info.status) +
                       " redirect needs an absolute URL");
            return;
        }
        if (info.status != 0 && (info.status < 300 || info.status >= 400) && isUrl) {
            call.error("deny_info " + w[1] + ": a URL needs a 3xx status; a " + std::to_string(info.status) +
                       " needs a page name");
            return;
        }
        if (what.empty()) {
            call.error("deny_info " + w[1] + ": no page name or URL");
            return;
        }
        if (isUrl) {
            if (const auto why = CheckUrlCodes(what); !why.empty()) {
                call.error("bad deny_info URL '" + what + "': " + why);
                return;
            }
        } else if (what.find('/') != std::string::npos || what == "." || what == "..") {
            call.error("deny_info " + w[1] + ": a page is a file name in error_directory (no '/')");
            return;
        }
        info.target = what;
    }
    if (w.size() == 2) // as Squid, which keeps such a line
        call.warning("deny_info " + w[1] + " names no acl: it applies to nothing");
    for (size_t i = 2; i < w.size(); ++i) {
        // Squid keeps the names without looking them up: an unknown one never matches
        if (!call.settings.acls.find(w[i]))
            call.warning("deny_info " + w[1] + ": acl '" + w[i] +
                         "' is not defined (yet): the line applies " + "only if it is defined later");
        info.acls.push_back(w[i]);
    }
    call.settings.denyInfos.push_back(std::move(info));
}
