/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/ExternalNode.h"
#include "acl/AccessList.h"
#include "acl/ExternalType.h"

namespace Acl {

ExternalNode::ExternalNode(std::string name) : Node(std::move(name), "external") {}

bool ExternalNode::bind(const ExternalType& type, std::vector<std::string> arguments, std::string& why)
{
    if (type_) {
        why = "an external acl is defined by one line (Squid 5.7: multiple definitions for external ACL)";
        return false;
    }
    type_ = &type;
    arguments_ = std::move(arguments);
    return true;
}

bool ExternalNode::addValues(const std::vector<std::string>&, std::string& why, std::vector<std::string>&)
{
    why = "an external acl needs its external_acl_type (Registry::parse binds it)";
    return false;
}

bool ExternalNode::match(const Checklist& facts) const
{
    if (!type_)
        return false;
    auto words = type_->requestWords(facts, name(), arguments_);
    if (!words)
        return false; // %LOGIN needs credentials first: the interruption is set
    Lookup lookup{Lookup::Kind::External, type_->name(), std::move(*words)};
    const auto* result = facts.answers ? facts.answers->find(lookup) : nullptr;
    if (!result) {
        facts.interruption = Answer::Pending;
        facts.lookup = std::move(lookup);
        return false;
    }
    for (const auto& note : result->notes)
        facts.addNote(note);
    switch (result->verdict) {
    case LookupResult::Verdict::Match:
        return true;
    case LookupResult::Verdict::NoMatch:
        return false;
    case LookupResult::Verdict::Error:
        break;
    }
    // Squid 5.7 (ACLExternal::match): a BH ends the check with DUNNO, which denies
    facts.interruption = Answer::Denied;
    return false;
}

} // namespace Acl
