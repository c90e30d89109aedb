/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Comm::SignalSource: POSIX signals delivered as loop events (signalfd).

#pragma once

#include "comm/Descriptor.h"
#include "comm/Loop.h"

#include <csignal>
#include <functional>
#include <initializer_list>

namespace Comm {

/// Blocks the given signals in the calling thread and delivers them through a
/// signalfd watched by the loop, so a signal handler is ordinary loop code
/// (no async-signal-safety rules). The destructor closes the signalfd and
/// restores the previous signal mask. Create it after any fork().
class SignalSource : public IoHandler {
public:
    /// receives one delivered signal number
    using Callback = std::function<void(int signo)>;

    /// starts delivering `signals` to onSignal; throws on failure
    SignalSource(Loop& loop, std::initializer_list<int> signals, Callback onSignal);
    ~SignalSource() override;

    /* IoHandler API */
    void handleIo(const IoEvents& events) override;

private:
    sigset_t previousMask_;     ///< restored by the destructor
    Descriptor fd_;             ///< the signalfd
    Registration registration_; ///< after fd_: cancelled first
    Callback onSignal_;
};

} // namespace Comm
