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
/// `pid_filename`) are made from the macros CUTTLE_DEFAULT_LOG_DIR and
/// CUTTLE_DEFAULT_RUN_DIR at run time (and cuttle's own error templates,
/// which error_directory's documentation names, from
/// CUTTLE_DEFAULT_ERROR_DIR); the generated files show them
/// symbolically (`$(localstatedir)/log/cuttle/access.log`) so that they do not
/// depend on the build's prefix.

#pragma once

#include "config/Diagnostic.h"
#include "config/Lexer.h"
#include "config/Settings.h"

#include <string>
#include <vector>

namespace Config {

/// Warnings that one parse gives once per key, at the first line that
/// raises it, with a count of the lines that raised it again: "WARNING:
/// 'cache_dir' is a Squid directive ...; ignoring it (and on 2 more lines)".
class RepeatedWarnings {
public:
    /// Adds `reason` as a warning about `line` the first time `key` comes;
    /// later, counts it. `what` names the repeats in the count ("acl lines
    /// of type ident"); empty: "lines".
    void warn(std::vector<Diagnostic>& diagnostics, const Line& line, const std::string& key,
              const std::string& reason, const std::string& what = std::string());

    /// Appends each count to its first warning, and forgets every key.
    void finish(std::vector<Diagnostic>& diagnostics);

private:
    /// One key's first warning and how many lines raised it.
    struct Entry {
        std::string key;  ///< what makes two warnings one
        size_t index;     ///< of the first warning in the diagnostics
        unsigned count;   ///< lines that raised it, the first included
        std::string what; ///< names the repeats
    };
    std::vector<Entry> entries_; ///< in the order of their first lines
};

/// What a directive handler is given: the line and where its results go.
struct DirectiveCall {
    Settings& settings;                   ///< the snapshot being filled
    const Line& line;                     ///< words[0] is the directive name as written (maybe an alias)
    Lexer& lexer;                         ///< resolves paths and reads quoted files
    std::vector<Diagnostic>& diagnostics; ///< where problems go
    RepeatedWarnings* repeated = nullptr; ///< the parse's once-per-key warnings; nullptr: none
    /// resolves the host names of address acls (Parser::setHostResolver()); nullptr: none
    const Acl::IpNode::HostResolver* resolveHost = nullptr;

    /// Reports an error about this line.
    void error(const std::string& reason) const;
    /// Reports a warning about this line.
    void warning(const std::string& reason) const;
    /// Reports a warning once per `key` in this parse (RepeatedWarnings::warn);
    /// without `repeated`, every time.
    void warningOnce(const std::string& key, const std::string& reason, const std::string& what) const;
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

/// Where the active part of squid.conf.default puts logs and the pid file.
struct StateLayout {
    std::string logDir = "var/log"; ///< access.log and cache.log; relative: against the start directory
    std::string runDir = "var/run"; ///< cuttle.pid
};

/// The active (uncommented) lines of squid.conf.default: Squid's
/// recommended access rules and refresh_pattern lines, plus log and pid
/// paths under `layout.stateDir`.
std::string RecommendedConfig(const StateLayout& layout);

} // namespace Config
