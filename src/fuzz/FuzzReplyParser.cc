/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file libFuzzer harness of Http::ReplyParser. Properties checked, for
/// any bytes:
/// - the input in one piece, byte by byte and in pieces of 1..64 bytes
///   gives the same result, error, head size and fields, under the default
///   limit and under one of half the input's size (ReplyParser.h: "the
///   result depends only on the bytes");
/// - a head (Done) is no longer than the input nor the limit, ends with an
///   LF, its status code is 100..999 and every view lies inside it;
/// - a Content-Length the parser reports is the number in every copy of
///   the field (a list `5, 5` included); Transfer-Encoding overrides it;
/// - framing() agrees with the fields: Chunked only when the last coding is
///   chunked, Length only with a length, None for HEAD, 1xx, 204, 304;
/// - the limit is exact (headSize parses, headSize - 1 is TooLarge);
/// - a FieldIndex of the head gives back the same fields.

#include "cuttle.h"

#include "fuzz/Check.h"
#include "fuzz/HeadChecks.h"
#include "http/Fields.h"
#include "http/ReplyParser.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace {

constexpr size_t Limit = 64 * 1024; // reply_header_max_size's default

using Framing = Http::ReplyParser::Framing;

/// what only a reply head has
void CheckSameReply(const Http::ReplyParser& whole, const Http::ReplyParser& other)
{
    FUZZ_CHECK(other.statusCode() == whole.statusCode());
    FUZZ_CHECK(other.reason() == whole.reason());
    FUZZ_CHECK(other.transferCodings().isChunkedLast() == whole.transferCodings().isChunkedLast());
}

/// Every element of a `#1*DIGIT` list value, or nullopt when any is not digits.
std::optional<std::vector<uint64_t>> DecimalList(std::string_view value)
{
    std::vector<uint64_t> numbers;
    size_t start = 0;
    while (start <= value.size()) {
        size_t comma = value.find(',', start);
        if (comma == std::string_view::npos)
            comma = value.size();
        auto item = value.substr(start, comma - start);
        while (!item.empty() && (item.front() == ' ' || item.front() == '\t'))
            item.remove_prefix(1);
        while (!item.empty() && (item.back() == ' ' || item.back() == '\t'))
            item.remove_suffix(1);
        if (!item.empty()) {
            uint64_t n = 0;
            for (const char c : item) {
                if (c < '0' || c > '9' || n > (UINT64_MAX - 9) / 10)
                    return std::nullopt;
                n = n * 10 + uint64_t(c - '0');
            }
            numbers.push_back(n);
        }
        start = comma + 1;
    }
    return numbers;
}

void CheckHead(const Http::ReplyParser& parser, std::string_view text)
{
    const size_t head = parser.headSize();
    FUZZ_CHECK(parser.statusCode() >= 100 && parser.statusCode() <= 999);
    FUZZ_CHECK(parser.versionMajor() == 1);
    FUZZ_CHECK(Fuzz::IsWithin(parser.reason(), text.data(), head));

    std::optional<uint64_t> length;
    for (const auto& f : parser.fields()) {
        if (Http::EqualsIgnoreCase(f.name, "Content-Length")) {
            const auto numbers = DecimalList(f.value);
            FUZZ_CHECK(numbers.has_value() && !numbers->empty());
            for (const auto n : *numbers) {
                FUZZ_CHECK(!length || *length == n);
                length = n;
            }
        }
    }
    FUZZ_CHECK(length <= std::optional<uint64_t>(uint64_t(INT64_MAX)));
    if (parser.transferCodings().isPresent()) {
        FUZZ_CHECK(!parser.contentLength().has_value());
        FUZZ_CHECK(parser.hadLengthAndTransferEncoding() == length.has_value());
    } else {
        FUZZ_CHECK(parser.contentLength() == length);
    }

    const int code = parser.statusCode();
    for (const bool head_ : {false, true}) {
        for (const bool connect : {false, true}) {
            const auto framing = parser.framing(head_, connect);
            if (head_ || code < 200 || code == 204 || code == 304 || (connect && code < 300))
                FUZZ_CHECK(framing == Framing::None);
            if (framing == Framing::Chunked)
                FUZZ_CHECK(parser.transferCodings().isChunkedLast());
            if (framing == Framing::Length)
                FUZZ_CHECK(parser.contentLength().has_value());
            if (framing != Framing::None && parser.transferCodings().isChunkedLast())
                FUZZ_CHECK(framing == Framing::Chunked);
        }
    }
    (void)parser.wantsClose();

    // the compact index a stored reply keeps says the same
    const Http::FieldIndex index(text.substr(0, head), parser.fields());
    const auto view = index.view(text.data());
    FUZZ_CHECK(view.size() == parser.fields().size());
    for (size_t i = 0; i < view.size(); ++i) {
        FUZZ_CHECK(view[i].name.data() == parser.fields()[i].name.data());
        FUZZ_CHECK(view[i].name == parser.fields()[i].name);
        FUZZ_CHECK(view[i].value == parser.fields()[i].value);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const auto text = Fuzz::AsText(data, size);

    Http::ReplyParser whole(Limit);
    const auto result = whole.parse(text);
    FUZZ_CHECK(whole.parse(text) == result);
    FUZZ_CHECK((result == Http::ParseResult::Error) == (whole.error() != Http::ReplyError::None));
    (void)whole.errorText();

    Fuzz::CheckEveryWay(whole, result, text, Limit, Http::ReplyError::TooLarge, CheckSameReply);
    if (result == Http::ParseResult::Done)
        CheckHead(whole, text);
    return 0;
}
