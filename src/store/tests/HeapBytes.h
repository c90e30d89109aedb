/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Test helper: the heap bytes in use, for the tests that hold an
/// index's memory per object to its budget (store's and disk's TestIndex).
#pragma once

#include <cstddef>

// AddressSanitizer and ThreadSanitizer bring their own allocator, which
// glibc's mallinfo2() does not see
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CUTTLE_TEST_SANITIZER_HEAP 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CUTTLE_TEST_SANITIZER_HEAP 1
#endif

#if defined(CUTTLE_TEST_SANITIZER_HEAP)
// from <sanitizer/allocator_interface.h>, which not every compiler installs
extern "C" size_t __sanitizer_get_current_allocated_bytes(void);
#else
#include <malloc.h>
#endif

namespace TestStore {

/// bytes malloc has handed out and not taken back (chunk sizes with glibc,
/// requested sizes under ASan and TSan)
inline size_t HeapBytesInUse()
{
#if defined(CUTTLE_TEST_SANITIZER_HEAP)
    return __sanitizer_get_current_allocated_bytes();
#else
    const struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
#endif
}

} // namespace TestStore
