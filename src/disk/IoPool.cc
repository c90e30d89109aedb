/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "disk/IoPool.h"
#include "base/TextException.h"

#include <cerrno>
#include <cstring>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

Disk::IoPool::IoPool(Comm::Loop& loop, unsigned threads)
    : loop_(loop), event_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC))
{
    if (!event_.isOpen())
        Throw(std::string("cannot make the I/O threads' eventfd: ") + std::strerror(errno));
    registration_ = loop_.watch(event_.get(), *this);
    // the I/O threads take no signal: the loop's signalfd gets them all
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    for (unsigned i = 0; i < (threads ? threads : 1); ++i)
        threads_.emplace_back([this] { work(); });
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

Disk::IoPool::~IoPool()
{
    {
        std::unique_lock<std::mutex> lock(mutex_);
        idle_.wait(lock, [this] { return queue_.empty() && !running_; });
        stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_)
        t.join();
}

void Disk::IoPool::submit(std::unique_ptr<IoJob>&& job)
{
    Must(job);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        queue_.push_back(std::move(job));
    }
    ++submitted_;
    wake_.notify_one();
}

void Disk::IoPool::work()
{
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty())
            return; // stopping_, nothing left
        auto job = std::move(queue_.front());
        queue_.pop_front();
        ++running_;
        lock.unlock();
        job->run();
        lock.lock();
        --running_;
        done_.push_back(std::move(job));
        const uint64_t one = 1;
        // a full counter (2^64 - 2 writes unread) cannot happen: the loop reads it each round
        (void)!::write(event_.get(), &one, sizeof(one));
        idle_.notify_all();
    }
}

void Disk::IoPool::handleIo(const Comm::IoEvents& events)
{
    if (!events.readable)
        return;
    uint64_t count = 0;
    while (::read(event_.get(), &count, sizeof(count)) == sizeof(count)) {
        // edge-triggered: read until EAGAIN
    }
    finishDone();
}

void Disk::IoPool::finishDone()
{
    std::vector<std::unique_ptr<IoJob>> done;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        done.swap(done_);
    }
    for (auto& job : done) {
        ++finished_;
        auto finishing = std::move(job);
        finishing->finish();
    }
}

void Disk::IoPool::drain()
{
    // a finish() may submit the next job of its object: until none is left
    while (submitted_ != finished_) {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            idle_.wait(lock, [this] { return queue_.empty() && !running_; });
        }
        uint64_t count = 0;
        while (::read(event_.get(), &count, sizeof(count)) == sizeof(count)) {
        }
        finishDone();
    }
}

Disk::IoPoolStats Disk::IoPool::stats() const
{
    IoPoolStats s;
    s.threads = threads_.size();
    s.submitted = submitted_;
    s.finished = finished_;
    s.pending = submitted_ - finished_;
    return s;
}
