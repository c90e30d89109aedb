/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file What every libFuzzer harness of src/fuzz shares: FUZZ_CHECK, which
/// turns a broken property into a crash that libFuzzer saves as an input,
/// and Fuzz::Splitter, which cuts an input into pieces the same way every
/// time it is run (so a failure found with pieces replays).
///
/// A harness checks properties of what a parser says about the bytes (a
/// head is no longer than the input, a length is the one in the bytes,
/// whole and piecewise parses agree), not only that nothing crashed; ASan
/// and UBSan (configure --enable-fuzzers) catch the rest. See doc/fuzzing.md.

#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

/// Aborts with the file, line and text of `cond` when it is false.
#define FUZZ_CHECK(cond) ((cond) ? (void)0 : Fuzz::Fail(#cond, __FILE__, __LINE__))

namespace Fuzz {

/// Reports a broken property and aborts, so that libFuzzer keeps the input.
[[noreturn]] inline void Fail(const char* what, const char* file, int line)
{
    std::fprintf(stderr, "%s:%d: property broken: %s\n", file, line, what);
    std::fflush(stderr);
    std::abort();
}

/// The bytes of a libFuzzer input as a string_view.
inline std::string_view AsText(const uint8_t* data, size_t size)
{
    return std::string_view(reinterpret_cast<const char*>(data), size);
}

/// text cut at each LF (the LFs dropped): the values of several field lines
inline std::vector<std::string_view> SplitLines(std::string_view text)
{
    std::vector<std::string_view> lines;
    for (size_t start = 0; start <= text.size();) {
        auto end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

/// Piece lengths (1 to maxPiece bytes) drawn from a generator seeded by
/// the input itself: the same input is always cut the same way.
class Splitter {
public:
    /// seeds from the FNV-1a hash of text; pieces are 1..maxPiece bytes
    Splitter(std::string_view text, size_t maxPiece) : maxPiece_(maxPiece ? maxPiece : 1)
    {
        state_ = 14695981039346656037ULL;
        for (const char c : text)
            state_ = (state_ ^ uint8_t(c)) * 1099511628211ULL;
        state_ |= 1;
    }

    /// the next piece length, 1..maxPiece
    size_t next() { return 1 + size_t(nextRandom() % maxPiece_); }

    /// a pseudo-random 64-bit number (xorshift64*)
    uint64_t nextRandom()
    {
        state_ ^= state_ >> 12;
        state_ ^= state_ << 25;
        state_ ^= state_ >> 27;
        return state_ * 2685821657736338717ULL;
    }

private:
    size_t maxPiece_;
    uint64_t state_;
};

/// Whether view lies entirely within [base, base + size) (an empty view always does).
inline bool IsWithin(std::string_view view, const char* base, size_t size)
{
    return view.empty() || (view.data() >= base && view.data() + view.size() <= base + size);
}

} // namespace Fuzz
