/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Config::Directive: THE table of the squid.conf directives cuttle implements.
///
/// Each row holds a directive's name, its syntax, its default (as
/// configuration text that the parser itself applies when a file does not
/// set the directive), its one-paragraph documentation, the Settings field
/// it fills, and the handler that parses one line of it. The parser
/// (Config::Parser), squid.conf.default and doc/directives.md
/// (gen-squid-conf) all come from this one table, so they cannot disagree.
///
/// Defaults whose paths depend on the build (`cache_log`, `access_log`,
/// `pid_filename`, `error_directory`) are made from the macros
/// CUTTLE_DEFAULT_LOG_DIR, CUTTLE_DEFAULT_RUN_DIR and
/// CUTTLE_DEFAULT_ERROR_DIR at run time; the generated files show them
/// symbolically (`$(localstatedir)/log/cuttle/access.log`) so that they do not
/// depend on the build's prefix.

#pragma once

#include "config/Diagnostic.h"
#include "config/Lexer.h"
#include "config/Settings.h"

#include <string>
#include <vector>

namespace Config {

/// What a directive handler is given: the line and where its results go.
struct DirectiveCall {
    Settings& settings;                   ///< the snapshot being filled
    const Line& line;                     ///< words[0] is the directive name
    Lexer& lexer;                         ///< resolves paths and reads quoted files
    std::vector<Diagnostic>& diagnostics; ///< where problems go

    /// Reports an error about this line.
    void error(const std::string& reason) const;
    /// Reports a warning about this line.
    void warning(const std::string& reason) const;
    /// The words after the directive name.
    std::vector<std::string> args() const { return {line.words.begin() + 1, line.words.end()}; }
};

/// Parses one line of a directive into settings (reporting through `call`).
using DirectiveHandler = void (*)(DirectiveCall& call);

/// One row of the directive table.
struct Directive {
    const char* name;         ///< as written in squid.conf
    const char* syntax;       ///< the arguments, e.g. "SIZE" or "on|off"
    const char* defaultValue; ///< arguments applied when the file never sets it; nullptr: none
    const char* defaultShown; ///< the default as the generated files show it; nullptr: defaultValue
    const char* field;        ///< the Settings field it fills
    const char* doc;          ///< one paragraph of documentation
    DirectiveHandler handler; ///< parses one line
    bool accumulates;         ///< lines add up (acl, http_access, ...); otherwise the last line wins
};

/// Every directive cuttle implements, in documentation order.
const std::vector<Directive>& Directives();

/// The row for `name`, or nullptr.
const Directive* FindDirective(const std::string& name);

/// Squid directives that cuttle does not implement and that would loosen
/// access control if ignored: their presence is an error. Returns why, or
/// nullptr when `name` is not one of them.
const char* LooseningDirectiveReason(const std::string& name);

/// Every fail-closed Squid directive with its reason (for documentation).
std::vector<std::pair<std::string, std::string>> LooseningDirectives();

/// Where the active part of squid.conf.default puts logs and the pid file.
struct StateLayout {
    std::string logDir = "var/log"; ///< access.log and cache.log; relative: against the start directory
    std::string runDir = "var/run"; ///< cuttle.pid
    /// error page templates; relative: the checkout's own errors/templates;
    /// empty: no error_directory line (the compiled-in default applies)
    std::string errorDir = "errors/templates";
};

/// The active (uncommented) lines of squid.conf.default: Squid's
/// recommended access rules and refresh_pattern lines, plus log and pid
/// paths under `layout.stateDir`.
std::string RecommendedConfig(const StateLayout& layout);

} // namespace Config
