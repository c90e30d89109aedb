/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file A helper shared by the sbuf tests: whether pages are resident.
#pragma once

#include <cstddef>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

namespace SbufTest {

/// whether every page of [p, p + size) is resident (mincore)
inline bool isResident(char* p, size_t size)
{
    const size_t page = size_t(::sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> v((size + page - 1) / page);
    if (::mincore(p, size, v.data()) != 0)
        return false;
    for (unsigned char c : v) {
        if (!(c & 1))
            return false;
    }
    return true;
}

} // namespace SbufTest
