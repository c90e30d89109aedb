/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "log/AccessRecord.h"

void Log::AccessRecord::finish(const timeval& now)
{
    end = now;
    const int64_t us =
        (static_cast<int64_t>(now.tv_sec) - start.tv_sec) * 1000000 + (now.tv_usec - start.tv_usec);
    responseTimeUs = us > 0 ? us : 0;
    responseTimeMs = responseTimeUs / 1000;
}

timeval Log::AccessRecord::logTime() const
{
    if (end.tv_sec != 0 || end.tv_usec != 0)
        return end;
    timeval t = start;
    const int64_t us = static_cast<int64_t>(t.tv_usec) + (responseTimeMs > 0 ? responseTimeMs : 0) * 1000;
    t.tv_sec += static_cast<time_t>(us / 1000000);
    t.tv_usec = static_cast<suseconds_t>(us % 1000000);
    return t;
}
