/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Forward declarations of the Log namespace (cache.log and access.log).
#pragma once

namespace Log {

class AccessLog;
class CacheLog;
class DebugOptions;
class File;
struct AccessRecord;

} // namespace Log
