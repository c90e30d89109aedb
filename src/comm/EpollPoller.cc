/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "comm/EpollPoller.h"
#include "base/TextException.h"

#include <cerrno>
#include <cstring>
#include <string>

Comm::EpollPoller::EpollPoller() : epoll_(::epoll_create1(EPOLL_CLOEXEC))
{
    Must2(epoll_.isOpen(), std::string("epoll_create1: ") + std::strerror(errno));
}

void Comm::EpollPoller::add(int fd, uint64_t cookie)
{
    epoll_event ev{};
    ev.events = Interest;
    ev.data.u64 = cookie;
    ++registrationCalls_;
    if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &ev) != 0)
        Throw("epoll_ctl(ADD, FD " + std::to_string(fd) + "): " + std::strerror(errno));
}

void Comm::EpollPoller::remove(int fd)
{
    ++removalCalls_;
    epoll_event ev{};                                        // Linux < 2.6.9 needed a non-null event
    (void)::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, fd, &ev); // ENOENT/EBADF: nothing left to remove
}

int Comm::EpollPoller::wait(epoll_event* events, int maxEvents, int timeoutMs)
{
    const int n = ::epoll_wait(epoll_.get(), events, maxEvents, timeoutMs);
    if (n < 0) {
        if (errno == EINTR)
            return 0;
        Throw(std::string("epoll_wait: ") + std::strerror(errno));
    }
    return n;
}
