/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "config/Lexer.h"
#include "config/tests/TempDir.h"

#include <cppunit/TestAssert.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace Config;

/// Squid's squid.conf syntax: comments, continuation, quotes, includes.
class TestLexer : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestLexer);
    CPPUNIT_TEST(commentLinesAndBlankLinesMakeNoLines);
    CPPUNIT_TEST(trailingCommentEndsTheWords);
    CPPUNIT_TEST(hashInsideAWordIsKept);
    CPPUNIT_TEST(continuationJoinsAndKeepsTheFirstLineNumber);
    CPPUNIT_TEST(continuationSkipsCommentLines);
    CPPUNIT_TEST(continuationOnTheLastLine);
    CPPUNIT_TEST(lineNumbersCountEveryPhysicalLine);
    CPPUNIT_TEST(quotedWordKeepsQuotesAndBlanks);
    CPPUNIT_TEST(unterminatedQuoteIsAnError);
    CPPUNIT_TEST(includeReadsInPlaceWithRealFileAndLine);
    CPPUNIT_TEST(includeGlobReadsMatchesInSortedOrder);
    CPPUNIT_TEST(relativeIncludeUsesTheBaseDirectory);
    CPPUNIT_TEST(includeWithoutMatchIsAnError);
    CPPUNIT_TEST(includeLoopStopsAtTheDepthLimit);
    CPPUNIT_TEST(missingFileIsAnErrorNamingIt);
    CPPUNIT_TEST(quotedValuesFileGivesItsWords);
    CPPUNIT_TEST(crlfLineEndsAreAccepted);
    CPPUNIT_TEST_SUITE_END();

    std::vector<Diagnostic> diags;

    std::vector<Line> lex(const std::string& text, const std::string& base = "/")
    {
        diags.clear();
        Lexer lexer(diags, base);
        std::vector<Line> lines;
        lexer.readText(text, "t.conf", lines);
        return lines;
    }

    using Words = std::vector<std::string>;

public:
    void commentLinesAndBlankLinesMakeNoLines()
    {
        const auto lines = lex("# a comment\n\n   \n\t\n# another\n");
        CPPUNIT_ASSERT(lines.empty());
        CPPUNIT_ASSERT(diags.empty());
    }

    void trailingCommentEndsTheWords()
    {
        const auto lines = lex("acl Safe_ports port 80\t\t# http\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), lines.size());
        CPPUNIT_ASSERT((lines[0].words == Words{"acl", "Safe_ports", "port", "80"}));
        CPPUNIT_ASSERT(lex("   # indented comment\n").empty());
    }

    void hashInsideAWordIsKept()
    {
        const auto lines = lex("http_access allow foo#x\n");
        CPPUNIT_ASSERT((lines.at(0).words == Words{"http_access", "allow", "foo#x"}));
    }

    void continuationJoinsAndKeepsTheFirstLineNumber()
    {
        const auto lines = lex("\nacl a src \\\n  10.0.0.0/8 \\  \n  192.168.0.0/16\nvia on\n");
        CPPUNIT_ASSERT_EQUAL(size_t(2), lines.size());
        CPPUNIT_ASSERT((lines[0].words == Words{"acl", "a", "src", "10.0.0.0/8", "192.168.0.0/16"}));
        CPPUNIT_ASSERT_EQUAL(2u, lines[0].line);
        CPPUNIT_ASSERT_EQUAL(5u, lines[1].line);
    }

    void continuationSkipsCommentLines()
    {
        const auto lines = lex("acl a src 1.2.3.4 \\\n# note\n 5.6.7.8\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), lines.size());
        CPPUNIT_ASSERT((lines[0].words == Words{"acl", "a", "src", "1.2.3.4", "5.6.7.8"}));
    }

    void continuationOnTheLastLine()
    {
        const auto lines = lex("via off \\");
        CPPUNIT_ASSERT_EQUAL(size_t(1), lines.size());
        CPPUNIT_ASSERT((lines[0].words == Words{"via", "off"}));
    }

    void lineNumbersCountEveryPhysicalLine()
    {
        const auto lines = lex("# 1\nvia on\n\n# 4\nvia off # 5\n");
        CPPUNIT_ASSERT_EQUAL(size_t(2), lines.size());
        CPPUNIT_ASSERT_EQUAL(2u, lines[0].line);
        CPPUNIT_ASSERT_EQUAL(5u, lines[1].line);
        CPPUNIT_ASSERT_EQUAL(std::string("t.conf"), lines[1].file);
    }

    void quotedWordKeepsQuotesAndBlanks()
    {
        const auto lines = lex("acl a dstdomain \"/etc/my list.txt\" x\n");
        CPPUNIT_ASSERT((lines.at(0).words == Words{"acl", "a", "dstdomain", "\"/etc/my list.txt\"", "x"}));
        CPPUNIT_ASSERT(Lexer::IsQuoted(lines[0].words[3]));
        CPPUNIT_ASSERT_EQUAL(std::string("/etc/my list.txt"), Lexer::Unquote(lines[0].words[3]));
        CPPUNIT_ASSERT((lex("x \"# not a comment\"\n").at(0).words == Words{"x", "\"# not a comment\""}));
    }

    void unterminatedQuoteIsAnError()
    {
        const auto lines = lex("via on\nacl a dstdomain \"/etc/x\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), lines.size());
        CPPUNIT_ASSERT_EQUAL(size_t(1), diags.size());
        CPPUNIT_ASSERT_EQUAL(std::string("t.conf:2: unterminated quoted string"), diags[0].format());
    }

    void includeReadsInPlaceWithRealFileAndLine()
    {
        TempDir dir;
        const std::string inc = dir.write("inc.conf", "\n\nvia off\n");
        const auto lines = lex("via on\ninclude " + inc + "\nforwarded_for on\n");
        CPPUNIT_ASSERT_EQUAL(size_t(3), lines.size());
        CPPUNIT_ASSERT_EQUAL(inc, lines[1].file);
        CPPUNIT_ASSERT_EQUAL(3u, lines[1].line);
        CPPUNIT_ASSERT_EQUAL(std::string("forwarded_for"), lines[2].words[0]);
        CPPUNIT_ASSERT_EQUAL(3u, lines[2].line);
    }

    void includeGlobReadsMatchesInSortedOrder()
    {
        TempDir dir;
        dir.write("conf.d/b.conf", "b\n");
        dir.write("conf.d/a.conf", "a\n");
        dir.write("conf.d/c.txt", "c\n");
        const auto lines = lex("include " + dir.path() + "/conf.d/*.conf\n");
        CPPUNIT_ASSERT_EQUAL(size_t(2), lines.size());
        CPPUNIT_ASSERT_EQUAL(std::string("a"), lines[0].words[0]);
        CPPUNIT_ASSERT_EQUAL(std::string("b"), lines[1].words[0]);
        CPPUNIT_ASSERT(diags.empty());
    }

    void relativeIncludeUsesTheBaseDirectory()
    {
        TempDir dir;
        dir.write("sub/x.conf", "include sub/y.conf\n");
        dir.write("sub/y.conf", "\ny\n");
        const auto lines = lex("include sub/x.conf\n", dir.path());
        CPPUNIT_ASSERT_EQUAL(size_t(1), lines.size());
        CPPUNIT_ASSERT_EQUAL(std::string("sub/y.conf"), lines[0].file); // named as written
        CPPUNIT_ASSERT_EQUAL(2u, lines[0].line);
        CPPUNIT_ASSERT(diags.empty());
    }

    void includeWithoutMatchIsAnError()
    {
        lex("\ninclude /nonexistent-cuttle/*.conf\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), diags.size());
        CPPUNIT_ASSERT_EQUAL(2u, diags[0].line);
        CPPUNIT_ASSERT(diags[0].isError());
        lex("include\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), diags.size());
    }

    void includeLoopStopsAtTheDepthLimit()
    {
        TempDir dir;
        const std::string self = dir.write("loop.conf", "via on\ninclude loop.conf\n");
        diags.clear();
        Lexer lexer(diags, dir.path());
        std::vector<Line> lines;
        lexer.readFile(self, lines);
        CPPUNIT_ASSERT_EQUAL(size_t(1), diags.size());
        CPPUNIT_ASSERT(diags[0].reason.find("loop") != std::string::npos);
        CPPUNIT_ASSERT_EQUAL(2u, diags[0].line);
        CPPUNIT_ASSERT_EQUAL(size_t(Lexer::MaxIncludeDepth + 1), lines.size());
    }

    void missingFileIsAnErrorNamingIt()
    {
        diags.clear();
        Lexer lexer(diags, "/");
        std::vector<Line> lines;
        lexer.readFile("/nonexistent-cuttle.conf", lines);
        CPPUNIT_ASSERT_EQUAL(size_t(1), diags.size());
        CPPUNIT_ASSERT(diags[0].format().rfind("/nonexistent-cuttle.conf: cannot open", 0) == 0);
    }

    void quotedValuesFileGivesItsWords()
    {
        TempDir dir;
        dir.write("list.txt", "# comment\n10.0.0.1\n10.0.0.2 10.0.0.3 # trailing\n\n");
        diags.clear();
        Lexer lexer(diags, dir.path());
        Line from{"t.conf", 7, {}};
        std::vector<std::string> values;
        CPPUNIT_ASSERT(lexer.readValuesFile("\"list.txt\"", from, values));
        CPPUNIT_ASSERT((values == Words{"10.0.0.1", "10.0.0.2", "10.0.0.3"}));
        CPPUNIT_ASSERT(!lexer.readValuesFile("\"missing.txt\"", from, values));
        CPPUNIT_ASSERT_EQUAL(size_t(1), diags.size());
        CPPUNIT_ASSERT_EQUAL(7u, diags[0].line);
    }

    void crlfLineEndsAreAccepted()
    {
        const auto lines = lex("via on\r\nvia off\r\n");
        CPPUNIT_ASSERT_EQUAL(size_t(2), lines.size());
        CPPUNIT_ASSERT_EQUAL(std::string("on"), lines[0].words[1]);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestLexer);
