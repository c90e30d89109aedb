/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Config::Lexer: turns squid.conf text into logical lines of words.
///
/// Squid's syntax, as Squid 5.7's cache_cf.cc reads it:
///
///   - a physical line whose first character is `#` is a comment; so is the
///     rest of a line from a word that starts with `#` (`acl Safe_ports port
///     80   # http`); a `#` inside a word (`foo#x`) is part of the word;
///   - a line whose last non-blank character is `\` continues on the next
///     physical line (the backslash is removed, the lines are joined as they
///     are; comment lines in between are skipped); the logical line takes the
///     number of its first physical line;
///   - words are separated by blanks; a word in double quotes is kept with
///     its quotes (`"/etc/squid/ports.txt"`): for acls and list directives it
///     names a file whose lines are values (readValuesFile());
///   - `include PATH...` reads each PATH (a glob pattern; matches in sorted
///     order) in place, nested at most MaxIncludeDepth deep, which also stops
///     include loops; a pattern that matches nothing is an error, as in Squid.
///
/// Relative paths (include, quoted files) are resolved against the base
/// directory given at construction: the directory cuttle started in, which
/// is what Squid does (it uses the current directory).
///
/// Problems are appended to the caller's diagnostics list; lexing never
/// stops early, so every error of a file is reported.

#pragma once

#include "config/Diagnostic.h"

#include <functional>
#include <string>
#include <vector>

namespace Config {

/// One logical line: a directive name and its arguments.
struct Line {
    std::string file;               ///< the file the line is in
    unsigned line = 0;              ///< its first physical line
    std::vector<std::string> words; ///< words[0] is the directive name
};

/// Reads configuration text into logical lines (see the file comment).
class Lexer {
public:
    /// Includes nested deeper than this are an error (Squid's limit is 16 too).
    static constexpr unsigned MaxIncludeDepth = 16;

    /// \param diagnostics where problems are appended
    /// \param baseDirectory absolute directory that relative paths are resolved against
    Lexer(std::vector<Diagnostic>& diagnostics, std::string baseDirectory);

    /// Receives each logical line as soon as it is read, so that diagnostics
    /// of the lexer and of the directives come out in file order.
    using LineHandler = std::function<void(const Line&)>;

    /// Hands the lines of `path` and of everything it includes to `handler`.
    /// A file that cannot be opened is an error naming it.
    void readFile(const std::string& path, const LineHandler& handler);

    /// Hands the lines of `text`, said to come from `fileName`, to `handler`.
    void readText(const std::string& text, const std::string& fileName, const LineHandler& handler);

    /// Appends the lines of `path` and its includes to `out`.
    void readFile(const std::string& path, std::vector<Line>& out);

    /// Appends the lines of `text`, said to come from `fileName`, to `out`.
    void readText(const std::string& text, const std::string& fileName, std::vector<Line>& out);

    /// Reads a quoted-file argument: every non-comment line's words become
    /// values. `quoted` is the word with its quotes. False (and an error at
    /// `from`) when the file cannot be read.
    bool readValuesFile(const std::string& quoted, const Line& from, std::vector<std::string>& values);

    /// `path` made absolute against the base directory (unchanged when already absolute).
    std::string resolve(const std::string& path) const;

    /// Whether a word is a quoted "file" argument.
    static bool IsQuoted(const std::string& word);

    /// A quoted word without its quotes.
    static std::string Unquote(const std::string& word);

private:
    void lex(const std::string& text, const std::string& fileName, unsigned depth, const LineHandler& out);
    void readFileAt(const std::string& path, unsigned depth, const LineHandler& out);
    void include(const Line& line, unsigned depth, const LineHandler& out);
    bool splitWords(const std::string& logical, const std::string& fileName, unsigned lineNo,
                    std::vector<std::string>& words);
    void error(const std::string& file, unsigned line, const std::string& reason);

    std::vector<Diagnostic>& diagnostics_; ///< owned by the caller
    std::string baseDirectory_;            ///< absolute
};

} // namespace Config
