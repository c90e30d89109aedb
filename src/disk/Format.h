/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Disk::Format: the store file of one object.
///
///     offset 0         64                 64 + key         + room           + 2 room
///     +----------------+------------------+----------------+----------------+---------------+
///     | header (64 B)  | key (Store::     | head slot 0    | head slot 1    | body          |
///     |                | MakeKey)         | (room bytes)   | (room bytes)   | (bodyLength)  |
///     +----------------+------------------+----------------+----------------+---------------+
///
///     header, little-endian:
///     0  magic "CTL2"      4  version (2)     8  keyLength     12 headLength
///     16 bodyLength (8)    24 headChecksum (8): FNV-1a 64 of key then head
///     32 requestTime (8)   40 responseTime (8): RFC 9111 4.2.3's request_time and response_time
///     48 headRoom (4)      52 headSlot (4): the slot that holds the head (0 or 1)
///     56 headerChecksum (8): FNV-1a 64 of bytes 0..55
///
/// The reply head lives in one of two slots of headRoom bytes (HeadRoomFor()
/// of the head first stored: its length and some slack), its first
/// headLength bytes; the header names the slot. A 304 replaces the head
/// without touching the body (RewriteHead()): the new head goes into the
/// slot the header does not name, then a new header (one 64-byte write, in
/// one page) names it. So until the header is written, the old header and
/// old head are intact, and after it the new ones: a kill -9 at any moment
/// leaves the old object or the new one. A head that outgrows its room is
/// not rewritten (the object stays as it was).
///
/// Guarantees (doc/caching.md "The disk cache"): a file is written under a
/// temporary name (Disk::Layout::tempPathOf()) and its header last; it is
/// renamed to its final name only when complete, so a file under a final
/// name was whole when cuttle renamed it. Whatever happened after (a crash
/// of the machine before the page cache reached the disk, a file cut or
/// changed by hand), Decode() refuses a header whose own checksum fails,
/// and a reader refuses a file whose size is not exactly fileSize() or
/// whose key and head do not match headChecksum (FrontMatches()): a torn
/// or partial file is never served. The body has no checksum (a hit is sent
/// by sendfile, which never sees the bytes): its length is checked, not its
/// content.

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
    uint32_t headLength = 0;   ///< bytes of the reply head (the start of its slot)
    uint64_t bodyLength = 0;   ///< bytes of the body after the head
    uint64_t headChecksum = 0; ///< Checksum() of the key and the head
    int64_t requestTime = 0;   ///< when the request that fetched it was sent (Store::Reply::requestTime)
    int64_t responseTime = 0;  ///< when its head arrived (Store::Reply::responseTime)
    uint32_t headRoom = 0;     ///< bytes of each of the two head slots (>= headLength)
    uint32_t headSlot = 0;     ///< the slot holding the head: 0 or 1

    /// where the key starts
    static constexpr uint64_t keyOffset() { return HeaderSize; }
    /// where the reply head starts
    uint64_t headOffset() const { return HeaderSize + keyLength + uint64_t(headSlot) * headRoom; }
    /// bytes between the key and the body (both head slots)
    uint64_t slotsLength() const { return 2 * uint64_t(headRoom); }
    /// where the body starts
    uint64_t bodyOffset() const { return HeaderSize + keyLength + slotsLength(); }
    /// the size of the whole file
    uint64_t fileSize() const { return bodyOffset() + bodyLength; }
};

/// FNV-1a, 64 bits, of a then b
uint64_t Checksum(std::string_view a, std::string_view b = {});

/// the room of each head slot for a head of headLength bytes: room for the
/// head a 304 may bring (new dates, a longer Expires or Cache-Control), in
/// whole 512-byte units
uint32_t HeadRoomFor(size_t headLength);

/// the header of a file holding key, head in slot meta.headSlot of
/// meta.headRoom bytes, and meta.bodyLength bytes of body (meta's key and
/// head lengths and checksum are taken from key and head); throws when head
/// does not fit meta.headRoom or the slot is not 0 or 1
std::array<char, HeaderSize> EncodeHeader(std::string_view key, std::string_view head, const Meta& meta);

/// what header says, or nothing when it is not a valid header (magic,
/// version, its own checksum, a head within its room in slot 0 or 1)
std::optional<Meta> DecodeHeader(std::string_view header);

/// the key in front, a file's first meta.bodyOffset() bytes (or more)
inline std::string_view KeyIn(const Meta& meta, std::string_view front)
{
    return front.substr(HeaderSize, meta.keyLength);
}

/// the reply head in front, a file's first meta.bodyOffset() bytes (or more)
inline std::string_view HeadIn(const Meta& meta, std::string_view front)
{
    return front.substr(meta.headOffset(), meta.headLength);
}

/// reads exactly size bytes of file fd at offset (pread, retried on EINTR
/// and short reads); false at the end of the file or on an error
bool ReadAt(int fd, char* into, size_t size, uint64_t offset);

/// whether key and head are those meta was written with
inline bool HeadMatches(const Meta& meta, std::string_view key, std::string_view head)
{
    return key.size() == meta.keyLength && head.size() == meta.headLength &&
           Checksum(key, head) == meta.headChecksum;
}

/// whether front, a file's first bytes, holds meta.bodyOffset() bytes whose
/// key and head are those meta was written with
inline bool FrontMatches(const Meta& meta, std::string_view front)
{
    return front.size() >= meta.bodyOffset() && HeadMatches(meta, KeyIn(meta, front), HeadIn(meta, front));
}

/// What RewriteHead() did.
enum class Rewrite {
    Done,       ///< the file now holds head (and the times), its body untouched
    NoRoom,     ///< head is longer than the file's head room: the file is unchanged
    NotThisKey, ///< the file is not key's (or fails its checks): unchanged
    Failed      ///< a read or write failed (errno in error): the old or the new object stays
};

/// Replaces the reply head of the store file fd (open for reading and
/// writing) with head and its request and response times, as the file
/// comment says: head into the slot the header does not name, then the
/// header. Runs on an I/O thread.
Rewrite RewriteHead(int fd, std::string_view key, std::string_view head, int64_t requestTime,
                    int64_t responseTime, int& error);

} // namespace Disk
