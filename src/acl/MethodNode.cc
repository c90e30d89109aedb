/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/MethodNode.h"
#include "acl/AccessList.h"

namespace Acl {

MethodNode::MethodNode(std::string name) : Node(std::move(name), "method") {}

bool MethodNode::addValues(const std::vector<std::string>& values, std::string&, std::vector<std::string>&)
{
    methods_.insert(values.begin(), values.end());
    return true;
}

bool MethodNode::match(const Checklist& facts) const
{
    return methods_.count(facts.method) != 0;
}

} // namespace Acl
