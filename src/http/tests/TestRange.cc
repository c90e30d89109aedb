/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/Range.h"

#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

/// Http::ByteRangeSet, If-Range and multipart/byteranges framing (RFC 9110 section 14).
class TestRange : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestRange);
    CPPUNIT_TEST(rfcExamplesResolve);
    CPPUNIT_TEST(parsesEveryFormOfSpec);
    CPPUNIT_TEST(unitIsCaseInsensitiveAndListsTolerateWhitespace);
    CPPUNIT_TEST(rejectsOtherUnitsAndMalformedSets);
    CPPUNIT_TEST(limitsTheNumberOfRanges);
    CPPUNIT_TEST(hugeNumbersSaturate);
    CPPUNIT_TEST(encodeThenParseGivesTheSpecsBack);
    CPPUNIT_TEST(unsatisfiableRangesAreDropped);
    CPPUNIT_TEST(resolvedRangesCoverExactlyWhatWasAsked);
    CPPUNIT_TEST(coalescedRangesKeepRequestOrder);
    CPPUNIT_TEST(overlapsCannotAmplifyTheReply);
    CPPUNIT_TEST(contentRangeValues);
    CPPUNIT_TEST(contentRangeParses);
    CPPUNIT_TEST(ifRangeWithEntityTags);
    CPPUNIT_TEST(ifRangeWithDates);
    CPPUNIT_TEST(multipartRfcExample);
    CPPUNIT_TEST(multipartBodyLengthIsExact);
    CPPUNIT_TEST(multipartWithoutContentType);
    CPPUNIT_TEST(boundariesAreFreshAndValid);
    CPPUNIT_TEST(garbageNeverThrows);
    CPPUNIT_TEST_SUITE_END();

public:
    void rfcExamplesResolve();
    void parsesEveryFormOfSpec();
    void unitIsCaseInsensitiveAndListsTolerateWhitespace();
    void rejectsOtherUnitsAndMalformedSets();
    void limitsTheNumberOfRanges();
    void hugeNumbersSaturate();
    void encodeThenParseGivesTheSpecsBack();
    void unsatisfiableRangesAreDropped();
    void resolvedRangesCoverExactlyWhatWasAsked();
    void coalescedRangesKeepRequestOrder();
    void overlapsCannotAmplifyTheReply();
    void contentRangeValues();
    void contentRangeParses();
    void ifRangeWithEntityTags();
    void ifRangeWithDates();
    void multipartRfcExample();
    void multipartBodyLengthIsExact();
    void multipartWithoutContentType();
    void boundariesAreFreshAndValid();
    void garbageNeverThrows();
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestRange);

namespace {

using Ranges = std::vector<Http::ByteRange>;
using Http::ByteRangeSpec;

Ranges Resolve(std::string_view value, uint64_t length)
{
    Http::ByteRangeSet set;
    CPPUNIT_ASSERT_MESSAGE(std::string(value), set.parse(value));
    return set.resolve(length);
}

bool Parses(std::string_view value)
{
    Http::ByteRangeSet set;
    return set.parse(value);
}

std::string Pattern(uint64_t offset, uint64_t length)
{
    std::string s;
    for (uint64_t i = 0; i < length; ++i)
        s += char('a' + (offset + i) % 26);
    return s;
}

} // namespace

void TestRange::rfcExamplesResolve()
{
    // RFC 9110 section 14.1.2, a representation of length 10000
    CPPUNIT_ASSERT(Resolve("bytes=0-499", 10000) == (Ranges{{0, 500}}));
    CPPUNIT_ASSERT(Resolve("bytes=500-999", 10000) == (Ranges{{500, 500}}));
    CPPUNIT_ASSERT(Resolve("bytes=-500", 10000) == (Ranges{{9500, 500}}));
    CPPUNIT_ASSERT(Resolve("bytes=9500-", 10000) == (Ranges{{9500, 500}}));
    CPPUNIT_ASSERT(Resolve("bytes=0-0,-1", 10000) == (Ranges{{0, 1}, {9999, 1}}));
    // "other valid (but not canonical) specifications of the second 500 bytes"
    CPPUNIT_ASSERT(Resolve("bytes=500-600,601-999", 10000) == (Ranges{{500, 500}}));
    CPPUNIT_ASSERT(Resolve("bytes=500-700,601-999", 10000) == (Ranges{{500, 500}}));
    // section 14.1.1
    CPPUNIT_ASSERT(Resolve("bytes=0-999, 4500-5499, -1000", 10000) ==
                   (Ranges{{0, 1000}, {4500, 1000}, {9000, 1000}}));
    CPPUNIT_ASSERT(Resolve("bytes=500-600, 601-999", 10000) == (Ranges{{500, 500}}));
}

void TestRange::parsesEveryFormOfSpec()
{
    Http::ByteRangeSet set;
    CPPUNIT_ASSERT(set.parse("bytes=0-99,200-,-50,7-7"));
    const std::vector<ByteRangeSpec> expected = {ByteRangeSpec::FromTo(0, 99), ByteRangeSpec::From(200),
                                                 ByteRangeSpec::Suffix(50), ByteRangeSpec::FromTo(7, 7)};
    CPPUNIT_ASSERT(set.specs() == expected);
    CPPUNIT_ASSERT(set.specs()[2].isSuffix);
    CPPUNIT_ASSERT_EQUAL(std::string("bytes=0-99,200-,-50,7-7"), set.toString());
    // a failed parse forgets the last one
    CPPUNIT_ASSERT(!set.parse("bytes=x"));
    CPPUNIT_ASSERT(set.specs().empty());
}

void TestRange::unitIsCaseInsensitiveAndListsTolerateWhitespace()
{
    CPPUNIT_ASSERT(Resolve("BYTES=0-1", 10) == (Ranges{{0, 2}}));
    CPPUNIT_ASSERT(Resolve("Bytes=0-1", 10) == (Ranges{{0, 2}}));
    CPPUNIT_ASSERT(Resolve(" bytes= 0-1 ,\t 5-6,, ,8-9 ", 10) == (Ranges{{0, 2}, {5, 2}, {8, 2}}));
    CPPUNIT_ASSERT(Resolve("bytes=,0-1,", 10) == (Ranges{{0, 2}}));
}

void TestRange::rejectsOtherUnitsAndMalformedSets()
{
    const char* const bad[] = {
        "",
        "bytes",
        "bytes=",
        "bytes=,",
        "bytes= , ",
        "items=0-5",
        "byte=0-5",
        "bytes 0-5",
        "bytes =0-5",
        "=0-5",
        "bytes=5-1",
        "bytes=a-b",
        "bytes=-",
        "bytes=0 -1",
        "bytes=0- 1",
        "bytes=1-2-3",
        "bytes=--5",
        "bytes=+1-2",
        "bytes=0-1;5",
        "bytes=0x1-2",
        "bytes=0-1,x",
        "bytes=0-1 2-3",
        "bytes=-1-2",
        "bytes==0-1",
        "bytes=0-1\r\n",
        "bytes=1.0-2",
        "none",
        "bytes=5",
    };
    for (const char* text : bad)
        CPPUNIT_ASSERT_MESSAGE(text, !Parses(text));
}

void TestRange::limitsTheNumberOfRanges()
{
    std::string value = "bytes=";
    for (size_t i = 0; i < Http::ByteRangeSet::MaxRanges; ++i)
        value += std::to_string(i * 10) + "-" + std::to_string(i * 10 + 1) + ",";
    Http::ByteRangeSet set;
    CPPUNIT_ASSERT(set.parse(value));
    CPPUNIT_ASSERT_EQUAL(Http::ByteRangeSet::MaxRanges, set.specs().size());
    CPPUNIT_ASSERT_EQUAL(Http::ByteRangeSet::MaxRanges, set.resolve(100000).size());
    CPPUNIT_ASSERT(set.parse(value + ",,,")); // empty elements do not count
    CPPUNIT_ASSERT(!set.parse(value + "5000-5001"));
}

void TestRange::hugeNumbersSaturate()
{
    CPPUNIT_ASSERT(Resolve("bytes=0-99999999999999999999999", 100) == (Ranges{{0, 100}}));
    CPPUNIT_ASSERT(Resolve("bytes=-99999999999999999999999", 100) == (Ranges{{0, 100}}));
    CPPUNIT_ASSERT(Resolve("bytes=99999999999999999999999-", 100).empty());
    CPPUNIT_ASSERT(Resolve("bytes=18446744073709551614-18446744073709551615", 100).empty());
    // a body of the largest length: no overflow at the top end
    CPPUNIT_ASSERT(Resolve("bytes=18446744073709551614-", UINT64_MAX) == (Ranges{{UINT64_MAX - 1, 1}}));
    CPPUNIT_ASSERT(Resolve("bytes=-1", UINT64_MAX) == (Ranges{{UINT64_MAX - 1, 1}}));
    CPPUNIT_ASSERT(Resolve("bytes=0-", UINT64_MAX) == (Ranges{{0, UINT64_MAX}}));
    CPPUNIT_ASSERT(Resolve("bytes=0-5,6-", UINT64_MAX) == (Ranges{{0, UINT64_MAX}}));
}

void TestRange::encodeThenParseGivesTheSpecsBack()
{
    std::mt19937_64 rng(1);
    for (int i = 0; i < 5000; ++i) {
        std::vector<ByteRangeSpec> specs;
        const size_t n = 1 + rng() % Http::ByteRangeSet::MaxRanges;
        for (size_t k = 0; k < n; ++k) {
            const uint64_t a = rng() >> (rng() % 64), b = rng() >> (rng() % 64);
            switch (rng() % 3) {
            case 0:
                specs.push_back(
                    ByteRangeSpec::FromTo(std::min(a, b), std::min(std::max(a, b), UINT64_MAX - 1)));
                break;
            case 1:
                specs.push_back(ByteRangeSpec::From(a));
                break;
            default:
                specs.push_back(ByteRangeSpec::Suffix(a));
            }
        }
        Http::ByteRangeSet set;
        set.setSpecs(specs);
        const auto text = set.toString();
        Http::ByteRangeSet back;
        CPPUNIT_ASSERT_MESSAGE(text, back.parse(text));
        CPPUNIT_ASSERT(back.specs() == specs);
        CPPUNIT_ASSERT_EQUAL(text, back.toString());
    }
}

void TestRange::unsatisfiableRangesAreDropped()
{
    CPPUNIT_ASSERT(Resolve("bytes=100-", 100).empty());
    CPPUNIT_ASSERT(Resolve("bytes=100-200", 100).empty());
    CPPUNIT_ASSERT(Resolve("bytes=-0", 100).empty());
    CPPUNIT_ASSERT(Resolve("bytes=0-", 0).empty());
    CPPUNIT_ASSERT(Resolve("bytes=-5", 0).empty());
    CPPUNIT_ASSERT(Resolve("bytes=100-,-0,0-0", 100) == (Ranges{{0, 1}}));
    CPPUNIT_ASSERT(Resolve("bytes=99-", 100) == (Ranges{{99, 1}}));
    CPPUNIT_ASSERT(Resolve("bytes=50-1000", 100) == (Ranges{{50, 50}}));
}

void TestRange::resolvedRangesCoverExactlyWhatWasAsked()
{
    // against a brute-force model over small bodies: the parts are
    // satisfiable, never touch each other, and their union is exactly the
    // union of the bytes the specs ask for (nothing more: no gap is filled)
    std::mt19937 rng(2);
    for (int i = 0; i < 20000; ++i) {
        const uint64_t length = rng() % 70;
        std::vector<ByteRangeSpec> specs;
        const size_t n = 1 + rng() % 8;
        for (size_t k = 0; k < n; ++k) {
            const uint64_t a = rng() % 80, b = rng() % 80;
            switch (rng() % 3) {
            case 0:
                specs.push_back(ByteRangeSpec::FromTo(std::min(a, b), std::max(a, b)));
                break;
            case 1:
                specs.push_back(ByteRangeSpec::From(a));
                break;
            default:
                specs.push_back(ByteRangeSpec::Suffix(a % 12));
            }
        }
        std::vector<bool> asked(length, false);
        for (const auto& s : specs) {
            for (uint64_t b = 0; b < length; ++b) {
                const bool in = s.isSuffix ? b + s.suffix >= length : (b >= s.first && b <= s.last);
                if (in)
                    asked[b] = true;
            }
        }
        Http::ByteRangeSet set;
        set.setSpecs(specs);
        const auto ranges = set.resolve(length);

        std::vector<bool> given(length, false);
        uint64_t total = 0;
        for (const auto& r : ranges) {
            CPPUNIT_ASSERT(r.length > 0 && r.offset + r.length <= length);
            for (uint64_t b = r.offset; b < r.offset + r.length; ++b) {
                CPPUNIT_ASSERT(!given[b]); // no overlap
                given[b] = true;
            }
            total += r.length;
        }
        for (size_t x = 0; x < ranges.size(); ++x) {
            for (size_t y = 0; y < ranges.size(); ++y) {
                if (x != y) // not even adjacent: those are coalesced
                    CPPUNIT_ASSERT(ranges[x].offset + ranges[x].length != ranges[y].offset);
            }
        }
        CPPUNIT_ASSERT(given == asked);
        CPPUNIT_ASSERT(total <= length);
        CPPUNIT_ASSERT_EQUAL(ranges.empty(), std::find(asked.begin(), asked.end(), true) == asked.end());
    }
}

void TestRange::coalescedRangesKeepRequestOrder()
{
    CPPUNIT_ASSERT(Resolve("bytes=50-59,0-9", 100) == (Ranges{{50, 10}, {0, 10}}));
    // a joined range takes the place of the first one it absorbed
    CPPUNIT_ASSERT(Resolve("bytes=900-,0-99,50-149,-50", 1000) == (Ranges{{900, 100}, {0, 150}}));
    CPPUNIT_ASSERT(Resolve("bytes=60-69,0-9,20-29,10-19", 100) == (Ranges{{60, 10}, {0, 30}}));
    // one range bridging two earlier ones joins all three at the first's place
    CPPUNIT_ASSERT(Resolve("bytes=40-49,0-9,20-29,5-45", 100) == (Ranges{{0, 50}}));
    CPPUNIT_ASSERT(Resolve("bytes=70-79,40-49,0-9,20-29,5-45", 100) == (Ranges{{70, 10}, {0, 50}}));
    // a gap of one byte is not filled
    CPPUNIT_ASSERT(Resolve("bytes=0-9,11-19", 100) == (Ranges{{0, 10}, {11, 9}}));
}

void TestRange::overlapsCannotAmplifyTheReply()
{
    std::string value = "bytes=0-";
    for (int i = 1; i < 100; ++i)
        value += ",0-";
    CPPUNIT_ASSERT(Resolve(value, 1000000) == (Ranges{{0, 1000000}}));
    value = "bytes=-1000000";
    for (int i = 1; i < 100; ++i)
        value += "," + std::to_string(i) + "-";
    CPPUNIT_ASSERT(Resolve(value, 1000000) == (Ranges{{0, 1000000}}));
}

void TestRange::contentRangeParses()
{
    // RFC 9110 section 14.4's examples, and what a value written is read back as
    auto parsed = Http::ParseContentRange("bytes 42-1233/1234");
    CPPUNIT_ASSERT(parsed);
    CPPUNIT_ASSERT(parsed->range == Http::ByteRange({42, 1192}));
    CPPUNIT_ASSERT_EQUAL(uint64_t(1234), parsed->completeLength.value_or(0));
    parsed = Http::ParseContentRange("bytes 42-1233/*");
    CPPUNIT_ASSERT(parsed && !parsed->completeLength);
    parsed = Http::ParseContentRange(Http::ContentRangeValue({0, 1}, 1));
    CPPUNIT_ASSERT(parsed && parsed->range == Http::ByteRange({0, 1}) && parsed->completeLength == 1u);
    CPPUNIT_ASSERT(Http::ParseContentRange("  BYTES 0-0/5 "));
    // no bytes named, another unit, a last position outside the whole or
    // before the first, signs, spaces, huge numbers
    for (const char* bad :
         {"bytes */1234", "items 0-1/2", "bytes 0-4/5x", "bytes 5-4/10", "bytes 0-9/9", "bytes 0-9/10/",
          "bytes +0-9/10", "bytes 0 -9/10", "bytes 0-9 /10", "bytes=0-9/10", "bytes 0-9", "bytes -9/10",
          "bytes 0-/10", "bytes 0-18446744073709551615/*", "bytes 0-99999999999999999999/*", "", "bytes "})
        CPPUNIT_ASSERT_MESSAGE(bad, !Http::ParseContentRange(bad));
}

void TestRange::contentRangeValues()
{
    CPPUNIT_ASSERT_EQUAL(std::string("bytes 0-499/1234"), Http::ContentRangeValue({0, 500}, 1234));
    CPPUNIT_ASSERT_EQUAL(std::string("bytes 42-42/43"), Http::ContentRangeValue({42, 1}, 43));
    CPPUNIT_ASSERT_EQUAL(std::string("bytes */1234"), Http::UnsatisfiedRangeValue(1234));
    // RFC 9110 sections 14.4 and 15.5.17
    CPPUNIT_ASSERT_EQUAL(std::string("bytes 42-1233/1234"), Http::ContentRangeValue({42, 1192}, 1234));
    CPPUNIT_ASSERT_EQUAL(std::string("bytes */47022"), Http::UnsatisfiedRangeValue(47022));
    // RFC 9110 section 15.3.7.1: "Range: bytes=21010-47021" of 47022 bytes
    CPPUNIT_ASSERT_EQUAL(std::string("bytes 21010-47021/47022"),
                         Http::ContentRangeValue(Resolve("bytes=21010-47021", 47022).at(0), 47022));
    CPPUNIT_ASSERT_EQUAL(std::string("bytes 0-18446744073709551614/18446744073709551615"),
                         Http::ContentRangeValue({0, UINT64_MAX}, UINT64_MAX));
}

void TestRange::ifRangeWithEntityTags()
{
    const auto strong = Http::ParseEntityTag("\"xyzzy\"");
    const auto weak = Http::ParseEntityTag("W/\"xyzzy\"");
    CPPUNIT_ASSERT(Http::IfRangeMatches("\"xyzzy\"", strong, std::nullopt, std::nullopt));
    CPPUNIT_ASSERT(Http::IfRangeMatches(" \"xyzzy\" ", strong, std::nullopt, std::nullopt));
    CPPUNIT_ASSERT(!Http::IfRangeMatches("W/\"xyzzy\"", strong, std::nullopt, std::nullopt));
    CPPUNIT_ASSERT(!Http::IfRangeMatches("\"xyzzy\"", weak, std::nullopt, std::nullopt));
    CPPUNIT_ASSERT(!Http::IfRangeMatches("\"other\"", strong, std::nullopt, std::nullopt));
    CPPUNIT_ASSERT(!Http::IfRangeMatches("\"xyzzy\"", std::nullopt, std::nullopt, std::nullopt));
    CPPUNIT_ASSERT(!Http::IfRangeMatches("\"xyzzy\", \"a\"", strong, std::nullopt, std::nullopt));
    CPPUNIT_ASSERT(!Http::IfRangeMatches("\"xyzzy", strong, std::nullopt, std::nullopt));
    CPPUNIT_ASSERT(!Http::IfRangeMatches("", strong, std::nullopt, std::nullopt));
    CPPUNIT_ASSERT(!Http::IfRangeMatches("*", strong, std::nullopt, std::nullopt));
}

void TestRange::ifRangeWithDates()
{
    const time_t lm = 784111777; // Sun, 06 Nov 1994 08:49:37 GMT
    const char* const text = "Sun, 06 Nov 1994 08:49:37 GMT";
    const auto tag = Http::ParseEntityTag("\"a\"");
    CPPUNIT_ASSERT(Http::IfRangeMatches(text, tag, lm, lm + 1));
    // RFC 9110 section 13.1.5's example date
    const time_t example = 783459811; // Sat, 29 Oct 1994 19:43:31 GMT
    CPPUNIT_ASSERT(Http::IfRangeMatches("Sat, 29 Oct 1994 19:43:31 GMT", tag, example, lm));
    CPPUNIT_ASSERT(Http::IfRangeMatches(text, std::nullopt, lm, lm + 3600));
    CPPUNIT_ASSERT(Http::IfRangeMatches("Sunday, 06-Nov-94 08:49:37 GMT", std::nullopt, lm, lm + 1));
    // Last-Modified is weak unless the stored Date is a second later (RFC 9110 8.8.2.2)
    CPPUNIT_ASSERT(!Http::IfRangeMatches(text, std::nullopt, lm, lm));
    CPPUNIT_ASSERT(!Http::IfRangeMatches(text, std::nullopt, lm, std::nullopt));
    // an exact match only: earlier or later is no match
    CPPUNIT_ASSERT(!Http::IfRangeMatches(text, std::nullopt, lm + 1, lm + 10));
    CPPUNIT_ASSERT(!Http::IfRangeMatches(text, std::nullopt, lm - 1, lm + 10));
    CPPUNIT_ASSERT(!Http::IfRangeMatches(text, std::nullopt, std::nullopt, lm + 10));
    CPPUNIT_ASSERT(!Http::IfRangeMatches("Sun, 06 Nov 1994 08:49:37", std::nullopt, lm, lm + 1));
    CPPUNIT_ASSERT(!Http::IfRangeMatches("yesterday", std::nullopt, lm, lm + 1));
}

void TestRange::multipartRfcExample()
{
    // RFC 9110 section 14.6, the example body (whose text elides the bytes)
    const Http::MultipartByteranges mp("THIS_STRING_SEPARATES", "application/pdf", 8000);
    CPPUNIT_ASSERT_EQUAL(std::string("multipart/byteranges; boundary=THIS_STRING_SEPARATES"),
                         mp.contentTypeValue());
    const Ranges ranges = {{500, 500}, {7000, 1000}};
    std::string body = mp.partHead(ranges[0], true) + "...the first range..." +
                       mp.partHead(ranges[1], false) + "...the second range" + mp.closing();
    const std::string expected = "--THIS_STRING_SEPARATES\r\n"
                                 "Content-Type: application/pdf\r\n"
                                 "Content-Range: bytes 500-999/8000\r\n"
                                 "\r\n"
                                 "...the first range...\r\n"
                                 "--THIS_STRING_SEPARATES\r\n"
                                 "Content-Type: application/pdf\r\n"
                                 "Content-Range: bytes 7000-7999/8000\r\n"
                                 "\r\n"
                                 "...the second range\r\n"
                                 "--THIS_STRING_SEPARATES--\r\n";
    CPPUNIT_ASSERT_EQUAL(expected, body);
}

void TestRange::multipartBodyLengthIsExact()
{
    // assemble bodies as the client side would (framing, slice, framing...)
    // and check the announced length and that each part holds its bytes
    std::mt19937 rng(3);
    for (int i = 0; i < 300; ++i) {
        const uint64_t length = 1 + rng() % 5000;
        std::string value = "bytes=";
        const int n = 1 + int(rng() % 10);
        for (int k = 0; k < n; ++k)
            value += std::to_string(rng() % length) + "-" + std::to_string(rng() % length + length / 2) + ",";
        Http::ByteRangeSet set;
        if (!set.parse(value))
            continue; // last < first
        const auto ranges = set.resolve(length);
        if (ranges.empty())
            continue;
        const Http::MultipartByteranges mp(Http::MakeBoundary(), "text/plain; charset=us-ascii", length);
        std::string body;
        for (size_t k = 0; k < ranges.size(); ++k)
            body += mp.partHead(ranges[k], k == 0) + Pattern(ranges[k].offset, ranges[k].length);
        body += mp.closing();
        CPPUNIT_ASSERT_EQUAL(uint64_t(body.size()), mp.bodyLength(ranges));

        // read it back: each part's Content-Range names the bytes that follow
        const std::string delimiter = "--" + mp.boundary();
        size_t pos = 0;
        for (const auto& r : ranges) {
            pos = body.find(delimiter, pos);
            CPPUNIT_ASSERT(pos != std::string::npos);
            const auto cr =
                body.find("Content-Range: " + Http::ContentRangeValue(r, length) + "\r\n\r\n", pos);
            CPPUNIT_ASSERT(cr != std::string::npos);
            const auto data = body.find("\r\n\r\n", cr) + 4;
            CPPUNIT_ASSERT_EQUAL(Pattern(r.offset, r.length), body.substr(data, r.length));
            CPPUNIT_ASSERT_EQUAL(std::string("\r\n--"), body.substr(data + r.length, 4));
            pos = data + r.length;
        }
        CPPUNIT_ASSERT_EQUAL(body.size() - pos, ("\r\n" + delimiter + "--\r\n").size());
    }
}

void TestRange::multipartWithoutContentType()
{
    const Http::MultipartByteranges mp("B", "", 10);
    CPPUNIT_ASSERT_EQUAL(std::string("--B\r\nContent-Range: bytes 0-1/10\r\n\r\n"),
                         mp.partHead({0, 2}, true));
    CPPUNIT_ASSERT_EQUAL(std::string("\r\n--B\r\nContent-Range: bytes 5-9/10\r\n\r\n"),
                         mp.partHead({5, 5}, false));
    CPPUNIT_ASSERT_EQUAL(std::string("\r\n--B--\r\n"), mp.closing());
    CPPUNIT_ASSERT_EQUAL(uint64_t(36 + 2 + 38 + 5 + 9),
                         mp.bodyLength({{0, 2}, {5, 5}})); // heads, bytes, close
}

void TestRange::boundariesAreFreshAndValid()
{
    std::set<std::string> seen;
    const std::string bchars = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=?";
    for (int i = 0; i < 1000; ++i) {
        const auto b = Http::MakeBoundary();
        CPPUNIT_ASSERT(b.size() >= 27 && b.size() <= 70); // RFC 2046: 1 to 70 bchars
        CPPUNIT_ASSERT(b.find_first_not_of(bchars) == std::string::npos);
        CPPUNIT_ASSERT(seen.insert(b).second);
    }
}

void TestRange::garbageNeverThrows()
{
    std::mt19937 rng(4);
    const std::string alphabet = "bytes=BYTES0123456789-, \t\"x*";
    for (int i = 0; i < 50000; ++i) {
        std::string text = rng() % 2 ? "bytes=" : "";
        const size_t n = rng() % 30;
        for (size_t k = 0; k < n; ++k)
            text += rng() % 8 ? alphabet[rng() % alphabet.size()] : static_cast<char>(rng());
        Http::ByteRangeSet set;
        if (!set.parse(text)) {
            CPPUNIT_ASSERT(set.specs().empty());
            continue;
        }
        CPPUNIT_ASSERT(!set.specs().empty() && set.specs().size() <= Http::ByteRangeSet::MaxRanges);
        const auto ranges = set.resolve(rng() % 1000);
        for (const auto& r : ranges)
            CPPUNIT_ASSERT(r.length > 0);
        // what parses prints to a canonical form that parses to the same specs
        Http::ByteRangeSet again;
        CPPUNIT_ASSERT(again.parse(set.toString()));
        CPPUNIT_ASSERT(again.specs() == set.specs());
        Http::IfRangeMatches(text, std::nullopt, 0, 1);
    }
}
