/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Sbuf::SBuf: a cheap read-only view of published bytes that keeps
/// their block alive, for parsers to refer to header bytes in place.
///
/// Layout
///
///     SBuf (16 B)                      MemBlob block
///     +-------------------+            +--------------------------------+
///     | blob_ ------------|----------->| G E T   h t t p : / / ...      |
///     | offset_ | length_ |            +--------------------------------+
///     +-------------------+                  ^offset_   ^offset_+length_
///
/// Ownership and sharing: an SBuf holds one reference to its blob; copying an
/// SBuf, substr() and conversion to std::string_view never copy bytes. The
/// bytes are published (see sbuf/MemBlob.h), so they never change under a
/// view. An SBuf with no blob is empty. There is no append: build new bytes in
/// a MemBlob (MemBlob::append or MakeCopy) and view them.
///
/// Threading: one event loop thread, like its blob.

#pragma once

#include "sbuf/Slice.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace Sbuf {

/// A read-only view of published bytes of one blob: (blob, offset, length).
class SBuf {
public:
    /// "not found" and "to the end"
    static constexpr size_t npos = std::string_view::npos;

    /// empty, no blob
    SBuf() = default;
    /// bytes [offset, offset + length) of blob; throws unless they are published
    SBuf(MemBlobRef blob, size_t offset, size_t length);
    /// the bytes of a slice (shares its blob)
    explicit SBuf(const Slice& slice);
    /// a copy of bytes in a new blob from pool (for tests and small
    /// non-body strings; not for body bytes)
    static SBuf Copy(BlockPool& pool, std::string_view bytes);

    /// the first byte (null when empty without a blob)
    const char* data() const { return blob_ ? blob_->data() + offset_ : nullptr; }
    /// bytes in the view
    size_t length() const { return length_; }
    /// bytes in the view
    size_t size() const { return length_; }
    /// whether the view is empty
    bool isEmpty() const { return length_ == 0; }
    /// the block, or null
    const MemBlobRef& blob() const { return blob_; }
    /// where the view starts in its block
    size_t offset() const { return offset_; }
    /// the bytes, as a string_view valid while this SBuf (or its blob) lives
    std::string_view view() const { return {data(), length_}; }
    /// the bytes, as a string_view valid while this SBuf (or its blob) lives
    operator std::string_view() const { return view(); }
    /// a std::string copy of the bytes (for logs and tests, not bodies)
    std::string toString() const { return std::string(view()); }
    /// the byte at pos; pos must be < length()
    char operator[](size_t pos) const { return data()[pos]; }
    /// the view as a Slice (shares the blob)
    Slice toSlice() const;

    /// bytes [pos, pos + n) (clipped to the end) sharing this blob;
    /// pos > length() gives an empty view
    SBuf substr(size_t pos, size_t n = npos) const;
    /// drops the first n bytes (all when n > length())
    void consume(size_t n);
    /// keeps the first n bytes (no change when n >= length())
    void truncate(size_t n);

    /// the first position of c at or after pos, or npos
    size_t find(char c, size_t pos = 0) const { return view().find(c, pos); }
    /// the first position of needle at or after pos, or npos
    size_t find(std::string_view needle, size_t pos = 0) const { return view().find(needle, pos); }
    /// the last position of c at or before pos, or npos
    size_t rfind(char c, size_t pos = npos) const { return view().rfind(c, pos); }
    /// the first position of any of chars at or after pos, or npos
    size_t findFirstOf(std::string_view chars, size_t pos = 0) const
    {
        return view().find_first_of(chars, pos);
    }
    /// the first position of a byte not in chars at or after pos, or npos
    size_t findFirstNotOf(std::string_view chars, size_t pos = 0) const
    {
        return view().find_first_not_of(chars, pos);
    }

    /// <0, 0, >0 as the bytes compare with other's (memcmp order, then length)
    int compare(std::string_view other) const { return view().compare(other); }
    /// whether the bytes equal other's, ignoring ASCII case (header names)
    bool caseEquals(std::string_view other) const;
    /// whether the bytes start with prefix
    bool startsWith(std::string_view prefix) const { return view().starts_with(prefix); }
    /// whether the bytes start with prefix, ignoring ASCII case
    bool caseStartsWith(std::string_view prefix) const;

    /// byte-wise equality
    friend bool operator==(const SBuf& a, const SBuf& b) { return a.view() == b.view(); }
    /// byte-wise equality with a string
    friend bool operator==(const SBuf& a, std::string_view b) { return a.view() == b; }
    /// byte-wise order
    friend auto operator<=>(const SBuf& a, const SBuf& b) { return a.view() <=> b.view(); }
    /// byte-wise order with a string
    friend auto operator<=>(const SBuf& a, std::string_view b) { return a.view() <=> b; }

private:
    MemBlobRef blob_;     ///< keeps the bytes alive
    uint32_t offset_ = 0; ///< into blob_
    uint32_t length_ = 0; ///< bytes in the view
};

} // namespace Sbuf
