/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "base/UserAccount.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

namespace {

/// a buffer size for the *_r lookups; they say ERANGE when it is too small
size_t LookupBufferSize(int which)
{
    const long size = ::sysconf(which);
    return size > 0 ? static_cast<size_t>(size) : 16384;
}

/// getpwnam_r() or getpwuid_r() through `lookup`, growing the buffer on ERANGE
template <class Lookup>
std::optional<UserAccount> LookUpUser(Lookup lookup, int& error)
{
    std::vector<char> buffer(LookupBufferSize(_SC_GETPW_R_SIZE_MAX));
    for (;;) {
        passwd entry{};
        passwd* found = nullptr;
        error = lookup(&entry, buffer.data(), buffer.size(), &found);
        if (error == ERANGE && buffer.size() < (1u << 20)) {
            buffer.resize(buffer.size() * 2);
            continue;
        }
        if (error || !found)
            return std::nullopt;
        return UserAccount{found->pw_name, found->pw_uid, found->pw_gid, found->pw_dir ? found->pw_dir : ""};
    }
}

} // namespace

std::optional<UserAccount> UserAccount::Find(const std::string& name, std::string& why)
{
    int error = 0;
    auto user =
        LookUpUser([&name](passwd* entry, char* buffer, size_t size,
                           passwd** found) { return ::getpwnam_r(name.c_str(), entry, buffer, size, found); },
                   error);
    if (!user)
        why = error ? "cannot look up user '" + name + "': " + std::strerror(error)
                    : "no such user '" + name + "' in the user database";
    return user;
}

std::optional<UserAccount> UserAccount::FindById(uid_t uid)
{
    int error = 0;
    return LookUpUser([uid](passwd* entry, char* buffer, size_t size,
                            passwd** found) { return ::getpwuid_r(uid, entry, buffer, size, found); },
                      error);
}

std::optional<gid_t> UserAccount::FindGroup(const std::string& name, std::string& why)
{
    if (!name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        errno = 0;
        const unsigned long number = std::strtoul(name.c_str(), nullptr, 10);
        if (errno || number >= static_cast<unsigned long>(static_cast<gid_t>(-1))) {
            why = "group id " + name + " is out of range";
            return std::nullopt;
        }
        return static_cast<gid_t>(number);
    }
    std::vector<char> buffer(LookupBufferSize(_SC_GETGR_R_SIZE_MAX));
    for (;;) {
        group entry{};
        group* found = nullptr;
        const int error = ::getgrnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found);
        if (error == ERANGE && buffer.size() < (1u << 20)) {
            buffer.resize(buffer.size() * 2);
            continue;
        }
        if (error || !found) {
            why = error ? "cannot look up group '" + name + "': " + std::strerror(error)
                        : "no such group '" + name + "' in the group database";
            return std::nullopt;
        }
        return found->gr_gid;
    }
}

std::vector<gid_t> UserAccount::groups() const
{
    std::vector<gid_t> result(16);
    for (;;) {
        int count = static_cast<int>(result.size());
        if (::getgrouplist(name.c_str(), gid, result.data(), &count) >= 0) {
            result.resize(static_cast<size_t>(count));
            break;
        }
        // count now says how many there are
        result.resize(std::max(static_cast<size_t>(count), result.size() * 2));
    }
    // getgrouplist() puts the primary group in the list; make it the first
    auto primary = std::find(result.begin(), result.end(), gid);
    if (primary == result.end())
        result.insert(result.begin(), gid);
    else
        std::rotate(result.begin(), primary, primary + 1);
    return result;
}
