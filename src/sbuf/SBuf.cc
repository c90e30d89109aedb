/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "sbuf/SBuf.h"
#include "base/TextException.h"

#include <algorithm>

namespace Sbuf {

namespace {

char lowerAscii(char c)
{
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool caseEqualRange(const char* a, const char* b, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        if (lowerAscii(a[i]) != lowerAscii(b[i]))
            return false;
    }
    return true;
}

} // namespace

SBuf::SBuf(MemBlobRef blob, size_t offset, size_t length)
    : blob_(std::move(blob)), offset_(static_cast<uint32_t>(offset)), length_(static_cast<uint32_t>(length))
{
    Must(blob_ || (offset == 0 && length == 0));
    Must(!blob_ || (offset <= blob_->size() && length <= blob_->size() - offset));
}

SBuf::SBuf(const Slice& slice) : SBuf(slice.blob(), slice.offset(), slice.length()) {}

SBuf SBuf::Copy(BlockPool& pool, std::string_view bytes)
{
    MemBlobRef blob = MemBlob::MakeCopy(pool, bytes);
    return SBuf(blob, 0, bytes.size());
}

Slice SBuf::toSlice() const
{
    return Slice(blob_, offset_, length_);
}

SBuf SBuf::substr(size_t pos, size_t n) const
{
    SBuf result(*this);
    result.consume(pos);
    result.truncate(n);
    return result;
}

void SBuf::consume(size_t n)
{
    n = std::min<size_t>(n, length_);
    offset_ += static_cast<uint32_t>(n);
    length_ -= static_cast<uint32_t>(n);
}

void SBuf::truncate(size_t n)
{
    if (n < length_)
        length_ = static_cast<uint32_t>(n);
}

bool SBuf::caseEquals(std::string_view other) const
{
    return other.size() == length_ && caseEqualRange(data(), other.data(), length_);
}

bool SBuf::caseStartsWith(std::string_view prefix) const
{
    return prefix.size() <= length_ && caseEqualRange(data(), prefix.data(), prefix.size());
}

} // namespace Sbuf
