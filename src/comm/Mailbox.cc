/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "comm/Mailbox.h"
#include "base/TextException.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include <sys/eventfd.h>
#include <unistd.h>

Comm::Mailbox::Mailbox(Loop& loop) : loop_(loop)
{
    fd_.reset(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
    if (!fd_.isOpen())
        Throw(std::string("eventfd: ") + std::strerror(errno));
    registration_ = loop_.watch(fd_.get(), *this);
}

Comm::Mailbox::~Mailbox() = default;

void Comm::Mailbox::post(std::function<void()> fn)
{
    bool wasEmpty;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        wasEmpty = queue_.empty();
        queue_.push_back(std::move(fn));
    }
    if (!wasEmpty)
        return; // the loop has been woken for the queue already and has not taken it yet
    const uint64_t one = 1;
    while (::write(fd_.get(), &one, sizeof(one)) < 0 && errno == EINTR) {
    }
}

void Comm::Mailbox::handleIo(const IoEvents&)
{
    // an eventfd's read takes its whole count: one read drains it
    uint64_t count = 0;
    while (::read(fd_.get(), &count, sizeof(count)) < 0 && errno == EINTR) {
    }
    std::vector<std::function<void()>> calls;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        calls.swap(queue_);
    }
    for (auto& call : calls)
        loop_.guard(nullptr, call);
}
