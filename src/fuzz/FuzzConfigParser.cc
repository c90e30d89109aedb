/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file libFuzzer harness of Config::Parser: a whole squid.conf through
/// the lexer, the directive table and every handler, then the defaults.
/// Inputs with a '/' are skipped (ConfigInput.h). Properties checked:
/// - a snapshot comes back exactly when no diagnostic is an error;
/// - every diagnostic names the file and a line within it (or 0), and
///   says something;
/// - parsing the same text again (with the same Parser, and with a new
///   one) gives the same diagnostics, so nothing leaks from one parse into
///   the next (a reconfigure).

#include "cuttle.h"

#include "config/Parser.h"
#include "fuzz/Check.h"
#include "fuzz/ConfigInput.h"

#include <cstdint>
#include <string>
#include <vector>

namespace {

const std::string FileName = "fuzz.conf";

std::vector<std::string> Formatted(const Config::Parser& parser)
{
    std::vector<std::string> out;
    for (const auto& d : parser.diagnostics())
        out.push_back(d.format());
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(Fuzz::AsText(data, size));
    if (!Fuzz::IsConfinedConfig(text))
        return -1;
    const unsigned physical = Fuzz::PhysicalLines(text);

    Config::Parser parser;
    parser.setBaseDirectory(Fuzz::EmptyDirectory());
    const auto settings = parser.parseText(text, FileName);
    FUZZ_CHECK((settings == nullptr) == parser.hasErrors());
    bool anyError = false;
    for (const auto& d : parser.diagnostics()) {
        anyError = anyError || d.isError();
        FUZZ_CHECK(!d.reason.empty());
        FUZZ_CHECK(d.line <= physical);
        FUZZ_CHECK(d.file == FileName);
    }
    FUZZ_CHECK(anyError == parser.hasErrors());

    const auto first = Formatted(parser);
    const auto again = parser.parseText(text, FileName);
    FUZZ_CHECK((again == nullptr) == (settings == nullptr));
    FUZZ_CHECK(Formatted(parser) == first);

    Config::Parser fresh;
    fresh.setBaseDirectory(Fuzz::EmptyDirectory());
    (void)fresh.parseText(text, FileName);
    FUZZ_CHECK(Formatted(fresh) == first);
    return 0;
}
