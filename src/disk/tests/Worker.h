/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file TestDisk::Worker: another worker's Disk::Cache on a shared shelf,
/// on a thread of its own (TestShelf, TestParts).
#pragma once

#include "comm/Loop.h"
#include "disk/Cache.h"
#include "store/tests/OwnerThread.h"

#include <functional>
#include <memory>

namespace TestDisk {

/// Another worker: its loop and its Cache on the shelf, made, used and
/// destroyed on its own thread.
class Worker {
public:
    Worker(const Config::Settings& settings, const std::shared_ptr<Disk::Shelf>& shelf)
    {
        thread_.run([&] {
            loop_ = std::make_unique<Comm::Loop>();
            cache_ = std::make_unique<Disk::Cache>(*loop_, settings, shelf);
        });
    }
    ~Worker()
    {
        thread_.run([this] {
            cache_.reset();
            loop_.reset();
        });
    }
    /// runs call(its cache) on its thread, then finishes its jobs
    void run(const std::function<void(Disk::Cache&)>& call)
    {
        thread_.run([&] {
            call(*cache_);
            cache_->drain();
        });
    }

private:
    TestStore::OwnerThread thread_;
    std::unique_ptr<Comm::Loop> loop_;
    std::unique_ptr<Disk::Cache> cache_;
};

} // namespace TestDisk
