/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Squid's store.log lines (`cache_store_log`) and the key digest that
/// stands for Squid's MD5 store key in them and on the manager's objects page.
///
/// A line, as Squid 5.7's storeLog() prints it (memory objects: directory -1,
/// file FFFFFFFF; a disk object's SWAPOUT: "00 0000002A"):
///
///     1795759303.184 RELEASE -1 FFFFFFFF 82F4CFC6A057F6327293A2F9E81D8250  200 1795759303 1795758922 -1
///     text/markdown 70071/70071 GET http://example.com/doc time.ms        action  dir file    key status
///     date     last-modified expires type  expected/received method URL
///
/// Date, Last-Modified and Expires are -1 when the reply lacks them, the
/// type "unknown" without Content-Type, the expected length -1 without
/// Content-Length; an entry without a reply head prints "?" for each of
/// those, as Squid does for an entry without its memory object.

#pragma once

#include "store/Key.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <sys/time.h>

namespace Store {

class Entry;

/// 32 upper-case hex digits of a cache key's HashKey(), where Squid prints
/// its MD5 key
std::string KeyDigest(const KeyHash& hash);
/// KeyDigest() of HashKey(key)
std::string KeyDigest(std::string_view key);

/// The store.log line (with its newline) of `action` (Squid's RELEASE,
/// SWAPOUT...) on entry, known by the digest of its key, requested with
/// method for url, at `now`; a disk object's line names its cache_dir (its
/// place in squid.conf) and file number, a memory object's -1 and FFFFFFFF
std::string StoreLogLine(const timeval& now, std::string_view action, std::string_view keyDigest,
                         const Entry& entry, std::string_view method, std::string_view url, int dir = -1,
                         uint32_t fileNumber = 0xFFFFFFFFu);

} // namespace Store
