/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file libFuzzer harness of Config::Lexer (squid.conf's logical lines,
/// continuations, comments, quoted words, if/else/endif, macros). Inputs
/// with a '/' are skipped (ConfigInput.h). Properties checked:
/// - every line is of the file read, numbered 1..(physical lines), in
///   increasing order (nothing is included), with at least one word;
/// - a word is not empty; an unquoted word holds no blank (except the
///   value that runs to the end of the line of a directive such as
///   logformat, SquidRestOfLineAfter()), a quoted one starts and ends with
///   a DQUOTE; no word holds an LF, and none but that value starts with '#';
/// - diagnostics name the file and a line within it (or 0);
/// - lexing the same text again gives the same lines and diagnostics.

#include "cuttle.h"

#include "config/Lexer.h"
#include "config/SquidDirectives.h"
#include "fuzz/Check.h"
#include "fuzz/ConfigInput.h"

#include <cstdint>
#include <string>
#include <vector>

namespace {

const std::string FileName = "fuzz.conf";

struct Lexed {
    std::vector<Config::Line> lines;
    std::vector<std::string> diagnostics;
};

Lexed Lex(const std::string& text)
{
    std::vector<Config::Diagnostic> diagnostics;
    Config::Lexer lexer(diagnostics, Fuzz::EmptyDirectory());
    Lexed out;
    lexer.readText(text, FileName, out.lines);
    for (const auto& d : diagnostics)
        out.diagnostics.push_back(d.format());
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(Fuzz::AsText(data, size));
    if (!Fuzz::IsConfinedConfig(text))
        return -1;
    const unsigned physical = Fuzz::PhysicalLines(text);

    const auto lexed = Lex(text);
    unsigned last = 0;
    for (const auto& line : lexed.lines) {
        FUZZ_CHECK(line.file == FileName);
        FUZZ_CHECK(line.line > last && line.line <= physical);
        last = line.line;
        FUZZ_CHECK(!line.words.empty());
        const size_t restAfter = Config::SquidRestOfLineAfter(line.words[0]);
        for (size_t w = 0; w < line.words.size(); ++w) {
            const std::string& word = line.words[w];
            FUZZ_CHECK(!word.empty());
            FUZZ_CHECK(word.find('\n') == std::string::npos);
            if (Config::Lexer::IsQuoted(word)) {
                FUZZ_CHECK(word.size() >= 2 && word.front() == '"' && word.back() == '"');
                FUZZ_CHECK(Config::Lexer::Unquote(word) == word.substr(1, word.size() - 2));
            } else {
                if (restAfter && w == restAfter) {
                    FUZZ_CHECK(w + 1 == line.words.size());
                } else {
                    FUZZ_CHECK(word[0] != '#');
                    FUZZ_CHECK(word.find_first_of(" \t\r\f\v") == std::string::npos);
                }
            }
        }
    }
    const std::string prefix = FileName + ":";
    for (const auto& d : lexed.diagnostics)
        FUZZ_CHECK(d.compare(0, prefix.size(), prefix) == 0);

    const auto again = Lex(text);
    FUZZ_CHECK(again.diagnostics == lexed.diagnostics);
    FUZZ_CHECK(again.lines.size() == lexed.lines.size());
    for (size_t i = 0; i < lexed.lines.size(); ++i) {
        FUZZ_CHECK(again.lines[i].line == lexed.lines[i].line);
        FUZZ_CHECK(again.lines[i].words == lexed.lines[i].words);
    }
    return 0;
}
