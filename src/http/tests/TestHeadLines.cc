/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/HeadLines.h"

#include <cppunit/extensions/HelperMacros.h>

#include <string>
#include <string_view>
#include <vector>

/// Http::HeadLines and Http::ParseFieldLine(): the line ends and field lines
/// that RequestParser and ReplyParser share.
class TestHeadLines : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestHeadLines);
    CPPUNIT_TEST(findsCrLfLinesInTurn);
    CPPUNIT_TEST(bareLfIsAnErrorOrALineEndByTheRule);
    CPPUNIT_TEST(bareCrIsAnErrorUnderEitherRule);
    CPPUNIT_TEST(crLastWaitsForItsLf);
    CPPUNIT_TEST(looksAtNoBytePastTheLimit);
    CPPUNIT_TEST(limitBelowTheLineFindsNothing);
    CPPUNIT_TEST(searchesEachByteOnce);
    CPPUNIT_TEST(byteByByteFindsTheSameLines);
    CPPUNIT_TEST(resetStartsAtTheFirstByte);
    CPPUNIT_TEST(splitsNameAndTrimmedValue);
    CPPUNIT_TEST(leadingWhitespaceIsObsFold);
    CPPUNIT_TEST(nameMustBeATokenBeforeAColon);
    CPPUNIT_TEST(valueHoldsNoControlByteButHtab);
    CPPUNIT_TEST(fieldIsSetOnlyWhenValid);
    CPPUNIT_TEST_SUITE_END();

public:
    void findsCrLfLinesInTurn();
    void bareLfIsAnErrorOrALineEndByTheRule();
    void bareCrIsAnErrorUnderEitherRule();
    void crLastWaitsForItsLf();
    void looksAtNoBytePastTheLimit();
    void limitBelowTheLineFindsNothing();
    void searchesEachByteOnce();
    void byteByByteFindsTheSameLines();
    void resetStartsAtTheFirstByte();
    void splitsNameAndTrimmedValue();
    void leadingWhitespaceIsObsFold();
    void nameMustBeATokenBeforeAColon();
    void valueHoldsNoControlByteButHtab();
    void fieldIsSetOnlyWhenValid();
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestHeadLines);

using Http::FieldLineError;
using Http::HeadLines;
using Http::LineEnd;
using Http::LineEnds;

namespace {

/// what next() found for each call until it found no more lines: the lines,
/// then the result that ended the search
struct Scan {
    std::vector<std::string> lines; ///< the lines found, in order
    LineEnd last = LineEnd::Found;  ///< the first result that was not Found
};

/// Calls lines.next() over all of buf until it finds no line.
Scan ScanAll(HeadLines& lines, std::string_view buf)
{
    Scan scan;
    std::string_view line;
    while ((scan.last = lines.next(buf, buf.size(), line)) == LineEnd::Found)
        scan.lines.emplace_back(line);
    return scan;
}

/// the result of ParseFieldLine() for line
FieldLineError ErrorOf(std::string_view line)
{
    Http::HeaderField field;
    return Http::ParseFieldLine(line, field);
}

} // namespace

void TestHeadLines::findsCrLfLinesInTurn()
{
    const std::string buf = "GET / HTTP/1.1\r\nA: b\r\n\r\nbody";
    for (const auto ends : {LineEnds::CrLfOnly, LineEnds::CrLfOrBareLf}) {
        HeadLines lines(ends);
        CPPUNIT_ASSERT_EQUAL(size_t(0), lines.lineStart());
        std::string_view line;
        CPPUNIT_ASSERT(lines.next(buf, buf.size(), line) == LineEnd::Found);
        CPPUNIT_ASSERT_EQUAL(std::string("GET / HTTP/1.1"), std::string(line));
        CPPUNIT_ASSERT(line.data() == buf.data()); // a view into the buffer
        CPPUNIT_ASSERT_EQUAL(size_t(16), lines.lineStart());
        CPPUNIT_ASSERT(lines.next(buf, buf.size(), line) == LineEnd::Found);
        CPPUNIT_ASSERT_EQUAL(std::string("A: b"), std::string(line));
        CPPUNIT_ASSERT(line.data() == buf.data() + 16);
        CPPUNIT_ASSERT_EQUAL(size_t(22), lines.lineStart());
        CPPUNIT_ASSERT(lines.next(buf, buf.size(), line) == LineEnd::Found);
        CPPUNIT_ASSERT(line.empty());
        CPPUNIT_ASSERT_EQUAL(size_t(24), lines.lineStart()); // the head's size
        CPPUNIT_ASSERT(lines.next(buf, buf.size(), line) == LineEnd::NeedMore);
        CPPUNIT_ASSERT_EQUAL(size_t(24), lines.lineStart());
    }
}

void TestHeadLines::bareLfIsAnErrorOrALineEndByTheRule()
{
    {
        HeadLines strict(LineEnds::CrLfOnly);
        const auto scan = ScanAll(strict, "a\r\nb\nc\r\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), scan.lines.size());
        CPPUNIT_ASSERT(scan.last == LineEnd::BareLf);
        HeadLines first(LineEnds::CrLfOnly);
        CPPUNIT_ASSERT(ScanAll(first, "\n").last == LineEnd::BareLf);
        HeadLines lfCr(LineEnds::CrLfOnly);
        CPPUNIT_ASSERT(ScanAll(lfCr, "a\n\r\n").last == LineEnd::BareLf);
    }
    HeadLines lenient(LineEnds::CrLfOrBareLf);
    const auto scan = ScanAll(lenient, "a\r\nb\nc\r\n\n");
    CPPUNIT_ASSERT(scan.last == LineEnd::NeedMore);
    CPPUNIT_ASSERT((scan.lines == std::vector<std::string>{"a", "b", "c", ""}));
    CPPUNIT_ASSERT_EQUAL(size_t(9), lenient.lineStart());
}

void TestHeadLines::bareCrIsAnErrorUnderEitherRule()
{
    for (const auto ends : {LineEnds::CrLfOnly, LineEnds::CrLfOrBareLf}) {
        HeadLines midLine(ends);
        CPPUNIT_ASSERT(ScanAll(midLine, "a\rb\r\n").last == LineEnd::BareCr);
        HeadLines twoCrs(ends);
        CPPUNIT_ASSERT(ScanAll(twoCrs, "a\r\r\n").last == LineEnd::BareCr);
        HeadLines afterALine(ends);
        const auto scan = ScanAll(afterALine, "a\r\n\rb");
        CPPUNIT_ASSERT_EQUAL(size_t(1), scan.lines.size());
        CPPUNIT_ASSERT(scan.last == LineEnd::BareCr);
    }
}

void TestHeadLines::crLastWaitsForItsLf()
{
    for (const auto ends : {LineEnds::CrLfOnly, LineEnds::CrLfOrBareLf}) {
        // the same bytes the caller appends to: "ab\r" now, "ab\r\n" later
        const std::string buf = "ab\r\n";
        HeadLines lines(ends);
        std::string_view line;
        CPPUNIT_ASSERT(lines.next(std::string_view(buf).substr(0, 3), 3, line) == LineEnd::NeedMore);
        CPPUNIT_ASSERT_EQUAL(size_t(0), lines.lineStart());
        CPPUNIT_ASSERT(lines.next(buf, buf.size(), line) == LineEnd::Found);
        CPPUNIT_ASSERT_EQUAL(std::string("ab"), std::string(line));
        CPPUNIT_ASSERT_EQUAL(size_t(4), lines.lineStart());

        HeadLines bare(ends);
        CPPUNIT_ASSERT(bare.next("ab\r", 3, line) == LineEnd::NeedMore);
        CPPUNIT_ASSERT(bare.next("ab\rc", 4, line) == LineEnd::BareCr);
    }
}

void TestHeadLines::looksAtNoBytePastTheLimit()
{
    std::string_view line;
    // a line end, or a bad one, at the limit or past it is not seen
    const std::string crLf = "abc\r\n";
    HeadLines lines(LineEnds::CrLfOnly);
    CPPUNIT_ASSERT(lines.next(crLf, 3, line) == LineEnd::NeedMore);
    CPPUNIT_ASSERT(lines.next(crLf, 4, line) == LineEnd::NeedMore); // a CR last, even inside buf
    CPPUNIT_ASSERT(lines.next(crLf, 5, line) == LineEnd::Found);
    CPPUNIT_ASSERT_EQUAL(std::string("abc"), std::string(line));

    HeadLines strict(LineEnds::CrLfOnly);
    CPPUNIT_ASSERT(strict.next("ab\n", 2, line) == LineEnd::NeedMore);
    CPPUNIT_ASSERT(strict.next("ab\n", 3, line) == LineEnd::BareLf);
    HeadLines lenient(LineEnds::CrLfOrBareLf);
    CPPUNIT_ASSERT(lenient.next("ab\rX", 3, line) == LineEnd::NeedMore);
    CPPUNIT_ASSERT(lenient.next("ab\rX", 4, line) == LineEnd::BareCr);
}

void TestHeadLines::limitBelowTheLineFindsNothing()
{
    const std::string buf = "abc\r\nde\r\n";
    HeadLines lines(LineEnds::CrLfOnly);
    std::string_view line;
    CPPUNIT_ASSERT(lines.next(buf, buf.size(), line) == LineEnd::Found);
    CPPUNIT_ASSERT(lines.next(buf, 2, line) == LineEnd::NeedMore);
    CPPUNIT_ASSERT_EQUAL(size_t(5), lines.lineStart());
}

void TestHeadLines::searchesEachByteOnce()
{
    // The caller only appends, so bytes searched once are not searched
    // again: an LF written over one of them afterwards is not seen.
    for (const auto ends : {LineEnds::CrLfOnly, LineEnds::CrLfOrBareLf}) {
        HeadLines lines(ends);
        std::string_view line;
        CPPUNIT_ASSERT(lines.next("abc", 3, line) == LineEnd::NeedMore);
        CPPUNIT_ASSERT(lines.next("a\ncd\r\n", 6, line) == LineEnd::Found);
        CPPUNIT_ASSERT_EQUAL(std::string("a\ncd"), std::string(line));
    }
}

void TestHeadLines::byteByByteFindsTheSameLines()
{
    const std::string head = "\r\nHTTP/1.1 200 OK\r\nA: 1\r\nB:\r\n\r\n";
    for (const auto ends : {LineEnds::CrLfOnly, LineEnds::CrLfOrBareLf}) {
        HeadLines whole(ends);
        const auto expected = ScanAll(whole, head);
        CPPUNIT_ASSERT_EQUAL(size_t(5), expected.lines.size());

        HeadLines bytes(ends);
        std::vector<std::string> found;
        std::string_view line;
        for (size_t size = 0; size <= head.size(); ++size) {
            LineEnd end;
            while ((end = bytes.next(head, size, line)) == LineEnd::Found)
                found.emplace_back(line);
            CPPUNIT_ASSERT(end == LineEnd::NeedMore);
        }
        CPPUNIT_ASSERT(found == expected.lines);
        CPPUNIT_ASSERT_EQUAL(whole.lineStart(), bytes.lineStart());
        CPPUNIT_ASSERT_EQUAL(head.size(), bytes.lineStart());
    }
}

void TestHeadLines::resetStartsAtTheFirstByte()
{
    HeadLines lines(LineEnds::CrLfOnly);
    CPPUNIT_ASSERT_EQUAL(size_t(2), ScanAll(lines, "a\r\nb\r\nc").lines.size());
    CPPUNIT_ASSERT_EQUAL(size_t(6), lines.lineStart());
    lines.reset();
    CPPUNIT_ASSERT_EQUAL(size_t(0), lines.lineStart());
    const auto again = ScanAll(lines, "xy\r\n");
    CPPUNIT_ASSERT((again.lines == std::vector<std::string>{"xy"}));
}

void TestHeadLines::splitsNameAndTrimmedValue()
{
    const std::string line = "Cache-Control: \t max-age=0, no-cache \t ";
    Http::HeaderField field;
    CPPUNIT_ASSERT(Http::ParseFieldLine(line, field) == FieldLineError::None);
    CPPUNIT_ASSERT_EQUAL(std::string("Cache-Control"), std::string(field.name));
    CPPUNIT_ASSERT_EQUAL(std::string("max-age=0, no-cache"), std::string(field.value));
    CPPUNIT_ASSERT(field.name.data() == line.data()); // views into the line
    CPPUNIT_ASSERT(field.value.data() == line.data() + 17);

    const auto split = [](std::string_view l) {
        Http::HeaderField f;
        CPPUNIT_ASSERT(Http::ParseFieldLine(l, f) == FieldLineError::None);
        return std::string(f.name) + "|" + std::string(f.value);
    };
    CPPUNIT_ASSERT_EQUAL(std::string("X|"), split("X:"));
    CPPUNIT_ASSERT_EQUAL(std::string("X|"), split("X:   "));
    CPPUNIT_ASSERT_EQUAL(std::string("X|a  b"), split("X:a  b"));    // inner whitespace stays
    CPPUNIT_ASSERT_EQUAL(std::string("X|:y: z"), split("X: :y: z")); // the first colon ends the name
    CPPUNIT_ASSERT_EQUAL(std::string("!#$%&'*+-.^_`|~09azAZ|v"), split("!#$%&'*+-.^_`|~09azAZ:v"));
    CPPUNIT_ASSERT_EQUAL(std::string("X|caf\xc3\xa9"), split("X: caf\xc3\xa9")); // obs-text
}

void TestHeadLines::leadingWhitespaceIsObsFold()
{
    CPPUNIT_ASSERT(ErrorOf(" continued") == FieldLineError::ObsFold);
    CPPUNIT_ASSERT(ErrorOf("\tcontinued") == FieldLineError::ObsFold);
    CPPUNIT_ASSERT(ErrorOf(" X: y") == FieldLineError::ObsFold);
    CPPUNIT_ASSERT(ErrorOf(" ") == FieldLineError::ObsFold);
}

void TestHeadLines::nameMustBeATokenBeforeAColon()
{
    CPPUNIT_ASSERT(ErrorOf("") == FieldLineError::BadField);
    CPPUNIT_ASSERT(ErrorOf("NoColon") == FieldLineError::BadField);
    CPPUNIT_ASSERT(ErrorOf(": value") == FieldLineError::BadField);
    CPPUNIT_ASSERT(ErrorOf("X : y") == FieldLineError::BadField); // RFC 9112 section 5.1
    CPPUNIT_ASSERT(ErrorOf("X\t: y") == FieldLineError::BadField);
    CPPUNIT_ASSERT(ErrorOf("Two Words: y") == FieldLineError::BadField);
    CPPUNIT_ASSERT(ErrorOf("X(y): z") == FieldLineError::BadField);
    CPPUNIT_ASSERT(ErrorOf("X\"y: z") == FieldLineError::BadField);
    CPPUNIT_ASSERT(ErrorOf("caf\xc3\xa9: z") == FieldLineError::BadField);
}

void TestHeadLines::valueHoldsNoControlByteButHtab()
{
    CPPUNIT_ASSERT(ErrorOf("X: a\tb") == FieldLineError::None);
    CPPUNIT_ASSERT(ErrorOf("X: a\rb") == FieldLineError::BadField);
    CPPUNIT_ASSERT(ErrorOf("X: a\nb") == FieldLineError::BadField);
    CPPUNIT_ASSERT(ErrorOf(std::string_view("X: a\0b", 6)) == FieldLineError::BadField);
    CPPUNIT_ASSERT(ErrorOf("X: \x01") == FieldLineError::BadField);
    CPPUNIT_ASSERT(ErrorOf("X: \x1f") == FieldLineError::BadField);
    CPPUNIT_ASSERT(ErrorOf("X: a\x7f") == FieldLineError::BadField);
    CPPUNIT_ASSERT(ErrorOf("X: ~\x80\xff") == FieldLineError::None);
    for (int c = 0; c < 256; ++c) {
        const std::string line = std::string("X: a") + char(c) + "b";
        const bool allowed = c == '\t' || (c >= 0x20 && c != 0x7f);
        CPPUNIT_ASSERT_MESSAGE("byte " + std::to_string(c),
                               (ErrorOf(line) == FieldLineError::None) == allowed);
    }
}

void TestHeadLines::fieldIsSetOnlyWhenValid()
{
    const std::string before = "Old: value";
    Http::HeaderField field{std::string_view(before).substr(0, 3), std::string_view(before).substr(5)};
    CPPUNIT_ASSERT(Http::ParseFieldLine(" New: x", field) == FieldLineError::ObsFold);
    CPPUNIT_ASSERT(Http::ParseFieldLine("New : x", field) == FieldLineError::BadField);
    CPPUNIT_ASSERT(Http::ParseFieldLine("New: \x01", field) == FieldLineError::BadField);
    CPPUNIT_ASSERT_EQUAL(std::string("Old"), std::string(field.name));
    CPPUNIT_ASSERT_EQUAL(std::string("value"), std::string(field.value));
}
