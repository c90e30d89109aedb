/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/ProxyAuthNode.h"
#include "acl/AccessList.h"
#include "base/Regex.h"
#include "base/Text.h"

#include <algorithm>
#include <cctype>

namespace Acl {

ProxyAuthNode::ProxyAuthNode(std::string name, std::string typeName, bool regex)
    : Node(std::move(name), std::move(typeName)), regex_(regex)
{}

ProxyAuthNode::~ProxyAuthNode() = default;

void ProxyAuthNode::beginLine(const std::vector<std::string>& options)
{
    ignoreCase_ = std::find(options.begin(), options.end(), "-i") != options.end();
}

bool ProxyAuthNode::addValues(const std::vector<std::string>& values, std::string& why,
                              std::vector<std::string>&)
{
    for (const auto& v : values) {
        if (v == "REQUIRED") {
            required_ = true;
        } else if (regex_) {
            auto regex = std::make_unique<Regex>(v, ignoreCase_);
            if (!regex->isValid()) {
                why = "invalid regular expression '" + v + "': " + regex->error();
                return false;
            }
            patterns_.push_back(std::move(regex));
        } else if (ignoreCase_) {
            lowered_.insert(AsciiLowercase(v));
        } else {
            users_.insert(v);
        }
    }
    return true;
}

bool HasValidUser(const Checklist& facts)
{
    switch (facts.auth) {
    case AuthState::Absent:
    case AuthState::Invalid:
        facts.interruption = Answer::AuthRequired;
        return false;
    case AuthState::Unchecked:
        facts.interruption = Answer::Pending;
        facts.lookup = Lookup{Lookup::Kind::Credentials, {}, {}};
        return false;
    case AuthState::Valid:
        break;
    }
    return true;
}

bool ProxyAuthNode::match(const Checklist& facts) const
{
    if (!HasValidUser(facts))
        return false;
    if (required_ || users_.count(facts.user) ||
        (!lowered_.empty() && lowered_.count(AsciiLowercase(facts.user))))
        return true;
    return std::any_of(patterns_.begin(), patterns_.end(),
                       [&facts](const std::unique_ptr<Regex>& r) { return r->matches(facts.user); });
}

} // namespace Acl
