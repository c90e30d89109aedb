/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Mgr::Request: what a cache manager URL asks for (Squid 5.7's
/// CacheManager::ParseUrl()).

#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace Mgr {

/// The path under which Squid serves its manager over http:
/// http://HOST:PORT/squid-internal-mgr/ACTION
constexpr std::string_view InternalPrefix = "/squid-internal-mgr/";

/// An action and the password that came with it.
struct Request {
    std::string action;   ///< the action's name (not checked here: see Authorize())
    std::string password; ///< empty: none given
};

/// Parses a manager URL's path (with its query). `cacheObject`: the URL's
/// scheme is cache_object, whose path is /ACTION[@PASSWORD], and an empty
/// action means menu; otherwise the path is /squid-internal-mgr/ACTION (an
/// empty action is Squid's `index`, which cuttle does not have). A `?query`
/// is ignored. nullopt: the path is not a manager URL (Squid answers 404
/// ERR_INVALID_URL).
std::optional<Request> ParseRequest(bool cacheObject, std::string_view path);

} // namespace Mgr
