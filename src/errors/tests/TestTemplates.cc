/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "errors/Templates.h"
#include "base/tests/TempDir.h"
#include "log/CacheLog.h"

#include <cppunit/extensions/HelperMacros.h>

#include <sstream>
#include <string>
#include <vector>

/// Tests of Errors::Templates and of the shipped errors/templates directory.
class TestTemplates : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestTemplates);
    CPPUNIT_TEST(loadsEachNameFromTheFirstDirectoryThatHasIt);
    CPPUNIT_TEST(missingNamesGetTheBuiltInPage);
    CPPUNIT_TEST(nothingIsReadAfterLoad);
    CPPUNIT_TEST(namesCannotLeaveTheDirectory);
    CPPUNIT_TEST(shippedDirectoryHasEveryName);
    CPPUNIT_TEST(shippedPagesAreHtmlWithTheirCodes);
    CPPUNIT_TEST(squidTemplatesLoadWhenInstalled);
    CPPUNIT_TEST_SUITE_END();

public:
    void setUp() override { Log::cacheLog().setStderrStream(&log_); }
    void tearDown() override { Log::cacheLog().setStderrStream(nullptr); }

    void loadsEachNameFromTheFirstDirectoryThatHasIt()
    {
        TempDir first, second;
        first.write("ERR_ACCESS_DENIED", "<html>first %c</html>");
        first.write("ERR_EMPTY", "");
        second.write("ERR_ACCESS_DENIED", "<html>second</html>");
        second.write("ERR_EMPTY", "<html>second empty</html>");
        second.write("MY_PAGE", "<html>mine</html>");
        second.write("README", "not a template");
        Errors::Templates t;
        const auto missing =
            t.load({first.path(), second.path()}, {"ERR_ACCESS_DENIED", "ERR_EMPTY", "MY_PAGE", "ERR_NONE"});
        CPPUNIT_ASSERT_EQUAL(std::string("<html>first %c</html>"), t.get("ERR_ACCESS_DENIED"));
        CPPUNIT_ASSERT_EQUAL(std::string("<html>second empty</html>"),
                             t.get("ERR_EMPTY")); // empty does not count
        CPPUNIT_ASSERT_EQUAL(std::string("<html>mine</html>"), t.get("MY_PAGE"));
        CPPUNIT_ASSERT(!t.hasFile("README")); // only the names asked for
        CPPUNIT_ASSERT_EQUAL(size_t(3), t.size());
        CPPUNIT_ASSERT_EQUAL(size_t(1), missing.size());
        CPPUNIT_ASSERT_EQUAL(std::string("ERR_NONE"), missing[0]);
    }

    void missingNamesGetTheBuiltInPage()
    {
        TempDir dir;
        dir.write("ERR_ACCESS_DENIED", "<html>x</html>");
        Errors::Templates t(dir.path());
        CPPUNIT_ASSERT(t.find("ERR_CONNECT_FAIL") == nullptr);
        CPPUNIT_ASSERT_EQUAL(Errors::Templates::FallbackTemplate(), t.get("ERR_CONNECT_FAIL"));
        CPPUNIT_ASSERT_EQUAL(Errors::Templates::FallbackTemplate(),
                             Errors::Templates().get("ERR_ACCESS_DENIED"));
        CPPUNIT_ASSERT_EQUAL(size_t(0), Errors::Templates("/nonexistent/cuttle/errors").size());
    }

    /// load() reads everything: a page written later is not seen while serving
    void nothingIsReadAfterLoad()
    {
        TempDir dir;
        Errors::Templates t(dir.path());
        dir.write("ERR_ACCESS_DENIED", "<html>later</html>");
        CPPUNIT_ASSERT_EQUAL(Errors::Templates::FallbackTemplate(), t.get("ERR_ACCESS_DENIED"));
    }

    void namesCannotLeaveTheDirectory()
    {
        TempDir dir;
        Errors::Templates t;
        t.load({dir.path()}, {"../../../../etc/passwd"});
        CPPUNIT_ASSERT_EQUAL(size_t(0), t.size());
        CPPUNIT_ASSERT_EQUAL(Errors::Templates::FallbackTemplate(), t.get("../../../../etc/passwd"));
    }

    void shippedDirectoryHasEveryName()
    {
        Errors::Templates t(CUTTLE_TEST_TEMPLATE_DIR);
        for (const auto& name : Errors::Templates::KnownNames())
            CPPUNIT_ASSERT_MESSAGE(name, t.hasFile(name));
        CPPUNIT_ASSERT_EQUAL(Errors::Templates::KnownNames().size(), t.size());
        CPPUNIT_ASSERT(log_.str().empty()); // nothing missing, nothing logged
    }

    void shippedPagesAreHtmlWithTheirCodes()
    {
        Errors::Templates t(CUTTLE_TEST_TEMPLATE_DIR);
        for (const auto& name : Errors::Templates::KnownNames()) {
            const std::string& text = t.get(name);
            CPPUNIT_ASSERT_MESSAGE(name, text.rfind("<!DOCTYPE html>", 0) == 0);
            CPPUNIT_ASSERT_MESSAGE(name, text.find("</html>") != std::string::npos);
            CPPUNIT_ASSERT_MESSAGE(name, text.find("<title>") != std::string::npos);
            CPPUNIT_ASSERT_MESSAGE(name, text.find("%c") != std::string::npos);
            CPPUNIT_ASSERT_MESSAGE(name, text.find("%T") != std::string::npos);
            CPPUNIT_ASSERT_MESSAGE(name, text.find("%s") != std::string::npos);
        }
        CPPUNIT_ASSERT(t.get("ERR_CONNECT_FAIL").find("%E") != std::string::npos);
        CPPUNIT_ASSERT(t.get("ERR_DNS_FAIL").find("%z") != std::string::npos);
        CPPUNIT_ASSERT(t.get("ERR_INVALID_REQ").find("%R") != std::string::npos);
    }

    void squidTemplatesLoadWhenInstalled()
    {
        // Debian's Squid templates are a drop-in error_directory; skipped without them.
        Errors::Templates t("/usr/share/squid/errors/templates");
        if (t.size() == 0)
            return;
        CPPUNIT_ASSERT(t.hasFile("ERR_ACCESS_DENIED"));
        CPPUNIT_ASSERT(t.size() >= 40);
    }

private:
    std::ostringstream log_; ///< cache.log output during a test
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestTemplates);
