/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file TestStore::OwnerThread: another worker's thread for the tests of a
/// shared Store::Index (TestSharedIndex, TestRevalidation).
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace TestStore {

/// Another worker's thread: runs the calls given to run(), one at a time,
/// on the same thread (so Store::Index::ThisThread() is the same for all).
class OwnerThread {
public:
    OwnerThread()
        : thread_([this] {
              std::unique_lock<std::mutex> lock(mutex_);
              for (;;) {
                  wake_.wait(lock, [this] { return bool(call_) || stop_; });
                  if (stop_)
                      return;
                  call_();
                  call_ = nullptr;
                  done_.notify_all();
              }
          })
    {}
    ~OwnerThread()
    {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        wake_.notify_all();
        thread_.join();
    }
    /// runs call on the owner's thread and waits for it
    void run(const std::function<void()>& call)
    {
        std::unique_lock<std::mutex> lock(mutex_);
        call_ = call;
        wake_.notify_all();
        done_.wait(lock, [this] { return !call_; });
    }

private:
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable done_;
    std::function<void()> call_;
    bool stop_ = false;
    std::thread thread_; ///< last: starts once the rest is made
};

} // namespace TestStore
