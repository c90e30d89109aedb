/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "errors/Templates.h"
#include "log/CacheLog.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace {

/// A fresh directory under /tmp, removed at destruction.
class TempDir {
public:
    TempDir()
    {
        char tmpl[] = "/tmp/cuttle-errtest-XXXXXX";
        const char* made = ::mkdtemp(tmpl);
        path_ = made ? made : "/tmp";
    }
    ~TempDir()
    {
        const std::string cmd = "rm -rf '" + path_ + "'";
        if (path_ != "/tmp" && std::system(cmd.c_str()) != 0) {
            // a leftover temp dir is harmless
        }
    }
    void write(const std::string& name, const std::string& text) const
    {
        std::ofstream(path_ + "/" + name) << text;
    }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

size_t count(const std::string& text, const std::string& what)
{
    size_t n = 0;
    for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1))
        ++n;
    return n;
}

} // namespace

/// Tests of Errors::Templates and of the shipped errors/templates directory.
class TestTemplates : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestTemplates);
    CPPUNIT_TEST(loadsEveryErrFile);
    CPPUNIT_TEST(missingFileFallsBackAndIsLoggedOnce);
    CPPUNIT_TEST(missingDirectoryGivesBuiltInPages);
    CPPUNIT_TEST(denyInfoPageIsReadLater);
    CPPUNIT_TEST(namesCannotLeaveTheDirectory);
    CPPUNIT_TEST(shippedDirectoryHasEveryName);
    CPPUNIT_TEST(shippedPagesAreHtmlWithTheirCodes);
    CPPUNIT_TEST(squidTemplatesLoadWhenInstalled);
    CPPUNIT_TEST_SUITE_END();

public:
    void setUp() override { Log::cacheLog().setStderrStream(&log_); }
    void tearDown() override { Log::cacheLog().setStderrStream(nullptr); }

    void loadsEveryErrFile()
    {
        TempDir dir;
        dir.write("ERR_ACCESS_DENIED", "<html>denied %c</html>");
        dir.write("ERR_EMPTY", "");
        dir.write("README", "not a template");
        Errors::Templates t(dir.path());
        CPPUNIT_ASSERT(t.hasFile("ERR_ACCESS_DENIED"));
        CPPUNIT_ASSERT(!t.hasFile("ERR_EMPTY")); // empty files do not count
        CPPUNIT_ASSERT(!t.hasFile("README"));    // only ERR_* at load
        CPPUNIT_ASSERT_EQUAL(size_t(1), t.size());
        CPPUNIT_ASSERT_EQUAL(std::string("<html>denied %c</html>"), t.get("ERR_ACCESS_DENIED"));
        CPPUNIT_ASSERT_EQUAL(dir.path(), t.directory());
    }

    void missingFileFallsBackAndIsLoggedOnce()
    {
        TempDir dir;
        dir.write("ERR_ACCESS_DENIED", "<html>x</html>");
        Errors::Templates t(dir.path());
        const size_t afterLoad = count(log_.str(), "ERR_CONNECT_FAIL");
        CPPUNIT_ASSERT_EQUAL(size_t(1), afterLoad); // reported at load
        CPPUNIT_ASSERT_EQUAL(Errors::Templates::FallbackTemplate(), t.get("ERR_CONNECT_FAIL"));
        CPPUNIT_ASSERT_EQUAL(Errors::Templates::FallbackTemplate(), t.get("ERR_CONNECT_FAIL"));
        CPPUNIT_ASSERT_EQUAL(size_t(1), count(log_.str(), "ERR_CONNECT_FAIL")); // not again
        t.get("ERR_CUSTOM_PAGE");
        t.get("ERR_CUSTOM_PAGE");
        CPPUNIT_ASSERT_EQUAL(size_t(1), count(log_.str(), "ERR_CUSTOM_PAGE"));
    }

    void missingDirectoryGivesBuiltInPages()
    {
        Errors::Templates t("/nonexistent/cuttle/errors");
        CPPUNIT_ASSERT_EQUAL(size_t(0), t.size());
        CPPUNIT_ASSERT(log_.str().find("/nonexistent/cuttle/errors") != std::string::npos);
        CPPUNIT_ASSERT_EQUAL(Errors::Templates::FallbackTemplate(), t.get("ERR_ACCESS_DENIED"));
        Errors::Templates empty;
        CPPUNIT_ASSERT_EQUAL(Errors::Templates::FallbackTemplate(), empty.get("ERR_ACCESS_DENIED"));
    }

    void denyInfoPageIsReadLater()
    {
        TempDir dir;
        Errors::Templates t(dir.path());
        dir.write("MY_DENY_PAGE", "<html>custom</html>");
        CPPUNIT_ASSERT_EQUAL(std::string("<html>custom</html>"), t.get("MY_DENY_PAGE"));
        CPPUNIT_ASSERT(t.hasFile("MY_DENY_PAGE"));
    }

    void namesCannotLeaveTheDirectory()
    {
        TempDir dir;
        Errors::Templates t(dir.path());
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
