/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/FieldSyntax.h"
#include "http/RequestParser.h"

#include <cppunit/extensions/HelperMacros.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>

/// Http::RequestParser: strict RFC 9112 request heads, incrementally.
class TestRequestParser : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestRequestParser);
    CPPUNIT_TEST(parsesSimpleRequest);
    CPPUNIT_TEST(viewsPointIntoTheBuffer);
    CPPUNIT_TEST(needMoreAtEverySplitPoint);
    CPPUNIT_TEST(byteByByteEqualsWhole);
    CPPUNIT_TEST(rejectsBareLf);
    CPPUNIT_TEST(ignoresLeadingEmptyLines);
    CPPUNIT_TEST(headSizeStopsAtPipelinedRequest);
    CPPUNIT_TEST(rejectsGarbage);
    CPPUNIT_TEST(rejectsBadRequestLines);
    CPPUNIT_TEST(rejectsHttp2AsUnsupported);
    CPPUNIT_TEST(rejectsObsFold);
    CPPUNIT_TEST(rejectsFieldWithoutColon);
    CPPUNIT_TEST(rejectsWhitespaceBeforeColon);
    CPPUNIT_TEST(rejectsBareCr);
    CPPUNIT_TEST(rejectsControlInValue);
    CPPUNIT_TEST(rejectsBadContentLength);
    CPPUNIT_TEST(rejectsTwoOrInvalidHosts);
    CPPUNIT_TEST(tooLargeWithoutEnd);
    CPPUNIT_TEST(tooLargeWhenEndIsPastLimit);
    CPPUNIT_TEST(exactLimitIsAccepted);
    CPPUNIT_TEST(limitCutsTheSameWhateverTheSplit);
    CPPUNIT_TEST(connectionSemantics);
    CPPUNIT_TEST(bodyDetection);
    CPPUNIT_TEST(resetParsesNextRequest);
    CPPUNIT_TEST(firstWordOfGarbage);
    CPPUNIT_TEST(firstWordHoldsOnlyTokenCharacters);
    CPPUNIT_TEST(corpusParsesTheSameWholeAndByteByByte);
    CPPUNIT_TEST_SUITE_END();

public:
    void parsesSimpleRequest();
    void viewsPointIntoTheBuffer();
    void needMoreAtEverySplitPoint();
    void byteByByteEqualsWhole();
    void rejectsBareLf();
    void ignoresLeadingEmptyLines();
    void headSizeStopsAtPipelinedRequest();
    void rejectsGarbage();
    void rejectsBadRequestLines();
    void rejectsHttp2AsUnsupported();
    void rejectsObsFold();
    void rejectsFieldWithoutColon();
    void rejectsWhitespaceBeforeColon();
    void rejectsBareCr();
    void rejectsControlInValue();
    void rejectsBadContentLength();
    void rejectsTwoOrInvalidHosts();
    void tooLargeWithoutEnd();
    void tooLargeWhenEndIsPastLimit();
    void exactLimitIsAccepted();
    void limitCutsTheSameWhateverTheSplit();
    void connectionSemantics();
    void bodyDetection();
    void resetParsesNextRequest();
    void firstWordOfGarbage();
    void firstWordHoldsOnlyTokenCharacters();
    void corpusParsesTheSameWholeAndByteByByte();
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestRequestParser);

using Http::ParseError;
using Http::ParseResult;

namespace {

const std::string Valid = "GET http://example.com:8080/a?b=c HTTP/1.1\r\n"
                          "Host: example.com:8080\r\n"
                          "User-Agent:   curl/7.88  \r\n"
                          "Accept: */*\r\n"
                          "\r\n";

ParseResult ParseWhole(Http::RequestParser& p, const std::string& s)
{
    return p.parse(s);
}

/// the error a complete input gives
ParseError ErrorOf(const std::string& s, size_t limit = 65536)
{
    Http::RequestParser p(limit);
    const auto r = p.parse(s);
    if (r != ParseResult::Error)
        return ParseError::None;
    return p.error();
}

} // namespace

void TestRequestParser::parsesSimpleRequest()
{
    Http::RequestParser p(65536);
    CPPUNIT_ASSERT(ParseWhole(p, Valid) == ParseResult::Done);
    CPPUNIT_ASSERT_EQUAL(std::string("GET"), std::string(p.methodToken()));
    CPPUNIT_ASSERT(p.method() == Http::Method::Get);
    CPPUNIT_ASSERT_EQUAL(std::string("http://example.com:8080/a?b=c"), std::string(p.target()));
    CPPUNIT_ASSERT_EQUAL(1, p.versionMajor());
    CPPUNIT_ASSERT_EQUAL(1, p.versionMinor());
    CPPUNIT_ASSERT_EQUAL(size_t(3), p.fields().size());
    CPPUNIT_ASSERT_EQUAL(std::string("curl/7.88"), std::string(*p.findField("user-agent")));
    CPPUNIT_ASSERT_EQUAL(Valid.size(), p.headSize());
    CPPUNIT_ASSERT(!p.findField("Cookie"));
}

void TestRequestParser::viewsPointIntoTheBuffer()
{
    Http::RequestParser p(65536);
    CPPUNIT_ASSERT(p.parse(Valid) == ParseResult::Done);
    const char* begin = Valid.data();
    const char* end = Valid.data() + Valid.size();
    CPPUNIT_ASSERT(p.target().data() >= begin && p.target().data() < end);
    for (const auto& f : p.fields()) {
        CPPUNIT_ASSERT(f.name.data() >= begin && f.name.data() < end);
        CPPUNIT_ASSERT(f.value.data() >= begin && f.value.data() < end);
    }
}

void TestRequestParser::needMoreAtEverySplitPoint()
{
    // every proper prefix of a valid head is NeedMore; the rest completes it
    for (size_t split = 0; split < Valid.size(); ++split) {
        Http::RequestParser p(65536);
        std::string buf = Valid.substr(0, split);
        buf.reserve(Valid.size());
        CPPUNIT_ASSERT_MESSAGE("split at " + std::to_string(split), p.parse(buf) == ParseResult::NeedMore);
        buf.append(Valid, split);
        CPPUNIT_ASSERT_MESSAGE("split at " + std::to_string(split), p.parse(buf) == ParseResult::Done);
        CPPUNIT_ASSERT_EQUAL(Valid.size(), p.headSize());
        CPPUNIT_ASSERT_EQUAL(size_t(3), p.fields().size());
        CPPUNIT_ASSERT_EQUAL(std::string("*/*"), std::string(*p.findField("Accept")));
    }
}

void TestRequestParser::byteByByteEqualsWhole()
{
    Http::RequestParser p(65536);
    std::string buf;
    buf.reserve(Valid.size()); // views must stay valid: append without moving
    for (size_t i = 0; i < Valid.size(); ++i) {
        buf.push_back(Valid[i]);
        const auto r = p.parse(buf);
        CPPUNIT_ASSERT(r == (i + 1 == Valid.size() ? ParseResult::Done : ParseResult::NeedMore));
    }
    Http::RequestParser whole(65536);
    CPPUNIT_ASSERT(whole.parse(Valid) == ParseResult::Done);
    CPPUNIT_ASSERT_EQUAL(whole.headSize(), p.headSize());
    CPPUNIT_ASSERT_EQUAL(whole.fields().size(), p.fields().size());
    CPPUNIT_ASSERT_EQUAL(std::string(whole.target()), std::string(p.target()));
}

void TestRequestParser::rejectsBareLf()
{
    // RFC 9112 section 2.2 lets a recipient take a bare LF as a line end;
    // cuttle does not, since a hop in front of it may not (see the header)
    CPPUNIT_ASSERT(ErrorOf("GET http://h/ HTTP/1.1\nHost: h\n\n") == ParseError::BareLf);
    CPPUNIT_ASSERT(ErrorOf("GET http://h/ HTTP/1.1\r\nHost: h\n\r\n") == ParseError::BareLf);
    CPPUNIT_ASSERT(ErrorOf("GET http://h/ HTTP/1.1\r\nX: a\nTransfer-Encoding: chunked\r\n\r\n") ==
                   ParseError::BareLf);
    CPPUNIT_ASSERT(ErrorOf("\nGET http://h/ HTTP/1.1\r\n\r\n") == ParseError::BareLf);
    CPPUNIT_ASSERT(ErrorOf("GET http://h/ HTTP/1.1\r\n\n") == ParseError::BareLf);
    Http::RequestParser p(65536);
    CPPUNIT_ASSERT(p.parse("GET http://h/ HTTP/1.1\nHost: h\n\n") == ParseResult::Error);
    CPPUNIT_ASSERT(p.errorStatus() == Http::StatusCode::BadRequest);
}

void TestRequestParser::ignoresLeadingEmptyLines()
{
    const std::string s = "\r\n\r\nGET http://h/ HTTP/1.1\r\n\r\n";
    Http::RequestParser p(65536);
    CPPUNIT_ASSERT(p.parse(s) == ParseResult::Done);
    CPPUNIT_ASSERT_EQUAL(s.size(), p.headSize());
    CPPUNIT_ASSERT_EQUAL(std::string("GET"), std::string(p.methodToken()));
}

void TestRequestParser::headSizeStopsAtPipelinedRequest()
{
    const std::string first = "GET http://h/1 HTTP/1.1\r\n\r\n";
    const std::string s = first + "GET http://h/2 HTTP/1.1\r\n\r\n";
    Http::RequestParser p(65536);
    CPPUNIT_ASSERT(p.parse(s) == ParseResult::Done);
    CPPUNIT_ASSERT_EQUAL(first.size(), p.headSize());
    CPPUNIT_ASSERT_EQUAL(std::string("http://h/1"), std::string(p.target()));
}

void TestRequestParser::rejectsGarbage()
{
    CPPUNIT_ASSERT(ErrorOf("garbage\r\n\r\n") == ParseError::BadRequestLine);
    Http::RequestParser p(65536);
    p.parse("garbage\r\n\r\n");
    CPPUNIT_ASSERT_EQUAL(400, Http::ToInt(p.errorStatus()));
}

void TestRequestParser::rejectsBadRequestLines()
{
    CPPUNIT_ASSERT(ErrorOf("GET http://h/\r\n\r\n") == ParseError::BadRequestLine);           // HTTP/0.9
    CPPUNIT_ASSERT(ErrorOf("GET  http://h/ HTTP/1.1\r\n\r\n") == ParseError::BadRequestLine); // two SP
    CPPUNIT_ASSERT(ErrorOf(" GET http://h/ HTTP/1.1\r\n\r\n") == ParseError::BadRequestLine);
    CPPUNIT_ASSERT(ErrorOf("GET http://h/ HTTP/1.1 \r\n\r\n") == ParseError::BadVersion);
    CPPUNIT_ASSERT(ErrorOf("G(T http://h/ HTTP/1.1\r\n\r\n") == ParseError::BadMethod);
    CPPUNIT_ASSERT(ErrorOf("GET http://h/\x01 HTTP/1.1\r\n\r\n") == ParseError::BadTarget);
    CPPUNIT_ASSERT(ErrorOf("GET http://h/ HTTP/1.10\r\n\r\n") == ParseError::BadVersion);
    CPPUNIT_ASSERT(ErrorOf("GET http://h/ http/1.1\r\n\r\n") == ParseError::BadRequestLine);
    CPPUNIT_ASSERT(ErrorOf("GET http://h/ HTTP/0.9\r\n\r\n") == ParseError::BadVersion);
    // a valid line is not an error
    CPPUNIT_ASSERT(ErrorOf("GET http://h/ HTTP/1.0\r\n\r\n") == ParseError::None);
}

void TestRequestParser::rejectsHttp2AsUnsupported()
{
    Http::RequestParser p(65536);
    CPPUNIT_ASSERT(p.parse("GET http://h/ HTTP/2.0\r\n\r\n") == ParseResult::Error);
    CPPUNIT_ASSERT(p.error() == ParseError::UnsupportedVersion);
    CPPUNIT_ASSERT_EQUAL(505, Http::ToInt(p.errorStatus()));
}

void TestRequestParser::rejectsObsFold()
{
    CPPUNIT_ASSERT(ErrorOf("GET http://h/ HTTP/1.1\r\nX: a\r\n b\r\n\r\n") == ParseError::ObsFold);
    CPPUNIT_ASSERT(ErrorOf("GET http://h/ HTTP/1.1\r\nX: a\r\n\tb\r\n\r\n") == ParseError::ObsFold);
}

void TestRequestParser::rejectsFieldWithoutColon()
{
    CPPUNIT_ASSERT(ErrorOf("GET http://h/ HTTP/1.1\r\nHostx\r\n\r\n") == ParseError::BadField);
    CPPUNIT_ASSERT(ErrorOf("GET http://h/ HTTP/1.1\r\n: x\r\n\r\n") == ParseError::BadField);
}

void TestRequestParser::rejectsWhitespaceBeforeColon()
{
    CPPUNIT_ASSERT(ErrorOf("GET http://h/ HTTP/1.1\r\nHost : x\r\n\r\n") == ParseError::BadField);
}

void TestRequestParser::rejectsBareCr()
{
    CPPUNIT_ASSERT(ErrorOf("GET http://h/ HTTP/1.1\rHost: x\r\n\r\n") == ParseError::BareCr);
    CPPUNIT_ASSERT(ErrorOf("GET http://h/ HTTP/1.1\r\nX: a\rb\r\n\r\n") == ParseError::BareCr);
    // a CR at the very end of the buffer may be followed by LF: NeedMore
    Http::RequestParser p(65536);
    CPPUNIT_ASSERT(p.parse("GET http://h/ HTTP/1.1\r") == ParseResult::NeedMore);
}

void TestRequestParser::rejectsControlInValue()
{
    static const char withNul[] = "GET http://h/ HTTP/1.1\r\nX: a\0b\r\n\r\n";
    CPPUNIT_ASSERT(ErrorOf(std::string(withNul, sizeof(withNul) - 1)) == ParseError::BadField);
    CPPUNIT_ASSERT(ErrorOf("GET http://h/ HTTP/1.1\r\nX: a\x7f\r\n\r\n") == ParseError::BadField);
    // HTAB and obs-text are allowed
    CPPUNIT_ASSERT(ErrorOf("GET http://h/ HTTP/1.1\r\nX: a\tb\xe9\r\n\r\n") == ParseError::None);
}

void TestRequestParser::rejectsBadContentLength()
{
    CPPUNIT_ASSERT(ErrorOf("POST http://h/ HTTP/1.1\r\nContent-Length: 1x\r\n\r\n") ==
                   ParseError::BadContentLength);
    CPPUNIT_ASSERT(ErrorOf("POST http://h/ HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n") ==
                   ParseError::BadContentLength);
    CPPUNIT_ASSERT(ErrorOf("POST http://h/ HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n") ==
                   ParseError::BadContentLength);
    CPPUNIT_ASSERT(ErrorOf("POST http://h/ HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n") ==
                   ParseError::None);
    // RFC 9112 section 6.3: both framings in one request, in either order
    CPPUNIT_ASSERT(
        ErrorOf("POST http://h/ HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n") ==
        ParseError::LengthAndChunked);
    CPPUNIT_ASSERT(
        ErrorOf("POST http://h/ HTTP/1.1\r\ntransfer-encoding: chunked\r\ncontent-length: 0\r\n\r\n") ==
        ParseError::LengthAndChunked);
    CPPUNIT_ASSERT(ErrorOf("POST http://h/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n") ==
                   ParseError::None);
    // lists, and the look-alikes of the TE.TE desync (RFC 9112 sections 6.1 and 6.3)
    const std::vector<std::pair<std::string, ParseError>> te = {
        {"Transfer-Encoding: Chunked\r\n", ParseError::None},
        {"Transfer-Encoding: ,chunked\r\n", ParseError::None},
        {"Transfer-Encoding: chunked,\r\n", ParseError::None},
        {"Transfer-Encoding:\tchunked \t\r\n", ParseError::None},
        {"Transfer-Encoding: \r\nTransfer-Encoding: chunked\r\n", ParseError::BadTransferEncoding},
        {"Transfer-Encoding: xchunked\r\n", ParseError::BadTransferEncoding},
        {"Transfer-Encoding: \xa0"
         "chunked\r\n",
         ParseError::BadTransferEncoding},
        {"Transfer-Encoding: chunked\xa0\r\n", ParseError::BadTransferEncoding},
        {"Transfer-Encoding: blegh\r\n", ParseError::BadTransferEncoding},
        {"Transfer-Encoding: chunked, chunked\r\n", ParseError::BadTransferEncoding},
        {"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", ParseError::BadTransferEncoding},
        {"Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n", ParseError::BadTransferEncoding},
        {"Transfer-Encoding: chunked, gzip\r\n", ParseError::BadTransferEncoding},
        {"Transfer-Encoding: chunked;x=1\r\n", ParseError::BadTransferEncoding},
        {"Transfer-Encoding: \"chunked\"\r\n", ParseError::BadTransferEncoding},
        {"Transfer-Encoding: chun ked\r\n", ParseError::BadTransferEncoding},
        {"Transfer-Encoding: ,\r\n", ParseError::BadTransferEncoding},
        {"Transfer-Encoding: gzip, chunked\r\n", ParseError::UnsupportedTransferCoding},
        {"Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n", ParseError::UnsupportedTransferCoding},
        {"Transfer-Encoding: identity, chunked\r\n", ParseError::UnsupportedTransferCoding},
    };
    for (const auto& [fields, error] : te) {
        const auto head = "POST http://h/ HTTP/1.1\r\n" + fields + "\r\n";
        CPPUNIT_ASSERT_MESSAGE(head, ErrorOf(head) == error);
    }
    Http::RequestParser p(65536);
    CPPUNIT_ASSERT(p.parse("POST http://h/ HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n") ==
                   ParseResult::Error);
    CPPUNIT_ASSERT(p.errorStatus() == Http::StatusCode::NotImplemented);
    // RFC 9112 section 6.1: Transfer-Encoding in HTTP/1.0 is faulty framing
    CPPUNIT_ASSERT(ErrorOf("POST http://h/ HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n") ==
                   ParseError::TransferEncodingInHttp10);
}

void TestRequestParser::tooLargeWithoutEnd()
{
    // the limit is enforced on buffered bytes, before the head ends
    Http::RequestParser p(100);
    std::string s = "GET http://h/ HTTP/1.1\r\nX: " + std::string(200, 'a');
    CPPUNIT_ASSERT(p.parse(s) == ParseResult::Error);
    CPPUNIT_ASSERT(p.error() == ParseError::TooLarge);
    CPPUNIT_ASSERT_EQUAL(431, Http::ToInt(p.errorStatus()));
    // a long request line alone too, answered 414 URI Too Long like Squid 5.7
    CPPUNIT_ASSERT(ErrorOf("GET http://h/" + std::string(200, 'a'), 100) == ParseError::TooLarge);
    Http::RequestParser q(100);
    CPPUNIT_ASSERT(q.parse("GET http://h/" + std::string(200, 'a') + " HTTP/1.1\r\n") == ParseResult::Error);
    CPPUNIT_ASSERT_EQUAL(414, Http::ToInt(q.errorStatus()));
}

void TestRequestParser::tooLargeWhenEndIsPastLimit()
{
    const std::string s = "GET http://h/ HTTP/1.1\r\nX: " + std::string(100, 'a') + "\r\n\r\n";
    CPPUNIT_ASSERT(ErrorOf(s, 64) == ParseError::TooLarge);
}

void TestRequestParser::exactLimitIsAccepted()
{
    CPPUNIT_ASSERT(ErrorOf(Valid, Valid.size()) == ParseError::None);
    CPPUNIT_ASSERT(ErrorOf(Valid, Valid.size() - 1) == ParseError::TooLarge);
}

void TestRequestParser::limitCutsTheSameWhateverTheSplit()
{
    // bytes past the limit are never looked at: a bare LF beyond it cannot
    // turn a too-large head into a 400 when the bytes come in one piece
    const std::string s = "GET http://h/ HTTP/1.1\nHost: h\r\n\r\n";
    for (const size_t limit : {size_t(10), size_t(22), size_t(23)}) {
        Http::RequestParser whole(limit);
        CPPUNIT_ASSERT(whole.parse(s) == ParseResult::Error);
        Http::RequestParser bytes(limit);
        auto r = ParseResult::NeedMore;
        for (size_t n = 1; n <= s.size() && r == ParseResult::NeedMore; ++n)
            r = bytes.parse(std::string_view(s).substr(0, n));
        CPPUNIT_ASSERT(r == ParseResult::Error);
        CPPUNIT_ASSERT_MESSAGE(std::to_string(limit), whole.error() == bytes.error());
        CPPUNIT_ASSERT_EQUAL(Http::ToInt(whole.errorStatus()), Http::ToInt(bytes.errorStatus()));
    }
    // the LF at offset 22 is within a limit of 23: the bare LF is the error
    CPPUNIT_ASSERT(ErrorOf(s, 23) == ParseError::BareLf);
    CPPUNIT_ASSERT(ErrorOf(s, 22) == ParseError::TooLarge);
}

void TestRequestParser::connectionSemantics()
{
    struct Case {
        const char* head;
        bool close;
    } cases[] = {
        {"GET http://h/ HTTP/1.1\r\n\r\n", false},
        {"GET http://h/ HTTP/1.1\r\nConnection: close\r\n\r\n", true},
        {"GET http://h/ HTTP/1.1\r\nConnection: foo, CLOSE\r\n\r\n", true},
        {"GET http://h/ HTTP/1.0\r\n\r\n", true},
        {"GET http://h/ HTTP/1.0\r\nProxy-Connection: Keep-Alive\r\n\r\n", false},
        {"GET http://h/ HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", false},
    };
    for (const auto& c : cases) {
        Http::RequestParser p(65536);
        CPPUNIT_ASSERT(p.parse(c.head) == ParseResult::Done);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(c.head, c.close, p.wantsClose());
    }
}

void TestRequestParser::bodyDetection()
{
    Http::RequestParser a(65536), b(65536), c(65536);
    CPPUNIT_ASSERT(a.parse("GET http://h/ HTTP/1.1\r\n\r\n") == ParseResult::Done);
    CPPUNIT_ASSERT(!a.hasBody());
    CPPUNIT_ASSERT(b.parse("POST http://h/ HTTP/1.1\r\nContent-Length: 5\r\n\r\n") == ParseResult::Done);
    CPPUNIT_ASSERT(b.hasBody());
    CPPUNIT_ASSERT_EQUAL(uint64_t(5), *b.contentLength());
    CPPUNIT_ASSERT(c.parse("POST http://h/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n") ==
                   ParseResult::Done);
    CPPUNIT_ASSERT(c.hasBody());
}

void TestRequestParser::resetParsesNextRequest()
{
    Http::RequestParser p(65536);
    CPPUNIT_ASSERT(p.parse("garbage\r\n\r\n") == ParseResult::Error);
    CPPUNIT_ASSERT(p.parse("garbage\r\n\r\n") == ParseResult::Error); // sticky
    p.reset();
    CPPUNIT_ASSERT(p.error() == ParseError::None);
    CPPUNIT_ASSERT(p.parse(Valid) == ParseResult::Done);
    CPPUNIT_ASSERT_EQUAL(size_t(3), p.fields().size());
}

void TestRequestParser::firstWordOfGarbage()
{
    Http::RequestParser p(65536);
    p.parse("garbage\r\n\r\n");
    CPPUNIT_ASSERT_EQUAL(std::string("garbage"), std::string(p.firstWord()));
    Http::RequestParser q(10);
    q.parse("GET http://h/aaaaaaaaaaaaaaaaaaa");
    CPPUNIT_ASSERT(q.error() == ParseError::TooLarge);
    CPPUNIT_ASSERT_EQUAL(std::string("GET"), std::string(q.firstWord()));
}

void TestRequestParser::firstWordHoldsOnlyTokenCharacters()
{
    // what Squid 5.7 logs as the method of these heads: a log line must
    // never get a control byte, a tab or a space from a client
    const std::pair<std::string, std::string> cases[] = {
        {std::string("G\0T http://h/ HTTP/1.1\r\n\r\n", 24), "G"},
        {"G\x01T http://h/ HTTP/1.1\r\n\r\n", "G"},
        {"GE(T http://h/ HTTP/1.1\r\n\r\n", "GE"},
        {"GET\thttp://h/ HTTP/1.1\r\n\r\n", "GET"},
        {"HTTP://u:pw@h/ HTTP/1.1\r\n\r\n", "HTTP"},
        {"\x01GET http://h/ HTTP/1.1\r\n\r\n", ""},
        {"\xe9\r\n\r\n", ""},
    };
    for (const auto& [head, word] : cases) {
        Http::RequestParser p(65536);
        CPPUNIT_ASSERT_MESSAGE(head, p.parse(head) == ParseResult::Error);
        CPPUNIT_ASSERT_EQUAL(word, std::string(p.firstWord()));
        for (const char c : p.firstWord())
            CPPUNIT_ASSERT(Http::IsTokenChar(c));
    }
}

void TestRequestParser::rejectsTwoOrInvalidHosts()
{
    const auto withHost = [](const std::string& fields) {
        return ErrorOf("GET http://h/ HTTP/1.1\r\n" + fields + "\r\n");
    };
    // RFC 9110 section 7.2 and RFC 9112 section 3.2: two Host lines (even
    // equal ones) or a value that is not uri-host [":" port] is a 400
    CPPUNIT_ASSERT(withHost("Host: a\r\nHost: b\r\n") == ParseError::BadHost);
    CPPUNIT_ASSERT(withHost("Host: a\r\nHost: a\r\n") == ParseError::BadHost);
    CPPUNIT_ASSERT(withHost("Host: a\r\nhost: a\r\n") == ParseError::BadHost);
    for (const char* bad :
         {"a b", "a/b", "a@b", "a:8o", "a:80:80", "[::1", "[::1]x", "a\"b", "a#b", "a?b", "\xe9"})
        CPPUNIT_ASSERT_MESSAGE(bad, withHost(std::string("Host: ") + bad + "\r\n") == ParseError::BadHost);
    for (const char* good : {"", "a", "a:", "a:80", "127.0.0.1:3128", "[::1]", "[::1]:80", "xn--d-0a.example",
                             "a_b-c~d.e", "%41", "a!$&'()*+,;=b"})
        CPPUNIT_ASSERT_MESSAGE(good, withHost(std::string("Host: ") + good + "\r\n") == ParseError::None);
    // a request without Host is still taken (RFC 9112 section 3.2's 400 is not enforced yet)
    CPPUNIT_ASSERT(ErrorOf("GET http://h/ HTTP/1.1\r\n\r\n") == ParseError::None);
    Http::RequestParser p(65536);
    CPPUNIT_ASSERT(p.parse("GET http://h/ HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") == ParseResult::Error);
    CPPUNIT_ASSERT(p.errorStatus() == Http::StatusCode::BadRequest);
    // reset() forgets the Host of the last request
    p.reset();
    CPPUNIT_ASSERT(p.parse("GET http://h/ HTTP/1.1\r\nHost: a\r\n\r\n") == ParseResult::Done);
    p.reset();
    CPPUNIT_ASSERT(p.parse("GET http://h/ HTTP/1.1\r\nHost: a\r\n\r\n") == ParseResult::Done);
}

void TestRequestParser::corpusParsesTheSameWholeAndByteByByte()
{
    // src/http/tests/corpus: heads that once broke something; under the
    // sanitizers this also shows no read past the buffer
    const std::filesystem::path dir = TOP_SRCDIR "/src/http/tests/corpus";
    size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        std::ifstream in(entry.path(), std::ios::binary);
        const std::string head((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const std::string name = entry.path().filename().string();
        Http::RequestParser whole(65536);
        const auto expected = whole.parse(head);
        Http::RequestParser bytewise(65536);
        auto got = ParseResult::NeedMore;
        for (size_t n = 1; n <= head.size() && got == ParseResult::NeedMore; ++n)
            got = bytewise.parse(std::string_view(head).substr(0, n));
        CPPUNIT_ASSERT_MESSAGE(name, got == expected);
        CPPUNIT_ASSERT_MESSAGE(name, whole.error() == bytewise.error());
        if (expected == ParseResult::Done)
            CPPUNIT_ASSERT_MESSAGE(name, whole.headSize() <= head.size());
        for (const char c : whole.firstWord())
            CPPUNIT_ASSERT_MESSAGE(name, Http::IsTokenChar(c));
        ++files;
    }
    CPPUNIT_ASSERT(files >= 10);
}
