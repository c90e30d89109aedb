/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Privileges: how cuttle stops being root once it has started.
///
/// Started as root, cuttle binds its ports, opens its logs and writes its
/// pid file, then leaves root for good (Squid's leave_suid(), without
/// Squid's saved root user id):
///
///     root, every capability          proxy (cache_effective_user)
///     ---------------------- drop --> -----------------------------------
///     Uid 0 0 0 0                      Uid 13 13 13 13   (setresuid)
///     Gid 0 0 0 0                      Gid 13 13 13 13   (setresgid, or
///                                                         cache_effective_group)
///     Groups 0                         Groups 13 ...     (setgroups)
///     CapPrm/CapEff all                CapPrm/CapEff CAP_NET_BIND_SERVICE
///     CapBnd all                       CapBnd CAP_NET_BIND_SERVICE
///     NoNewPrivs 0                     NoNewPrivs 1, dumpable 1 (core dumps)
///
/// CAP_NET_BIND_SERVICE stays so that a reconfigure can bind a new port below
/// 1024; CAP_NET_ADMIN stays too, only when the configuration cuttle starts
/// with needs it (tcp_outgoing_mark: SO_MARK), as Squid keeps it then. They
/// are in no inheritable or ambient set, so a program cuttle runs gets none. The paths cuttle created as root
/// (log files, the pid file and the directories it made for them) are given to the new user first, so that
/// `-k rotate` can rename them and shutdown can remove the pid file.
///
/// Started as any other user, cuttle stays that user, keeps at most
/// CAP_NET_BIND_SERVICE of what it was given, and says so.
///
/// Threads: glibc applies setresuid() and friends to every thread, and the
/// kernel clears the capabilities of every thread but the one that asked to
/// keep them (PR_SET_KEEPCAPS): other threads end with none at all.

#pragma once

#include "base/UserAccount.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

/// Leaving root after start-up (see the file comment).
class Privileges {
public:
    /// Who cuttle becomes: the user, its group and its supplementary groups.
    struct Target {
        UserAccount user;          ///< cache_effective_user
        gid_t gid = 0;             ///< cache_effective_group, or the user's primary group
        std::vector<gid_t> groups; ///< setgroups(): {gid} with a group set, else the user's groups
    };

    /// The capabilities kept after the drop, as bits of a /proc/PID/status
    /// mask: CAP_NET_BIND_SERVICE, and CAP_NET_ADMIN with netAdmin.
    static uint64_t KeptMask(bool netAdmin = false);
    /// What stays of the capabilities in `permitted` (a mask): at most KeptMask(netAdmin).
    static uint64_t Kept(uint64_t permitted, bool netAdmin = false) { return permitted & KeptMask(netAdmin); }
    /// A mask as /proc/PID/status prints it: 16 hexadecimal digits.
    static std::string MaskText(uint64_t mask);
    /// The names of the capabilities in `mask`, e.g. "cap_net_bind_service", "none".
    static std::string MaskNames(uint64_t mask);

    /// Resolves cache_effective_user and cache_effective_group (empty: the
    /// user's primary group and group list); nullopt with the reason in `why`
    /// for a user or group that does not exist, or a user that is root.
    static std::optional<Target> Resolve(const std::string& user, const std::string& group, std::string& why);

    /// PATH and those of its parent directories that do not exist yet,
    /// outermost first: what creating PATH (mkdir -p) would make.
    static std::vector<std::string> MissingPaths(const std::string& path);

    /// Notes, before PATH is created, which of it and its parents are new
    /// (MissingPaths()); leave() gives those that then exist to the user.
    void willCreate(const std::string& path);
    /// The paths willCreate() noted, in order.
    const std::vector<std::string>& created() const { return created_; }

    /// Started as root: gives created() to the target user, then becomes that
    /// user with only KeptMask(netAdmin) (see the file comment). Started as
    /// another user: keeps it, with at most KeptMask(netAdmin). Returns the
    /// line for cache.log; throws std::runtime_error saying what failed.
    std::string leaveRoot(const std::string& user, const std::string& group, bool netAdmin = false);

    /// The capability mask of one set of this thread ("CapPrm" or "CapEff"
    /// in /proc/self/status, read through libcap).
    static uint64_t CurrentMask(bool effective);

    /// Capabilities, their bounding set and no_new_privs belong to a thread,
    /// not to the process: leaveRoot() sets them on the thread that calls it
    /// only (the user and groups change on every thread). A thread that runs
    /// while another leaves root (a worker, doc/design.md "Workers") calls
    /// PrepareThread() before, so that it keeps its capabilities through the
    /// change of user, and FollowDrop() after, with the leaving thread's
    /// CurrentMask(false): it then holds exactly that mask, in the same
    /// bounding set, and no exec can raise it. Both throw std::runtime_error
    /// saying what failed.
    static void PrepareThread();
    static void FollowDrop(uint64_t kept);

private:
    std::string dropTo(const Target& target, uint64_t kept);
    std::string keepUser(const std::string& user, bool netAdmin);

    std::vector<std::string> created_; ///< paths to give to the user, outermost first
};
