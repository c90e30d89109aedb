/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/ReplyParser.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

/// Http::ReplyParser: strict RFC 9112 reply heads, incrementally.
class TestReplyParser : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestReplyParser);
    CPPUNIT_TEST(parsesSimpleReply);
    CPPUNIT_TEST(viewsPointIntoTheBuffer);
    CPPUNIT_TEST(needMoreAtEverySplitPoint);
    CPPUNIT_TEST(byteByByteEqualsWhole);
    CPPUNIT_TEST(mutatedHeadsGiveTheSameResultHoweverSplit);
    CPPUNIT_TEST(headSizeStopsAtBody);
    CPPUNIT_TEST(acceptsMissingOrEmptyReason);
    CPPUNIT_TEST(toleratesBareLf);
    CPPUNIT_TEST(skipsLeadingEmptyLines);
    CPPUNIT_TEST(rejectsBadStatusLines);
    CPPUNIT_TEST(failsEarlyWhenNotHttp);
    CPPUNIT_TEST(rejectsMalformedFields);
    CPPUNIT_TEST(contentLengthCopiesMustAgree);
    CPPUNIT_TEST(transferEncodingCodings);
    CPPUNIT_TEST(transferEncodingOverridesLength);
    CPPUNIT_TEST(framingFollowsSection63);
    CPPUNIT_TEST(interimReplyIsItsOwnHead);
    CPPUNIT_TEST(connectionSemantics);
    CPPUNIT_TEST(tooLargeWithoutEnd);
    CPPUNIT_TEST(tooLargeWhenEndIsPastLimit);
    CPPUNIT_TEST(exactLimitIsAccepted);
    CPPUNIT_TEST(resultIsSticky);
    CPPUNIT_TEST(resetParsesNextReply);
    CPPUNIT_TEST_SUITE_END();

public:
    void parsesSimpleReply();
    void viewsPointIntoTheBuffer();
    void needMoreAtEverySplitPoint();
    void byteByByteEqualsWhole();
    void mutatedHeadsGiveTheSameResultHoweverSplit();
    void headSizeStopsAtBody();
    void acceptsMissingOrEmptyReason();
    void toleratesBareLf();
    void skipsLeadingEmptyLines();
    void rejectsBadStatusLines();
    void failsEarlyWhenNotHttp();
    void rejectsMalformedFields();
    void contentLengthCopiesMustAgree();
    void transferEncodingCodings();
    void transferEncodingOverridesLength();
    void framingFollowsSection63();
    void interimReplyIsItsOwnHead();
    void connectionSemantics();
    void tooLargeWithoutEnd();
    void tooLargeWhenEndIsPastLimit();
    void exactLimitIsAccepted();
    void resultIsSticky();
    void resetParsesNextReply();
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestReplyParser);

using Http::ParseResult;
using Http::ReplyError;
using Framing = Http::ReplyParser::Framing;

namespace {

const std::string Valid = "HTTP/1.1 200 OK\r\n"
                          "Date: Mon, 02 Mar 2026 10:00:00 GMT\r\n"
                          "Content-Type:text/plain\r\n"
                          "Content-Length:   12  \r\n"
                          "X-Empty:\r\n"
                          "\r\n";

/// everything a parse can tell, copied out of the buffer
struct Outcome {
    ParseResult result = ParseResult::NeedMore;
    ReplyError error = ReplyError::None;
    size_t headSize = 0;
    int major = 0, minor = 0, status = 0;
    std::string reason;
    std::vector<std::pair<std::string, std::string>> fields;

    bool operator==(const Outcome&) const = default;
};

Outcome Snapshot(const Http::ReplyParser& p, ParseResult r)
{
    Outcome o;
    o.result = r;
    o.error = p.error();
    if (r == ParseResult::Done) {
        o.headSize = p.headSize();
        o.major = p.versionMajor();
        o.minor = p.versionMinor();
        o.status = p.statusCode();
        o.reason = std::string(p.reason());
        for (const auto& f : p.fields())
            o.fields.emplace_back(std::string(f.name), std::string(f.value));
    }
    return o;
}

Outcome ParseWhole(const std::string& s, size_t limit = 65536)
{
    Http::ReplyParser p(limit);
    const auto r = p.parse(s);
    return Snapshot(p, r);
}

/// appends one byte at a time to a buffer that never moves
Outcome ParseByteByByte(const std::string& s, size_t limit = 65536)
{
    Http::ReplyParser p(limit);
    std::string buf;
    buf.reserve(s.size() + 1);
    auto r = p.parse(buf);
    for (size_t i = 0; i < s.size() && r == ParseResult::NeedMore; ++i) {
        buf.push_back(s[i]);
        r = p.parse(buf);
    }
    return Snapshot(p, r);
}

/// two calls: the first `split` bytes, then all of them
Outcome ParseSplit(const std::string& s, size_t split, size_t limit = 65536)
{
    Http::ReplyParser p(limit);
    std::string buf = s.substr(0, split);
    buf.reserve(s.size() + 1);
    auto r = p.parse(buf);
    if (r == ParseResult::NeedMore) {
        buf.append(s, split);
        r = p.parse(buf);
    }
    return Snapshot(p, r);
}

ReplyError ErrorOf(const std::string& s, size_t limit = 65536)
{
    return ParseWhole(s, limit).error;
}

std::string Printable(const std::string& s)
{
    std::string out;
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x20 && u < 0x7f && c != '\\') {
            out.push_back(c);
        } else {
            char hex[8];
            std::snprintf(hex, sizeof(hex), "\\x%02x", u);
            out += hex;
        }
    }
    return out;
}

const std::vector<std::string> Heads = {
    Valid,
    "HTTP/1.0 404 Not Found\nServer: x\n\n",
    "\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
    "HTTP/1.1 200\r\nTransfer-Encoding: gzip, chunked\r\n\r\nbody",
    "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n",
    "HTTP/1.1 200 OK\r\n Folded: x\r\n\r\n",
    "HTTP/1.1 200 OK\r\nA: b\rX\r\n\r\n",
    "HT\rX",
    "HTX\rY",
    "SSH-2.0-OpenSSH_9.2\r\n",
    "HTTP/2 200\r\n\r\n",
    "HTTP/1.1 99 Low\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n",
    "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
    "HTTP/1.1 200 OK\r\nX: a\x01z\r\n\r\n",
};

} // namespace

void TestReplyParser::parsesSimpleReply()
{
    Http::ReplyParser p(65536);
    CPPUNIT_ASSERT(p.parse(Valid) == ParseResult::Done);
    CPPUNIT_ASSERT_EQUAL(1, p.versionMajor());
    CPPUNIT_ASSERT_EQUAL(1, p.versionMinor());
    CPPUNIT_ASSERT_EQUAL(200, p.statusCode());
    CPPUNIT_ASSERT_EQUAL(std::string("OK"), std::string(p.reason()));
    CPPUNIT_ASSERT_EQUAL(size_t(4), p.fields().size());
    CPPUNIT_ASSERT_EQUAL(std::string("text/plain"), std::string(*p.findField("content-type")));
    CPPUNIT_ASSERT_EQUAL(std::string("12"), std::string(*p.findField("Content-Length")));
    CPPUNIT_ASSERT_EQUAL(std::string(), std::string(*p.findField("X-Empty")));
    CPPUNIT_ASSERT(!p.findField("Set-Cookie"));
    CPPUNIT_ASSERT_EQUAL(uint64_t(12), *p.contentLength());
    CPPUNIT_ASSERT(!p.transferCodings().isChunkedLast());
    CPPUNIT_ASSERT(!p.wantsClose());
    CPPUNIT_ASSERT_EQUAL(Valid.size(), p.headSize());
    CPPUNIT_ASSERT(p.framing(false, false) == Framing::Length);
}

void TestReplyParser::viewsPointIntoTheBuffer()
{
    Http::ReplyParser p(65536);
    CPPUNIT_ASSERT(p.parse(Valid) == ParseResult::Done);
    const char* begin = Valid.data();
    const char* end = Valid.data() + Valid.size();
    CPPUNIT_ASSERT(p.reason().data() >= begin && p.reason().data() < end);
    for (const auto& f : p.fields()) {
        CPPUNIT_ASSERT(f.name.data() >= begin && f.name.data() < end);
        CPPUNIT_ASSERT(f.value.data() >= begin && f.value.data() <= end);
    }
}

void TestReplyParser::needMoreAtEverySplitPoint()
{
    const auto whole = ParseWhole(Valid);
    for (size_t split = 0; split < Valid.size(); ++split) {
        Http::ReplyParser p(65536);
        std::string buf = Valid.substr(0, split);
        buf.reserve(Valid.size());
        CPPUNIT_ASSERT_MESSAGE("split at " + std::to_string(split), p.parse(buf) == ParseResult::NeedMore);
        buf.append(Valid, split);
        const auto r = p.parse(buf);
        CPPUNIT_ASSERT_MESSAGE("split at " + std::to_string(split), Snapshot(p, r) == whole);
    }
}

void TestReplyParser::byteByByteEqualsWhole()
{
    for (const auto& head : Heads) {
        const auto whole = ParseWhole(head);
        CPPUNIT_ASSERT_MESSAGE(Printable(head), ParseByteByByte(head) == whole);
        for (size_t split = 0; split <= head.size(); ++split)
            CPPUNIT_ASSERT_MESSAGE(Printable(head), ParseSplit(head, split) == whole);
    }
}

void TestReplyParser::mutatedHeadsGiveTheSameResultHoweverSplit()
{
    // The result depends on the bytes only: whole, byte by byte and split in
    // two agree for mangled heads too, under limits that cut anywhere.
    static const char Interesting[] = {'\r', '\n', ' ', '\t', ':', ',', '\0', '\x7f', '\x80', 'x', '0', 'H'};
    std::mt19937 rng(20260302);
    size_t done = 0, errors = 0;
    for (int round = 0; round < 3000; ++round) {
        std::string s = Heads[rng() % Heads.size()];
        const int edits = 1 + int(rng() % 3);
        for (int e = 0; e < edits && !s.empty(); ++e) {
            const size_t at = rng() % s.size();
            const char c = Interesting[rng() % sizeof(Interesting)];
            switch (rng() % 4) {
            case 0:
                s[at] = c;
                break;
            case 1:
                s.insert(at, 1, c);
                break;
            case 2:
                s.erase(at, 1);
                break;
            default:
                s.resize(at);
                break;
            }
        }
        const size_t limit = rng() % 2 ? 65536 : 1 + rng() % 80;
        const auto whole = ParseWhole(s, limit);
        const std::string what = Printable(s) + " limit " + std::to_string(limit);
        CPPUNIT_ASSERT_MESSAGE(what, ParseByteByByte(s, limit) == whole);
        CPPUNIT_ASSERT_MESSAGE(what, ParseSplit(s, rng() % (s.size() + 1), limit) == whole);
        if (whole.result == ParseResult::Done) {
            ++done;
            CPPUNIT_ASSERT(whole.headSize <= limit);
        }
        if (whole.result == ParseResult::Error)
            ++errors;
    }
    // the mutations exercise both outcomes
    CPPUNIT_ASSERT(done > 100);
    CPPUNIT_ASSERT(errors > 100);
}

void TestReplyParser::headSizeStopsAtBody()
{
    const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n";
    const std::string s = head + "HTTP/1.1 200 OK\r\n\r\n"; // a body that looks like a head
    Http::ReplyParser p(65536);
    CPPUNIT_ASSERT(p.parse(s) == ParseResult::Done);
    CPPUNIT_ASSERT_EQUAL(head.size(), p.headSize());
    CPPUNIT_ASSERT_EQUAL(size_t(1), p.fields().size());
}

void TestReplyParser::acceptsMissingOrEmptyReason()
{
    Http::ReplyParser p(65536);
    CPPUNIT_ASSERT(p.parse("HTTP/1.1 200\r\n\r\n") == ParseResult::Done);
    CPPUNIT_ASSERT_EQUAL(200, p.statusCode());
    CPPUNIT_ASSERT(p.reason().empty());

    p.reset();
    CPPUNIT_ASSERT(p.parse("HTTP/1.1 404 \r\n\r\n") == ParseResult::Done);
    CPPUNIT_ASSERT_EQUAL(404, p.statusCode());
    CPPUNIT_ASSERT(p.reason().empty());

    p.reset();
    CPPUNIT_ASSERT(p.parse("HTTP/1.0 999 Weird \t but\x80ok \r\n\r\n") == ParseResult::Done);
    CPPUNIT_ASSERT_EQUAL(999, p.statusCode());
    CPPUNIT_ASSERT_EQUAL(std::string("Weird \t but\x80ok "), std::string(p.reason()));
    CPPUNIT_ASSERT_EQUAL(0, p.versionMinor());
}

void TestReplyParser::toleratesBareLf()
{
    const std::string s = "HTTP/1.1 200 OK\nServer: s\r\nContent-Length: 0\n\n";
    Http::ReplyParser p(65536);
    CPPUNIT_ASSERT(p.parse(s) == ParseResult::Done);
    CPPUNIT_ASSERT_EQUAL(s.size(), p.headSize());
    CPPUNIT_ASSERT_EQUAL(std::string("s"), std::string(*p.findField("Server")));
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), *p.contentLength());
}

void TestReplyParser::skipsLeadingEmptyLines()
{
    const std::string s = "\r\n\nHTTP/1.1 304 Not Modified\r\n\r\n";
    Http::ReplyParser p(65536);
    CPPUNIT_ASSERT(p.parse(s) == ParseResult::Done);
    CPPUNIT_ASSERT_EQUAL(s.size(), p.headSize());
    CPPUNIT_ASSERT_EQUAL(304, p.statusCode());
}

void TestReplyParser::rejectsBadStatusLines()
{
    const std::vector<std::pair<std::string, ReplyError>> cases = {
        {"garbage\r\n\r\n", ReplyError::BadStatusLine},
        {"http/1.1 200 OK\r\n\r\n", ReplyError::BadStatusLine},
        {"HTTP/1.1\r\n\r\n", ReplyError::BadStatusLine},
        {"HTTP/1.1 \r\n\r\n", ReplyError::BadStatusLine},
        {"HTTP/1.1  200 OK\r\n\r\n", ReplyError::BadStatusLine},
        {"HTTP/1.1 200OK\r\n\r\n", ReplyError::BadStatusLine},
        {"HTTP/1.1 200\tOK\r\n\r\n", ReplyError::BadStatusLine},
        {"HTTP/1.1 200 O\x01K\r\n\r\n", ReplyError::BadStatusLine},
        {"HTTP/1.1 200 O\x7fK\r\n\r\n", ReplyError::BadStatusLine},
        {"HTTP/1.x 200 OK\r\n\r\n", ReplyError::BadVersion},
        {"HTTP/11 200 OK\r\n\r\n", ReplyError::BadVersion},
        {"HTTP/1.10 200 OK\r\n\r\n", ReplyError::BadVersion},
        {"HTTP/0.9 200 OK\r\n\r\n", ReplyError::BadVersion},
        {"HTTP/2.0 200 OK\r\n\r\n", ReplyError::UnsupportedVersion},
        {"HTTP/3.0 200\r\n\r\n", ReplyError::UnsupportedVersion},
        {"HTTP/1.1 099 Low\r\n\r\n", ReplyError::BadStatusCode},
        {"HTTP/1.1 000\r\n\r\n", ReplyError::BadStatusCode},
        {"HTTP/1.1 20 OK\r\n\r\n", ReplyError::BadStatusCode},
        {"HTTP/1.1 1000 Big\r\n\r\n", ReplyError::BadStatusCode},
        {"HTTP/1.1 abc OK\r\n\r\n", ReplyError::BadStatusCode},
        {"HTTP/1.1 -20 OK\r\n\r\n", ReplyError::BadStatusCode},
    };
    for (const auto& [input, expected] : cases) {
        CPPUNIT_ASSERT_MESSAGE(Printable(input), ErrorOf(input) == expected);
        CPPUNIT_ASSERT_MESSAGE(Printable(input), ParseByteByByte(input).error == expected);
    }
    // a NUL in the reason is a control byte (std::string keeps it)
    const std::string nul("HTTP/1.1 200 O\0K\r\n\r\n", 20);
    CPPUNIT_ASSERT(ErrorOf(nul) == ReplyError::BadStatusLine);

    Http::ReplyParser p(65536);
    p.parse("HTTP/1.1 2000 x\r\n\r\n");
    CPPUNIT_ASSERT_EQUAL(std::string("invalid status code"), std::string(p.errorText()));
}

void TestReplyParser::failsEarlyWhenNotHttp()
{
    // no line end needed: the first byte that cannot start HTTP/ decides
    Http::ReplyParser p(65536);
    CPPUNIT_ASSERT(p.parse("HTT") == ParseResult::NeedMore);
    p.reset();
    CPPUNIT_ASSERT(p.parse("\x16\x03\x01") == ParseResult::Error); // a TLS record
    CPPUNIT_ASSERT(p.error() == ReplyError::BadStatusLine);
    p.reset();
    CPPUNIT_ASSERT(p.parse("\r\n<html>") == ParseResult::Error); // HTTP/0.9-style body
    p.reset();
    CPPUNIT_ASSERT(p.parse("HTTPS") == ParseResult::Error);
    p.reset();
    CPPUNIT_ASSERT(p.parse("HTTP/") == ParseResult::NeedMore);
    p.reset();
    CPPUNIT_ASSERT(p.parse("\r\n\r") == ParseResult::NeedMore);
}

void TestReplyParser::rejectsMalformedFields()
{
    const std::string start = "HTTP/1.1 200 OK\r\n";
    const std::vector<std::pair<std::string, ReplyError>> cases = {
        {" Folded: x\r\n", ReplyError::ObsFold},
        {"A: b\r\n\tcontinued\r\n", ReplyError::ObsFold},
        {"A: b\r\n continued\r\n", ReplyError::ObsFold},
        {"NoColon\r\n", ReplyError::BadField},
        {": novalue\r\n", ReplyError::BadField},
        {"Name : x\r\n", ReplyError::BadField},
        {"Name\t: x\r\n", ReplyError::BadField},
        {"Na(me: x\r\n", ReplyError::BadField},
        {"A: b\x01\r\n", ReplyError::BadField},
        {"A: b\x7f\r\n", ReplyError::BadField},
        {"A: b\x1b[0m\r\n", ReplyError::BadField},
        {"A: b\rc\r\n", ReplyError::BareCr},
        {"A: b\r \r\n", ReplyError::BareCr},
    };
    for (const auto& [fields, expected] : cases) {
        const auto input = start + fields + "\r\n";
        CPPUNIT_ASSERT_MESSAGE(Printable(input), ErrorOf(input) == expected);
        CPPUNIT_ASSERT_MESSAGE(Printable(input), ParseByteByByte(input).error == expected);
    }
    const std::string nul = start + std::string("A: b\0c\r\n\r\n", 9);
    CPPUNIT_ASSERT(ErrorOf(nul) == ReplyError::BadField);
    // obs-text and HTAB are fine in a value
    CPPUNIT_ASSERT(ErrorOf(start + "A: caf\xc3\xa9\tb\r\n\r\n") == ReplyError::None);
}

void TestReplyParser::contentLengthCopiesMustAgree()
{
    const auto lengthOf = [](const std::string& fields) -> std::optional<uint64_t> {
        static std::string input; // the views point into it until the next call
        input = "HTTP/1.1 200 OK\r\n" + fields + "\r\n";
        Http::ReplyParser p(65536);
        if (p.parse(input) != ParseResult::Done)
            return std::nullopt;
        return p.contentLength();
    };
    CPPUNIT_ASSERT_EQUAL(uint64_t(5), *lengthOf("Content-Length: 5\r\n"));
    CPPUNIT_ASSERT_EQUAL(uint64_t(5), *lengthOf("Content-Length: 5, 5\r\n"));
    CPPUNIT_ASSERT_EQUAL(uint64_t(5), *lengthOf("Content-Length: 5,5 ,  5\r\n"));
    CPPUNIT_ASSERT_EQUAL(uint64_t(5), *lengthOf("Content-Length: 5\r\ncontent-length: 5\r\n"));
    CPPUNIT_ASSERT_EQUAL(uint64_t(5), *lengthOf("Content-Length: 0005\r\n"));
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), *lengthOf("Content-Length: 0\r\n"));
    CPPUNIT_ASSERT_EQUAL(uint64_t(INT64_MAX), *lengthOf("Content-Length: 9223372036854775807\r\n"));

    const std::vector<std::string> bad = {
        "Content-Length: 5, 6\r\n",
        "Content-Length: 5\r\nContent-Length: 6\r\n",
        "Content-Length: 5\r\nContent-Length: 5, 7\r\n",
        "Content-Length: \r\n",
        "Content-Length: 5,\r\n",
        "Content-Length: ,5\r\n",
        "Content-Length: abc\r\n",
        "Content-Length: -1\r\n",
        "Content-Length: +5\r\n",
        "Content-Length: 5 5\r\n",
        "Content-Length: 0x10\r\n",
        "Content-Length: 9223372036854775808\r\n",
        "Content-Length: 18446744073709551616\r\n",
        "Content-Length: 99999999999999999999999999999999\r\n",
    };
    for (const auto& fields : bad) {
        const auto input = "HTTP/1.1 200 OK\r\n" + fields + "\r\n";
        CPPUNIT_ASSERT_MESSAGE(Printable(input), ErrorOf(input) == ReplyError::BadContentLength);
    }
}

void TestReplyParser::transferEncodingCodings()
{
    struct Case {
        std::string fields;
        bool chunked;
    };
    const std::vector<Case> good = {
        {"Transfer-Encoding: chunked\r\n", true},
        {"Transfer-Encoding: CHUNKED\r\n", true},
        {"Transfer-Encoding: gzip, chunked\r\n", true},
        {"Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n", true},
        {"Transfer-Encoding: ,chunked,\r\n", true},
        {"Transfer-Encoding: gzip\r\n", false},
        {"Transfer-Encoding: chunked, gzip\r\n", false},
        {"Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n", false},
        {"Transfer-Encoding: identity\r\n", false},
    };
    for (const auto& c : good) {
        const auto input = "HTTP/1.1 200 OK\r\n" + c.fields + "\r\n";
        Http::ReplyParser p(65536);
        CPPUNIT_ASSERT_MESSAGE(Printable(input), p.parse(input) == ParseResult::Done);
        CPPUNIT_ASSERT(p.transferCodings().isPresent());
        CPPUNIT_ASSERT_EQUAL_MESSAGE(Printable(input), c.chunked, p.transferCodings().isChunkedLast());
        CPPUNIT_ASSERT(p.framing(false, false) == (c.chunked ? Framing::Chunked : Framing::Close));
    }
    const std::vector<std::string> bad = {
        "Transfer-Encoding: chunked, chunked\r\n",
        "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
        "Transfer-Encoding: \r\n",
        "Transfer-Encoding: ,\r\n",
        "Transfer-Encoding: ;x=1\r\n",
        "Transfer-Encoding: chun ked\r\n",
        "Transfer-Encoding: \"chunked\"\r\n",
        "Transfer-Encoding: chunked ; x=1\r\n",
    };
    for (const auto& fields : bad) {
        const auto input = "HTTP/1.1 200 OK\r\n" + fields + "\r\n";
        CPPUNIT_ASSERT_MESSAGE(Printable(input), ErrorOf(input) == ReplyError::BadTransferEncoding);
    }
}

void TestReplyParser::transferEncodingOverridesLength()
{
    // RFC 9112 section 6.3 item 3: Transfer-Encoding wins, Content-Length goes
    const std::string s = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nTransfer-Encoding: chunked\r\n\r\n";
    Http::ReplyParser p(65536);
    CPPUNIT_ASSERT(p.parse(s) == ParseResult::Done);
    CPPUNIT_ASSERT(p.hadLengthAndTransferEncoding());
    CPPUNIT_ASSERT(!p.contentLength());
    CPPUNIT_ASSERT(p.framing(false, false) == Framing::Chunked);

    p.reset();
    const std::string gzip = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 10\r\n\r\n";
    CPPUNIT_ASSERT(p.parse(gzip) == ParseResult::Done);
    CPPUNIT_ASSERT(p.hadLengthAndTransferEncoding());
    CPPUNIT_ASSERT(!p.contentLength());
    CPPUNIT_ASSERT(p.framing(false, false) == Framing::Close);

    p.reset();
    CPPUNIT_ASSERT(p.parse(Valid) == ParseResult::Done);
    CPPUNIT_ASSERT(!p.hadLengthAndTransferEncoding());

    // a bad Content-Length is an error even when Transfer-Encoding would win
    CPPUNIT_ASSERT(ErrorOf("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: x\r\n\r\n") ==
                   ReplyError::BadContentLength);
}

void TestReplyParser::framingFollowsSection63()
{
    const auto framingOf = [](const std::string& statusAndFields, bool head, bool connect) {
        static std::string input;
        input = "HTTP/1.1 " + statusAndFields + "\r\n";
        Http::ReplyParser p(65536);
        CPPUNIT_ASSERT_MESSAGE(Printable(input), p.parse(input) == ParseResult::Done);
        return p.framing(head, connect);
    };
    const std::string chunked = "Transfer-Encoding: chunked\r\n";
    const std::string length = "Content-Length: 7\r\n";

    // no body, whatever the fields say
    for (const auto& fields : {std::string(), chunked, length}) {
        CPPUNIT_ASSERT(framingOf("200 OK\r\n" + fields, true, false) == Framing::None);
        CPPUNIT_ASSERT(framingOf("404 Not Found\r\n" + fields, true, false) == Framing::None);
        CPPUNIT_ASSERT(framingOf("100 Continue\r\n" + fields, false, false) == Framing::None);
        CPPUNIT_ASSERT(framingOf("103 Early Hints\r\n" + fields, false, false) == Framing::None);
        CPPUNIT_ASSERT(framingOf("204 No Content\r\n" + fields, false, false) == Framing::None);
        CPPUNIT_ASSERT(framingOf("304 Not Modified\r\n" + fields, false, false) == Framing::None);
        CPPUNIT_ASSERT(framingOf("200 Connection established\r\n" + fields, false, true) == Framing::None);
    }
    // a refused CONNECT has a body as any reply does
    CPPUNIT_ASSERT(framingOf("407 Auth\r\n" + length, false, true) == Framing::Length);
    CPPUNIT_ASSERT(framingOf("403 Forbidden\r\n", false, true) == Framing::Close);

    CPPUNIT_ASSERT(framingOf("200 OK\r\n" + chunked, false, false) == Framing::Chunked);
    CPPUNIT_ASSERT(framingOf("200 OK\r\nTransfer-Encoding: gzip\r\n", false, false) == Framing::Close);
    CPPUNIT_ASSERT(framingOf("200 OK\r\n" + length, false, false) == Framing::Length);
    CPPUNIT_ASSERT(framingOf("200 OK\r\nContent-Length: 0\r\n", false, false) == Framing::Length);
    CPPUNIT_ASSERT(framingOf("200 OK\r\n", false, false) == Framing::Close);
    CPPUNIT_ASSERT(framingOf("500 Oops\r\n", false, false) == Framing::Close);
    CPPUNIT_ASSERT(framingOf("205 Reset Content\r\n" + length, false, false) == Framing::Length);
}

void TestReplyParser::interimReplyIsItsOwnHead()
{
    const std::string interim = "HTTP/1.1 100 Continue\r\n\r\n";
    const std::string final = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n";
    const std::string s = interim + final + "hi";
    Http::ReplyParser p(65536);
    CPPUNIT_ASSERT(p.parse(s) == ParseResult::Done);
    CPPUNIT_ASSERT_EQUAL(100, p.statusCode());
    CPPUNIT_ASSERT_EQUAL(interim.size(), p.headSize());
    CPPUNIT_ASSERT(p.framing(false, false) == Framing::None);

    // the caller skips the interim head and parses on from the byte after it
    const auto rest = std::string_view(s).substr(p.headSize());
    p.reset();
    CPPUNIT_ASSERT(p.parse(rest) == ParseResult::Done);
    CPPUNIT_ASSERT_EQUAL(200, p.statusCode());
    CPPUNIT_ASSERT_EQUAL(final.size(), p.headSize());
    CPPUNIT_ASSERT(p.framing(false, false) == Framing::Length);
    CPPUNIT_ASSERT_EQUAL(std::string("hi"), std::string(rest.substr(p.headSize())));
}

void TestReplyParser::connectionSemantics()
{
    const auto closes = [](const std::string& versionAndFields) {
        static std::string input;
        input = "HTTP/" + versionAndFields + "\r\n";
        Http::ReplyParser p(65536);
        CPPUNIT_ASSERT_MESSAGE(Printable(input), p.parse(input) == ParseResult::Done);
        return p.wantsClose();
    };
    CPPUNIT_ASSERT(!closes("1.1 200 OK\r\n"));
    CPPUNIT_ASSERT(closes("1.1 200 OK\r\nConnection: close\r\n"));
    CPPUNIT_ASSERT(closes("1.1 200 OK\r\nConnection: Keep-Alive, CLOSE\r\n"));
    CPPUNIT_ASSERT(closes("1.1 200 OK\r\nConnection: x\r\nConnection: close\r\n"));
    CPPUNIT_ASSERT(!closes("1.1 200 OK\r\nConnection: closed\r\n"));
    CPPUNIT_ASSERT(!closes("1.1 200 OK\r\nX-Connection: close\r\n"));
    CPPUNIT_ASSERT(closes("1.0 200 OK\r\n"));
    CPPUNIT_ASSERT(!closes("1.0 200 OK\r\nConnection: keep-alive\r\n"));
    CPPUNIT_ASSERT(closes("1.0 200 OK\r\nConnection: keep-alive, close\r\n"));
    // RFC 9112 section 6.1: HTTP/1.0 with Transfer-Encoding has faulty framing
    CPPUNIT_ASSERT(closes("1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n"));
    CPPUNIT_ASSERT(!closes("1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"));

    Http::ReplyParser p(65536);
    const std::string s = "HTTP/1.1 200 OK\r\nConnection: Upgrade , x-Token\r\n\r\n";
    CPPUNIT_ASSERT(p.parse(s) == ParseResult::Done);
    CPPUNIT_ASSERT(p.hasConnectionToken("x-token"));
    CPPUNIT_ASSERT(p.hasConnectionToken("upgrade"));
    CPPUNIT_ASSERT(!p.hasConnectionToken("close"));
}

void TestReplyParser::tooLargeWithoutEnd()
{
    Http::ReplyParser p(64);
    std::string buf = "HTTP/1.1 200 OK\r\nX-Long: ";
    buf.reserve(200);
    CPPUNIT_ASSERT(p.parse(buf) == ParseResult::NeedMore);
    buf.append(100, 'a');
    CPPUNIT_ASSERT(p.parse(buf) == ParseResult::Error);
    CPPUNIT_ASSERT(p.error() == ReplyError::TooLarge);
    CPPUNIT_ASSERT(p.fields().empty());
    CPPUNIT_ASSERT_EQUAL(std::string("reply head too large"), std::string(p.errorText()));

    // a status line alone can be too long
    CPPUNIT_ASSERT(ErrorOf("HTTP/1.1 200 " + std::string(100, 'r'), 64) == ReplyError::TooLarge);
}

void TestReplyParser::tooLargeWhenEndIsPastLimit()
{
    // the whole head is buffered, but it ends past the limit
    const std::string s = "HTTP/1.1 200 OK\r\nX-Long: " + std::string(100, 'a') + "\r\n\r\n";
    CPPUNIT_ASSERT(ErrorOf(s, s.size() - 1) == ReplyError::TooLarge);
    CPPUNIT_ASSERT(ErrorOf(s, s.size() - 2) == ReplyError::TooLarge); // cut between CR and LF
    CPPUNIT_ASSERT(ParseByteByByte(s, s.size() - 1).error == ReplyError::TooLarge);
    // bytes after an unfinished head count too: the limit is on the head
    CPPUNIT_ASSERT(ErrorOf("HTTP/1.1 200 OK\r\n" + std::string(40, 'a'), 32) == ReplyError::TooLarge);
}

void TestReplyParser::exactLimitIsAccepted()
{
    Http::ReplyParser p(Valid.size());
    CPPUNIT_ASSERT(p.parse(Valid) == ParseResult::Done);
    CPPUNIT_ASSERT_EQUAL(Valid.size(), p.headSize());
    CPPUNIT_ASSERT(ParseByteByByte(Valid, Valid.size()).result == ParseResult::Done);
    // the body after a head that fills the limit does not count against it
    CPPUNIT_ASSERT(ParseWhole(Valid + "0123456789ab", Valid.size()).result == ParseResult::Done);
}

void TestReplyParser::resultIsSticky()
{
    Http::ReplyParser p(65536);
    CPPUNIT_ASSERT(p.parse(Valid) == ParseResult::Done);
    CPPUNIT_ASSERT(p.parse(Valid + "garbage\r\n") == ParseResult::Done);
    CPPUNIT_ASSERT_EQUAL(Valid.size(), p.headSize());

    p.reset();
    CPPUNIT_ASSERT(p.parse("HTTP/1.1 200 OK\r\nbad\r\n\r\n") == ParseResult::Error);
    CPPUNIT_ASSERT(p.parse("HTTP/1.1 200 OK\r\nbad\r\n\r\nmore") == ParseResult::Error);
    CPPUNIT_ASSERT(p.error() == ReplyError::BadField);
}

void TestReplyParser::resetParsesNextReply()
{
    Http::ReplyParser p(65536);
    CPPUNIT_ASSERT(p.parse("HTTP/1.1 404 No\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n") ==
                   ParseResult::Done);
    p.reset();
    CPPUNIT_ASSERT(p.headSize() == 0);
    CPPUNIT_ASSERT(p.fields().empty());
    CPPUNIT_ASSERT(p.error() == ReplyError::None);
    const std::string next = "HTTP/1.0 200 OK\r\n\r\n";
    CPPUNIT_ASSERT(p.parse(next) == ParseResult::Done);
    CPPUNIT_ASSERT_EQUAL(200, p.statusCode());
    CPPUNIT_ASSERT(p.fields().empty());
    CPPUNIT_ASSERT(!p.contentLength());
    CPPUNIT_ASSERT(!p.transferCodings().isPresent());
    CPPUNIT_ASSERT(!p.hadLengthAndTransferEncoding());
    CPPUNIT_ASSERT(p.framing(false, false) == Framing::Close);
}
