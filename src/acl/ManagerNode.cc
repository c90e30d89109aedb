/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/ManagerNode.h"
#include "acl/AccessList.h"

#include <strings.h>

namespace Acl {

ManagerNode::ManagerNode() : Node("manager", "url_regex") {}

bool ManagerNode::acceptsOption(const std::string& option) const
{
    return option == "-i" || option == "+i";
}

bool ManagerNode::addValues(const std::vector<std::string>& values, std::string&,
                            std::vector<std::string>& warnings)
{
    for (const auto& value : values) {
        if (value == "-i" || value == "+i")
            continue; // regex flags may sit between patterns
        if (value == "^cache_object://" || value == "^https?://[^/]+/squid-internal-mgr/") {
            warnings.push_back("'" + value + "' is already in the predefined acl manager; ignored");
            continue;
        }
        markUnsupported("is the predefined manager acl extended with the url_regex pattern '" + value +
                        "', and cuttle does not implement url_regex");
    }
    return true;
}

bool ManagerNode::match(const Checklist& facts) const
{
    if (strcasecmp(facts.urlScheme.c_str(), "cache_object") == 0)
        return true;
    static const std::string internal = "/squid-internal-mgr/";
    return (facts.urlScheme == "http" || facts.urlScheme == "https") && facts.urlPath.rfind(internal, 0) == 0;
}

} // namespace Acl
