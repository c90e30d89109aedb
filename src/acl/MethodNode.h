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
///
/// Values are read as Squid 5.7 reads them (HttpRequestMethodXXX() with
/// relaxed_header_parser on, its default): a value that is, ignoring case,
/// the beginning of one of Squid's known method names means the first such
/// method in Squid's order, so `get` is GET and `P` is POST (Squid reads a
/// prefix too). cuttle warns when a value is not the method's exact
/// spelling. Any other token is an extension method, kept as written.
///
/// Requests compare case-sensitively, as in Squid (a request method `get`
/// is an extension method, not GET).
class MethodNode : public Node {
public:
    /// An empty `method` acl.
    explicit MethodNode(std::string name);

    /// The method that Squid 5.7 reads an acl value as: the known method
    /// name it abbreviates or spells in another case, else `value` itself.
    static std::string Canonical(const std::string& value);

    bool addValues(const std::vector<std::string>& values, std::string& why,
                   std::vector<std::string>& warnings) override;
    bool isEmpty() const override { return methods_.empty(); }
    bool match(const Checklist& facts) const override;

private:
    std::set<std::string, std::less<>> methods_;
};

} // namespace Acl
