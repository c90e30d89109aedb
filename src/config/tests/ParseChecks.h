/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file ParseChecks: the parse-and-assert helpers of the parser's test suites.

#pragma once

#include "config/Parser.h"

#include <memory>
#include <string>
#include <vector>

#include <cppunit/TestAssert.h>

/// A Parser and the assertions the config test suites make with it; a
/// suite derives from it next to CppUnit::TestFixture.
class ParseChecks {
protected:
    Config::Parser parser; ///< parses every text as "t.conf"

    /// Parses text that must parse without errors; returns the settings.
    std::unique_ptr<Config::Settings> ok(const std::string& text)
    {
        auto s = parser.parseText(text, "t.conf");
        CPPUNIT_ASSERT_MESSAGE(said(), s);
        CPPUNIT_ASSERT(!parser.hasErrors());
        return s;
    }

    /// Parses text that must fail; returns the error lines.
    std::vector<std::string> errors(const std::string& text)
    {
        const auto s = parser.parseText(text, "t.conf");
        CPPUNIT_ASSERT_MESSAGE(said(), !s);
        CPPUNIT_ASSERT(parser.hasErrors());
        return lines(true);
    }

    /// The warning lines of the last parse.
    std::vector<std::string> warnings() const { return lines(false); }

    /// Whether `text` contains `part`.
    static bool has(const std::string& text, const std::string& part)
    {
        return text.find(part) != std::string::npos;
    }

    /// Every diagnostic of the last parse, one per line.
    std::string said() const
    {
        std::string all;
        for (const auto& d : parser.diagnostics())
            all += d.format() + "\n";
        return all;
    }

private:
    std::vector<std::string> lines(bool wantErrors) const
    {
        std::vector<std::string> out;
        for (const auto& d : parser.diagnostics())
            if (d.isError() == wantErrors)
                out.push_back(d.format());
        return out;
    }
};
