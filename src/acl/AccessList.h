/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::AccessList: an ordered `http_access`-style rule list with
/// Squid's first-match semantics and implicit last rule.

#pragma once

#include "acl/forward.h"

#include <cstdint>
#include <string>
#include <vector>

namespace Acl {

/// The answer of a rule list.
enum class Answer { Allowed, Denied };

/// The facts a rule is checked against: one transaction.
struct Checklist {
    std::string srcAddr;  ///< client address literal (IPv4 or IPv6)
    std::string dstAddr;  ///< origin address literal when resolved, else empty
    std::string dstHost;  ///< host name or literal from the URL
    uint16_t dstPort = 0; ///< port from the URL (80 when absent)
    std::string method;   ///< request method as sent, e.g. "GET", "CONNECT"
    std::string urlScheme; ///< "http", "https", "cache_object", ...
    std::string urlPath;  ///< path of the URL, for the `manager` acl
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
    /// error (fail closed: a rule is never silently dropped).
    bool parse(const std::vector<std::string>& words, const Registry& acls, std::string& why);

    /// The list's answer for one transaction.
    Answer check(const Checklist& facts) const;

    /// Number of rules parsed.
    size_t size() const { return rules_.size(); }

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
