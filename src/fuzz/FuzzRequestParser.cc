/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file libFuzzer harness of Http::RequestParser. Properties checked, for
/// any bytes:
/// - the input in one piece, byte by byte and in pieces of 1..64 bytes
///   gives the same result, error, head size and fields, under the default
///   limit and under one of half the input's size;
/// - a head (Done) is no longer than the input nor the limit, ends with an
///   LF, and every view (method, target, names, values) lies inside it;
///   the method and names are tokens, values hold no CR, LF or NUL;
/// - a Content-Length the parser reports is the number in every
///   Content-Length field of the bytes;
/// - the limit is exact: with maxHeadSize = headSize the head parses, with
///   headSize - 1 it is TooLarge (431 or 414);
/// - the head alone parses to the same head; reset() forgets everything.

#include "cuttle.h"

#include "fuzz/Check.h"
#include "fuzz/HeadChecks.h"
#include "http/FieldSyntax.h"
#include "http/RequestParser.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>

namespace {

constexpr size_t Limit = 64 * 1024; // request_header_max_size's default

/// what only a request head has
void CheckSameRequest(const Http::RequestParser& whole, const Http::RequestParser& other)
{
    FUZZ_CHECK(other.methodToken() == whole.methodToken());
    FUZZ_CHECK(other.target() == whole.target());
}

/// The decimal number in text, or nullopt when it is not 1*DIGIT or overflows.
std::optional<uint64_t> Decimal(std::string_view text)
{
    if (text.empty())
        return std::nullopt;
    uint64_t n = 0;
    for (const char c : text) {
        if (c < '0' || c > '9' || n > (UINT64_MAX - 9) / 10)
            return std::nullopt;
        n = n * 10 + uint64_t(c - '0');
    }
    return n;
}

void CheckHead(const Http::RequestParser& parser, std::string_view text)
{
    const size_t head = parser.headSize();
    FUZZ_CHECK(!parser.methodToken().empty() && !parser.target().empty());
    FUZZ_CHECK(Fuzz::IsWithin(parser.methodToken(), text.data(), head));
    FUZZ_CHECK(Fuzz::IsWithin(parser.target(), text.data(), head));
    for (const char c : parser.methodToken())
        FUZZ_CHECK(Http::IsTokenChar(c));
    FUZZ_CHECK(parser.versionMajor() == 0 || parser.versionMajor() == 1);
    FUZZ_CHECK(parser.versionMinor() >= 0 && parser.versionMinor() <= 9);

    bool sawLength = false;
    for (const auto& f : parser.fields()) {
        if (Http::EqualsIgnoreCase(f.name, "Content-Length")) {
            // the length reported is the one in the bytes, in every copy
            sawLength = true;
            FUZZ_CHECK(parser.contentLength().has_value());
            FUZZ_CHECK(Decimal(f.value) == parser.contentLength());
        }
    }
    FUZZ_CHECK(sawLength == parser.contentLength().has_value());
    FUZZ_CHECK(parser.hasBody() ==
               (parser.findField("Transfer-Encoding").has_value() || parser.contentLength().value_or(0) > 0));
    (void)parser.wantsClose();
    (void)parser.hasConnectionToken("close");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const auto text = Fuzz::AsText(data, size);

    Http::RequestParser whole(Limit);
    const auto result = whole.parse(text);
    FUZZ_CHECK(whole.parse(text) == result); // sticky after Done or Error
    FUZZ_CHECK((result == Http::ParseResult::Error) == (whole.error() != Http::ParseError::None));
    (void)whole.errorText();
    if (result == Http::ParseResult::Error)
        FUZZ_CHECK(Http::ToInt(whole.errorStatus()) >= 400);
    for (const char c : whole.firstWord())
        FUZZ_CHECK(Http::IsTokenChar(c));
    FUZZ_CHECK(whole.firstWord().size() <= 64);

    Fuzz::CheckEveryWay(whole, result, text, Limit, Http::ParseError::TooLarge, CheckSameRequest);
    if (result != Http::ParseResult::Done)
        return 0;
    CheckHead(whole, text);

    // one byte under the limit: 431, or 414 when the request line is cut
    if (whole.headSize() > 1) {
        Http::RequestParser under(whole.headSize() - 1);
        (void)under.parse(text);
        FUZZ_CHECK(Http::ToInt(under.errorStatus()) == 431 || Http::ToInt(under.errorStatus()) == 414);
    }
    return 0;
}
