/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::GroupNode: the `any-of` and `all-of` acl types.

#pragma once

#include "acl/Node.h"

namespace Acl {

/// `acl NAME any-of|all-of ACL...`: each line is one group of acls
/// defined on earlier lines; `any-of` matches when one acl of a group
/// matches, `all-of` when every acl of a group does, and the groups of
/// repeated lines are ORed, as in Squid 5.7. Evaluation stops at the first
/// acl that decides. A group that names an unsupported acl is unsupported.
///
/// The Registry resolves the names (addValues() itself is not used): see
/// addGroup().
class GroupNode : public Node {
public:
    /// An empty group acl; `all` makes it all-of.
    GroupNode(std::string name, bool all);

    /// Not used: the Registry calls addGroup() with the named acls.
    bool addValues(const std::vector<std::string>& values, std::string& why,
                   std::vector<std::string>& warnings) override;
    /// Adds one line's acls as a group (they outlive this node: the
    /// Registry owns them all and defines them before it).
    void addGroup(std::vector<const Node*> members);

    bool isEmpty() const override { return groups_.empty(); }
    bool match(const Checklist& facts) const override;
    bool needsDstAddress() const override;

private:
    bool all_;
    std::vector<std::vector<const Node*>> groups_;
};

} // namespace Acl
