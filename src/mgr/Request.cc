/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "mgr/Request.h"

std::optional<Mgr::Request> Mgr::ParseRequest(bool cacheObject, std::string_view path)
{
    if (path.rfind(InternalPrefix, 0) == 0)
        path.remove_prefix(InternalPrefix.size());
    else if (!path.empty() && path[0] == '/')
        path.remove_prefix(1);
    else
        return std::nullopt;
    // Squid 5.7's field characters: anything but "?#", and '@' too in a
    // cache_object URL, where it starts the password
    const std::string_view stops = cacheObject ? "@?#" : "?#";
    Request request;
    auto end = path.find_first_of(stops);
    request.action = std::string(path.substr(0, end));
    path.remove_prefix(end == std::string_view::npos ? path.size() : end);
    if (request.action.empty())
        request.action = cacheObject ? "menu" : "index";
    if (cacheObject && !path.empty() && path[0] == '@') {
        path.remove_prefix(1);
        end = path.find_first_of(stops);
        request.password = std::string(path.substr(0, end));
        path.remove_prefix(end == std::string_view::npos ? path.size() : end);
    }
    if (!path.empty() && path[0] == '?') {
        const auto fragment = path.find('#');
        path.remove_prefix(fragment == std::string_view::npos ? path.size() : fragment);
    }
    if (!path.empty() && path[0] != '#')
        return std::nullopt;
    return request;
}
