/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "sbuf/Slice.h"
#include "base/TextException.h"

#include <algorithm>

namespace Sbuf {

Slice::Slice(MemBlobRef blob, size_t offset, size_t length)
    : blob_(std::move(blob)), offset_(static_cast<uint32_t>(offset)), length_(static_cast<uint32_t>(length))
{
    Must(blob_ || (offset == 0 && length == 0));
    Must(!blob_ || (offset <= blob_->size() && length <= blob_->size() - offset));
}

Slice::Slice(MemBlobRef blob) : Slice(blob, 0, blob ? blob->size() : 0) {}

Slice Slice::sub(size_t pos, size_t n) const
{
    Must(pos <= length_);
    return Slice(blob_, offset_ + pos, std::min<size_t>(n, length_ - pos));
}

void Slice::extend(size_t n)
{
    // n comes from a caller: compare against the room left, so that a huge n
    // cannot wrap the sum around and pass
    Must(blob_ && n <= blob_->size() - offset_ - length_);
    length_ += static_cast<uint32_t>(n);
}

} // namespace Sbuf
