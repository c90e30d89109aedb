/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "sbuf/Pipe.h"

#include <algorithm>
#include <cerrno>

#include <fcntl.h>
#include <unistd.h>

namespace {

/// smaller sizes tried when BulkSize is refused (EPERM once the user is over
/// pipe-user-pages-soft, EINVAL over pipe-max-size)
constexpr int FallbackSizes[] = {256 * 1024};

/// a pipe end's operations never block; SPLICE_F_MOVE asks for pages to be
/// moved rather than copied where the kernel can
constexpr unsigned SpliceFlags = SPLICE_F_MOVE | SPLICE_F_NONBLOCK;

} // namespace

std::unique_ptr<Sbuf::Pipe> Sbuf::Pipe::Make()
{
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
        return nullptr;
    return std::unique_ptr<Pipe>(new Pipe(fds[0], fds[1]));
}

Sbuf::Pipe::Pipe(int readEnd, int writeEnd) : readEnd_(readEnd), writeEnd_(writeEnd)
{
    const int size = ::fcntl(readEnd_, F_GETPIPE_SZ);
    capacity_ = size > 0 ? size_t(size) : 4096;
}

Sbuf::Pipe::~Pipe()
{
    ::close(readEnd_);
    ::close(writeEnd_);
}

void Sbuf::Pipe::grow()
{
    grown_ = true;
    if (capacity_ >= BulkSize)
        return;
    int size = ::fcntl(writeEnd_, F_SETPIPE_SZ, int(BulkSize));
    for (const int smaller : FallbackSizes) {
        if (size > 0 || size_t(smaller) <= capacity_)
            break;
        size = ::fcntl(writeEnd_, F_SETPIPE_SZ, smaller);
    }
    if (size > 0)
        capacity_ = size_t(size);
}

ssize_t Sbuf::Pipe::fillFrom(int fd, size_t max)
{
    const ssize_t n = ::splice(fd, nullptr, writeEnd_, nullptr, max, SpliceFlags);
    if (n > 0)
        held_ += size_t(n);
    return n;
}

ssize_t Sbuf::Pipe::drainTo(int fd, size_t max)
{
    const ssize_t n = ::splice(readEnd_, nullptr, fd, nullptr, std::min(max, held_), SpliceFlags);
    if (n > 0)
        held_ -= size_t(n);
    return n;
}
