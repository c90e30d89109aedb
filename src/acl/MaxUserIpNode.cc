/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/MaxUserIpNode.h"
#include "acl/AccessList.h"
#include "acl/ProxyAuthNode.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace Acl {

MaxUserIpNode::MaxUserIpNode(std::string name) : Node(std::move(name), "max_user_ip") {}

bool MaxUserIpNode::addValues(const std::vector<std::string>& values, std::string& why,
                              std::vector<std::string>&)
{
    if (values.empty())
        return true;
    if (hasValue_) {
        why = "max_user_ip is already set to " + std::to_string(maximum_) + " for this acl";
        return false;
    }
    const auto& v = values[0];
    if (values.size() != 1 || v.empty() || v.size() > 9 || !std::all_of(v.begin(), v.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c));
        })) {
        why = "expecting one number of addresses: max_user_ip [-s] N";
        return false;
    }
    maximum_ = std::strtoul(v.c_str(), nullptr, 10);
    hasValue_ = true;
    if (maximum_ == 0) {
        why = "max_user_ip 0 would deny every user: expecting 1 or more";
        return false;
    }
    return true;
}

bool MaxUserIpNode::match(const Checklist& facts) const
{
    if (!HasValidUser(facts) || !facts.userAddresses || !facts.srcAddr.isSet())
        return false;
    if (facts.userAddresses->count(facts.user) <= maximum_)
        return false;
    if (strict_)
        facts.userAddresses->forget(facts.user, facts.srcAddr.toString());
    else
        facts.userAddresses->forgetAll(facts.user);
    return true;
}

} // namespace Acl
