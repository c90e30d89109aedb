/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "comm/Descriptor.h"

#include <unistd.h>

Comm::Descriptor& Comm::Descriptor::operator=(Descriptor&& other) noexcept
{
    if (this != &other)
        reset(other.release());
    return *this;
}

void Comm::Descriptor::reset(int fd) noexcept
{
    if (fd_ >= 0 && fd_ != fd)
        (void)::close(fd_); // EINTR on Linux still closes the descriptor: never retry
    fd_ = fd;
}
