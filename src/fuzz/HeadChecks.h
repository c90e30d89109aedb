/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file What the request and reply head harnesses check alike: the same
/// bytes give the same head whole, byte by byte, in pieces, after reset(),
/// alone (without what follows the head), and with the limit set to the
/// head's size; one byte less is TooLarge. Each harness adds what only its
/// parser has through `same`, a function (whole, other) that compares more.

#pragma once

#include "fuzz/Check.h"
#include "http/Fields.h"
#include "http/FieldSyntax.h"
#include "http/RequestParser.h"

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

namespace Fuzz {

/// Feeds growing prefixes of text to parser, cut by next(); the last result.
template <class Parser, class NextLength>
Http::ParseResult ParseInPieces(Parser& parser, std::string_view text, NextLength next)
{
    auto result = Http::ParseResult::NeedMore;
    size_t fed = 0;
    while (fed < text.size() && result == Http::ParseResult::NeedMore) {
        fed = std::min(text.size(), fed + next());
        result = parser.parse(text.substr(0, fed));
    }
    return result;
}

/// other's parse said what whole's did (result, error, head, fields, length).
template <class Parser, class Same>
void CheckSameHead(const Parser& whole, Http::ParseResult wholeResult, const Parser& other,
                   Http::ParseResult otherResult, Same same)
{
    FUZZ_CHECK(otherResult == wholeResult);
    FUZZ_CHECK(other.error() == whole.error());
    if (wholeResult != Http::ParseResult::Done)
        return;
    FUZZ_CHECK(other.headSize() == whole.headSize());
    FUZZ_CHECK(other.contentLength() == whole.contentLength());
    FUZZ_CHECK(other.fields().size() == whole.fields().size());
    for (size_t i = 0; i < whole.fields().size(); ++i) {
        FUZZ_CHECK(other.fields()[i].name == whole.fields()[i].name);
        FUZZ_CHECK(other.fields()[i].value == whole.fields()[i].value);
    }
    same(whole, other);
}

/// Every field of a head of `headSize` bytes at `head` lies in it, has a
/// token name and a value without CR, LF or NUL.
inline void CheckFieldViews(const std::vector<Http::HeaderField>& fields, const char* head, size_t headSize)
{
    for (const auto& f : fields) {
        FUZZ_CHECK(!f.name.empty());
        FUZZ_CHECK(IsWithin(f.name, head, headSize));
        FUZZ_CHECK(IsWithin(f.value, head, headSize));
        for (const char c : f.name)
            FUZZ_CHECK(Http::IsTokenChar(c));
        for (const char c : f.value)
            FUZZ_CHECK(c != '\r' && c != '\n' && c != '\0');
    }
}

/// Parses text again in every way the file comment lists and compares with
/// whole (made with `limit`); tooLarge is the parser's TooLarge error.
template <class Parser, class Error, class Same>
void CheckEveryWay(const Parser& whole, Http::ParseResult result, std::string_view text, size_t limit,
                   Error tooLarge, Same same)
{
    Parser bytes(limit);
    CheckSameHead(whole, result, bytes, ParseInPieces(bytes, text, [] { return size_t(1); }), same);

    Splitter splitter(text, 64);
    Parser pieces(limit);
    CheckSameHead(whole, result, pieces, ParseInPieces(pieces, text, [&splitter] { return splitter.next(); }),
                  same);
    pieces.reset();
    CheckSameHead(whole, result, pieces, pieces.parse(text), same);

    // under a limit the input passes, too: bytes past the limit are never
    // looked at, so a bare LF or CR beyond it cannot change the answer
    if (text.size() > 1) {
        const size_t small = 1 + text.size() / 2;
        Parser smallWhole(small);
        const auto smallResult = smallWhole.parse(text);
        Parser smallBytes(small);
        CheckSameHead(smallWhole, smallResult, smallBytes,
                      ParseInPieces(smallBytes, text, [] { return size_t(1); }), same);
    }

    if (result != Http::ParseResult::Done)
        return;
    const size_t head = whole.headSize();
    FUZZ_CHECK(head > 0 && head <= text.size() && head <= limit);
    FUZZ_CHECK(text[head - 1] == '\n');
    CheckFieldViews(whole.fields(), text.data(), head);

    Parser alone(limit);
    CheckSameHead(whole, result, alone, alone.parse(text.substr(0, head)), same);

    // the limit is exact
    Parser exact(head);
    CheckSameHead(whole, result, exact, exact.parse(text), same);
    if (head > 1) {
        Parser under(head - 1);
        FUZZ_CHECK(under.parse(text) == Http::ParseResult::Error);
        FUZZ_CHECK(under.error() == tooLarge);
    }
}

} // namespace Fuzz
