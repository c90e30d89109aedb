/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The test origin's body pattern. The byte at absolute offset i of every
/// `s=` body is PatternAlphabet[i % 61]: the period is 61, a prime, so a body
/// shifted by any power-of-two block size (a lost or repeated read block) no
/// longer matches. PatternAlphabet has 62 characters, so its last one, 'Z',
/// never appears: the body repeats "0-9a-zA-Y".
///
///     offset:  0         10        20 ...  60 61
///     byte:    0123456789abcdefghij ...     Y  0123...
///
/// The bytes come from one read-only buffer built once, PatternBlock + 61 bytes
/// long: patternAt(offset) points into it so that PatternBlock bytes from there
/// are the body from that offset on. Any thread may read it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace Origin {

/// the characters of the pattern, as the interface states them (the last is never used)
inline constexpr std::string_view PatternAlphabet =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
/// the pattern's period: the byte at offset i is PatternAlphabet[i % PatternPeriod]
inline constexpr size_t PatternPeriod = 61;
static_assert(PatternPeriod < PatternAlphabet.size(), "the alphabet covers the period");

/// how many bytes patternAt() guarantees: one write of a pattern body
inline constexpr size_t PatternBlock = 1 << 20;

/// the pattern body from absolute offset on; PatternBlock bytes are readable there
const char* patternAt(uint64_t offset);

/// Writes the first size bytes of the pattern to fd (blocking); false on a write error.
bool writePattern(int fd, uint64_t size);

} // namespace Origin
