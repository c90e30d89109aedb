/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Comm::EpollPoller: the epoll backend of the event loop (nginx keeps
/// its loop core apart from one file per backend; so do we).

#pragma once

#include "comm/Descriptor.h"

#include <cstdint>

#include <sys/epoll.h>

namespace Comm {

/// One epoll instance. Every descriptor is added once, edge-triggered, for
/// reading, writing and peer hang-up together, and never modified: a
/// stalled reader just stops reading and later tries read() directly.
class EpollPoller {
public:
    /// the interest set every descriptor gets for its whole life
    static constexpr uint32_t Interest = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;

    /// creates the epoll instance (close-on-exec); throws on failure
    EpollPoller();

    /// EPOLL_CTL_ADD of fd with Interest and the caller's cookie; throws on failure
    void add(int fd, uint64_t cookie);
    /// EPOLL_CTL_DEL of fd (ignores a descriptor the kernel already forgot)
    void remove(int fd);
    /// epoll_wait() for up to timeoutMs (-1: forever); EINTR returns 0
    int wait(epoll_event* events, int maxEvents, int timeoutMs);

    /// the number of EPOLL_CTL_ADD and EPOLL_CTL_MOD calls made so far
    uint64_t registrationCalls() const { return registrationCalls_; }
    /// the number of EPOLL_CTL_DEL calls made so far
    uint64_t removalCalls() const { return removalCalls_; }

private:
    Descriptor epoll_;               ///< the epoll instance
    uint64_t registrationCalls_ = 0; ///< ADD (and MOD, which we never make)
    uint64_t removalCalls_ = 0;      ///< DEL
};

} // namespace Comm
