/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file TempDir: a scratch directory for tests that read files, removed at the end.

#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

/// A fresh directory under $TMPDIR (or /tmp) that is deleted with its content.
class TempDir {
public:
    TempDir()
    {
        const char* base = std::getenv("TMPDIR");
        std::string pattern = std::string(base && *base ? base : "/tmp") + "/cuttle-config-XXXXXX";
        if (!mkdtemp(pattern.data()))
            throw std::runtime_error("mkdtemp failed");
        path_ = pattern;
    }
    ~TempDir()
    {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    /// The directory's absolute path.
    const std::string& path() const { return path_; }

    /// Writes `text` to the relative `name` (creating directories); returns its absolute path.
    std::string write(const std::string& name, const std::string& text) const
    {
        const std::filesystem::path p = std::filesystem::path(path_) / name;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p) << text;
        return p.string();
    }

private:
    std::string path_;
};
