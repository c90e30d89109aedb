/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "Pattern.h"

#include <algorithm>
#include <cerrno>
#include <memory>

#include <unistd.h>

namespace {

const char* patternBuffer()
{
    // built once, on first use, by whichever thread comes first (a static's
    // initialisation is thread-safe); never written afterwards
    static const std::unique_ptr<char[]> buffer = [] {
        const size_t size = Origin::PatternBlock + Origin::PatternPeriod;
        auto bytes = std::make_unique<char[]>(size);
        for (size_t i = 0; i < size; ++i)
            bytes[i] = Origin::PatternAlphabet[i % Origin::PatternPeriod];
        return bytes;
    }();
    return buffer.get();
}

} // namespace

const char* Origin::patternAt(uint64_t offset)
{
    return patternBuffer() + offset % PatternPeriod;
}

bool Origin::writePattern(int fd, uint64_t size)
{
    uint64_t offset = 0;
    while (offset < size) {
        const size_t want = static_cast<size_t>(std::min<uint64_t>(size - offset, PatternBlock));
        const ssize_t n = ::write(fd, patternAt(offset), want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        offset += static_cast<uint64_t>(n);
    }
    return true;
}
