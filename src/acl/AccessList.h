/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::AccessList: an ordered `http_access`-style rule list with
/// Squid's first-match semantics and implicit last rule.

#pragma once

#include "acl/Address.h"
#include "acl/forward.h"

#include <cstdint>
#include <string>
#include <vector>

namespace Acl {

/// The answer of a rule list.
enum class Answer { Allowed, Denied };

/// The facts a rule is checked against: one transaction.
///
/// Addresses are Acl::Address values: fill them with
/// Address::FromSockaddr() from getpeername()/the resolved origin, or
/// Address::Parse() from a literal. An IPv4 client on a dual-stack socket
/// (::ffff:a.b.c.d) matches IPv4 rules either way.
struct Checklist {
    Address srcAddr; ///< client address; unset matches no src acl
    Address
        dstAddr; ///< origin address when resolved; unset: dstHost if it is a literal, else no dst acl matches
    std::string dstHost;   ///< host name or literal from the URL
    uint16_t dstPort = 0;  ///< port from the URL (80 when absent)
    std::string method;    ///< request method as sent, e.g. "GET", "CONNECT"
    std::string urlScheme; ///< lowercase scheme: "http", "https", "cache_object", ...
    std::string urlPath;   ///< path of the URL, for the `manager` acl
};

/// `http_access allow|deny [!]acl...` lines in order.
///
/// check(): the first rule whose acls all match decides. When no rule
/// matches, the answer is the opposite of the last rule's action (Squid's
/// implicit last rule); with no rules at all, Denied.
class AccessList {
public:
    /// Parses the words after `http_access` (allow|deny [!]NAME...). Every
    /// named acl must exist in `acls` and be supported, or the line is an
    /// error (fail closed: a rule is never silently dropped). A missing or
    /// unknown action is an error too (Squid 5.7 only logs it and skips the
    /// line, which would drop a rule).
    ///
    /// As in Squid, an action with no acl (`http_access allow`) is skipped
    /// with a warning: parse() returns true, adds no rule, and sets `why`.
    /// So on true, a non-empty `why` is a warning to log.
    bool parse(const std::vector<std::string>& words, const Registry& acls, std::string& why);

    /// The list's answer for one transaction.
    Answer check(const Checklist& facts) const;

    /// Number of rules parsed.
    size_t size() const { return rules_.size(); }

    /// Whether some rule uses an acl that reads Checklist::dstAddr (a `dst`
    /// acl), so the caller should resolve the origin before check().
    bool needsDstAddress() const;

private:
    struct Term {
        const Node* acl = nullptr; ///< owned by the Registry, which outlives the list
        bool negated = false;
    };
    struct Rule {
        Answer action = Answer::Denied;
        std::vector<Term> terms;
    };
    std::vector<Rule> rules_;
};

} // namespace Acl
