/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "disk/Layout.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace {

/// "PATH: reason" for the last system call's errno
std::string Failure(const std::string& path, const char* what)
{
    return path + ": " + what + ": " + std::strerror(errno);
}

/// makes path a directory unless it is one; "" or what failed
std::string MakeDirectory(const std::string& path)
{
    if (::mkdir(path.c_str(), 0750) == 0 || errno == EEXIST) {
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0)
            return Failure(path, "cannot stat it");
        if (!S_ISDIR(st.st_mode))
            return path + ": it exists and is not a directory";
        return std::string();
    }
    return Failure(path, "cannot create it");
}

} // namespace

std::string Disk::Layout::directoryOf(unsigned a, unsigned b) const
{
    char name[16];
    std::snprintf(name, sizeof(name), "/%02X/%02X", a, b);
    return root_ + name;
}

std::string Disk::Layout::pathOf(uint32_t fileNumber) const
{
    char name[16];
    std::snprintf(name, sizeof(name), "/%08X", fileNumber);
    return directoryOf((fileNumber / l2_ / l2_) % l1_, (fileNumber / l2_) % l2_) + name;
}

std::string Disk::Layout::create() const
{
    if (auto failed = MakeDirectory(root_); !failed.empty())
        return failed;
    for (unsigned a = 0; a < l1_; ++a) {
        const auto first = directoryOf(a, 0);
        if (auto failed = MakeDirectory(first.substr(0, first.size() - 3)); !failed.empty())
            return failed;
        for (unsigned b = 0; b < l2_; ++b) {
            if (auto failed = MakeDirectory(directoryOf(a, b)); !failed.empty())
                return failed;
        }
    }
    return std::string();
}

std::string Disk::Layout::check(bool writable) const
{
    const int mode = writable ? (R_OK | W_OK | X_OK) : (R_OK | X_OK);
    struct stat st {};
    if (::stat(root_.c_str(), &st) != 0)
        return Failure(root_, "cannot use it") + " (cuttle -z creates it)";
    if (!S_ISDIR(st.st_mode))
        return root_ + ": not a directory";
    if (::access(root_.c_str(), mode) != 0)
        return Failure(root_, writable ? "cannot write in it" : "cannot read it");
    // the last subdirectory is made last by create(): its presence says -z finished
    const auto last = directoryOf(l1_ - 1, l2_ - 1);
    if (::access(last.c_str(), mode) != 0)
        return Failure(last, "cannot use it") + " (cuttle -z creates the subdirectories)";
    return std::string();
}
