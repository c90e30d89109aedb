/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/ChunkedDecoder.h"

#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

/// Http::ChunkedDecoder: chunked framing across buffers, without copies.
class TestChunkedDecoder : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestChunkedDecoder);
    CPPUNIT_TEST(decodesSimpleBody);
    CPPUNIT_TEST(piecesPointIntoTheInput);
    CPPUNIT_TEST(everySplitPointGivesTheSameResult);
    CPPUNIT_TEST(byteByByteGivesTheSameResult);
    CPPUNIT_TEST(randomSizesRoundTrip);
    CPPUNIT_TEST(mutatedBodiesGiveTheSameResultHoweverSplit);
    CPPUNIT_TEST(bytesAfterDoneAreNotConsumed);
    CPPUNIT_TEST(trailerIsConsumed);
    CPPUNIT_TEST(toleratesBareLfAndWhitespace);
    CPPUNIT_TEST(requestBodiesRefuseBareLf);
    CPPUNIT_TEST(requestBodiesAcceptCrlf);
    CPPUNIT_TEST(extensionsAreSkippedAndBounded);
    CPPUNIT_TEST(trailerIsBounded);
    CPPUNIT_TEST(rejectsOversizeAndOverflow);
    CPPUNIT_TEST(rejectsBadFraming);
    CPPUNIT_TEST(emptyInputNeedsMore);
    CPPUNIT_TEST(doneAndErrorAreSticky);
    CPPUNIT_TEST(resetDecodesNextBody);
    CPPUNIT_TEST(stateIsSmall);
    CPPUNIT_TEST(chunkHeaderFormat);
    CPPUNIT_TEST_SUITE_END();

public:
    void decodesSimpleBody();
    void piecesPointIntoTheInput();
    void everySplitPointGivesTheSameResult();
    void byteByByteGivesTheSameResult();
    void randomSizesRoundTrip();
    void mutatedBodiesGiveTheSameResultHoweverSplit();
    void bytesAfterDoneAreNotConsumed();
    void trailerIsConsumed();
    void toleratesBareLfAndWhitespace();
    void requestBodiesRefuseBareLf();
    void requestBodiesAcceptCrlf();
    void extensionsAreSkippedAndBounded();
    void trailerIsBounded();
    void rejectsOversizeAndOverflow();
    void rejectsBadFraming();
    void emptyInputNeedsMore();
    void doneAndErrorAreSticky();
    void resetDecodesNextBody();
    void stateIsSmall();
    void chunkHeaderFormat();
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestChunkedDecoder);

using Http::ChunkError;
using Kind = Http::ChunkedDecoder::Piece::Kind;

namespace {

/// what decoding a sequence of buffers gave
struct Outcome {
    Kind end = Kind::NeedMore; ///< Done, Error, or NeedMore when input ran out
    ChunkError error = ChunkError::None;
    std::string payload;       ///< the Payload ranges, concatenated
    size_t consumed = 0;       ///< bytes consumed before the end (Done: the body's size)
    uint64_t payloadBytes = 0; ///< what the decoder counted

    bool operator==(const Outcome&) const = default;
};

/// Feeds the buffers in order, as the server side would: every piece's
/// bytes are dropped from the front of the buffer; checks the piece
/// contract on the way.
Outcome Decode(Http::ChunkedDecoder& d, const std::vector<std::string_view>& buffers)
{
    Outcome o;
    for (auto in : buffers) {
        for (;;) {
            const auto p = d.next(in);
            CPPUNIT_ASSERT(p.length <= in.size());
            switch (p.kind) {
            case Kind::Payload:
                CPPUNIT_ASSERT(p.length > 0);
                o.payload.append(in.substr(0, p.length));
                break;
            case Kind::Framing:
                CPPUNIT_ASSERT(p.length > 0);
                break;
            case Kind::NeedMore:
                CPPUNIT_ASSERT_EQUAL(in.size(), p.length);
                break;
            case Kind::Done:
                o.end = Kind::Done;
                o.consumed += p.length;
                o.payloadBytes = d.payloadBytes();
                CPPUNIT_ASSERT(d.isDone());
                return o;
            case Kind::Error:
                CPPUNIT_ASSERT_EQUAL(size_t(0), p.length);
                o.end = Kind::Error;
                o.error = d.error();
                o.consumed = 0; // where the bad byte was is not part of the contract
                CPPUNIT_ASSERT(o.error != ChunkError::None);
                return o;
            }
            in.remove_prefix(p.length);
            o.consumed += p.length;
            if (p.kind == Kind::NeedMore)
                break;
        }
    }
    o.payloadBytes = d.payloadBytes();
    return o;
}

Outcome DecodeWhole(std::string_view s, uint64_t maxChunk = Http::ChunkedDecoder::DefaultMaxChunkSize,
                    size_t maxTrailer = 64 * 1024)
{
    Http::ChunkedDecoder d(maxChunk, maxTrailer);
    return Decode(d, {s});
}

Outcome DecodeByteByByte(std::string_view s, uint64_t maxChunk = Http::ChunkedDecoder::DefaultMaxChunkSize,
                         size_t maxTrailer = 64 * 1024)
{
    std::vector<std::string_view> bytes;
    for (size_t i = 0; i < s.size(); ++i)
        bytes.push_back(s.substr(i, 1));
    Http::ChunkedDecoder d(maxChunk, maxTrailer);
    return Decode(d, bytes);
}

Outcome DecodeSplit(std::string_view s, size_t split)
{
    Http::ChunkedDecoder d;
    return Decode(d, {s.substr(0, split), s.substr(split)});
}

ChunkError ErrorOf(std::string_view s, uint64_t maxChunk = Http::ChunkedDecoder::DefaultMaxChunkSize,
                   size_t maxTrailer = 64 * 1024)
{
    const auto o = DecodeWhole(s, maxChunk, maxTrailer);
    return o.end == Kind::Error ? o.error : ChunkError::None;
}

std::string Printable(std::string_view s)
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

const std::string Next = "HTTP/1.1 200 OK\r\n"; // the next reply on the connection

const std::vector<std::pair<std::string, std::string>> Bodies = {
    // {encoded body, payload}
    {"5\r\nhello\r\n0\r\n\r\n", "hello"},
    {"1A;name=value;q=\"x y\"\r\n0123456789abcdefghijklmnop\r\n3\r\nxyz\r\n0\r\n\r\n",
     "0123456789abcdefghijklmnopxyz"},
    {"4\r\nwiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nExpires: never\r\nX-Sum: 1\r\n\r\n",
     "wikipedia in\r\n\r\nchunks."},
    {"3\nabc\n0\n\n", "abc"},
    {"000\r\n\r\n", ""},
    {"0001 ; ext\r\n\r\r\n0 \r\n\r\n", "\r"},
};

} // namespace

void TestChunkedDecoder::decodesSimpleBody()
{
    const std::string s = "5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n";
    Http::ChunkedDecoder d;
    std::string_view in = s;

    auto p = d.next(in);
    CPPUNIT_ASSERT(p.kind == Kind::Framing);
    CPPUNIT_ASSERT_EQUAL(size_t(3), p.length);
    in.remove_prefix(p.length);
    p = d.next(in);
    CPPUNIT_ASSERT(p.kind == Kind::Payload);
    CPPUNIT_ASSERT_EQUAL(std::string("hello"), std::string(in.substr(0, p.length)));
    in.remove_prefix(p.length);
    p = d.next(in);
    CPPUNIT_ASSERT(p.kind == Kind::Framing); // the CRLF after the data and the next size line together
    CPPUNIT_ASSERT_EQUAL(size_t(5), p.length);
    in.remove_prefix(p.length);
    p = d.next(in);
    CPPUNIT_ASSERT(p.kind == Kind::Payload);
    CPPUNIT_ASSERT_EQUAL(std::string(", world"), std::string(in.substr(0, p.length)));
    in.remove_prefix(p.length);
    p = d.next(in);
    CPPUNIT_ASSERT(p.kind == Kind::Done);
    CPPUNIT_ASSERT_EQUAL(in.size(), p.length);
    CPPUNIT_ASSERT_EQUAL(uint64_t(12), d.payloadBytes());
    CPPUNIT_ASSERT(d.isDone());
}

void TestChunkedDecoder::piecesPointIntoTheInput()
{
    // a Payload piece is a range of the caller's buffer: its first byte is
    // the first byte of the view passed in, so no byte needs copying
    const std::string s = "3\r\nabc\r\n0\r\n\r\n";
    Http::ChunkedDecoder d;
    std::string_view in = s;
    in.remove_prefix(d.next(in).length);
    const auto p = d.next(in);
    CPPUNIT_ASSERT(p.kind == Kind::Payload);
    CPPUNIT_ASSERT(in.data() == s.data() + 3);
    CPPUNIT_ASSERT_EQUAL(size_t(3), p.length);
}

void TestChunkedDecoder::everySplitPointGivesTheSameResult()
{
    for (const auto& [body, payload] : Bodies) {
        const std::string s = body + Next;
        const auto whole = DecodeWhole(s);
        CPPUNIT_ASSERT_MESSAGE(Printable(body), whole.end == Kind::Done);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(Printable(body), payload, whole.payload);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(Printable(body), body.size(), whole.consumed);
        CPPUNIT_ASSERT_EQUAL(uint64_t(payload.size()), whole.payloadBytes);
        for (size_t split = 0; split <= s.size(); ++split)
            CPPUNIT_ASSERT_MESSAGE(Printable(body) + " split " + std::to_string(split),
                                   DecodeSplit(s, split) == whole);
    }
}

void TestChunkedDecoder::byteByByteGivesTheSameResult()
{
    for (const auto& [body, payload] : Bodies) {
        const std::string s = body + Next;
        CPPUNIT_ASSERT_MESSAGE(Printable(body), DecodeByteByByte(s) == DecodeWhole(s));
    }
}

void TestChunkedDecoder::randomSizesRoundTrip()
{
    std::mt19937 rng(7);
    for (int round = 0; round < 200; ++round) {
        std::string payload, encoded;
        const int chunks = int(rng() % 8);
        for (int c = 0; c < chunks; ++c) {
            // mostly small, sometimes a few kilobytes
            const size_t size = 1 + (rng() % 4 ? rng() % 40 : rng() % 5000);
            std::string data;
            for (size_t i = 0; i < size; ++i)
                data.push_back(char(rng()));
            encoded += Http::ChunkHeader(size);
            encoded += data;
            encoded += Http::ChunkEnd;
            payload += data;
        }
        encoded += Http::LastChunk;
        const std::string s = encoded + Next;

        // cut into random buffers, from one byte to a few kilobytes
        std::vector<std::string_view> buffers;
        for (size_t at = 0; at < s.size();) {
            const size_t n = std::min(s.size() - at, size_t(1 + (rng() % 2 ? rng() % 4 : rng() % 3000)));
            buffers.push_back(std::string_view(s).substr(at, n));
            at += n;
        }
        Http::ChunkedDecoder d;
        const auto o = Decode(d, buffers);
        CPPUNIT_ASSERT(o.end == Kind::Done);
        CPPUNIT_ASSERT(o.payload == payload);
        CPPUNIT_ASSERT_EQUAL(encoded.size(), o.consumed);
        CPPUNIT_ASSERT_EQUAL(uint64_t(payload.size()), d.payloadBytes());
    }
}

void TestChunkedDecoder::mutatedBodiesGiveTheSameResultHoweverSplit()
{
    static const char Interesting[] = {'\r', '\n', ' ', '\t', ';', ':', '0', 'f', 'g', '\0', '\x7f', 'x'};
    std::mt19937 rng(20260302);
    size_t done = 0, errors = 0;
    for (int round = 0; round < 3000; ++round) {
        std::string s = Bodies[rng() % Bodies.size()].first + Next;
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
        const auto whole = DecodeWhole(s, 1000, 40);
        CPPUNIT_ASSERT_MESSAGE(Printable(s), DecodeByteByByte(s, 1000, 40) == whole);
        Http::ChunkedDecoder d(1000, 40);
        const size_t split = rng() % (s.size() + 1);
        CPPUNIT_ASSERT_MESSAGE(Printable(s), Decode(d, {std::string_view(s).substr(0, split),
                                                        std::string_view(s).substr(split)}) == whole);
        done += whole.end == Kind::Done;
        errors += whole.end == Kind::Error;
    }
    CPPUNIT_ASSERT(done > 100);
    CPPUNIT_ASSERT(errors > 100);
}

void TestChunkedDecoder::bytesAfterDoneAreNotConsumed()
{
    const std::string body = "2\r\nab\r\n0\r\n\r\n";
    const std::string s = body + "0\r\n\r\n" + Next; // even bytes that look like framing
    Http::ChunkedDecoder d;
    const auto o = Decode(d, {s});
    CPPUNIT_ASSERT(o.end == Kind::Done);
    CPPUNIT_ASSERT_EQUAL(body.size(), o.consumed);
    CPPUNIT_ASSERT_EQUAL(std::string("ab"), o.payload);

    // the last-chunk's own end, split from what follows
    Http::ChunkedDecoder d2;
    const auto o2 = Decode(d2, {std::string_view(body).substr(0, body.size() - 1), "\n" + Next});
    CPPUNIT_ASSERT(o2.end == Kind::Done);
    CPPUNIT_ASSERT_EQUAL(body.size(), o2.consumed);
}

void TestChunkedDecoder::trailerIsConsumed()
{
    const std::string body = "3\r\nabc\r\n0\r\nDigest: sha-256=x\r\nX-T:\r\nY:\tv \r\n\r\n";
    const auto o = DecodeWhole(body + Next);
    CPPUNIT_ASSERT(o.end == Kind::Done);
    CPPUNIT_ASSERT_EQUAL(body.size(), o.consumed);
    CPPUNIT_ASSERT_EQUAL(std::string("abc"), o.payload); // trailer bytes are not payload
}

void TestChunkedDecoder::toleratesBareLfAndWhitespace()
{
    CPPUNIT_ASSERT_EQUAL(std::string("abc"), DecodeWhole("3\nabc\n0\nA: b\n\n").payload);
    CPPUNIT_ASSERT(DecodeWhole("3\nabc\r\n0\r\n\n").end == Kind::Done);
    // BWS after the size, with or without an extension
    CPPUNIT_ASSERT_EQUAL(std::string("abc"), DecodeWhole("3 \t\r\nabc\r\n0  ;x\r\n\r\n").payload);
    CPPUNIT_ASSERT_EQUAL(std::string("abc"), DecodeWhole("3 ; a = b\r\nabc\r\n0\r\n\r\n").payload);
    // hex digits in either case
    CPPUNIT_ASSERT_EQUAL(size_t(0xaB),
                         DecodeWhole("aB\r\n" + std::string(0xab, 'z') + "\r\n0\r\n\r\n").payload.size());
}

void TestChunkedDecoder::requestBodiesRefuseBareLf()
{
    // every place where a reply decoder takes a bare LF as a line end:
    // after the size, after BWS, after an extension, after the data, ending
    // a trailer line and ending the trailer section
    const std::vector<std::string> cases = {
        "3\nabc\r\n0\r\n\r\n", "3 \nabc\r\n0\r\n\r\n", "3;x=1\nabc\r\n0\r\n\r\n",     "3\r\nabc\n0\r\n\r\n",
        "3\r\nabc\r\n0\n\r\n", "3\r\nabc\r\n0\r\n\n",  "3\r\nabc\r\n0\r\nA: b\n\r\n", "0\r\nA: b\r\n\n",
    };
    for (const auto& input : cases) {
        // the tolerant (reply) decoder takes each of them
        CPPUNIT_ASSERT_MESSAGE(Printable(input), DecodeWhole(input).end == Kind::Done);
        for (const bool byteByByte : {false, true}) {
            auto d = Http::ChunkedDecoder::ForRequestBody();
            std::vector<std::string_view> buffers;
            if (byteByByte) {
                for (size_t i = 0; i < input.size(); ++i)
                    buffers.push_back(std::string_view(input).substr(i, 1));
            } else {
                buffers.push_back(input);
            }
            const auto o = Decode(d, buffers);
            CPPUNIT_ASSERT_MESSAGE(Printable(input), o.end == Kind::Error);
            CPPUNIT_ASSERT_MESSAGE(Printable(input), o.error == ChunkError::BareLf);
            CPPUNIT_ASSERT_EQUAL(std::string("bare LF in chunk framing"), std::string(d.errorText()));
        }
    }
    // reset() keeps the strictness
    auto d = Http::ChunkedDecoder::ForRequestBody();
    d.reset();
    CPPUNIT_ASSERT(Decode(d, {"3\nabc\r\n0\r\n\r\n"}).error == ChunkError::BareLf);
}

void TestChunkedDecoder::requestBodiesAcceptCrlf()
{
    // a body with CRLFs, extensions, BWS and trailers decodes the same
    // either way, and an LF inside the payload is data, not framing
    const std::string input = "3 ;a=b\r\na\nc\r\n1\r\n\n\r\n0\r\nT: v\r\n\r\nNEXT";
    auto strict = Http::ChunkedDecoder::ForRequestBody();
    const auto o = Decode(strict, {input});
    CPPUNIT_ASSERT(o.end == Kind::Done);
    CPPUNIT_ASSERT_EQUAL(std::string("a\nc\n"), o.payload);
    CPPUNIT_ASSERT(o == DecodeWhole(input));
    CPPUNIT_ASSERT_EQUAL(input.size() - 4, o.consumed);
}

void TestChunkedDecoder::extensionsAreSkippedAndBounded()
{
    const auto lineOf = [](size_t length) {
        // "1;" + padding + "\r\n" is `length` bytes
        return "1;" + std::string(length - 4, 'e') + "\r\n";
    };
    const size_t max = Http::ChunkedDecoder::MaxSizeLine;
    const std::string fits = lineOf(max) + "x\r\n0\r\n\r\n";
    const std::string over = lineOf(max + 1) + "x\r\n0\r\n\r\n";
    CPPUNIT_ASSERT_EQUAL(std::string("x"), DecodeWhole(fits).payload);
    CPPUNIT_ASSERT_EQUAL(std::string("x"), DecodeByteByByte(fits).payload);
    CPPUNIT_ASSERT(ErrorOf(over) == ChunkError::SizeLineTooLarge);
    CPPUNIT_ASSERT(DecodeByteByByte(over).error == ChunkError::SizeLineTooLarge);
    // the bound holds for every line, not the body as a whole
    std::string many;
    for (int i = 0; i < 10; ++i)
        many += lineOf(max) + "x\r\n";
    CPPUNIT_ASSERT_EQUAL(std::string(10, 'x'), DecodeWhole(many + "0\r\n\r\n").payload);
    // control bytes are refused, obs-text taken
    CPPUNIT_ASSERT(ErrorOf("1;a\x01\r\nx\r\n0\r\n\r\n") == ChunkError::BadExtension);
    CPPUNIT_ASSERT(ErrorOf(std::string("1;a\0\r\nx\r\n0\r\n\r\n", 14)) == ChunkError::BadExtension);
    CPPUNIT_ASSERT(ErrorOf("1;a=\"\xe2\x82\xac\"\r\nx\r\n0\r\n\r\n") == ChunkError::None);
}

void TestChunkedDecoder::trailerIsBounded()
{
    // the trailer section counts its fields and the final CRLF
    const std::string field = "A: " + std::string(15, 'v') + "\r\n"; // 20 bytes
    const std::string body = "0\r\n" + field + "\r\n";               // 22 trailer bytes
    CPPUNIT_ASSERT(DecodeWhole(body, 1000, 22).end == Kind::Done);
    CPPUNIT_ASSERT(DecodeByteByByte(body, 1000, 22).end == Kind::Done);
    CPPUNIT_ASSERT(ErrorOf(body, 1000, 21) == ChunkError::TrailerTooLarge);
    CPPUNIT_ASSERT(DecodeByteByByte(body, 1000, 21).error == ChunkError::TrailerTooLarge);
    // an endless trailer fails once past the bound, without an end in sight
    Http::ChunkedDecoder d(1000, 1024);
    std::string endless = "0\r\n";
    while (endless.size() < 4096)
        endless += field;
    CPPUNIT_ASSERT(Decode(d, {endless}).error == ChunkError::TrailerTooLarge);
}

void TestChunkedDecoder::rejectsOversizeAndOverflow()
{
    // 16 hex digits are the most; 17 are refused even when they are zeros
    CPPUNIT_ASSERT(ErrorOf("10000000000000000\r\n") == ChunkError::SizeTooLong);
    CPPUNIT_ASSERT(ErrorOf("00000000000000001\r\nx\r\n0\r\n\r\n") == ChunkError::SizeTooLong);
    CPPUNIT_ASSERT(DecodeWhole("0000000000000001\r\nx\r\n0\r\n\r\n").payload == "x");
    // the default maximum keeps a chunk within off_t
    CPPUNIT_ASSERT(ErrorOf("ffffffffffffffff\r\n") == ChunkError::ChunkTooLarge);
    CPPUNIT_ASSERT(ErrorOf("8000000000000000\r\n") == ChunkError::ChunkTooLarge);
    CPPUNIT_ASSERT(DecodeWhole("7fffffffffffffff\r\nabc").payload == "abc");
    // a configured maximum, checked digit by digit before anything wraps
    CPPUNIT_ASSERT(ErrorOf("401\r\n", 1024) == ChunkError::ChunkTooLarge);
    CPPUNIT_ASSERT(DecodeByteByByte("401\r\n", 1024).error == ChunkError::ChunkTooLarge);
    CPPUNIT_ASSERT(ErrorOf("400\r\n", 1024) == ChunkError::None);
    CPPUNIT_ASSERT(ErrorOf("1\r\n", 0) == ChunkError::ChunkTooLarge);
    CPPUNIT_ASSERT(DecodeWhole("0\r\n\r\n", 0).end == Kind::Done);
    // with no maximum, 16 digits pass but the running total may not wrap
    CPPUNIT_ASSERT(ErrorOf("ffffffffffffffff\r\n", UINT64_MAX) == ChunkError::None);
    CPPUNIT_ASSERT(ErrorOf("1\r\na\r\nffffffffffffffff\r\n", UINT64_MAX) == ChunkError::TotalTooLarge);
    CPPUNIT_ASSERT(ErrorOf("1\r\na\r\nfffffffffffffffe\r\n", UINT64_MAX) == ChunkError::None);
}

void TestChunkedDecoder::rejectsBadFraming()
{
    const std::vector<std::pair<std::string, ChunkError>> cases = {
        {"\r\n", ChunkError::BadSize},
        {";ext\r\n", ChunkError::BadSize},
        {" 5\r\nhello\r\n", ChunkError::BadSize},
        {"-5\r\n", ChunkError::BadSize},
        {"0x5\r\nhello\r\n", ChunkError::BadSize},
        {"5g\r\n", ChunkError::BadSize},
        {"5 6\r\n", ChunkError::BadSize},
        {"5\rhello", ChunkError::BareCr},
        {"5;x\rhello", ChunkError::BareCr},
        {"5\r\nhelloX\r\n", ChunkError::MissingDataEnd},
        {"5\r\nhello\rX", ChunkError::BareCr},
        {"5\r\nhello\r\n\r\n", ChunkError::BadSize},
        {"0\r\n\rX", ChunkError::BareCr},
        {"0\r\nA: b\rX", ChunkError::BareCr},
        {"0\r\n folded\r\n\r\n", ChunkError::BadTrailer},
        {"0\r\nNoColon\r\n\r\n", ChunkError::BadTrailer},
        {"0\r\nA : b\r\n\r\n", ChunkError::BadTrailer},
        {"0\r\n: b\r\n\r\n", ChunkError::BadTrailer},
        {"0\r\nA: b\x01\r\n\r\n", ChunkError::BadTrailer},
        {"0\r\nHTTP/1.1 200 OK\r\n\r\n", ChunkError::BadTrailer}, // a smuggled reply is not a trailer
    };
    for (const auto& [input, expected] : cases) {
        CPPUNIT_ASSERT_MESSAGE(Printable(input), ErrorOf(input) == expected);
        CPPUNIT_ASSERT_MESSAGE(Printable(input), DecodeByteByByte(input).error == expected);
    }
    Http::ChunkedDecoder d;
    d.next("zz");
    CPPUNIT_ASSERT_EQUAL(std::string("malformed chunk size"), std::string(d.errorText()));
}

void TestChunkedDecoder::emptyInputNeedsMore()
{
    Http::ChunkedDecoder d;
    auto p = d.next({});
    CPPUNIT_ASSERT(p.kind == Kind::NeedMore);
    CPPUNIT_ASSERT_EQUAL(size_t(0), p.length);
    p = d.next("1a");
    CPPUNIT_ASSERT(p.kind == Kind::NeedMore);
    CPPUNIT_ASSERT_EQUAL(size_t(2), p.length);
    p = d.next("\r\n"); // the size line ends with this buffer
    CPPUNIT_ASSERT(p.kind == Kind::Framing);
    CPPUNIT_ASSERT_EQUAL(size_t(2), p.length);
    p = d.next({}); // in the data, nothing to give yet
    CPPUNIT_ASSERT(p.kind == Kind::NeedMore);
    CPPUNIT_ASSERT_EQUAL(size_t(0), p.length);
    p = d.next("0123456789");
    CPPUNIT_ASSERT(p.kind == Kind::Payload);
    CPPUNIT_ASSERT_EQUAL(size_t(10), p.length);
    CPPUNIT_ASSERT_EQUAL(uint64_t(10), d.payloadBytes());
}

void TestChunkedDecoder::doneAndErrorAreSticky()
{
    Http::ChunkedDecoder d;
    CPPUNIT_ASSERT(d.next("0\r\n\r\n").kind == Kind::Done);
    auto p = d.next("5\r\nhello\r\n");
    CPPUNIT_ASSERT(p.kind == Kind::Done);
    CPPUNIT_ASSERT_EQUAL(size_t(0), p.length);

    Http::ChunkedDecoder e;
    CPPUNIT_ASSERT(e.next("x").kind == Kind::Error);
    p = e.next("5\r\nhello\r\n");
    CPPUNIT_ASSERT(p.kind == Kind::Error);
    CPPUNIT_ASSERT(e.error() == ChunkError::BadSize);
}

void TestChunkedDecoder::resetDecodesNextBody()
{
    Http::ChunkedDecoder d(1000, 100);
    CPPUNIT_ASSERT(Decode(d, {"3\r\nabc"}).end == Kind::NeedMore);
    d.reset();
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), d.payloadBytes());
    auto o = Decode(d, {"2\r\nxy\r\n0\r\n\r\n"});
    CPPUNIT_ASSERT(o.end == Kind::Done);
    CPPUNIT_ASSERT_EQUAL(std::string("xy"), o.payload);

    d.reset();
    CPPUNIT_ASSERT(Decode(d, {"x"}).end == Kind::Error);
    d.reset();
    CPPUNIT_ASSERT(d.error() == ChunkError::None);
    o = Decode(d, {"1\r\nz\r\n0\r\n\r\n"});
    CPPUNIT_ASSERT(o.end == Kind::Done);
    CPPUNIT_ASSERT_EQUAL(std::string("z"), o.payload);
    // the limits survive a reset
    d.reset();
    CPPUNIT_ASSERT(Decode(d, {"3e9\r\n"}).error == ChunkError::ChunkTooLarge);
}

void TestChunkedDecoder::stateIsSmall()
{
    // bounded state, whatever the input: no buffer, a few counters
    CPPUNIT_ASSERT(sizeof(Http::ChunkedDecoder) <= 64);
}

void TestChunkedDecoder::chunkHeaderFormat()
{
    CPPUNIT_ASSERT_EQUAL(std::string("0\r\n"), Http::ChunkHeader(0));
    CPPUNIT_ASSERT_EQUAL(std::string("1\r\n"), Http::ChunkHeader(1));
    CPPUNIT_ASSERT_EQUAL(std::string("1a2b\r\n"), Http::ChunkHeader(0x1a2b));
    CPPUNIT_ASSERT_EQUAL(std::string("10000\r\n"), Http::ChunkHeader(65536));
    CPPUNIT_ASSERT_EQUAL(std::string("ffffffffffffffff\r\n"), Http::ChunkHeader(UINT64_MAX));
    CPPUNIT_ASSERT_EQUAL(Http::MaxChunkHeaderSize, Http::ChunkHeader(UINT64_MAX).size());
    CPPUNIT_ASSERT_EQUAL(std::string("\r\n"), std::string(Http::ChunkEnd));
    CPPUNIT_ASSERT_EQUAL(std::string("0\r\n\r\n"), std::string(Http::LastChunk));
    // every header the encoder makes is one the decoder reads back as that size
    for (const uint64_t size : {uint64_t(1), uint64_t(15), uint64_t(16), uint64_t(4095), uint64_t(1) << 40}) {
        Http::ChunkedDecoder d;
        const auto h = Http::ChunkHeader(size);
        const auto p = d.next(h);
        CPPUNIT_ASSERT(p.kind == Kind::Framing);
        CPPUNIT_ASSERT_EQUAL(h.size(), p.length);
        const std::string data(size_t(std::min<uint64_t>(size, 4096)), 'd');
        CPPUNIT_ASSERT_EQUAL(data.size(), d.next(data).length);
    }
}
