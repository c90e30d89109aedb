/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "sbuf/PageReserve.h"

#include <chrono>
#include <csignal>
#include <system_error>

#include <pthread.h>
#include <sys/mman.h>

namespace Sbuf {

PageReserve::PageReserve(size_t bytes, unsigned idleMilliseconds)
    : chunks_(bytes > ChunkSize ? (bytes + ChunkSize - 1) / ChunkSize : 1),
      idleMilliseconds_(idleMilliseconds)
{}

PageReserve::~PageReserve()
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_one();
    if (helper_.joinable())
        helper_.join();
    for (char* chunk : ready_)
        (void)::munmap(chunk, ChunkSize);
    stats_.chunksDropped += ready_.size();
    ready_.clear();
}

char* PageReserve::take()
{
    if (!helper_.joinable()) {
        if (helperFailed_)
            return nullptr;
        try {
            startHelper();
        } catch (const std::system_error&) {
            // no thread to be had (RLIMIT_NPROC, say): the pool maps its own
            // blocks, as with no reserve at all
            helperFailed_ = true;
            return nullptr;
        }
    }
    char* chunk = nullptr;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        demanded_ = true;
        if (!ready_.empty()) {
            chunk = ready_.back();
            ready_.pop_back();
            ++stats_.chunksTaken;
        } else {
            ++stats_.takesMissed;
        }
    }
    wake_.notify_one();
    return chunk;
}

PageReserve::Stats PageReserve::stats()
{
    std::lock_guard<std::mutex> lock(mutex_);
    Stats s = stats_;
    s.readyBytes = ready_.size() * ChunkSize;
    return s;
}

void PageReserve::startHelper()
{
    // the thread inherits the mask in force when it is made: block every
    // signal for it, so that signals stay with the loop's signalfd
    sigset_t all, old;
    sigfillset(&all);
    (void)::pthread_sigmask(SIG_SETMASK, &all, &old);
    try {
        helper_ = std::thread([this] { run(); });
    } catch (...) {
        (void)::pthread_sigmask(SIG_SETMASK, &old, nullptr);
        throw;
    }
    (void)::pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void PageReserve::run()
{
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
        if (ready_.size() < chunks_ && demanded_) {
            // populate without the lock: take() must never wait for a mapping
            lock.unlock();
            void* p = ::mmap(nullptr, ChunkSize, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
            lock.lock();
            if (p == MAP_FAILED) {
                // out of memory for now: the pool maps its own blocks and
                // reports the failure; try again at the next take()
                demanded_ = false;
                continue;
            }
            ready_.push_back(static_cast<char*>(p));
            ++stats_.chunksMade;
            continue;
        }
        demanded_ = false;
        if (ready_.empty()) {
            // nothing to give back: sleep until the next take()
            wake_.wait(lock, [this] { return stopping_ || demanded_; });
            continue;
        }
        const bool woken = wake_.wait_for(lock, std::chrono::milliseconds(idleMilliseconds_),
                                          [this] { return stopping_ || demanded_; });
        if (!woken) {
            // idle: give the memory back, as the pool does with free blocks
            for (char* chunk : ready_)
                (void)::munmap(chunk, ChunkSize);
            stats_.chunksDropped += ready_.size();
            ready_.clear();
        }
    }
}

} // namespace Sbuf
