/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/MethodNode.h"
#include "acl/AccessList.h"

#include <strings.h>

namespace Acl {

namespace {

/// Squid 5.7's Http::MethodType names in enum order (METHOD_GET up to
/// METHOD_OTHER): HttpRequestMethodXXX() takes the first one whose
/// beginning matches an acl value, ignoring case.
const char* const SquidMethods[] = {
    "GET",        "POST",     "PUT",        "HEAD",        "CONNECT",
    "TRACE",      "OPTIONS",  "DELETE",     "LINK",        "UNLINK",
    "CHECKOUT",   "CHECKIN",  "UNCHECKOUT", "MKWORKSPACE", "VERSION-CONTROL",
    "REPORT",     "UPDATE",   "LABEL",      "MERGE",       "BASELINE-CONTROL",
    "MKACTIVITY", "PROPFIND", "PROPPATCH",  "MKCOL",       "COPY",
    "MOVE",       "LOCK",     "UNLOCK",     "SEARCH",      "PRI",
    "PURGE",      "OTHER",
};

} // namespace

MethodNode::MethodNode(std::string name) : Node(std::move(name), "method") {}

std::string MethodNode::Canonical(const std::string& value)
{
    if (value.empty())
        return value;
    for (const char* known : SquidMethods) {
        if (strncasecmp(value.c_str(), known, value.size()) == 0)
            return known;
    }
    return value;
}

bool MethodNode::addValues(const std::vector<std::string>& values, std::string& why,
                           std::vector<std::string>& warnings)
{
    for (const auto& value : values) {
        const std::string method = Canonical(value);
        if (method == "OTHER") {
            // Squid reads it as its internal "other method" marker, with no name
            why = "'" + value +
                  "' is not a method name Squid 5.7 can match (it reads it as its internal "
                  "OTHER marker)";
            return false;
        }
        if (method != value)
            warnings.push_back("method '" + value + "' is read as " + method + ", as Squid 5.7 does" +
                               (method.size() == value.size() ? "" : " (it takes the beginning of a name)") +
                               "; write " + method);
        methods_.insert(method);
    }
    return true;
}

bool MethodNode::match(const Checklist& facts) const
{
    return methods_.count(facts.method) != 0;
}

} // namespace Acl
