/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::ProxyAuthNode: the `proxy_auth` and `proxy_auth_regex` acl types.

#pragma once

#include "acl/Node.h"

#include <memory>
#include <set>

class Regex;

namespace Acl {

/// Whether `facts` carry a valid user. If not, stops the check as a
/// proxy_auth acl does: AuthRequired without (good) credentials, Pending
/// with a Credentials lookup while they are not checked yet.
bool HasValidUser(const Checklist& facts);

/// `acl NAME proxy_auth [-i] REQUIRED|USER...` and `acl NAME
/// proxy_auth_regex [-i] REGEX...`: the request's proxy credentials are
/// valid and their user is listed (REQUIRED: any user), as Squid 5.7 checks
/// them. Evaluating one with no, bad or unchecked credentials stops the
/// check (Checklist::interruption): the client answers 407, or checks the
/// credentials with the auth_param helper and runs the rules again.
/// User names compare case-sensitively unless `-i`.
class ProxyAuthNode : public Node {
public:
    /// An empty acl of type `typeName` (proxy_auth, or proxy_auth_regex when `regex`).
    ProxyAuthNode(std::string name, std::string typeName, bool regex);
    ~ProxyAuthNode() override;

    bool acceptsOption(const std::string& option) const override { return option == "-i" || option == "+i"; }
    void beginLine(const std::vector<std::string>& options) override;
    bool takesWholeFileLines() const override { return true; }
    bool addValues(const std::vector<std::string>& values, std::string& why,
                   std::vector<std::string>& warnings) override;
    bool isEmpty() const override { return !required_ && users_.empty() && patterns_.empty(); }
    bool match(const Checklist& facts) const override;
    bool isProxyAuth() const override { return true; }

private:
    bool regex_;
    bool ignoreCase_ = false;       ///< the current line's -i
    bool required_ = false;         ///< REQUIRED: any valid user
    std::set<std::string> users_;   ///< names listed without -i, compared as they are
    std::set<std::string> lowered_; ///< names listed under -i, lowercased
    std::vector<std::unique_ptr<Regex>> patterns_;
};

} // namespace Acl
