/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Config::HeaderRules: squid.conf's rules for the fields of one
/// direction: `request_header_access`, `request_header_replace` and
/// `request_header_add` (or the reply_ ones), as Squid 5.7 applies them.
///
/// Access rules are grouped by header name. For a field F the group used
/// is the first that has rules of:
///
///   1. F's own name (any case: `cookie` and `Cookie` are one group);
///   2. `Other`, when F's name is not on Squid's list of the header names
///      it knows (IsSquidKnownHeader());
///   3. `All`.
///
/// Within the group the first rule whose acls all match decides (allow
/// keeps F, deny removes it); when none matches, the answer is the
/// opposite of the last rule's, as for http_access (Squid 5.7 does the
/// same, though its documentation says the field is then kept). A removed
/// field whose group has a replacement (`request_header_replace`) is kept
/// with that value instead. `All` and `Other` are names only as written
/// (Squid compares them case-sensitively; `all` is a custom header).
///
/// Additions (`request_header_add NAME VALUE [ACL...]`) go after the rules,
/// untouched by them, in the order of their lines, each when its acls all
/// match (or it has none).

#pragma once

#include "acl/AccessList.h"
#include "log/ValueFormat.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Config {

/// Whether Squid 5.7 knows this header name (its RegisteredHeaders list):
/// such names never fall under `Other`.
bool IsSquidKnownHeader(std::string_view name);

/// The header rules of one direction (see the file comment).
class HeaderRules {
public:
    /// What happens to one field.
    enum class Verdict { Keep, Remove, Replace };

    /// One `*_header_add` line.
    struct Addition {
        std::string name;       ///< the field name, as written
        Log::ValueFormat value; ///< the value (a token is a literal, a quoted string a format)
        Acl::AccessList acls;   ///< the line's acls as one `allow ACL...` rule; empty: always
        std::string origin;     ///< "FILE:LINE", for messages
    };

    /// Parses the words after `*_header_access` (NAME allow|deny [!]ACL...).
    /// False with `why` on a bad line; true with a non-empty `why` is a warning.
    bool parseAccess(const std::vector<std::string>& words, const Acl::Registry& acls, std::string& why);

    /// `*_header_replace NAME VALUE`: the value a field of group NAME gets
    /// instead of being removed (a later line replaces an earlier one).
    void setReplacement(const std::string& name, const std::string& value);

    /// Parses the words after `*_header_add` (NAME VALUE [ACL...]); VALUE is
    /// a token (literal) or a quoted string (with %-codes). False with `why`.
    bool parseAddition(const std::vector<std::string>& words, const Acl::Registry& acls, std::string& why);

    /// Whether there is no access rule and no addition: the heads go as built.
    bool isEmpty() const { return !hasAccessRules() && additions_.empty(); }

    /// Whether some field may be removed or replaced.
    bool hasAccessRules() const;

    /// What happens to a field named `name` in a transaction with `facts`;
    /// on Replace, `replacement` is the new value.
    Verdict check(std::string_view name, const Acl::Checklist& facts, const std::string*& replacement) const;

    /// The additions in the order of their lines.
    const std::vector<Addition>& additions() const { return additions_; }

private:
    /// The rules and the replacement of one header name.
    struct Group {
        std::string name;                       ///< as first written (`All`, `Other` or a header name)
        Acl::AccessList rules;                  ///< its rules in order
        std::optional<std::string> replacement; ///< `*_header_replace`
    };

    /// The group that lines naming `name` fill (`All`, `Other` or a header's), made when missing.
    Group& track(const std::string& name);
    /// The group whose rules decide for a field named `name`, or nullptr.
    const Group* find(std::string_view name) const;

    Group all_;                       ///< `All`
    Group other_;                     ///< `Other`
    std::vector<Group> named_;        ///< one per header name (case-insensitive)
    std::vector<Addition> additions_; ///< in order
};

} // namespace Config
