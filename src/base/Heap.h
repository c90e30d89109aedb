/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Base::HeapAllocator() and Base::ReleaseFreeHeap(): which memory
/// allocator the program runs on (glibc's, or gperftools' tcmalloc when
/// configure linked it: doc/tuning.md "The memory allocator"), and handing
/// its free pages back to the kernel after a burst.

#pragma once

namespace Base {

/// "tcmalloc" when the running program links tcmalloc, else "glibc"
const char* HeapAllocator();

/// Gives the allocator's free pages back to the kernel: malloc_trim() on
/// glibc, MallocExtension_ReleaseFreeMemory() on tcmalloc (which otherwise
/// keeps what was freed for reuse). Walks the heap: call it rarely
/// (Client::Side::giveBackMemory()).
void ReleaseFreeHeap();

} // namespace Base
