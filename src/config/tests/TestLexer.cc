/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "config/Lexer.h"
#include "base/tests/TempDir.h"

#include <cppunit/TestAssert.h>
#include <cppunit/extensions/HelperMacros.h>

#include <sys/stat.h>
#include <unistd.h>

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
    CPPUNIT_TEST(includeLoopIsStoppedAtOnce);
    CPPUNIT_TEST(includeDepthIsLimited);
    CPPUNIT_TEST(includeOfADirectoryWarns);
    CPPUNIT_TEST(specialFilesAreRefusedWithoutReading);
    CPPUNIT_TEST(hugeFilesAreRefused);
    CPPUNIT_TEST(missingFileIsAnErrorNamingIt);
    CPPUNIT_TEST(quotedValuesFileGivesItsWords);
    CPPUNIT_TEST(crlfLineEndsAreAccepted);
    CPPUNIT_TEST(ifTrueKeepsAndIfFalseDrops);
    CPPUNIT_TEST(elseTakesTheOtherBranch);
    CPPUNIT_TEST(droppedLinesKeepLineNumbersOfTheRest);
    CPPUNIT_TEST(integerConditionsAsSquidReadsThem);
    CPPUNIT_TEST(macrosAreReplacedBeforeTheCondition);
    CPPUNIT_TEST(badConditionsAreErrorsWithFileAndLine);
    CPPUNIT_TEST(badConditionInADroppedBlockIsStillAnError);
    CPPUNIT_TEST(blocksNestAndADroppedBlockDropsItsInnerBlocks);
    CPPUNIT_TEST(elseAndEndifWithoutIfAreErrors);
    CPPUNIT_TEST(secondElseIsAnError);
    CPPUNIT_TEST(elseIfIsAnError);
    CPPUNIT_TEST(wordsAfterEndifWarn);
    CPPUNIT_TEST(ifLeftOpenIsAnErrorAtItsLine);
    CPPUNIT_TEST(eachFileHasItsOwnIfStack);
    CPPUNIT_TEST(includeInADroppedBlockIsNotRead);
    CPPUNIT_TEST(standardMacrosExpandInKeptLines);
    CPPUNIT_TEST(setMacrosReplacesTheValues);
    CPPUNIT_TEST(unknownMacroIsAnErrorAndDropsTheLine);
    CPPUNIT_TEST(unterminatedMacroIsLeftAlone);
    CPPUNIT_TEST(macrosInDroppedLinesAreNotLookedAt);
    CPPUNIT_TEST(conditionalLinesMayBeContinued);
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

    /// The directive names of the lines, in order.
    static Words names(const std::vector<Line>& lines)
    {
        Words out;
        for (const auto& l : lines)
            out.push_back(l.words[0]);
        return out;
    }

    size_t errorCount() const
    {
        size_t n = 0;
        for (const auto& d : diags)
            n += d.isError();
        return n;
    }

    /// Whether some diagnostic is an error at t.conf:LINE containing `part`.
    bool hasError(unsigned line, const std::string& part) const
    {
        for (const auto& d : diags)
            if (d.isError() && d.file == "t.conf" && d.line == line &&
                d.reason.find(part) != std::string::npos)
                return true;
        return false;
    }

    size_t warningCount() const { return diags.size() - errorCount(); }

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

    void includeLoopIsStoppedAtOnce()
    {
        TempDir dir;
        const std::string self = dir.write("loop.conf", "via on\ninclude loop.conf\n");
        diags.clear();
        Lexer lexer(diags, dir.path());
        std::vector<Line> lines;
        lexer.readFile(self, lines);
        CPPUNIT_ASSERT_EQUAL(size_t(1), diags.size());
        CPPUNIT_ASSERT(diags[0].isError());
        CPPUNIT_ASSERT(diags[0].reason.find("loop") != std::string::npos);
        CPPUNIT_ASSERT_EQUAL(2u, diags[0].line);
        CPPUNIT_ASSERT_EQUAL(size_t(1), lines.size());

        // a loop through another file that includes this one many times:
        // without loop detection this is 8^16 reads
        dir.write("a.conf", "include b.conf b.conf b.conf b.conf b.conf b.conf b.conf b.conf\n");
        dir.write("b.conf", "via on\ninclude a.conf a.conf a.conf a.conf a.conf a.conf a.conf a.conf\n");
        diags.clear();
        lines.clear();
        lexer.readFile(dir.path() + "/a.conf", lines);
        CPPUNIT_ASSERT_EQUAL(size_t(8), lines.size());
        CPPUNIT_ASSERT_EQUAL(size_t(64), diags.size());
        for (const auto& d : diags)
            CPPUNIT_ASSERT(d.format().find("b.conf:2: include 'a.conf': an include loop") == 0);
    }

    void includeDepthIsLimited()
    {
        TempDir dir;
        const unsigned files = Lexer::MaxIncludeDepth + 3;
        for (unsigned i = 0; i < files; ++i)
            dir.write("f" + std::to_string(i) + ".conf",
                      "via on\ninclude f" + std::to_string(i + 1) + ".conf\n");
        dir.write("f" + std::to_string(files) + ".conf", "via on\n");
        diags.clear();
        Lexer lexer(diags, dir.path());
        std::vector<Line> lines;
        lexer.readFile(dir.path() + "/f0.conf", lines);
        CPPUNIT_ASSERT_EQUAL(size_t(1), diags.size());
        CPPUNIT_ASSERT(diags[0].reason.find("nested more than") != std::string::npos);
        CPPUNIT_ASSERT_EQUAL(size_t(Lexer::MaxIncludeDepth + 1), lines.size());
    }

    void includeOfADirectoryWarns()
    {
        TempDir dir;
        dir.write("conf.d/a.conf", "via on\n");
        const auto lines = lex("include " + dir.path() + "/conf.d\nvia off\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), lines.size());
        CPPUNIT_ASSERT_EQUAL(size_t(1), diags.size());
        CPPUNIT_ASSERT(!diags[0].isError());
        CPPUNIT_ASSERT_EQUAL(1u, diags[0].line);
        CPPUNIT_ASSERT(diags[0].reason.find("conf.d/*") != std::string::npos);
    }

    void specialFilesAreRefusedWithoutReading()
    {
        // /dev/zero never ends; a FIFO without a writer would block the parse
        TempDir dir;
        const std::string fifo = dir.path() + "/fifo";
        CPPUNIT_ASSERT_EQUAL(0, mkfifo(fifo.c_str(), 0600));
        const auto lines = lex("include /dev/zero\ninclude " + fifo + "\nvia on\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), lines.size());
        CPPUNIT_ASSERT_EQUAL(size_t(2), diags.size());
        CPPUNIT_ASSERT(diags[0].isError() && diags[1].isError());
        CPPUNIT_ASSERT_EQUAL(1u, diags[0].line);
        CPPUNIT_ASSERT_EQUAL(2u, diags[1].line);
        CPPUNIT_ASSERT(diags[0].reason.find("not a regular file") != std::string::npos);

        diags.clear();
        Lexer lexer(diags, dir.path());
        Line from{"t.conf", 3, {}};
        std::vector<std::string> values;
        CPPUNIT_ASSERT(!lexer.readValuesFile("\"/dev/zero\"", from, values));
        CPPUNIT_ASSERT(!lexer.readValuesFile("\"fifo\"", from, values));
        CPPUNIT_ASSERT(!lexer.readValuesFile("\"" + dir.path() + "\"", from, values));
        CPPUNIT_ASSERT_EQUAL(size_t(3), diags.size());
        CPPUNIT_ASSERT(values.empty());
    }

    void hugeFilesAreRefused()
    {
        TempDir dir;
        const std::string big = dir.write("big.conf", "");
        CPPUNIT_ASSERT_EQUAL(0, truncate(big.c_str(), Lexer::MaxFileSize + 1));
        std::string text, why;
        bool isDirectory = true;
        CPPUNIT_ASSERT(!Lexer::ReadWholeFile(big, text, why, isDirectory));
        CPPUNIT_ASSERT(!isDirectory);
        CPPUNIT_ASSERT(why.find("larger than") != std::string::npos);
        CPPUNIT_ASSERT(text.size() <= Lexer::MaxFileSize);
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

    void ifTrueKeepsAndIfFalseDrops()
    {
        CPPUNIT_ASSERT((names(lex("a\nif true\nb\nendif\nc\n")) == Words{"a", "b", "c"}));
        CPPUNIT_ASSERT((names(lex("a\nif false\nb\nendif\nc\n")) == Words{"a", "c"}));
        CPPUNIT_ASSERT(diags.empty());
        // the keywords may be indented, like any directive
        CPPUNIT_ASSERT((names(lex("  if false\nb\n\tendif\n")).empty()));
        CPPUNIT_ASSERT(diags.empty());
    }

    void elseTakesTheOtherBranch()
    {
        CPPUNIT_ASSERT((names(lex("if true\na\nelse\nb\nendif\n")) == Words{"a"}));
        CPPUNIT_ASSERT((names(lex("if false\na\nelse\nb\nendif\n")) == Words{"b"}));
        CPPUNIT_ASSERT(diags.empty());
    }

    void droppedLinesKeepLineNumbersOfTheRest()
    {
        const auto lines = lex("if false\na\nb\nendif\nc\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), lines.size());
        CPPUNIT_ASSERT_EQUAL(5u, lines[0].line);
    }

    void integerConditionsAsSquidReadsThem()
    {
        CPPUNIT_ASSERT_EQUAL(size_t(1), lex("if 1 = 1\na\nendif\n").size());
        CPPUNIT_ASSERT_EQUAL(size_t(1), lex("if 1=1\na\nendif\n").size());
        CPPUNIT_ASSERT_EQUAL(size_t(0), lex("if 1 = 2\na\nendif\n").size());
        CPPUNIT_ASSERT_EQUAL(size_t(1), lex("if 0x10 = 16\na\nendif\n").size()); // strtol base 0
        CPPUNIT_ASSERT_EQUAL(size_t(1), lex("if 010 = 8\na\nendif\n").size());
        CPPUNIT_ASSERT_EQUAL(size_t(1), lex("if -3 = -3\na\nendif\n").size());
        CPPUNIT_ASSERT_EQUAL(size_t(0), errorCount());
    }

    void macrosAreReplacedBeforeTheCondition()
    {
        CPPUNIT_ASSERT_EQUAL(size_t(1), lex("if ${process_number} = 1\na\nendif\n").size());
        CPPUNIT_ASSERT_EQUAL(size_t(1), lex("if ${kid_count} = 1\na\nendif\n").size());
        CPPUNIT_ASSERT_EQUAL(size_t(0), lex("if ${process_number} = 2\na\nendif\n").size());
        CPPUNIT_ASSERT(diags.empty());
    }

    void badConditionsAreErrorsWithFileAndLine()
    {
        for (const std::string bad : {"foo", "squid = squid", "${service_name} = cuttle", "1 = 1 = 1",
                                      "true extra", "1 =", "99999999999999999999 = 1"}) {
            const auto lines = lex("\nif " + bad + "\na\nendif\n");
            CPPUNIT_ASSERT_MESSAGE(bad, lines.empty()); // a bad condition is false
            CPPUNIT_ASSERT_EQUAL_MESSAGE(bad, size_t(1), errorCount());
            CPPUNIT_ASSERT_MESSAGE(bad, hasError(2, "condition"));
        }
        lex("if\nendif\n");
        CPPUNIT_ASSERT(hasError(1, "needs a condition"));
    }

    void badConditionInADroppedBlockIsStillAnError()
    {
        lex("if false\nif bogus\nendif\nendif\n");
        CPPUNIT_ASSERT(hasError(2, "bogus"));
    }

    void blocksNestAndADroppedBlockDropsItsInnerBlocks()
    {
        const std::string text = "if true\n"
                                 " a\n"
                                 " if false\n"
                                 "  b\n"
                                 " else\n"
                                 "  c\n"
                                 " endif\n"
                                 " d\n"
                                 "endif\n";
        CPPUNIT_ASSERT((names(lex(text)) == Words{"a", "c", "d"}));
        CPPUNIT_ASSERT(diags.empty());

        // Squid 5.7 looks only at the innermost if and would keep b: cuttle
        // drops it and warns at the inner if
        CPPUNIT_ASSERT(names(lex("if false\nif true\nb\nendif\nendif\n")).empty());
        CPPUNIT_ASSERT_EQUAL(size_t(0), errorCount());
        CPPUNIT_ASSERT_EQUAL(size_t(1), warningCount());
        CPPUNIT_ASSERT_EQUAL(2u, diags[0].line);

        // ... and at the inner else when Squid would keep the else part
        CPPUNIT_ASSERT(names(lex("if false\nif false\nb\nelse\nc\nendif\nendif\n")).empty());
        CPPUNIT_ASSERT_EQUAL(size_t(1), warningCount());
        CPPUNIT_ASSERT_EQUAL(4u, diags[0].line);

        // where Squid drops too, nothing to say
        CPPUNIT_ASSERT(names(lex("if false\nif false\nb\nendif\nendif\n")).empty());
        CPPUNIT_ASSERT(diags.empty());
    }

    void elseAndEndifWithoutIfAreErrors()
    {
        CPPUNIT_ASSERT((names(lex("a\nelse\nb\n")) == Words{"a", "b"}));
        CPPUNIT_ASSERT_EQUAL(size_t(1), errorCount());
        CPPUNIT_ASSERT(hasError(2, "'else' without 'if'"));
        lex("if true\nendif\nendif\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), errorCount());
        CPPUNIT_ASSERT(hasError(3, "'endif' without 'if'"));
    }

    void secondElseIsAnError()
    {
        CPPUNIT_ASSERT((names(lex("if true\na\nelse\nb\nelse\nc\nendif\n")) == Words{"a"}));
        CPPUNIT_ASSERT_EQUAL(size_t(1), errorCount());
        CPPUNIT_ASSERT(hasError(5, "second 'else' for the 'if' at t.conf:1"));
    }

    void elseIfIsAnError()
    {
        lex("if false\na\nelse if true\nb\nendif\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), errorCount());
        CPPUNIT_ASSERT(hasError(3, "else-if"));
    }

    void wordsAfterEndifWarn()
    {
        CPPUNIT_ASSERT((names(lex("if true\na\nendif # a comment\nendif\n")) == Words{"a"}));
        CPPUNIT_ASSERT_EQUAL(size_t(1), errorCount()); // the second endif; the comment is no word
        lex("if true\nendif true\n");
        CPPUNIT_ASSERT_EQUAL(size_t(0), errorCount());
        CPPUNIT_ASSERT_EQUAL(size_t(1), warningCount());
        CPPUNIT_ASSERT_EQUAL(2u, diags[0].line);
    }

    void ifLeftOpenIsAnErrorAtItsLine()
    {
        lex("a\nif true\nif false\nendif\nb\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), errorCount());
        CPPUNIT_ASSERT(hasError(2, "'if' without 'endif'"));
    }

    void eachFileHasItsOwnIfStack()
    {
        TempDir dir;
        const std::string opens = dir.write("opens.conf", "\nif true\n");
        const std::string closes = dir.write("closes.conf", "endif\n");
        lex("include " + opens + "\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), diags.size());
        CPPUNIT_ASSERT_EQUAL(opens, diags[0].file);
        CPPUNIT_ASSERT_EQUAL(2u, diags[0].line);

        // an included file cannot close the includer's if
        lex("if true\ninclude " + closes + "\nendif\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), diags.size());
        CPPUNIT_ASSERT_EQUAL(closes, diags[0].file);
    }

    void includeInADroppedBlockIsNotRead()
    {
        CPPUNIT_ASSERT(lex("if false\ninclude /nonexistent/cuttle/*.conf\nendif\n").empty());
        CPPUNIT_ASSERT(diags.empty());
        TempDir dir;
        const std::string inc = dir.write("inc.conf", "via off\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), lex("if 1 = 1\ninclude " + inc + "\nendif\n").size());
    }

    void standardMacrosExpandInKeptLines()
    {
        const auto lines =
            lex("cache_log /var/log/${service_name}/${process_name}-${process_number}-of-${kid_count}.log\n"
                "acl f dstdomain \"/etc/${service_name}.txt\"\n");
        CPPUNIT_ASSERT(diags.empty());
        CPPUNIT_ASSERT_EQUAL(std::string("/var/log/cuttle/cuttle-1-of-1.log"), lines.at(0).words[1]);
        CPPUNIT_ASSERT_EQUAL(std::string("\"/etc/cuttle.txt\""), lines.at(1).words[3]);
        CPPUNIT_ASSERT_EQUAL(std::string(Lexer::DefaultServiceName), std::string("cuttle"));
    }

    void setMacrosReplacesTheValues()
    {
        diags.clear();
        Lexer lexer(diags, "/");
        lexer.setMacros(Lexer::StandardMacros("proxy2"));
        std::vector<Line> lines;
        lexer.readText("pid_filename /run/${service_name}.pid\n", "t.conf", lines);
        CPPUNIT_ASSERT_EQUAL(std::string("/run/proxy2.pid"), lines.at(0).words[1]);
        // every occurrence, and a value that contains the macro's own text is not expanded again
        lexer.setMacros({{"service_name", "${service_name}"}});
        lines.clear();
        lexer.readText("x ${service_name}${service_name}\n", "t.conf", lines);
        CPPUNIT_ASSERT_EQUAL(std::string("${service_name}${service_name}"), lines.at(0).words[1]);
        CPPUNIT_ASSERT(diags.empty());
    }

    void unknownMacroIsAnErrorAndDropsTheLine()
    {
        const auto lines = lex("a\nb ${nosuch} ${process_number} ${other}\nc\n");
        CPPUNIT_ASSERT((names(lines) == Words{"a", "c"}));
        CPPUNIT_ASSERT_EQUAL(size_t(2), errorCount()); // each unknown name
        CPPUNIT_ASSERT(hasError(2, "unknown macro '${nosuch}'"));
        CPPUNIT_ASSERT(hasError(2, "${service_name}")); // the message lists the known ones
        lex("if ${nosuch} = 1\nendif\n");
        CPPUNIT_ASSERT(hasError(1, "unknown macro"));
    }

    void unterminatedMacroIsLeftAlone()
    {
        const auto lines = lex("x a${b\n");
        CPPUNIT_ASSERT(diags.empty());
        CPPUNIT_ASSERT_EQUAL(std::string("a${b"), lines.at(0).words[1]);
    }

    void macrosInDroppedLinesAreNotLookedAt()
    {
        CPPUNIT_ASSERT(lex("if false\nx ${nosuch}\nendif\n").empty());
        CPPUNIT_ASSERT(diags.empty());
    }

    void conditionalLinesMayBeContinued()
    {
        CPPUNIT_ASSERT((names(lex("if 1 = \\\n 1\na\nend\\\nif\nb\n")) == Words{"a", "b"}));
        CPPUNIT_ASSERT(diags.empty());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestLexer);
