/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "base/Privileges.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <grp.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

/// throws std::runtime_error "WHAT: strerror(errno)"
[[noreturn]] void ThrowErrno(const std::string& what)
{
    throw std::runtime_error(what + ": " + std::strerror(errno));
}

/// the capabilities this kernel and libcap know, as bit numbers
int CapabilityCount()
{
    const int count = static_cast<int>(::cap_max_bits());
    return count > 0 && count <= 64 ? count : CAP_LAST_CAP + 1;
}

/// Makes `mask` this thread's permitted and effective sets, with nothing
/// inheritable and no ambient capability.
void SetCapabilities(uint64_t mask)
{
    cap_t caps = ::cap_init(); // all three sets empty
    if (!caps)
        ThrowErrno("cap_init");
    for (int cap = 0; cap < CapabilityCount(); ++cap) {
        if (!(mask & (uint64_t(1) << cap)))
            continue;
        cap_value_t value = cap;
        if (::cap_set_flag(caps, CAP_PERMITTED, 1, &value, CAP_SET) != 0 ||
            ::cap_set_flag(caps, CAP_EFFECTIVE, 1, &value, CAP_SET) != 0) {
            ::cap_free(caps);
            ThrowErrno("cap_set_flag");
        }
    }
    const int rc = ::cap_set_proc(caps);
    const int error = errno;
    ::cap_free(caps);
    errno = error;
    if (rc != 0)
        ThrowErrno("cap_set_proc(" + Privileges::MaskNames(mask) + ")");
    // the ambient set can only shrink here; an empty one is the rule
    if (CAP_AMBIENT_SUPPORTED() && ::cap_reset_ambient() != 0)
        ThrowErrno("cap_reset_ambient");
}

/// Drops every capability but those in `kept` from this thread's bounding
/// set (needs CAP_SETPCAP in its effective set)
void DropBoundingSetBut(uint64_t kept)
{
    for (int cap = 0; cap < CapabilityCount(); ++cap) {
        const cap_value_t value = cap;
        if ((kept & (uint64_t(1) << cap)) || ::cap_get_bound(value) != 1)
            continue;
        if (::cap_drop_bound(value) != 0)
            ThrowErrno("cannot drop " + Privileges::MaskNames(uint64_t(1) << cap) + " from the bounding set");
    }
}

/// PR_SET_NO_NEW_PRIVS: no exec can give this process more than it has
void ForbidNewPrivileges()
{
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        ThrowErrno("prctl(PR_SET_NO_NEW_PRIVS)");
}

std::string GroupList(const std::vector<gid_t>& groups)
{
    std::string text;
    for (const auto g : groups)
        text += (text.empty() ? "" : " ") + std::to_string(g);
    return text;
}

} // namespace

uint64_t Privileges::KeptMask(bool netAdmin)
{
    return (uint64_t(1) << CAP_NET_BIND_SERVICE) | (netAdmin ? uint64_t(1) << CAP_NET_ADMIN : 0);
}

std::string Privileges::MaskText(uint64_t mask)
{
    char text[17];
    std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(mask));
    return text;
}

std::string Privileges::MaskNames(uint64_t mask)
{
    std::string names;
    for (int cap = 0; cap < 64; ++cap) {
        if (!(mask & (uint64_t(1) << cap)))
            continue;
        char* name = ::cap_to_name(cap);
        names += (names.empty() ? "" : ",") + std::string(name ? name : std::to_string(cap).c_str());
        ::cap_free(name);
    }
    return names.empty() ? "none" : names;
}

uint64_t Privileges::CurrentMask(bool effective)
{
    cap_t caps = ::cap_get_proc();
    if (!caps)
        return 0;
    uint64_t mask = 0;
    for (int cap = 0; cap < CapabilityCount(); ++cap) {
        cap_flag_value_t value = CAP_CLEAR;
        if (::cap_get_flag(caps, cap, effective ? CAP_EFFECTIVE : CAP_PERMITTED, &value) == 0 &&
            value == CAP_SET)
            mask |= uint64_t(1) << cap;
    }
    ::cap_free(caps);
    return mask;
}

std::optional<Privileges::Target> Privileges::Resolve(const std::string& user, const std::string& group,
                                                      std::string& why)
{
    auto account = UserAccount::Find(user, why);
    if (!account)
        return std::nullopt;
    if (account->uid == 0) {
        // Squid 5.7 stops too ("Don't run Squid as root, set 'cache_effective_user'!")
        why = "cache_effective_user " + user + " is root (user id 0): cuttle does not serve as root";
        return std::nullopt;
    }
    Target target{*account, account->gid, {}};
    if (group.empty()) {
        target.groups = account->groups();
        return target;
    }
    const auto gid = UserAccount::FindGroup(group, why);
    if (!gid)
        return std::nullopt;
    // Squid: "only this GID is effective"
    target.gid = *gid;
    target.groups = {*gid};
    return target;
}

std::vector<std::string> Privileges::MissingPaths(const std::string& path)
{
    std::vector<std::string> missing;
    std::string current = path;
    struct stat st;
    while (!current.empty() && current != "/" && current != "." && ::lstat(current.c_str(), &st) != 0 &&
           errno == ENOENT) {
        missing.insert(missing.begin(), current);
        const auto slash = current.find_last_of('/');
        if (slash == std::string::npos)
            break;
        current.erase(slash);
        while (!current.empty() && current.back() == '/')
            current.pop_back();
    }
    return missing;
}

void Privileges::willCreate(const std::string& path)
{
    if (path.empty() || ::geteuid() != 0)
        return;
    for (auto& p : MissingPaths(path))
        created_.push_back(std::move(p));
}

std::string Privileges::leaveRoot(const std::string& user, const std::string& group, bool netAdmin)
{
    if (::geteuid() != 0)
        return keepUser(user, netAdmin);
    std::string why;
    const auto target = Resolve(user, group, why);
    if (!target)
        throw std::runtime_error(why);
    return dropTo(*target, KeptMask(netAdmin));
}

std::string Privileges::dropTo(const Target& target, uint64_t kept)
{
    // what root created for us becomes ours; only what root still owns
    // (lchown: a link planted since is not followed)
    for (const auto& path : created_) {
        struct stat st;
        if (::lstat(path.c_str(), &st) == 0 && st.st_uid == 0 &&
            ::lchown(path.c_str(), target.user.uid, target.gid) != 0)
            ThrowErrno("cannot give " + path + " to " + target.user.name);
    }

    // while CAP_SETPCAP is still effective: nothing beyond the kept
    // capability can come back, even through a set-user-id program
    DropBoundingSetBut(kept);

    if (::prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0)
        ThrowErrno("prctl(PR_SET_KEEPCAPS)");
    if (::setgroups(target.groups.size(), target.groups.data()) != 0)
        ThrowErrno("setgroups(" + GroupList(target.groups) + ")");
    if (::setresgid(target.gid, target.gid, target.gid) != 0)
        ThrowErrno("setresgid(" + std::to_string(target.gid) + ")");
    // the saved user id goes too: unlike Squid, there is no way back to root
    if (::setresuid(target.user.uid, target.user.uid, target.user.uid) != 0)
        ThrowErrno("setresuid(" + std::to_string(target.user.uid) + ")");
    SetCapabilities(kept);
    if (::prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) != 0)
        ThrowErrno("prctl(PR_SET_KEEPCAPS, 0)");
    ForbidNewPrivileges();
    // changing the user made the process undumpable: core dumps in coredump_dir need it back
    if (::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0)
        ThrowErrno("prctl(PR_SET_DUMPABLE)");

    // a check, not a hope: root must be out of reach now
    if (::setuid(0) == 0 || ::geteuid() == 0 || ::getegid() != target.gid)
        throw std::runtime_error("the process could go back to root after the drop");
    if (!target.user.home.empty())
        ::setenv("HOME", target.user.home.c_str(), 1); // as Squid does, for helpers
    return "Dropped root: serving as " + target.user.name + " (uid " + std::to_string(target.user.uid) +
           ", gid " + std::to_string(target.gid) + ", groups " + GroupList(target.groups) +
           ") with the capabilities " + MaskNames(CurrentMask(true));
}

void Privileges::PrepareThread()
{
    if (::prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0)
        ThrowErrno("prctl(PR_SET_KEEPCAPS)");
}

void Privileges::FollowDrop(uint64_t kept)
{
    // the change of user cleared the effective set: CAP_SETPCAP, if this
    // thread still holds it, is needed to shrink the bounding set
    const uint64_t permitted = CurrentMask(false);
    SetCapabilities(permitted);
    if (permitted & (uint64_t(1) << CAP_SETPCAP))
        DropBoundingSetBut(kept);
    SetCapabilities(kept & permitted);
    if (::prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) != 0)
        ThrowErrno("prctl(PR_SET_KEEPCAPS, 0)");
    ForbidNewPrivileges();
    if (CurrentMask(false) != kept)
        throw std::runtime_error("this thread holds the capabilities " + MaskNames(CurrentMask(false)) +
                                 ", not " + MaskNames(kept));
}

std::string Privileges::keepUser(const std::string& user, bool netAdmin)
{
    const uid_t uid = ::geteuid();
    const auto account = UserAccount::FindById(uid);
    const std::string name = account ? account->name : std::to_string(uid);
    SetCapabilities(Kept(CurrentMask(false), netAdmin));
    ForbidNewPrivileges();
    return "Running as " + name + " (uid " + std::to_string(uid) +
           "): not started as root, so cache_effective_user " + user +
           " is not used; capabilities: " + MaskNames(CurrentMask(true));
}
