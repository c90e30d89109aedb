/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The names of Squid 5.7's directives, so that the parser can tell a
/// Squid directive cuttle does not implement (a warning, or an error where
/// ignoring it could loosen access control) from a typo (an error).

#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace Config {

/// Whether `name` is a directive of Squid 5.7 (squid.conf.documented's TAG list).
bool IsSquidDirective(const std::string& name);

/// Number of Squid 5.7 directive names known.
size_t SquidDirectiveCount();

/// The i-th known Squid directive name in sorted order, or nullptr past the end.
const char* SquidDirectiveName(size_t i);

/// How many words (the directive's name included) come before the value of
/// a directive that Squid 5.7 reads to the end of the line as it is written
/// (ConfigParser::NextQuotedOrToEol(): `logformat NAME FORMAT` is 2,
/// `err_html_text TEXT` is 1); 0 for the others.
size_t SquidRestOfLineAfter(const std::string& name);

/// An old name that Squid 5.7 still accepts for a directive: the extra
/// words of a `NAME:` line of its cf.data.pre (`NAME: access_log
/// cache_access_log`). An alias line is parsed exactly as its target's.
struct SquidAlias {
    const char* alias;  ///< the old name
    const char* target; ///< the directive it stands for
};

/// Every alias of Squid 5.7 (obsolete directives' aliases excepted: those
/// are in the obsolete table), in cf.data.pre's order.
const std::vector<SquidAlias>& SquidAliases();

/// The directive that `name` is Squid 5.7's alias of, or nullptr.
const char* SquidAliasTarget(const std::string& name);

/// The aliases of `target`, in cf.data.pre's order (empty when it has none).
std::vector<std::string> SquidAliasesOf(const std::string& target);

/// A directive that Squid 5.7 itself reports as obsolete (`TYPE: obsolete`
/// in its cf.data.pre): it logs "ERROR: Directive 'NAME' is obsolete." and
/// its advice, and goes on, except for the fatal ones.
struct ObsoleteDirective {
    const char* name;   ///< as written (obsolete aliases have rows of their own)
    const char* advice; ///< Squid 5.7's words for what to do instead (empty: it has none)
    bool fatal;         ///< Squid 5.7 refuses the file (log_access, log_icap)
};

/// Every obsolete directive of Squid 5.7, in cf.data.pre's order.
const std::vector<ObsoleteDirective>& ObsoleteDirectives();

/// The obsolete directive `name`, or nullptr.
const ObsoleteDirective* FindObsoleteDirective(const std::string& name);

} // namespace Config
