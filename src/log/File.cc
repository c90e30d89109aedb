/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "log/File.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace {

/// mkdir -p of every parent of PATH (mode 0755); errors surface at open().
void makeParents(const std::string& path)
{
    for (size_t pos = path.find('/', 1); pos != std::string::npos; pos = path.find('/', pos + 1)) {
        const std::string dir = path.substr(0, pos);
        if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
            return;
    }
}

std::string errorText(const std::string& what, const std::string& path, int err)
{
    return what + " " + path + ": " + std::strerror(err);
}

} // namespace

Log::File::~File()
{
    close();
}

bool Log::File::openFd()
{
    makeParents(path_);
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    return fd_ >= 0;
}

void Log::File::open(const std::string& path)
{
    close();
    path_ = path;
    if (!openFd()) {
        const int err = errno;
        throw std::system_error(err, std::generic_category(), "cannot open log file " + path);
    }
    lastError_.clear();
    errorReported_ = false;
}

bool Log::File::reopen()
{
    if (path_.empty())
        return false;
    flush();
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
    if (!openFd()) {
        lastError_ = errorText("cannot reopen", path_, errno);
        errorReported_ = false;
        return false;
    }
    lastError_.clear();
    errorReported_ = false;
    return true;
}

bool Log::File::rotate(int count)
{
    if (path_.empty())
        return false;
    flush();
    if (count > 0) {
        // Squid's logfileRotate(): PATH.(n-2) -> PATH.(n-1), ..., PATH -> PATH.0
        for (int i = count - 1; i > 0; --i) {
            const std::string from = path_ + "." + std::to_string(i - 1);
            const std::string to = path_ + "." + std::to_string(i);
            ::rename(from.c_str(), to.c_str()); // a missing older copy is normal
        }
        const std::string first = path_ + ".0";
        ::rename(path_.c_str(), first.c_str());
    }
    return reopen();
}

void Log::File::close()
{
    flush();
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
    buffer_.clear();
    path_.clear();
}

void Log::File::append(std::string_view bytes)
{
    if (buffer_.size() + bytes.size() > bufferLimit_)
        flush();
    buffer_.append(bytes);
}

bool Log::File::flush()
{
    if (buffer_.empty())
        return true;
    if (fd_ < 0) {
        buffer_.clear(); // nowhere to write: bounded memory beats keeping lines
        return lastError_.empty();
    }
    size_t done = 0;
    while (done < buffer_.size()) {
        const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
        if (n > 0) {
            done += static_cast<size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        const int err = n < 0 ? errno : ENOSPC;
        if (lastError_.empty()) {
            lastError_ = errorText("cannot write", path_, err);
            errorReported_ = false;
        }
        buffer_.clear();
        return false;
    }
    buffer_.clear();
    lastError_.clear();
    errorReported_ = false;
    return true;
}

bool Log::File::takeErrorReport()
{
    if (lastError_.empty() || errorReported_)
        return false;
    errorReported_ = true;
    return true;
}
