/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::Lookup, Acl::LookupResult and Acl::LookupAnswers: what an acl
/// needs looked up before it can match, and the answers found so far.
///
/// The acl part cannot run helpers or resolvers (it includes base only), so
/// an acl that needs a lookup describes it and stops the check:
///
///     AccessList::check(facts)
///        acl->match(): facts.answers->find(lookup)?
///           found     -> match on the answer
///           not found -> facts.lookup = lookup, interruption = Pending
///     caller (Client::Connection::checkAccess)
///        starts the lookup (Client::Lookups), caches the answer,
///        runs the check again from the start: now it is found
///
/// doc/design.md "Lookups".

#pragma once

#include <string>
#include <utility>
#include <vector>

namespace Acl {

/// One asynchronous lookup an acl needs.
struct Lookup {
    /// what has to be looked up
    enum class Kind {
        Credentials, ///< the request's proxy credentials (auth_param's helper)
        External,    ///< an external_acl_type helper's verdict on `key`
        AddressName, ///< the names of the address words[0] (reverse DNS, srcdomain)
    };
    Kind kind = Kind::Credentials; ///< what to look up
    std::string helper;            ///< External: the external_acl_type name
    /// External: the words of the request line, unescaped (the format's
    /// values, then the acl's arguments); the client escapes and joins them
    std::vector<std::string> words;

    /// whether both name the same lookup
    bool operator==(const Lookup& other) const
    {
        return kind == other.kind && helper == other.helper && words == other.words;
    }
};

/// A key=value note a helper returned (Squid's request notes).
using Note = std::pair<std::string, std::string>;

/// The answer of one lookup as acls read it.
struct LookupResult {
    /// the helper's verdict
    enum class Verdict {
        Match,   ///< OK
        NoMatch, ///< ERR
        Error,   ///< BH, or no helper answered: never allows
    };
    Verdict verdict = Verdict::Error; ///< OK, ERR or BH
    std::vector<Note> notes;          ///< the reply's key=value pairs in order (user=, tag=, ...)
    /// AddressName: the address's names, the canonical one first (verdict
    /// Match), or none (NoMatch: no name; Error: the lookup failed)
    std::vector<std::string> names;
};

/// The lookups answered so far (the client side's cache); Checklist::answers.
class LookupAnswers {
public:
    virtual ~LookupAnswers() = default;
    /// the answer to `lookup`, or nullptr when it has to be looked up
    virtual const LookupResult* find(const Lookup& lookup) const = 0;
};

} // namespace Acl
