/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "base/Privileges.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/// Tests of Privileges. The drop itself runs in a child process, which it
/// changes for good.
class TestPrivileges : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestPrivileges);
    CPPUNIT_TEST(keepsAtMostNetBindService);
    CPPUNIT_TEST(masksReadAsProcStatusAndLibcap);
    CPPUNIT_TEST(resolveRefusesRoot);
    CPPUNIT_TEST(netAdminIsKeptOnlyWhenAsked);
    CPPUNIT_TEST(resolveNamesAMissingUserOrGroup);
    CPPUNIT_TEST(resolveTakesTheUsersGroups);
    CPPUNIT_TEST(resolveGroupReplacesAllGroups);
    CPPUNIT_TEST(missingPathsAreOutermostFirst);
    CPPUNIT_TEST(dropLeavesNoWayBack);
    CPPUNIT_TEST_SUITE_END();

public:
    /// whatever was permitted, only CAP_NET_BIND_SERVICE may stay, and only if it was there
    void keepsAtMostNetBindService()
    {
        const uint64_t bind = uint64_t(1) << CAP_NET_BIND_SERVICE;
        CPPUNIT_ASSERT_EQUAL(bind, Privileges::KeptMask());
        CPPUNIT_ASSERT_EQUAL(bind, Privileges::Kept(~uint64_t(0)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), Privileges::Kept(0));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), Privileges::Kept(~bind));
        for (int cap = 0; cap < 64; ++cap)
            CPPUNIT_ASSERT_EQUAL(Privileges::Kept(uint64_t(1) << cap) != 0, cap == CAP_NET_BIND_SERVICE);
    }

    /// tcp_outgoing_mark: CAP_NET_ADMIN stays too, and nothing else
    void netAdminIsKeptOnlyWhenAsked()
    {
        const uint64_t bind = uint64_t(1) << CAP_NET_BIND_SERVICE;
        const uint64_t admin = uint64_t(1) << CAP_NET_ADMIN;
        CPPUNIT_ASSERT_EQUAL(bind | admin, Privileges::KeptMask(true));
        CPPUNIT_ASSERT_EQUAL(bind | admin, Privileges::Kept(~uint64_t(0), true));
        CPPUNIT_ASSERT_EQUAL(admin, Privileges::Kept(admin, true));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), Privileges::Kept(admin, false));
        CPPUNIT_ASSERT_EQUAL(std::string("cap_net_bind_service,cap_net_admin"),
                             Privileges::MaskNames(Privileges::KeptMask(true)));
    }

    /// /proc/PID/status prints 16 hex digits; names are libcap's
    void masksReadAsProcStatusAndLibcap()
    {
        CPPUNIT_ASSERT_EQUAL(std::string("0000000000000400"), Privileges::MaskText(Privileges::KeptMask()));
        CPPUNIT_ASSERT_EQUAL(std::string("cap_net_bind_service"),
                             Privileges::MaskNames(Privileges::KeptMask()));
        CPPUNIT_ASSERT_EQUAL(std::string("none"), Privileges::MaskNames(0));
        CPPUNIT_ASSERT_EQUAL(std::string("cap_chown,cap_net_bind_service"),
                             Privileges::MaskNames(Privileges::KeptMask() | (uint64_t(1) << CAP_CHOWN)));
    }

    /// Squid 5.7 will not serve as root either
    void resolveRefusesRoot()
    {
        std::string why;
        CPPUNIT_ASSERT(!Privileges::Resolve("root", "", why));
        CPPUNIT_ASSERT_EQUAL(
            std::string("cache_effective_user root is root (user id 0): cuttle does not serve as root"), why);
    }

    void resolveNamesAMissingUserOrGroup()
    {
        std::string why;
        CPPUNIT_ASSERT(!Privileges::Resolve("cuttle-no-such-user", "", why));
        CPPUNIT_ASSERT(why.find("'cuttle-no-such-user'") != std::string::npos);
        CPPUNIT_ASSERT(!Privileges::Resolve("nobody", "cuttle-no-such-group", why));
        CPPUNIT_ASSERT(why.find("'cuttle-no-such-group'") != std::string::npos);
    }

    /// without cache_effective_group: the user's primary group and group list (initgroups)
    void resolveTakesTheUsersGroups()
    {
        std::string why;
        const auto nobody = UserAccount::Find("nobody", why);
        const auto target = Privileges::Resolve("nobody", "", why);
        CPPUNIT_ASSERT(nobody && target);
        CPPUNIT_ASSERT_EQUAL(nobody->uid, target->user.uid);
        CPPUNIT_ASSERT_EQUAL(nobody->gid, target->gid);
        CPPUNIT_ASSERT(target->groups == nobody->groups());
    }

    /// with cache_effective_group: that group only, as Squid does
    void resolveGroupReplacesAllGroups()
    {
        std::string why;
        const auto target = Privileges::Resolve("nobody", "4242", why);
        CPPUNIT_ASSERT(target);
        CPPUNIT_ASSERT_EQUAL(gid_t(4242), target->gid);
        CPPUNIT_ASSERT(target->groups == std::vector<gid_t>{4242});
    }

    /// what mkdir -p would make, in the order it makes it; nothing for what exists
    void missingPathsAreOutermostFirst()
    {
        const std::string dir = makeTempDir();
        const std::vector<std::string> expected = {dir + "/a", dir + "/a/b", dir + "/a/b/c.log"};
        CPPUNIT_ASSERT(Privileges::MissingPaths(dir + "/a/b/c.log") == expected);
        CPPUNIT_ASSERT(Privileges::MissingPaths(dir).empty());
        std::filesystem::remove_all(dir);
    }

    /// in a child started as root: the user, the groups, only the kept
    /// capability (bounding set too), no new privileges, dumpable, root out of
    /// reach, and what was created before the drop belongs to the user.
    /// Not root: the child keeps its user and ends with no new privileges.
    void dropLeavesNoWayBack()
    {
        const std::string dir = makeTempDir();
        ::chmod(dir.c_str(), 0755);
        const std::string log = dir + "/logs/cache.log";
        const bool root = ::geteuid() == 0;
        std::string why;
        const auto nobody = UserAccount::Find("nobody", why);
        CPPUNIT_ASSERT(nobody);

        const pid_t child = ::fork();
        CPPUNIT_ASSERT(child >= 0);
        if (child == 0)
            ::_exit(dropInChild(log, *nobody, root));
        int status = 0;
        CPPUNIT_ASSERT_EQUAL(child, ::waitpid(child, &status, 0));
        CPPUNIT_ASSERT(WIFEXITED(status));
        CPPUNIT_ASSERT_EQUAL(0, WEXITSTATUS(status));
        if (root) {
            for (const auto& path : {dir + "/logs", log}) {
                struct stat st;
                CPPUNIT_ASSERT_EQUAL(0, ::stat(path.c_str(), &st));
                CPPUNIT_ASSERT_EQUAL(nobody->uid, st.st_uid);
                CPPUNIT_ASSERT_EQUAL(nobody->gid, st.st_gid);
            }
        }
        std::filesystem::remove_all(dir);
    }

private:
    static std::string makeTempDir()
    {
        const char* base = std::getenv("TMPDIR");
        std::string pattern = std::string(base && *base ? base : "/tmp") + "/cuttle-privileges-XXXXXX";
        CPPUNIT_ASSERT(::mkdtemp(pattern.data()));
        return pattern;
    }

    /// the child's side of dropLeavesNoWayBack(): 0 when every check holds,
    /// else the number of the first check that failed
    static int dropInChild(const std::string& log, const UserAccount& nobody, bool root)
    {
        try {
            Privileges privileges;
            privileges.willCreate(log);
            std::filesystem::create_directories(std::filesystem::path(log).parent_path());
            std::ofstream(log) << "x\n";
            const uid_t before = ::geteuid();
            (void)privileges.leaveRoot("nobody", "");
            if (::prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
                return 2;
            if (!root)
                return ::geteuid() == before && privileges.created().empty() ? 0 : 3;
            uid_t r, e, s;
            gid_t rg, eg, sg;
            if (::getresuid(&r, &e, &s) != 0 || r != nobody.uid || e != nobody.uid || s != nobody.uid)
                return 4;
            if (::getresgid(&rg, &eg, &sg) != 0 || rg != nobody.gid || eg != nobody.gid || sg != nobody.gid)
                return 5;
            if (Privileges::CurrentMask(true) != Privileges::KeptMask() ||
                Privileges::CurrentMask(false) != Privileges::KeptMask())
                return 6;
            if (::cap_get_bound(CAP_SYS_ADMIN) != 0 || ::cap_get_bound(CAP_NET_BIND_SERVICE) != 1)
                return 7;
            if (::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 1)
                return 8;
            if (::setuid(0) == 0 || ::setgid(0) == 0)
                return 9;
            if (privileges.created() !=
                std::vector<std::string>{std::filesystem::path(log).parent_path(), log})
                return 10;
            return 0;
        } catch (...) {
            return 1;
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestPrivileges);
