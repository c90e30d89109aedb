/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "Server.h"

#include <sys/socket.h>

bool Origin::Server::threadStarting()
{
    const std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_)
        return false;
    ++threads_;
    return true;
}

void Origin::Server::threadFinished()
{
    const std::lock_guard<std::mutex> lock(mutex_);
    --threads_;
    finished_.notify_all();
}

bool Origin::Server::attach(uint64_t id, int fd)
{
    const std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_)
        return false;
    sockets_[id] = fd;
    return true;
}

void Origin::Server::detach(uint64_t id)
{
    // under the lock, so that stop() never shuts down a descriptor number
    // that was closed and reused
    const std::lock_guard<std::mutex> lock(mutex_);
    sockets_.erase(id);
}

void Origin::Server::stop()
{
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    for (const auto& [id, fd] : sockets_)
        ::shutdown(fd, SHUT_RDWR);
    stopped_.notify_all();
}

bool Origin::Server::sleepFor(std::chrono::microseconds duration)
{
    std::unique_lock<std::mutex> lock(mutex_);
    return !stopped_.wait_for(lock, duration, [this] { return stopping_.load(); });
}

bool Origin::Server::waitIdle(std::chrono::milliseconds limit)
{
    std::unique_lock<std::mutex> lock(mutex_);
    return finished_.wait_for(lock, limit, [this] { return threads_ == 0; });
}
