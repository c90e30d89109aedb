/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "disk/Format.h"

#include <cerrno>
#include <unistd.h>

namespace {

constexpr char Magic[4] = {'C', 'T', 'L', '1'};
constexpr uint32_t Version = 1;
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

std::array<char, Disk::HeaderSize> Disk::EncodeHeader(std::string_view key, std::string_view head,
                                                      const Meta& meta)
{
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
