/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/AccessList.h"
#include "acl/Node.h"
#include "acl/Registry.h"
#include "base/Text.h"

#include <algorithm>

namespace Acl {

bool AccessList::parse(const std::vector<std::string>& words, const Registry& acls, std::string& why)
{
    why.clear();
    if (words.empty()) {
        why = "missing 'allow' or 'deny'";
        return false;
    }
    Rule rule;
    if (words[0] == "allow") {
        rule.action = Answer::Allowed;
    } else if (words[0] == "deny") {
        rule.action = Answer::Denied;
    } else {
        why = "expecting 'allow' or 'deny', got '" + words[0] + "'";
        return false;
    }
    if (words.size() == 1) {
        // Squid 5.7: "Access line contains no ACL's, skipping".
        why = "access line contains no acl, skipping it (as Squid does)";
        return true;
    }

    for (size_t i = 1; i < words.size(); ++i) {
        Term term;
        std::string name = words[i];
        if (!name.empty() && name.front() == '!') {
            term.negated = true;
            name.erase(0, 1);
        }
        term.acl = acls.find(name);
        if (!term.acl) {
            why = name.empty() ? std::string("'!' must be followed by an acl name, with no space")
                               : "acl " + name + " is not defined";
            return false;
        }
        if (!term.acl->isSupported()) {
            why = "acl " + name + " " + term.acl->unsupportedReason() +
                  "; refusing the rule rather than dropping it";
            return false;
        }
        rule.terms.push_back(term);
    }
    rules_.push_back(std::move(rule));
    return true;
}

Answer AccessList::check(const Checklist& facts) const
{
    facts.interruption = Answer::Allowed;
    facts.lastAcl = {};
    for (const auto& rule : rules_) {
        bool allMatch = true;
        for (const auto& t : rule.terms) {
            facts.lastAcl = t.acl->name();
            const bool matched = t.acl->match(facts) != t.negated;
            if (facts.interruption != Answer::Allowed)
                return facts.interruption;
            if (!matched) {
                allMatch = false;
                break;
            }
        }
        if (allMatch) {
            // Squid: a denial whose last acl checks credentials asks for others
            if (rule.action == Answer::Denied && rule.terms.back().acl->isProxyAuth())
                return Answer::AuthRequired;
            return rule.action;
        }
    }
    if (rules_.empty())
        return Answer::Denied;
    return rules_.back().action == Answer::Allowed ? Answer::Denied : Answer::Allowed;
}

void Checklist::addNote(const Note& note) const
{
    if (std::find(notes.begin(), notes.end(), note) == notes.end())
        notes.push_back(note);
}

std::string Checklist::noteValue(const std::string& key) const
{
    for (const auto& n : notes) {
        if (n.first == key)
            return n.second;
    }
    return std::string();
}

std::vector<std::string> Checklist::tlsServerNames(ServerNameSource source) const
{
    if (source != ServerNameSource::ClientRequested && !tlsCertNames.empty())
        return tlsCertNames;
    if (source == ServerNameSource::ServerProvided)
        return {"none"};
    return {tlsSni.empty() ? dstHost : tlsSni};
}

std::optional<std::string> Checklist::addressName(const Address& address) const
{
    if (!address.isSet())
        return std::string("none");
    Lookup wanted{Lookup::Kind::AddressName, {}, {address.toString()}};
    const auto* result = answers ? answers->find(wanted) : nullptr;
    if (!result) {
        interruption = Answer::Pending;
        lookup = std::move(wanted);
        return std::nullopt;
    }
    // Squid 5.7 matches "none" when the address has no name or the lookup failed
    if (result->names.empty())
        return std::string("none");
    return AsciiLowercase(result->names.front());
}

bool AccessList::needsDstAddress() const
{
    return std::any_of(rules_.begin(), rules_.end(), [](const Rule& r) {
        return std::any_of(r.terms.begin(), r.terms.end(),
                           [](const Term& t) { return t.acl->needsDstAddress(); });
    });
}

} // namespace Acl
