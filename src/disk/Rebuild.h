/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Disk::ScanJob: rebuilding a cache_dir's index after a start, by
/// scanning its files on an I/O thread (doc/caching.md "The disk cache"),
/// one first-level directory a job, so requests are served meanwhile
/// (misses, as in Squid's "rebuilding" state).
///
/// For each file of DIR/L1/*/: a temporary file (N.tmp, left by a stop in
/// the middle of a write, kill -9 included) is removed; a store file whose
/// header, size, key and head check (Disk::Format) is reported with its key
/// and Location; any other file named as a store file is removed (torn).

#pragma once

#include "disk/Index.h"
#include "disk/IoPool.h"
#include "disk/Layout.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace Disk {

/// One store file found by a scan.
struct ScannedObject {
    std::string key; ///< its key
    Location where;  ///< its file and sizes
};

/// What a scan of one first-level directory found.
struct ScanResult {
    std::vector<ScannedObject> objects; ///< whole store files
    size_t removed = 0;                 ///< temporary and torn files removed
};

/// Scans one first-level directory; see the file comment.
class ScanJob final : public IoJob {
public:
    /// scans layout's first-level directory l1, then calls done with what it found (on the loop)
    ScanJob(const Layout& layout, unsigned l1, std::function<void(ScanResult&&)> done)
        : layout_(layout), l1_(l1), done_(std::move(done))
    {}
    void run() noexcept override;
    void finish() override { done_(std::move(result_)); }

private:
    void scanFile(const std::string& path, uint32_t fileNumber) noexcept;

    Layout layout_;
    unsigned l1_;
    std::function<void(ScanResult&&)> done_;
    ScanResult result_;
};

} // namespace Disk
