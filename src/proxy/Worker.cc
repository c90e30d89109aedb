/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "proxy/Worker.h"
#include "log/CacheLog.h"

#include <algorithm>
#include <chrono>

Proxy::Worker::Worker(unsigned number) : number_(number), proxy_(loop_), mailbox_(loop_) {}

void Proxy::Worker::startShutdown(bool immediately)
{
    if (!stopping_) {
        stopping_ = true;
        debugs(1, 1, "Preparing for shutdown after " << proxy_.connectionCount() << " open connections");
        proxy_.side().startShutdown();
    }
    const auto lifetime = proxy_.settings().shutdownLifetime;
    if (immediately || lifetime <= Comm::Milliseconds(0)) {
        proxy_.side().closeAll();
        loop_.stop();
        return;
    }
    if (shutdownTimer_.isPending())
        return;
    debugs(1, 1,
           "Waiting " << std::chrono::duration_cast<std::chrono::seconds>(lifetime).count()
                      << " seconds for active connections to finish");
    shutdownTimer_ = loop_.schedule(lifetime, [this] {
        proxy_.side().closeAll();
        loop_.stop();
    });
}

void Proxy::Worker::run()
{
    // the thread's block pool: the workers' free lists share the default cap
    // (doc/design.md "The path of a body byte", Blocks)
    const auto workers = std::max(proxy_.settings().workers, 1U);
    Sbuf::DefaultPool().setMaxFreeBytesPerClass(Sbuf::BlockPool::DefaultMaxFreeBytesPerClass / workers);
    loop_.addIterationHook([this] {
        proxy_.flushLogs();
        proxy_.sampleCounters();
        Log::cacheLog().flush();
        if (stopping_ && proxy_.connectionCount() == 0)
            loop_.stop();
    });
    loop_.run();
}

Sbuf::CopyStats Proxy::Worker::finish()
{
    shutdownTimer_.cancel();
    proxy_.side().closeAll();
    // destroys the closed connections, which log their last lines, and what
    // their destruction defers (a few rounds at most)
    for (int round = 0; round < 10 && loop_.hasDeferred(); ++round)
        loop_.runOnce(Comm::Milliseconds(0));
    proxy_.flushLogs();
    return Sbuf::DefaultPool().copyStats();
}
