/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "disk/Format.h"
#include "base/TextException.h"

#include <cerrno>
#include <unistd.h>

namespace {

constexpr char Magic[4] = {'C', 'T', 'L', '2'};
constexpr uint32_t Version = 2;
constexpr size_t ChecksumAt = 56; ///< where the header's own checksum starts

void Put(char* at, uint64_t value, size_t bytes)
{
    for (size_t i = 0; i < bytes; ++i)
        at[i] = static_cast<char>(value >> (8 * i));
}

uint64_t Get(const char* at, size_t bytes)
{
    uint64_t value = 0;
    for (size_t i = 0; i < bytes; ++i)
        value |= uint64_t(static_cast<unsigned char>(at[i])) << (8 * i);
    return value;
}

} // namespace

uint64_t Disk::Checksum(std::string_view a, std::string_view b)
{
    uint64_t hash = 0xcbf29ce484222325ULL;
    for (const auto part : {a, b}) {
        for (const char c : part) {
            hash ^= static_cast<unsigned char>(c);
            hash *= 0x100000001b3ULL;
        }
    }
    return hash;
}

uint32_t Disk::HeadRoomFor(size_t headLength)
{
    // a 304 replaces Date, Expires, Cache-Control, ETag...: 256 bytes more
    // than the first head covers the usual growth
    return static_cast<uint32_t>((headLength + 256 + 511) & ~size_t(511));
}

std::array<char, Disk::HeaderSize> Disk::EncodeHeader(std::string_view key, std::string_view head,
                                                      const Meta& meta)
{
    Must(head.size() <= meta.headRoom && meta.headSlot <= 1);
    std::array<char, HeaderSize> h{};
    for (size_t i = 0; i < sizeof(Magic); ++i)
        h[i] = Magic[i];
    Put(&h[4], Version, 4);
    Put(&h[8], key.size(), 4);
    Put(&h[12], head.size(), 4);
    Put(&h[16], meta.bodyLength, 8);
    Put(&h[24], Checksum(key, head), 8);
    Put(&h[32], uint64_t(meta.requestTime), 8);
    Put(&h[40], uint64_t(meta.responseTime), 8);
    Put(&h[48], meta.headRoom, 4);
    Put(&h[52], meta.headSlot, 4);
    Put(&h[ChecksumAt], Checksum(std::string_view(h.data(), ChecksumAt)), 8);
    return h;
}

std::optional<Disk::Meta> Disk::DecodeHeader(std::string_view header)
{
    if (header.size() < HeaderSize ||
        header.substr(0, sizeof(Magic)) != std::string_view(Magic, sizeof(Magic)))
        return std::nullopt;
    const char* h = header.data();
    if (Get(h + 4, 4) != Version || Get(h + ChecksumAt, 8) != Checksum(header.substr(0, ChecksumAt)))
        return std::nullopt;
    Meta meta;
    meta.keyLength = static_cast<uint32_t>(Get(h + 8, 4));
    meta.headLength = static_cast<uint32_t>(Get(h + 12, 4));
    meta.bodyLength = Get(h + 16, 8);
    meta.headChecksum = Get(h + 24, 8);
    meta.requestTime = int64_t(Get(h + 32, 8));
    meta.responseTime = int64_t(Get(h + 40, 8));
    meta.headRoom = static_cast<uint32_t>(Get(h + 48, 4));
    meta.headSlot = static_cast<uint32_t>(Get(h + 52, 4));
    if (meta.headLength > meta.headRoom || meta.headSlot > 1)
        return std::nullopt;
    return meta;
}

bool Disk::ReadAt(int fd, char* into, size_t size, uint64_t offset)
{
    while (size) {
        const ssize_t n = ::pread(fd, into, size, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        into += n;
        size -= n;
        offset += n;
    }
    return true;
}

namespace {

/// writes all of data at offset (pwrite, retried on EINTR and short writes); false on an error
bool WriteAt(int fd, std::string_view data, uint64_t offset)
{
    while (!data.empty()) {
        const ssize_t n = ::pwrite(fd, data.data(), data.size(), static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data.remove_prefix(n);
        offset += n;
    }
    return true;
}

} // namespace

Disk::Rewrite Disk::RewriteHead(int fd, std::string_view key, std::string_view head, int64_t requestTime,
                                int64_t responseTime, int& error)
{
    char header[HeaderSize];
    if (!ReadAt(fd, header, sizeof(header), 0)) {
        error = errno ? errno : EIO;
        return Rewrite::Failed;
    }
    const auto meta = DecodeHeader(std::string_view(header, sizeof(header)));
    if (!meta || meta->keyLength != key.size())
        return Rewrite::NotThisKey;
    std::string front(meta->bodyOffset(), '\0');
    if (!ReadAt(fd, front.data(), front.size(), 0)) {
        error = errno ? errno : EIO;
        return Rewrite::Failed;
    }
    if (!FrontMatches(*meta, front) || KeyIn(*meta, front) != key)
        return Rewrite::NotThisKey;
    if (head.size() > meta->headRoom)
        return Rewrite::NoRoom;
    Meta next = *meta;
    next.headSlot = 1 - meta->headSlot;
    next.requestTime = requestTime;
    next.responseTime = responseTime;
    // the free slot first; then the header, one write inside the first page,
    // which names it: until then the old header names the old, intact head
    const auto newHeader = EncodeHeader(key, head, next);
    if (!WriteAt(fd, head, next.headOffset()) ||
        !WriteAt(fd, std::string_view(newHeader.data(), newHeader.size()), 0)) {
        error = errno ? errno : EIO;
        return Rewrite::Failed;
    }
    return Rewrite::Done;
}
