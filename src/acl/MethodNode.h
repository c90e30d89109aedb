/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::MethodNode: the `method` acl type.

#pragma once

#include "acl/Node.h"

#include <set>

namespace Acl {

/// `acl NAME method M...`: the request method is one of the listed names.
/// Names compare case-sensitively, as in Squid (`get` is an extension method,
/// not GET); any token is accepted, so PURGE and other extensions work.
class MethodNode : public Node {
public:
    /// An empty `method` acl.
    explicit MethodNode(std::string name);

    bool addValues(const std::vector<std::string>& values, std::string& why,
                   std::vector<std::string>& warnings) override;
    bool isEmpty() const override { return methods_.empty(); }
    bool match(const Checklist& facts) const override;

private:
    std::set<std::string, std::less<>> methods_;
};

} // namespace Acl
