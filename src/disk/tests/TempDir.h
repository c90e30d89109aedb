/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file TestDisk::TempDir: a cache_dir in a fresh temporary directory for
/// the disk store's tests (TestWriter, TestShelf).
#pragma once

#include "config/Settings.h"
#include "disk/Layout.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cstdlib>
#include <string>

namespace TestDisk {

/// a cache_dir (ufs, 64 MB, 2 x 2 directories) made in a fresh temporary
/// directory, removed at the end; settings hold it as squid.conf line 1
class TempDir {
public:
    TempDir()
    {
        char name[] = "/tmp/cuttle-disk-test.XXXXXX";
        CPPUNIT_ASSERT(::mkdtemp(name));
        path = name;
        dir.type = "ufs";
        dir.path = path + "/cache";
        dir.maxBytes = 64 << 20;
        dir.l1 = 2;
        dir.l2 = 2;
        dir.origin = "squid.conf:1";
        CPPUNIT_ASSERT_EQUAL(std::string(), Disk::Layout(dir).create());
        settings.cacheDirs.push_back(dir);
        settings.maximumObjectSize = 32 << 20;
    }
    ~TempDir() { (void)!std::system(("rm -rf '" + path + "'").c_str()); }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    std::string path;          ///< the temporary directory
    Config::CacheDir dir;      ///< the cache_dir line
    Config::Settings settings; ///< a configuration with that line
};

} // namespace TestDisk
