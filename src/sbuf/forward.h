/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Forward declarations and pointer aliases of src/sbuf (namespace Sbuf).

#pragma once

#include "base/forward.h"

namespace Sbuf {

class BlockPool;
struct PoolStats;
struct ClassStats;
struct CopyStats;
class MemBlob;
class Slice;
class SliceSequence;
class Cursor;
class Pipe;

/// a shared reference to a block
using MemBlobRef = RefCount<MemBlob>;

} // namespace Sbuf
