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
///   - except that the value of a directive that Squid 5.7 reads to the end
///     of the line (`logformat NAME FORMAT`, `err_html_text TEXT`, ...:
///     SquidRestOfLineAfter()) is one word, as written: quotes, blanks and
///     `#` are part of it, as in Squid (`"%{Referer}>h"` is text of the
///     format, not a quoted file name);
///   - `include PATH...` reads each PATH (a glob pattern; matches in sorted
///     order) in place, nested at most MaxIncludeDepth deep; a file that
///     includes itself, directly or through others, is an error at once (an
///     include loop); a pattern that matches nothing is an error, as in
///     Squid; a directory reads nothing, with a warning (Squid is silent);
///     anything but a regular file (a FIFO, /dev/zero) is an error, and so
///     is a file larger than MaxFileSize;
///   - Squid's preprocessor: `if CONDITION` / `else` / `endif`, each alone
///     on its logical line, keep or drop the lines between them (see
///     "Conditional configuration" below), and `${name}` macros are
///     replaced in every kept line (see "Macros").
///
/// Conditional configuration (Squid 5.7's, with two differences):
///
///   - CONDITION is `true`, `false` or `INTEGER = INTEGER` (blanks around
///     `=` optional; integers as C's strtol with base 0 reads them, so
///     `0x10 = 16` is true). Macros are replaced first, so
///     `if ${process_number} = 1` works. Anything else is an error, as in
///     Squid (which has no string comparison: `if ${service_name} = x` fails);
///   - the `if` stack belongs to one file: an `else` or `endif` without its
///     `if`, a second `else`, and an `if` still open at the end of the file
///     are errors at FILE:LINE; an `include` in a dropped block is not read;
///   - unlike Squid 5.7, which looks only at the innermost `if`, a block
///     nested in a dropped block is dropped too; when Squid would have kept
///     it the nested `if` line gets a warning saying so;
///   - `else if` (no else-if in Squid: it ignores the words after `else`)
///     is an error; words after `endif` get a warning.
///
/// Macros: `${name}` in a kept line (and in a condition) is replaced by the
/// value setMacros() gave it, StandardMacros() by default. An unknown name
/// is an error at FILE:LINE (Squid 5.7 leaves it as it is, which would
/// silently make a path or a name with `${...}` in it). A `${` without a
/// closing `}` is left alone. Lines of quoted values files are not
/// preprocessed, as in Squid.
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
#include <utility>
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

    /// Configuration and values files larger than this are refused (a
    /// guard against a huge or endless file; Squid's own files are far smaller).
    static constexpr size_t MaxFileSize = 64 * 1024 * 1024;

    /// Reads the regular file at `path` (already resolved) into `text`.
    /// False with `why` when it cannot be opened or read, is larger than
    /// MaxFileSize, or is not a regular file (a directory sets `isDirectory`;
    /// a FIFO or a device such as /dev/zero is refused without reading).
    static bool ReadWholeFile(const std::string& path, std::string& text, std::string& why,
                              bool& isDirectory);

    /// `${name}` macros (name without `${}`) and their values.
    using Macros = std::vector<std::pair<std::string, std::string>>;

    /// The service name when `-n` does not give one (Squid's is "squid").
    static constexpr const char* DefaultServiceName = "cuttle";

    /// cuttle's macros for worker processNumber of kidCount of service
    /// `serviceName`: `${service_name}` = serviceName, `${process_name}` =
    /// "cuttle", `${process_number}` = processNumber, `${kid_count}` =
    /// kidCount (cuttle's workers are threads of one process, each reading
    /// squid.conf as Squid's kid of that number does; `${kid_count}` is
    /// cuttle's: Squid 5.7 does not know it).
    static Macros StandardMacros(const std::string& serviceName = DefaultServiceName,
                                 unsigned processNumber = 1, unsigned kidCount = 1);

    /// Replaces the macros (StandardMacros() until then).
    void setMacros(Macros macros) { macros_ = std::move(macros); }

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
    /// One open `if` of the file being read.
    struct Conditional {
        unsigned line = 0;        ///< where the `if` is
        bool value = false;       ///< the condition
        bool inElse = false;      ///< after its `else`
        bool parentActive = true; ///< whether the enclosing lines are kept
        /// Whether the lines it governs now are kept.
        bool active() const { return parentActive && value != inElse; }
    };

    /// Reads `path`; `from` is the include line that names it (nullptr for the main file).
    void readFileAt(const std::string& path, unsigned depth, const LineHandler& out, const Line* from);
    bool preprocess(Line& line, std::vector<Conditional>& conditionals);
    bool expandMacros(Line& line, size_t from);
    bool evaluate(const Line& line, bool& value);
    void include(const Line& line, unsigned depth, const LineHandler& out);
    /// Splits a line into words; on a directive line (`isDirective`) of a
    /// directive whose value runs to the end of the line (SquidRestOfLineAfter()),
    /// that value is one word, as written.
    bool splitWords(const std::string& logical, const std::string& fileName, unsigned lineNo,
                    std::vector<std::string>& words, bool isDirective = false);
    void error(const std::string& file, unsigned line, const std::string& reason);

    std::vector<Diagnostic>& diagnostics_; ///< owned by the caller
    std::string baseDirectory_;            ///< absolute
    Macros macros_ = StandardMacros();     ///< `${name}` values
    /// (device, inode) of the files being read, outermost first: including
    /// one of them again is an include loop
    std::vector<std::pair<unsigned long, unsigned long>> reading_;
};

} // namespace Config
