/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Disk::Format: the store file of one object.
///
///     offset 0         64                 64 + key          64 + key + head
///     +----------------+------------------+-----------------+----------------------+
///     | header (64 B)  | key (Store::     | reply head      | body (bodyLength B)  |
///     |                | MakeKey, variant)| as received     |                      |
///     +----------------+------------------+-----------------+----------------------+
///
///     header, little-endian:
///     0  magic "CTL1"      4  version (1)     8  keyLength     12 headLength
///     16 bodyLength (8)    24 headChecksum (8): FNV-1a 64 of key then head
///     32 requestTime (8)   40 responseTime (8): RFC 9111 4.2.3's request_time and response_time
///     48 reserved, zero (8)                   56 headerChecksum (8): FNV-1a 64 of bytes 0..55
///
/// Guarantees (doc/caching.md "The disk cache"): a file is written under a
/// temporary name (Disk::Layout::tempPathOf()) and its header last; it is
/// renamed to its final name only when complete, so a file under a final
/// name was whole when cuttle renamed it. Whatever happened after (a crash
/// of the machine before the page cache reached the disk, a file cut or
/// changed by hand), Decode() refuses a header whose own checksum fails,
/// and a reader refuses a file whose size is not exactly fileSize() or
/// whose key and head do not match headChecksum: a torn or partial file is
/// never served. The body has no checksum (a hit is sent by sendfile, which
/// never sees the bytes): its length is checked, not its content.

#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace Disk {

/// bytes of the fixed header at the start of every store file
inline constexpr size_t HeaderSize = 64;

/// What a store file's header says.
struct Meta {
    uint32_t keyLength = 0;    ///< bytes of the key after the header
    uint32_t headLength = 0;   ///< bytes of the reply head after the key
    uint64_t bodyLength = 0;   ///< bytes of the body after the head
    uint64_t headChecksum = 0; ///< Checksum() of the key and the head
    int64_t requestTime = 0;   ///< when the request that fetched it was sent (Store::Reply::requestTime)
    int64_t responseTime = 0;  ///< when its head arrived (Store::Reply::responseTime)

    /// where the key starts
    static constexpr uint64_t keyOffset() { return HeaderSize; }
    /// where the reply head starts
    uint64_t headOffset() const { return HeaderSize + keyLength; }
    /// where the body starts
    uint64_t bodyOffset() const { return headOffset() + headLength; }
    /// the size of the whole file
    uint64_t fileSize() const { return bodyOffset() + bodyLength; }
};

/// FNV-1a, 64 bits, of a then b
uint64_t Checksum(std::string_view a, std::string_view b = {});

/// the header of a file holding key, head and meta.bodyLength bytes of body
/// (meta's lengths and checksum are those of key and head)
std::array<char, HeaderSize> EncodeHeader(std::string_view key, std::string_view head, const Meta& meta);

/// what header says, or nothing when it is not a valid header (magic,
/// version, its own checksum)
std::optional<Meta> DecodeHeader(std::string_view header);

/// reads exactly size bytes of file fd at offset (pread, retried on EINTR
/// and short reads); false at the end of the file or on an error
bool ReadAt(int fd, char* into, size_t size, uint64_t offset);

/// whether key and head are those meta was written with
inline bool HeadMatches(const Meta& meta, std::string_view key, std::string_view head)
{
    return key.size() == meta.keyLength && head.size() == meta.headLength &&
           Checksum(key, head) == meta.headChecksum;
}

} // namespace Disk
