/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "comm/SignalSource.h"
#include "base/TextException.h"

#include <cerrno>
#include <cstring>
#include <string>

#include <sys/signalfd.h>
#include <unistd.h>

Comm::SignalSource::SignalSource(Loop& loop, std::initializer_list<int> signals, Callback onSignal)
    : onSignal_(std::move(onSignal))
{
    sigset_t mask;
    sigemptyset(&mask);
    for (const int s : signals)
        sigaddset(&mask, s);
    Must2(::sigprocmask(SIG_BLOCK, &mask, &previousMask_) == 0,
          std::string("sigprocmask: ") + std::strerror(errno));
    fd_.reset(::signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC));
    if (!fd_.isOpen()) {
        const int err = errno;
        ::sigprocmask(SIG_SETMASK, &previousMask_, nullptr);
        Throw(std::string("signalfd: ") + std::strerror(err));
    }
    registration_ = loop.watch(fd_.get(), *this);
}

Comm::SignalSource::~SignalSource()
{
    registration_.cancel();
    fd_.reset();
    ::sigprocmask(SIG_SETMASK, &previousMask_, nullptr);
}

void Comm::SignalSource::handleIo(const IoEvents&)
{
    for (;;) {
        signalfd_siginfo info;
        const ssize_t n = ::read(fd_.get(), &info, sizeof(info));
        if (n != static_cast<ssize_t>(sizeof(info))) {
            if (n < 0 && errno == EINTR)
                continue;
            return; // EAGAIN: drained
        }
        onSignal_(static_cast<int>(info.ssi_signo));
    }
}
