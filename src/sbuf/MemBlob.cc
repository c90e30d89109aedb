/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "sbuf/MemBlob.h"
#include "base/TextException.h"
#include "sbuf/BlockPool.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>

namespace Sbuf {

MemBlobRef MemBlob::Make(BlockPool& pool, size_t minCapacity)
{
    const size_t capacity = BlockPool::RoundUp(minCapacity);
    char* data = pool.allocate(capacity);
    try {
        return MemBlobRef(new MemBlob(&pool, data, capacity));
    } catch (...) {
        pool.release(data, capacity);
        throw;
    }
}

MemBlobRef MemBlob::MakeCopy(BlockPool& pool, std::string_view bytes)
{
    MemBlobRef blob = Make(pool, bytes.size());
    blob->append(bytes);
    return blob;
}

MemBlobRef MemBlob::MakeExact(size_t capacity, size_t trailerBytes)
{
    Must2(capacity <= BlockPool::MaxBlockSize, "an exact block of " + std::to_string(capacity) + " bytes");
    // the bytes follow the object, then the trailer (aligned: up to 3 bytes
    // of padding); operator delete frees them all at once
    const size_t trailerRoom = trailerBytes ? trailerBytes + alignof(uint32_t) - 1 : 0;
    void* memory = ::operator new(sizeof(MemBlob) + capacity + trailerRoom);
    return MemBlobRef(new (memory) MemBlob(nullptr, static_cast<char*>(memory) + sizeof(MemBlob), capacity));
}

std::byte* MemBlob::trailer() const
{
    Must(!pool_);
    const auto end = reinterpret_cast<uintptr_t>(data_ + capacity_);
    const uintptr_t aligned = (end + alignof(uint32_t) - 1) & ~uintptr_t(alignof(uint32_t) - 1);
    return reinterpret_cast<std::byte*>(aligned);
}

MemBlob::MemBlob(BlockPool* pool, char* data, size_t capacity)
    : pool_(pool), data_(data), capacity_(static_cast<uint32_t>(capacity))
{}

MemBlob::~MemBlob()
{
    if (pool_)
        pool_->release(data_, capacity_);
}

void MemBlob::commit(size_t n)
{
    Must2(n <= spaceSize(), "commit of " + std::to_string(n) + " bytes into a block with " +
                                std::to_string(spaceSize()) + " bytes of space");
    size_ += static_cast<uint32_t>(n);
}

size_t MemBlob::append(std::string_view bytes)
{
    const size_t n = std::min(bytes.size(), spaceSize());
    if (n) {
        std::memcpy(space(), bytes.data(), n);
        size_ += static_cast<uint32_t>(n);
        copiedEnd_ = size_;
    }
    return n;
}

} // namespace Sbuf
