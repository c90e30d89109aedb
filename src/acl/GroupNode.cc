/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/GroupNode.h"
#include "acl/AccessList.h"

#include <algorithm>

namespace Acl {

GroupNode::GroupNode(std::string name, bool all) : Node(std::move(name), all ? "all-of" : "any-of"), all_(all)
{}

bool GroupNode::addValues(const std::vector<std::string>&, std::string& why, std::vector<std::string>&)
{
    why = "a group acl takes its acls from the Registry";
    return false;
}

void GroupNode::addGroup(std::vector<const Node*> members)
{
    for (const auto* member : members) {
        if (!member->isSupported())
            markUnsupported("uses acl " + member->name() + ", which " + member->unsupportedReason());
    }
    groups_.push_back(std::move(members));
}

bool GroupNode::match(const Checklist& facts) const
{
    const auto one = [&facts](const Node* n) { return n->match(facts); };
    return std::any_of(groups_.begin(), groups_.end(), [this, &one](const std::vector<const Node*>& g) {
        return all_ ? std::all_of(g.begin(), g.end(), one) : std::any_of(g.begin(), g.end(), one);
    });
}

bool GroupNode::needsDstAddress() const
{
    return std::any_of(groups_.begin(), groups_.end(), [](const std::vector<const Node*>& g) {
        return std::any_of(g.begin(), g.end(), [](const Node* n) { return n->needsDstAddress(); });
    });
}

} // namespace Acl
