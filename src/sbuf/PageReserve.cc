/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "sbuf/PageReserve.h"

#include <algorithm>
#include <csignal>
#include <system_error>

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>

namespace Sbuf {

PageReserve::PageReserve(size_t bytes, size_t room, unsigned quietMilliseconds)
    : chunks_(bytes > ChunkSize ? (bytes + ChunkSize - 1) / ChunkSize : 1),
      quietMilliseconds_(quietMilliseconds), roomChunks_(room / ChunkSize)
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

void PageReserve::start()
{
    if (helper_.joinable())
        return;
    // the thread inherits the mask in force when it is made: block every
    // signal for it, so that signals stay with the loop's signalfd
    sigset_t all, old;
    sigfillset(&all);
    (void)::pthread_sigmask(SIG_SETMASK, &all, &old);
    try {
        helper_ = std::thread([this] { run(); });
    } catch (const std::system_error&) {
        // no thread to be had (RLIMIT_NPROC, say): nothing is ever ready, and
        // the pool maps its own blocks, as with no reserve at all
    }
    (void)::pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

char* PageReserve::take()
{
    char* chunk = nullptr;
    {
        // the helper holds the lock only for a moment, but it runs at
        // SCHED_IDLE and may be preempted holding it: never wait for it
        std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
        if (!lock.owns_lock())
            return nullptr;
        lastTake_ = Clock::now();
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

void PageReserve::setRoom(size_t bytes)
{
    const size_t chunks = bytes / ChunkSize;
    if (roomChunks_.exchange(chunks) == chunks)
        return;
    // notified under the lock, the helper cannot miss the change between
    // its check and its wait; without it, it sees it when it next wakes
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    if (lock.owns_lock())
        wake_.notify_one();
}

PageReserve::Stats PageReserve::stats()
{
    std::lock_guard<std::mutex> lock(mutex_);
    Stats s = stats_;
    s.readyBytes = ready_.size() * ChunkSize;
    return s;
}

void PageReserve::run()
{
    // only CPU that no other thread wants: the pages are for later
    sched_param idle{};
    (void)::pthread_setschedparam(::pthread_self(), SCHED_IDLE, &idle);
    const auto quiet = std::chrono::milliseconds(quietMilliseconds_);
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
        const auto quietAt = lastTake_ + quiet;
        if (Clock::now() < quietAt) {
            // the loop is taking chunks (a large object is arriving): making
            // pages now would race it and its peers for the CPU
            wake_.wait_until(lock, quietAt, [this] { return stopping_; });
            continue;
        }
        const size_t room = roomChunks_.load();
        const size_t wanted = std::min(chunks_, room);
        if (ready_.size() > wanted) {
            char* chunk = ready_.back();
            ready_.pop_back();
            ++stats_.chunksDropped;
            // unmap without the lock too: take() must find it free
            lock.unlock();
            (void)::munmap(chunk, ChunkSize);
            lock.lock();
            continue;
        }
        if (ready_.size() < wanted) {
            // populate without the lock: take() must find it free
            lock.unlock();
            void* p = ::mmap(nullptr, ChunkSize, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
            lock.lock();
            if (p == MAP_FAILED) {
                // out of memory for now: the pool maps its own blocks and
                // reports the failure; try again after the next take()
                const auto before = lastTake_;
                wake_.wait(lock, [&] { return stopping_ || lastTake_ != before; });
                continue;
            }
            ready_.push_back(static_cast<char*>(p));
            ++stats_.chunksMade;
            continue;
        }
        // full: sleep until a take() or a new room
        const auto before = lastTake_;
        wake_.wait(lock, [&] { return stopping_ || lastTake_ != before || roomChunks_.load() != room; });
    }
}

} // namespace Sbuf
