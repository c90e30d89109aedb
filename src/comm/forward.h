/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Forward declarations of the comm part (the event loop).

#pragma once

namespace Comm {
class Address;
class Descriptor;
class EpollPoller;
class IoHandler;
class Listener;
class Loop;
class Registration;
class SignalSource;
class Timer;
struct IoEvents;
} // namespace Comm
