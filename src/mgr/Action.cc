/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "mgr/Action.h"

const std::vector<Mgr::ActionProfile>& Mgr::Actions()
{
    // Squid 5.7's menu order for the actions cuttle has; metrics is cuttle's
    static const std::vector<ActionProfile> actions = {
        {"menu", "Cache Manager Menu", false},
        {"shutdown", "Shut Down the Squid Process", true},
        {"reconfigure", "Reconfigure Squid", true},
        {"rotate", "Rotate Squid Logs", true},
        {"mem", "Memory Utilization", false},
        {"config", "Current Squid Configuration", true},
        {"client_list", "Cache Client List", false},
        {"ipcache", "IP Cache Stats and Contents", false},
        {"fqdncache", "FQDN Cache Stats and Contents", false},
        {"info", "General Runtime Information", false},
        {"objects", "All Cache Objects", false},
        {"vm_objects", "In-Memory and In-Transit Objects", false},
        {"counters", "Traffic and Resource Counters", false},
        {"5min", "5 Minute Average of Counters", false},
        {"60min", "60 Minute Average of Counters", false},
        {"utilization", "Cache Utilization", false},
        {"active_requests", "Client-side Active Requests", false},
        {"storedir", "Store Directory Stats", false},
        {"server_list", "Peer Cache Statistics", false},
        {"metrics", "OpenMetrics (Prometheus) Counters", false},
    };
    return actions;
}

const Mgr::ActionProfile* Mgr::FindAction(std::string_view name)
{
    for (const auto& action : Actions())
        if (name == action.name)
            return &action;
    return nullptr;
}

const char* Mgr::ProtectionName(Protection protection)
{
    switch (protection) {
    case Protection::Public:
        return "public";
    case Protection::Protected:
        return "protected";
    case Protection::Disabled:
        return "disabled";
    case Protection::Hidden:
        return "hidden";
    }
    return "hidden";
}

const std::string* Mgr::PasswordOf(const std::vector<Config::ManagerPassword>& lines, std::string_view action)
{
    // the first line that names the action, or `all`, decides
    for (const auto& line : lines)
        for (const auto& word : line.actions)
            if (word == action || word == "all")
                return &line.password;
    return nullptr;
}

Mgr::Protection Mgr::Protect(const std::vector<Config::ManagerPassword>& lines, const ActionProfile& action)
{
    const std::string* password = PasswordOf(lines, action.name);
    if (!password)
        return action.passwordRequired ? Protection::Hidden : Protection::Public;
    if (*password == "disable")
        return Protection::Disabled;
    if (*password == "none")
        return Protection::Public;
    return Protection::Protected;
}

Mgr::Verdict Mgr::Authorize(const std::vector<Config::ManagerPassword>& lines, std::string_view action,
                            const std::string& password)
{
    const ActionProfile* profile = FindAction(action);
    if (!profile)
        return Verdict::NotFound;
    switch (Protect(lines, *profile)) {
    case Protection::Public:
        return Verdict::Serve;
    case Protection::Disabled:
    case Protection::Hidden:
        return Verdict::NotFound;
    case Protection::Protected:
        break;
    }
    if (password.empty() || password != *PasswordOf(lines, action))
        return Verdict::Unauthorized;
    return Verdict::Serve;
}
