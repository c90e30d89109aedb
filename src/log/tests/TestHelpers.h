/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Small helpers shared by the log tests: a temporary directory and file reading.
#pragma once

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace LogTest {

/// A fresh directory under /tmp, removed (with its files) at destruction.
class TempDir {
public:
    /// Creates the directory.
    TempDir()
    {
        char tmpl[] = "/tmp/cuttle-logtest-XXXXXX";
        const char* made = ::mkdtemp(tmpl);
        path_ = made ? made : "/tmp";
    }
    /// Removes the directory and everything in it.
    ~TempDir()
    {
        const std::string cmd = "rm -rf '" + path_ + "'";
        if (path_ != "/tmp" && std::system(cmd.c_str()) != 0) {
            // a leftover temp dir is harmless
        }
    }
    /// PATH/NAME.
    std::string file(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_; ///< the directory
};

/// The whole file, or "" when it cannot be read.
inline std::string readAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace LogTest
