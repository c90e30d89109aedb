/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Disk::Layout: where a cache_dir keeps its files, as Squid's ufs
/// does: file number N lives in DIR/L1/L2/NNNNNNNN (upper-case hex), with
///
///     L1 = (N / l2 / l2) % l1        L2 = (N / l2) % l2
///
/// so consecutive numbers fill one second-level directory before the next.
/// An object being written is DIR/L1/L2/NNNNNNNN.tmp until it is complete
/// (doc/caching.md "The disk cache"). Every cache_dir type uses it.

#pragma once

#include "config/Settings.h"

#include <cstdint>
#include <string>

namespace Disk {

/// The paths of one cache_dir's files.
class Layout {
public:
    /// the layout of a cache_dir line
    explicit Layout(const Config::CacheDir& dir) : root_(dir.path), l1_(dir.l1), l2_(dir.l2) {}

    /// the file of the complete object number fileNumber
    std::string pathOf(uint32_t fileNumber) const;
    /// the file of object fileNumber while it is being written
    std::string tempPathOf(uint32_t fileNumber) const { return pathOf(fileNumber) + ".tmp"; }
    /// DIR/L1/L2 of directory numbers a and b
    std::string directoryOf(unsigned a, unsigned b) const;
    /// the cache_dir's directory
    const std::string& root() const { return root_; }
    /// first-level directories
    unsigned l1() const { return l1_; }
    /// second-level directories per first-level one
    unsigned l2() const { return l2_; }

    /// Squid's -z: makes the directory (its parent must exist) and every
    /// L1/L2 subdirectory that is missing; returns "" or what failed, naming
    /// the path
    std::string create() const;
    /// what makes the cache_dir unusable at start-up ("" when it is usable):
    /// a missing or unwritable directory or subdirectory, naming it
    std::string check(bool writable) const;

private:
    std::string root_; ///< the cache_dir's directory
    unsigned l1_;      ///< first-level directories
    unsigned l2_;      ///< second-level directories per first-level one
};

} // namespace Disk
