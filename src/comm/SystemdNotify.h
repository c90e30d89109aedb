/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Comm::NotifySystemd: the sd_notify(3) protocol without libsystemd.
///
/// Under a `Type=notify` systemd unit, $NOTIFY_SOCKET names a datagram Unix
/// socket (a path, or an abstract name written with a leading '@'); the
/// service reports its state by sending lines such as "READY=1" to it.

#pragma once

#include <string_view>

namespace Comm {

/// Sends STATE (e.g. "READY=1\nSTATUS=serving") to $NOTIFY_SOCKET. Returns
/// false when the variable is unset (not run by systemd) or the send failed;
/// never blocks the event loop (the socket is non-blocking and local).
bool NotifySystemd(std::string_view state);

} // namespace Comm
