/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Config::SquidOnlyRule: what cuttle does with each Squid 5.7
/// directive it does not implement, and why.
///
/// A Squid directive that cuttle does not implement is ignored with a
/// warning, unless ignoring it could loosen access control or change where
/// traffic goes: then it is refused (an error), fail closed. Some refused
/// directives have a form that provably loosens nothing (`http_reply_access
/// allow all` is what no rule at all does): that form is accepted with the
/// warning. Directives that one would expect to be refused but are not
/// (because they act only through a refused one, or only make Squid stricter
/// than cuttle already is) have a row too, whose reason the warning gives.
/// The lead implementing one of these moves it to the directive table.

#pragma once

#include <string>
#include <utility>
#include <vector>

namespace Config {

/// One decision about a Squid directive cuttle does not implement.
struct SquidOnlyRule {
    const char* name;     ///< the Squid 5.7 directive (its aliases resolve to it)
    bool refused;         ///< an error: ignoring it could loosen access or move traffic
    const char* harmless; ///< refused lines of these forms are accepted: forms split by '|', words by
                          ///< blanks, `*` one word, `...` the rest; nullptr: none
    const char* why;      ///< refused: what ignoring it would let through; else why ignoring it cannot
};

/// Every decision, refused ones first, in the order of doc/differences.md.
const std::vector<SquidOnlyRule>& SquidOnlyRules();

/// The rule for `name`, or nullptr (then the directive is only warned about).
const SquidOnlyRule* FindSquidOnlyRule(const std::string& name);

/// Whether `args` (the words after the directive) have one of the rule's
/// harmless forms.
bool IsHarmless(const SquidOnlyRule& rule, const std::vector<std::string>& args);

/// Squid directives that cuttle does not implement and that would loosen
/// access control if ignored: their presence is an error (except in their
/// harmless forms). Returns why, or nullptr when `name` is not one of them.
const char* LooseningDirectiveReason(const std::string& name);

/// Every fail-closed Squid directive with its reason (for documentation).
std::vector<std::pair<std::string, std::string>> LooseningDirectives();

} // namespace Config
