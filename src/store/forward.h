/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Forward declarations of the store part (namespace Store).
#pragma once

#include "base/forward.h"

namespace Store {

class Entry;
class Producer;
class Reader;
class DiskTier;
class StoredFile;
struct Reply;
struct PartFacts;

/// a shared reference to an entry (the producer and every reader hold one)
using EntryRef = RefCount<Entry>;
/// a shared reference to a disk hit's body
using StoredFileRef = RefCount<StoredFile>;

} // namespace Store
