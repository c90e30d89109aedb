/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "mgr/Action.h"

#include <cppunit/extensions/HelperMacros.h>

namespace {

using Lines = std::vector<Config::ManagerPassword>;

Mgr::Verdict Ask(const Lines& lines, const char* action, const char* password = "")
{
    return Mgr::Authorize(lines, action, password);
}

} // namespace

/// Mgr::Authorize() and Mgr::Protect(): cachemgr_passwd as Squid 5.7 applies it.
class TestAction : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestAction);
    CPPUNIT_TEST(withoutLinesPagesArePublicAndCommandsHidden);
    CPPUNIT_TEST(passwordMustMatch);
    CPPUNIT_TEST(noneServesWithoutPassword);
    CPPUNIT_TEST(disableAnswersNotFound);
    CPPUNIT_TEST(firstLineNamingTheActionDecides);
    CPPUNIT_TEST(allCoversActionsNoEarlierLineNames);
    CPPUNIT_TEST(unknownActionIsNotFound);
    CPPUNIT_TEST(menuOrderIsSquids);
    CPPUNIT_TEST_SUITE_END();

public:
    void withoutLinesPagesArePublicAndCommandsHidden()
    {
        CPPUNIT_ASSERT(Ask({}, "info") == Mgr::Verdict::Serve);
        CPPUNIT_ASSERT(Ask({}, "counters", "anything") == Mgr::Verdict::Serve);
        for (const char* command : {"shutdown", "reconfigure", "rotate", "config"}) {
            CPPUNIT_ASSERT_MESSAGE(command, Ask({}, command) == Mgr::Verdict::NotFound);
            CPPUNIT_ASSERT_MESSAGE(command, Ask({}, command, "x") == Mgr::Verdict::NotFound);
            CPPUNIT_ASSERT(Mgr::Protect({}, *Mgr::FindAction(command)) == Mgr::Protection::Hidden);
        }
    }

    void passwordMustMatch()
    {
        const Lines lines = {{"secret", {"shutdown", "info"}}};
        CPPUNIT_ASSERT(Ask(lines, "shutdown", "secret") == Mgr::Verdict::Serve);
        CPPUNIT_ASSERT(Ask(lines, "shutdown", "wrong") == Mgr::Verdict::Unauthorized);
        CPPUNIT_ASSERT(Ask(lines, "shutdown") == Mgr::Verdict::Unauthorized);
        CPPUNIT_ASSERT(Ask(lines, "info", "Secret") == Mgr::Verdict::Unauthorized); // case matters
        CPPUNIT_ASSERT(Ask(lines, "counters") == Mgr::Verdict::Serve);              // not named: public
        CPPUNIT_ASSERT(Mgr::Protect(lines, *Mgr::FindAction("info")) == Mgr::Protection::Protected);
    }

    void noneServesWithoutPassword()
    {
        const Lines lines = {{"none", {"shutdown"}}};
        CPPUNIT_ASSERT(Ask(lines, "shutdown") == Mgr::Verdict::Serve);
        CPPUNIT_ASSERT(Ask(lines, "shutdown", "whatever") == Mgr::Verdict::Serve);
        CPPUNIT_ASSERT(Mgr::Protect(lines, *Mgr::FindAction("shutdown")) == Mgr::Protection::Public);
    }

    void disableAnswersNotFound()
    {
        const Lines lines = {{"disable", {"mem"}}};
        CPPUNIT_ASSERT(Ask(lines, "mem") == Mgr::Verdict::NotFound);
        CPPUNIT_ASSERT(Ask(lines, "mem", "disable") == Mgr::Verdict::NotFound);
        CPPUNIT_ASSERT_EQUAL(std::string("disabled"),
                             std::string(Mgr::ProtectionName(Mgr::Protect(lines, *Mgr::FindAction("mem")))));
    }

    void firstLineNamingTheActionDecides()
    {
        const Lines lines = {{"one", {"info"}}, {"two", {"info", "menu"}}};
        CPPUNIT_ASSERT(Ask(lines, "info", "one") == Mgr::Verdict::Serve);
        CPPUNIT_ASSERT(Ask(lines, "info", "two") == Mgr::Verdict::Unauthorized);
        CPPUNIT_ASSERT(Ask(lines, "menu", "two") == Mgr::Verdict::Serve);
    }

    void allCoversActionsNoEarlierLineNames()
    {
        const Lines lines = {{"none", {"info", "menu"}}, {"open", {"all"}}, {"late", {"counters"}}};
        CPPUNIT_ASSERT(Ask(lines, "info") == Mgr::Verdict::Serve);
        CPPUNIT_ASSERT(Ask(lines, "shutdown", "open") == Mgr::Verdict::Serve); // all reveals a hidden one
        CPPUNIT_ASSERT(Ask(lines, "counters", "late") == Mgr::Verdict::Unauthorized); // `all` came first
        CPPUNIT_ASSERT(Ask(lines, "counters", "open") == Mgr::Verdict::Serve);
    }

    void unknownActionIsNotFound()
    {
        const Lines lines = {{"none", {"all"}}};
        CPPUNIT_ASSERT(Ask(lines, "nosuch") == Mgr::Verdict::NotFound);
        CPPUNIT_ASSERT(Ask(lines, "index") == Mgr::Verdict::NotFound);
        CPPUNIT_ASSERT(Ask(lines, "") == Mgr::Verdict::NotFound);
    }

    void menuOrderIsSquids()
    {
        // the actions Squid 5.7 lists, in its order (cuttle's metrics last)
        std::string names;
        for (const auto& a : Mgr::Actions())
            names += std::string(a.name) + " ";
        CPPUNIT_ASSERT_EQUAL(
            std::string("menu shutdown reconfigure rotate mem config client_list ipcache fqdncache "
                        "info objects vm_objects counters 5min 60min utilization active_requests storedir "
                        "server_list metrics "),
            names);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestAction);
