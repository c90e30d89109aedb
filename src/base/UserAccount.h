/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file UserAccount: a user of the system's user database (passwd, through
/// NSS), as `cache_effective_user` names it, and the group lookups that
/// `cache_effective_group` needs.
///
/// The lookups use the reentrant getpwnam_r()/getgrnam_r()/getgrouplist(),
/// so they may run at parse time, at start-up and at reconfigure alike. They
/// only read: the privilege drop itself is Privileges' job.

#pragma once

#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

/// One user of the user database (see the file comment).
struct UserAccount {
    std::string name; ///< the login name
    uid_t uid = 0;    ///< the user id
    gid_t gid = 0;    ///< the primary group id
    std::string home; ///< the home directory (Squid sets HOME to it)

    /// The user called `name` (a name, not a number, as with Squid's
    /// getpwnam()); nullopt with the reason in `why` when there is none.
    static std::optional<UserAccount> Find(const std::string& name, std::string& why);
    /// The user whose id is `uid`; nullopt when the database has none (a
    /// container may run with an id no passwd file names).
    static std::optional<UserAccount> FindById(uid_t uid);
    /// The group called `name`, or numbered `name` when it is all digits (as
    /// Squid's cache_effective_group reads "the group (or GID)"); nullopt
    /// with the reason in `why` when there is none.
    static std::optional<gid_t> FindGroup(const std::string& name, std::string& why);

    /// The groups the user belongs to: its primary group first, then the
    /// supplementary groups the group database gives it (initgroups()' list).
    std::vector<gid_t> groups() const;
};
