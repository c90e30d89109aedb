/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file RunUntil(): the auth tests' way to wait for their helpers.

#pragma once

#include "comm/Loop.h"

#include <functional>

namespace AuthTests {

/// Runs the loop until `done` holds or 15 seconds passed; whether it holds.
inline bool RunUntil(Comm::Loop& loop, const std::function<bool()>& done)
{
    using namespace std::chrono_literals;
    const auto deadline = Comm::Clock::now() + 15s;
    while (!done() && Comm::Clock::now() < deadline)
        loop.runOnce(10ms);
    return done();
}

} // namespace AuthTests
