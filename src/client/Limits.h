/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The decisions behind Client::Connection's limits on a transaction
/// (src/client/Limits.cc): pure functions of the facts, unit-tested apart.

#pragma once

#include "store/Entry.h"

#include <cstdint>

namespace Client {

/// Whether a reply's body is known, before anything is sent, to exceed
/// reply_body_max_size `limit` (-1: no limit), as Squid 5.7's
/// HttpReply::expectedBodyTooLarge(): by its Content-Length, or by the body
/// of an `entry` already complete (a hit of a reply that had none). A
/// reply sent without a body (`noBody`: to HEAD, a 304 made from the stored
/// object) and a 1xx, 204 or 304 never are.
bool ExpectedBodyIsTooBig(int64_t limit, const Store::Reply& reply, const Store::Entry& entry, bool noBody);

} // namespace Client
