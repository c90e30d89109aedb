/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "sbuf/ReadSizer.h"
#include "sbuf/BlockPool.h"

#include <algorithm>

Sbuf::ReadSizer::ReadSizer(bool isAuto, size_t size, size_t min, size_t max)
    : isAuto_(isAuto), size_(size), min_(min), max_(max)
{}

Sbuf::ReadSizer Sbuf::ReadSizer::Fixed(size_t size)
{
    const size_t s = BlockPool::RoundUp(std::clamp(size, BlockPool::MinBlockSize, BlockPool::MaxBlockSize));
    return ReadSizer(false, s, s, s);
}

Sbuf::ReadSizer Sbuf::ReadSizer::Auto(size_t min, size_t max)
{
    const size_t lo = BlockPool::RoundUp(std::clamp(min, BlockPool::MinBlockSize, BlockPool::MaxBlockSize));
    const size_t hi =
        std::max(lo, BlockPool::RoundUp(std::clamp(max, BlockPool::MinBlockSize, BlockPool::MaxBlockSize)));
    return ReadSizer(true, lo, lo, hi);
}

void Sbuf::ReadSizer::noteRead(size_t offered, size_t got)
{
    if (!isAuto_ || offered == 0)
        return;
    const unsigned fill = unsigned(std::min<uint64_t>(1000, uint64_t(got) * 1000 / offered));
    avg_ = (7 * avg_ + fill) / 8;
    if (avg_ > GrowAbove && size_ < max_) {
        size_ *= 2;
        avg_ /= 2;
    } else if (avg_ < ShrinkBelow && size_ > min_) {
        size_ /= 2;
        avg_ = std::min(1000u, avg_ * 2);
    }
}
