/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "config/Lexer.h"
#include "config/SquidDirectives.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <glob.h>
#include <sys/stat.h>

std::string Config::Diagnostic::format() const
{
    std::string out = file;
    if (line)
        out += ":" + std::to_string(line);
    out += level == Level::Warning ? ": WARNING: " : ": ";
    out += reason;
    return out;
}

Config::Lexer::Lexer(std::vector<Diagnostic>& diagnostics, std::string baseDirectory)
    : diagnostics_(diagnostics), baseDirectory_(std::move(baseDirectory))
{
    if (baseDirectory_.empty())
        baseDirectory_ = "/";
}

void Config::Lexer::error(const std::string& file, unsigned line, const std::string& reason)
{
    diagnostics_.push_back(Diagnostic{Diagnostic::Level::Error, file, line, reason});
}

std::string Config::Lexer::resolve(const std::string& path) const
{
    if (path.empty() || path[0] == '/')
        return path;
    if (baseDirectory_.back() == '/')
        return baseDirectory_ + path;
    return baseDirectory_ + "/" + path;
}

bool Config::Lexer::IsQuoted(const std::string& word)
{
    return word.size() >= 2 && word.front() == '"' && word.back() == '"';
}

std::string Config::Lexer::Unquote(const std::string& word)
{
    return IsQuoted(word) ? word.substr(1, word.size() - 2) : word;
}

void Config::Lexer::readFile(const std::string& path, const LineHandler& handler)
{
    readFileAt(path, 0, handler, nullptr);
}

void Config::Lexer::readText(const std::string& text, const std::string& fileName, const LineHandler& handler)
{
    lex(text, fileName, 0, handler);
}

void Config::Lexer::readFile(const std::string& path, std::vector<Line>& out)
{
    readFile(path, LineHandler([&out](const Line& line) { out.push_back(line); }));
}

void Config::Lexer::readText(const std::string& text, const std::string& fileName, std::vector<Line>& out)
{
    readText(text, fileName, LineHandler([&out](const Line& line) { out.push_back(line); }));
}

bool Config::Lexer::ReadWholeFile(const std::string& path, std::string& text, std::string& why,
                                  bool& isDirectory)
{
    isDirectory = false;
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) {
        why = std::strerror(errno);
        return false;
    }
    if (S_ISDIR(st.st_mode)) {
        isDirectory = true;
        why = "it is a directory";
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        // a FIFO would block, a device like /dev/zero would never end
        why = "it is not a regular file";
        return false;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        why = std::strerror(errno);
        return false;
    }
    text.clear();
    char buffer[64 * 1024];
    while (in.read(buffer, sizeof(buffer)) || in.gcount() > 0) {
        if (text.size() + static_cast<size_t>(in.gcount()) > MaxFileSize) {
            why = "it is larger than " + std::to_string(MaxFileSize / (1024 * 1024)) + " MB";
            return false;
        }
        text.append(buffer, static_cast<size_t>(in.gcount()));
    }
    if (in.bad()) {
        why = "read error";
        return false;
    }
    return true;
}

void Config::Lexer::readFileAt(const std::string& path, unsigned depth, const LineHandler& out,
                               const Line* from)
{
    // problems of an included file are told at the include line
    auto report = [&](Diagnostic::Level level, const std::string& reason) {
        if (from)
            diagnostics_.push_back(
                Diagnostic{level, from->file, from->line, "include '" + path + "': " + reason});
        else
            diagnostics_.push_back(Diagnostic{level, path, 0, reason});
    };
    const std::string resolved = resolve(path);
    struct stat st {};
    if (stat(resolved.c_str(), &st) == 0) {
        for (const auto& [dev, ino] : reading_) {
            if (dev == st.st_dev && ino == st.st_ino) {
                report(Diagnostic::Level::Error,
                       "an include loop: the file is already being read; not reading it again");
                return;
            }
        }
    }
    std::string text, why;
    bool isDirectory = false;
    if (!ReadWholeFile(resolved, text, why, isDirectory)) {
        if (isDirectory && from)
            report(Diagnostic::Level::Warning,
                   "is a directory, so nothing is read from it (as in Squid); to read "
                   "the files in it, include '" +
                       path + "/*'");
        else
            report(Diagnostic::Level::Error, "cannot open the configuration file: " + why);
        return;
    }
    reading_.emplace_back(st.st_dev, st.st_ino);
    lex(text, path, depth, out);
    reading_.pop_back();
}

// Squid 5.7 cache_cf.cc: comment lines are dropped before continuation is
// looked at, trailing blanks are stripped, then a final backslash joins.
void Config::Lexer::lex(const std::string& text, const std::string& fileName, unsigned depth,
                        const LineHandler& out)
{
    std::vector<Conditional> conditionals; // Squid keeps one if-stack per file
    std::string logical;
    unsigned firstLine = 0;
    unsigned lineNo = 0;
    size_t pos = 0;
    bool continuing = false;

    auto flush = [&]() {
        Line line;
        line.file = fileName;
        line.line = firstLine;
        if (splitWords(logical, fileName, firstLine, line.words, true) && !line.words.empty() &&
            preprocess(line, conditionals)) {
            if (line.words[0] == "include")
                include(line, depth, out);
            else
                out(line);
        }
        logical.clear();
        continuing = false;
    };

    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string::npos)
            end = text.size();
        std::string physical = text.substr(pos, end - pos);
        pos = end + 1;
        ++lineNo;

        if (!physical.empty() && physical.back() == '\r')
            physical.pop_back();
        if (!physical.empty() && physical[0] == '#')
            continue;
        while (!physical.empty() && (physical.back() == ' ' || physical.back() == '\t'))
            physical.pop_back();
        if (!continuing)
            firstLine = lineNo;
        if (!physical.empty() && physical.back() == '\\') {
            physical.pop_back();
            logical += physical;
            continuing = true;
            continue;
        }
        logical += physical;
        flush();
    }
    if (continuing)
        flush(); // a backslash on the last line continues into nothing
    for (const auto& c : conditionals)
        error(fileName, c.line, "'if' without 'endif' at the end of the file");
}

Config::Lexer::Macros Config::Lexer::StandardMacros(const std::string& serviceName, unsigned processNumber,
                                                    unsigned kidCount)
{
    return {{"service_name", serviceName},
            {"process_name", "cuttle"},
            {"process_number", std::to_string(processNumber)},
            {"kid_count", std::to_string(kidCount)}};
}

// Squid 5.7 cache_cf.cc parseOneConfigFile(): `if`, `else` and `endif` are
// recognized after macro substitution, whether or not the enclosing block
// is kept (so a bad condition is an error anywhere, as in Squid).
bool Config::Lexer::preprocess(Line& line, std::vector<Conditional>& conditionals)
{
    const bool active = conditionals.empty() || conditionals.back().active();
    const std::string& keyword = line.words[0];
    if (keyword == "if") {
        Conditional c;
        c.line = line.line;
        c.parentActive = active;
        Line condition = line;
        if (expandMacros(condition, 1))
            evaluate(condition, c.value);
        if (!active && c.value)
            diagnostics_.push_back(Diagnostic{Diagnostic::Level::Warning, line.file, line.line,
                                              "this 'if' is inside a block that is dropped, so cuttle drops "
                                              "its lines; Squid 5.7, which looks only at the innermost 'if', "
                                              "would keep them"});
        conditionals.push_back(c);
        return false;
    }
    if (keyword == "else") {
        if (conditionals.empty()) {
            error(line.file, line.line, "'else' without 'if'");
            return false;
        }
        Conditional& c = conditionals.back();
        if (line.words.size() > 1)
            error(line.file, line.line,
                  "'else' takes nothing after it: else-if is not supported (Squid would ignore '" +
                      line.words[1] + "'...)");
        if (c.inElse) {
            error(line.file, line.line,
                  "a second 'else' for the 'if' at " + line.file + ":" + std::to_string(c.line));
            return false;
        }
        c.inElse = true;
        if (!c.parentActive && !c.value)
            diagnostics_.push_back(Diagnostic{Diagnostic::Level::Warning, line.file, line.line,
                                              "this 'else' is inside a block that is dropped, so cuttle "
                                              "drops its lines; Squid 5.7, which looks only at the "
                                              "innermost 'if', would keep them"});
        return false;
    }
    if (keyword == "endif") {
        if (conditionals.empty()) {
            error(line.file, line.line, "'endif' without 'if'");
            return false;
        }
        if (line.words.size() > 1)
            diagnostics_.push_back(
                Diagnostic{Diagnostic::Level::Warning, line.file, line.line,
                           "ignoring the words after 'endif': '" + line.words[1] + "'..."});
        conditionals.pop_back();
        return false;
    }
    if (!active)
        return false;
    return expandMacros(line, 0);
}

bool Config::Lexer::expandMacros(Line& line, size_t from)
{
    bool ok = true;
    for (size_t i = from; i < line.words.size(); ++i) {
        std::string& word = line.words[i];
        size_t pos = 0;
        while ((pos = word.find("${", pos)) != std::string::npos) {
            const size_t close = word.find('}', pos + 2);
            if (close == std::string::npos)
                break; // not a macro: Squid leaves it too
            const std::string name = word.substr(pos + 2, close - pos - 2);
            const auto found = std::find_if(macros_.begin(), macros_.end(),
                                            [&name](const auto& m) { return m.first == name; });
            if (found == macros_.end()) {
                std::string known;
                for (const auto& m : macros_)
                    known += (known.empty() ? "" : ", ") + std::string("${") + m.first + "}";
                error(line.file, line.line, "unknown macro '${" + name + "}' (known: " + known + ")");
                ok = false;
                pos = close + 1;
                continue;
            }
            word.replace(pos, close + 1 - pos, found->second);
            pos += found->second.size();
        }
    }
    return ok;
}

namespace {

/// Squid's StrToInt(): strtol with base 0, and nothing but the number.
bool ToInteger(const std::string& text, long& number)
{
    if (text.empty())
        return false;
    char* end = nullptr;
    errno = 0;
    number = std::strtol(text.c_str(), &end, 0);
    return end != text.c_str() && *end == '\0' && errno != ERANGE;
}

std::string Trim(const std::string& text)
{
    const size_t first = text.find_first_not_of(" \t");
    if (first == std::string::npos)
        return std::string();
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

} // namespace

// Squid 5.7 cache_cf.cc EvalBoolExpr(): true, false, or INTEGER = INTEGER.
bool Config::Lexer::evaluate(const Line& line, bool& value)
{
    value = false;
    std::string expression;
    for (size_t i = 1; i < line.words.size(); ++i)
        expression += (i > 1 ? " " : "") + line.words[i];
    const char* const forms = " (a condition is true, false or INTEGER = INTEGER)";
    if (expression.empty()) {
        error(line.file, line.line, std::string("'if' needs a condition") + forms);
        return false;
    }
    if (expression == "true" || expression == "false") {
        value = expression == "true";
        return true;
    }
    const size_t equals = expression.find('=');
    if (equals == std::string::npos) {
        error(line.file, line.line, "cannot evaluate the condition '" + expression + "'" + forms);
        return false;
    }
    long left = 0, right = 0;
    for (const auto& [text, number] :
         {std::pair<std::string, long*>{Trim(expression.substr(0, equals)), &left},
          std::pair<std::string, long*>{Trim(expression.substr(equals + 1)), &right}}) {
        if (!ToInteger(text, *number)) {
            error(line.file, line.line,
                  "'" + text + "' is not an integer in the condition '" + expression + "'" + forms);
            return false;
        }
    }
    value = left == right;
    return true;
}

bool Config::Lexer::splitWords(const std::string& logical, const std::string& fileName, unsigned lineNo,
                               std::vector<std::string>& words, bool isDirective)
{
    size_t i = 0;
    const size_t n = logical.size();
    size_t restAfter = 0; // words before a value that runs to the end of the line
    const auto isBlank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; };
    while (i < n) {
        while (i < n && isBlank(logical[i]))
            ++i;
        if (i >= n)
            break;
        if (restAfter && words.size() == restAfter) {
            // Squid 5.7's ConfigParser::NextQuotedOrToEol(): the rest, as written
            size_t end = n;
            while (end > i && isBlank(logical[end - 1]))
                --end;
            words.push_back(logical.substr(i, end - i));
            break;
        }
        if (logical[i] == '#')
            break; // trailing comment: a word that starts with '#'
        std::string word;
        if (logical[i] == '"') {
            word += '"';
            ++i;
            bool closed = false;
            while (i < n) {
                if (logical[i] == '\\' && i + 1 < n && (logical[i + 1] == '"' || logical[i + 1] == '\\')) {
                    word += logical[i + 1];
                    i += 2;
                    continue;
                }
                if (logical[i] == '"') {
                    closed = true;
                    ++i;
                    break;
                }
                word += logical[i++];
            }
            if (!closed) {
                error(fileName, lineNo, "unterminated quoted string");
                return false;
            }
            word += '"';
            if (i < n && logical[i] != ' ' && logical[i] != '\t') {
                error(fileName, lineNo, "a quoted string must be followed by a blank");
                return false;
            }
        } else {
            while (i < n && !isBlank(logical[i]))
                word += logical[i++];
        }
        words.push_back(std::move(word));
        if (isDirective && words.size() == 1)
            restAfter = SquidRestOfLineAfter(words[0]);
    }
    return true;
}

void Config::Lexer::include(const Line& line, unsigned depth, const LineHandler& out)
{
    if (line.words.size() < 2) {
        error(line.file, line.line, "include needs a file name or pattern");
        return;
    }
    if (depth + 1 > MaxIncludeDepth) {
        error(line.file, line.line,
              "include nested more than " + std::to_string(MaxIncludeDepth) + " deep (an include loop?)");
        return;
    }
    for (size_t i = 1; i < line.words.size(); ++i) {
        const std::string pattern = Unquote(line.words[i]);
        const std::string resolved = resolve(pattern);
        glob_t matches{};
        const int rc = glob(resolved.c_str(), GLOB_ERR, nullptr, &matches);
        if (rc == GLOB_NOMATCH || (rc == 0 && matches.gl_pathc == 0)) {
            error(line.file, line.line, "include: no file matches '" + pattern + "'");
        } else if (rc != 0) {
            error(line.file, line.line, "include: cannot read '" + pattern + "'");
        } else {
            for (size_t m = 0; m < matches.gl_pathc; ++m) {
                std::string found = matches.gl_pathv[m];
                // keep a relative name in messages when the include was relative
                if (pattern[0] != '/' &&
                    found.compare(0, resolved.size() - pattern.size(),
                                  resolved.substr(0, resolved.size() - pattern.size())) == 0)
                    found = found.substr(resolved.size() - pattern.size());
                readFileAt(found, depth + 1, out, &line);
            }
        }
        globfree(&matches);
    }
}

bool Config::Lexer::readValuesFile(const std::string& quoted, const Line& from,
                                   std::vector<std::string>& values)
{
    const std::string path = Unquote(quoted);
    std::string text, why;
    bool isDirectory = false;
    if (!ReadWholeFile(resolve(path), text, why, isDirectory)) {
        error(from.file, from.line, "cannot open the values file \"" + path + "\": " + why);
        return false;
    }
    unsigned lineNo = 0;
    for (size_t pos = 0; pos < text.size();) {
        size_t end = text.find('\n', pos);
        if (end == std::string::npos)
            end = text.size();
        const std::string physical = text.substr(pos, end - pos);
        pos = end + 1;
        ++lineNo;
        std::vector<std::string> words;
        if (!splitWords(physical, path, lineNo, words))
            continue;
        for (auto& w : words)
            values.push_back(std::move(w));
    }
    return true;
}
