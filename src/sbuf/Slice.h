/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Sbuf::Slice: a view of published bytes of one MemBlob. See
/// sbuf/SliceSequence.h for how slices make up an entry's body.

#pragma once

#include "sbuf/MemBlob.h"

#include <cstdint>
#include <string_view>

namespace Sbuf {

/// (blob, offset, length): a run of published bytes of one block. Copying a
/// slice costs one refcount increment; the bytes are never copied. A slice
/// keeps its block alive. The default slice is empty and has no blob.
class Slice {
public:
    /// an empty slice with no blob
    Slice() = default;
    /// bytes [offset, offset + length) of blob; throws unless they are published
    Slice(MemBlobRef blob, size_t offset, size_t length);
    /// all published bytes of blob
    explicit Slice(MemBlobRef blob);

    /// the block, or null for the default slice
    const MemBlobRef& blob() const { return blob_; }
    /// where the slice starts in its block
    size_t offset() const { return offset_; }
    /// the number of bytes
    size_t length() const { return length_; }
    /// whether there are no bytes
    bool isEmpty() const { return length_ == 0; }
    /// the first byte
    const char* data() const { return blob_ ? blob_->data() + offset_ : nullptr; }
    /// the bytes
    std::string_view view() const { return {data(), length_}; }

    /// bytes [pos, pos + n) of this slice (n clipped to the end); throws when pos > length()
    Slice sub(size_t pos, size_t n = SIZE_MAX) const;
    /// whether other starts in the same block right where this slice ends
    bool isFollowedBy(const Slice& other) const
    {
        return blob_ && blob_ == other.blob_ && offset_ + length_ == other.offset_;
    }
    /// grows the slice by n published bytes of the same block (used when
    /// appending adjacent bytes); throws unless they are published
    void extend(size_t n);

private:
    MemBlobRef blob_;     ///< keeps the bytes alive
    uint32_t offset_ = 0; ///< into blob_ (blocks are at most 4 MB)
    uint32_t length_ = 0; ///< bytes in the slice
};

} // namespace Sbuf
