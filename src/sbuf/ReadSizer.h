/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Sbuf::ReadSizer: how big a read block a connection asks for, fixed
/// (`request_buffer_size SIZE`) or adapted per connection
/// (`request_buffer_size auto [min=SIZE] [max=SIZE]`), as Cowboy's dynamic buffers do.
///
/// Auto mode keeps a moving average of how full each read left the space it
/// was offered (not of the raw byte count, which a partly filled block would
/// skew): avg = (7 * avg + fill) / 8, in per-mille. Above 90% the size
/// doubles, below 40% it halves, within [min, max]; each change rescales the
/// average (halved on a doubling, doubled on a halving), so the size does not
/// run to a bound and back. Sizes are pool size classes (powers of two).
#pragma once

#include <cstddef>
#include <cstdint>

namespace Sbuf {

/// The read size of one connection; see the file comment.
class ReadSizer {
public:
    /// a fixed size (rounded up to a pool size class)
    static ReadSizer Fixed(size_t size);
    /// an adaptive size starting at min
    static ReadSizer Auto(size_t min, size_t max);
    /// a fixed size of 16 KB (Squid's default read size for replies)
    ReadSizer() : ReadSizer(Fixed(16 * 1024)) {}

    /// the block size to offer the next read
    size_t size() const { return size_; }
    /// records that a read offered `offered` bytes of space and got `got`
    void noteRead(size_t offered, size_t got);
    /// whether the size adapts
    bool isAuto() const { return isAuto_; }
    /// the moving average of the fill, per mille (auto mode)
    unsigned averageFill() const { return avg_; }

    static constexpr unsigned GrowAbove = 900;   ///< per mille: double above this
    static constexpr unsigned ShrinkBelow = 400; ///< per mille: halve below this

private:
    ReadSizer(bool isAuto, size_t size, size_t min, size_t max);

    bool isAuto_;
    size_t size_;
    size_t min_;
    size_t max_;
    unsigned avg_ = 500; ///< starts between the thresholds
};

} // namespace Sbuf
