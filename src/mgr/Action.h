/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Mgr::Action: the cache manager's actions cuttle serves (Squid 5.7's
/// names, descriptions and order, plus cuttle's own `metrics`), and
/// cachemgr_passwd's rules over them: which password an action has and
/// whether a request may run it (doc/design.md "The cache manager").

#pragma once

#include "config/Settings.h"

#include <string>
#include <string_view>
#include <vector>

namespace Mgr {

/// One action: a page, or a command (shutdown, reconfigure, rotate).
struct ActionProfile {
    const char* name;        ///< as in the URL: cache_object://HOST/NAME, /squid-internal-mgr/NAME
    const char* description; ///< what the menu says (Squid 5.7's words)
    bool passwordRequired;   ///< Squid's isPwReq: hidden (404) unless cachemgr_passwd names it
};

/// Every action, in the order of Squid 5.7's menu.
const std::vector<ActionProfile>& Actions();

/// The action called `name`, or nullptr.
const ActionProfile* FindAction(std::string_view name);

/// What cachemgr_passwd makes of an action (Squid 5.7's ActionProtection()).
enum class Protection {
    Public,    ///< served to anyone http_access lets in (`none`, or no line and no password required)
    Protected, ///< served with the right password
    Disabled,  ///< `disable`: answered 404
    Hidden     ///< no line names it and it needs a password: answered 404
};

/// The word the menu shows for a protection: public, protected, disabled, hidden.
const char* ProtectionName(Protection protection);

/// The password the first cachemgr_passwd line naming `action` (or `all`)
/// gives it, or nullptr when none does (Squid 5.7's PasswdGet()).
const std::string* PasswordOf(const std::vector<Config::ManagerPassword>& lines, std::string_view action);

/// The protection of `action` under `lines`.
Protection Protect(const std::vector<Config::ManagerPassword>& lines, const ActionProfile& action);

/// How a request for an action is answered.
enum class Verdict {
    Serve,       ///< run it
    NotFound,    ///< 404 ERR_INVALID_URL: unknown, disabled or hidden
    Unauthorized ///< 401 ERR_CACHE_MGR_ACCESS_DENIED, with WWW-Authenticate: Basic realm="ACTION"
};

/// Squid 5.7's rules: the action must exist and be neither disabled nor
/// hidden; a protected one needs `password` (empty: none given) to be its own.
Verdict Authorize(const std::vector<Config::ManagerPassword>& lines, std::string_view action,
                  const std::string& password);

} // namespace Mgr
