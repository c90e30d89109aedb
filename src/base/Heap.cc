/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "base/Heap.h"

#include <malloc.h>

// gperftools' C interface (gperftools/malloc_extension_c.h), declared weak:
// only the cuttle program links tcmalloc (configure --with-tcmalloc); in the
// unit tests, which do not, the address is null and glibc's heap is in use.
extern "C" void MallocExtension_ReleaseFreeMemory() __attribute__((weak));
extern "C" void MallocExtension_MarkThreadTemporarilyIdle() __attribute__((weak));

const char* Base::HeapAllocator()
{
    return MallocExtension_ReleaseFreeMemory ? "tcmalloc" : "glibc";
}

void Base::ReleaseFreeHeap()
{
    if (MallocExtension_ReleaseFreeMemory) {
        // the thread's cache of free objects goes back to the central lists
        // first, so that whole spans become free and can be released (a
        // gperftools older than 2.2 has no such call)
        if (MallocExtension_MarkThreadTemporarilyIdle)
            MallocExtension_MarkThreadTemporarilyIdle();
        MallocExtension_ReleaseFreeMemory();
        return;
    }
#if defined(__GLIBC__)
    (void)::malloc_trim(0);
#endif
}
