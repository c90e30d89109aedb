/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "log/CacheLog.h"
#include "log/tests/TestHelpers.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cstdio>
#include <latch>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

/// Whether LINE is "YYYY/MM/DD HH:MM:SS[.mmm]| REST\n" (a pattern of digits and separators;
/// std::regex is avoided: GCC 12 warns inside it under the sanitizers).
bool isSquidLine(const std::string& line, bool withMillis, const std::string& rest)
{
    const std::string shape = withMillis ? "dddd/dd/dd dd:dd:dd.ddd| " : "dddd/dd/dd dd:dd:dd| ";
    if (line.size() < shape.size())
        return false;
    for (size_t i = 0; i < shape.size(); ++i) {
        const bool ok = shape[i] == 'd' ? (line[i] >= '0' && line[i] <= '9') : line[i] == shape[i];
        if (!ok)
            return false;
    }
    return line.substr(shape.size()) == rest + "\n";
}

} // namespace

/// Tests of Log::CacheLog and debugs(). Each test uses its own CacheLog, except
/// the debugs() ones, which configure the process's one and restore it.
class TestCacheLog : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestCacheLog);
    CPPUNIT_TEST(lineHasSquidFormat);
    CPPUNIT_TEST(debugLevelsCarryMilliseconds);
    CPPUNIT_TEST(kidLabelGoesBeforeBar);
    CPPUNIT_TEST(noFileFallsBackToStderr);
    CPPUNIT_TEST(sectionLevelsFilter);
    CPPUNIT_TEST(stderrCopyFollowsDashD);
    CPPUNIT_TEST(fileWritesAreBufferedUntilFlush);
    CPPUNIT_TEST(importantMessagesAreFlushedAtOnce);
    CPPUNIT_TEST(reopenAfterRenameWritesNewFile);
    CPPUNIT_TEST(rotateUsesRotateOption);
    CPPUNIT_TEST(debugsSkipsDisabledMessages);
    CPPUNIT_TEST(debugsWritesEnabledMessages);
    CPPUNIT_TEST(threadsWriteWholeLinesUnderTheirOwnLabels);
    CPPUNIT_TEST_SUITE_END();

public:
    void lineHasSquidFormat()
    {
        std::ostringstream err;
        Log::CacheLog log;
        log.setStderrStream(&err);
        log.write(1, 1, "Starting cuttle");
        CPPUNIT_ASSERT_MESSAGE(err.str(), isSquidLine(err.str(), false, "Starting cuttle"));
    }

    void debugLevelsCarryMilliseconds()
    {
        std::ostringstream err;
        Log::CacheLog log;
        log.setStderrStream(&err);
        log.setOptions(Log::DebugOptions::Parse("ALL,3"));
        log.write(5, 3, "detail");
        CPPUNIT_ASSERT_MESSAGE(err.str(), isSquidLine(err.str(), true, "detail"));
        CPPUNIT_ASSERT(!isSquidLine(err.str(), false, "detail"));
    }

    void kidLabelGoesBeforeBar()
    {
        std::ostringstream err;
        Log::CacheLog log;
        log.setStderrStream(&err);
        log.setKidLabel("kid1");
        log.write(0, 0, "x");
        CPPUNIT_ASSERT(err.str().find(" kid1| x\n") != std::string::npos);
    }

    void noFileFallsBackToStderr()
    {
        std::ostringstream err;
        Log::CacheLog log;
        log.setStderrStream(&err);
        CPPUNIT_ASSERT(!log.isOpen());
        log.write(0, 1, "early");
        CPPUNIT_ASSERT(err.str().find("| early") != std::string::npos);
    }

    void sectionLevelsFilter()
    {
        std::ostringstream err;
        Log::CacheLog log;
        log.setStderrStream(&err);
        log.setOptions(Log::DebugOptions::Parse("ALL,1 33,2"));
        CPPUNIT_ASSERT(log.isEnabled(33, 2));
        CPPUNIT_ASSERT(!log.isEnabled(33, 3));
        CPPUNIT_ASSERT(!log.isEnabled(32, 2));
        CPPUNIT_ASSERT(log.isEnabled(32, 1));
        log.write(33, 2, "wanted");
        log.write(32, 2, "unwanted");
        CPPUNIT_ASSERT(err.str().find("wanted") != std::string::npos);
        CPPUNIT_ASSERT(err.str().find("unwanted") == std::string::npos);
    }

    void stderrCopyFollowsDashD()
    {
        LogTest::TempDir dir;
        std::ostringstream err;
        Log::CacheLog log;
        log.setStderrStream(&err);
        log.setOptions(Log::DebugOptions::Parse("ALL,2"));
        log.open(dir.file("cache.log"));
        log.setStderrLevel(1);
        log.write(3, 0, "critical");
        log.write(3, 1, "important");
        log.write(3, 2, "debugging");
        log.flush();
        const std::string copied = err.str();
        CPPUNIT_ASSERT(copied.find("critical") != std::string::npos);
        CPPUNIT_ASSERT(copied.find("important") != std::string::npos);
        CPPUNIT_ASSERT(copied.find("debugging") == std::string::npos);
        const std::string file = LogTest::readAll(dir.file("cache.log"));
        CPPUNIT_ASSERT(file.find("debugging") != std::string::npos); // the file has all three
        CPPUNIT_ASSERT(file.find("critical") != std::string::npos);
        // -d above the section level still copies to stderr (as Squid's -d does)
        log.setStderrLevel(5);
        CPPUNIT_ASSERT(log.isEnabled(3, 5));
    }

    void fileWritesAreBufferedUntilFlush()
    {
        LogTest::TempDir dir;
        Log::CacheLog log;
        log.setOptions(Log::DebugOptions::Parse("ALL,5"));
        log.open(dir.file("cache.log"));
        log.write(20, 4, "buffered line");
        CPPUNIT_ASSERT_EQUAL(std::string(), LogTest::readAll(dir.file("cache.log")));
        log.flush();
        CPPUNIT_ASSERT(LogTest::readAll(dir.file("cache.log")).find("buffered line") != std::string::npos);
    }

    void importantMessagesAreFlushedAtOnce()
    {
        LogTest::TempDir dir;
        Log::CacheLog log;
        log.open(dir.file("cache.log"));
        log.write(20, 1, "important line");
        CPPUNIT_ASSERT(LogTest::readAll(dir.file("cache.log")).find("important line") != std::string::npos);
    }

    void reopenAfterRenameWritesNewFile()
    {
        LogTest::TempDir dir;
        Log::CacheLog log;
        log.open(dir.file("cache.log"));
        log.write(0, 1, "first");
        CPPUNIT_ASSERT_EQUAL(0, std::rename(dir.file("cache.log").c_str(), dir.file("cache.log.1").c_str()));
        log.reopen();
        log.write(0, 1, "second");
        CPPUNIT_ASSERT(LogTest::readAll(dir.file("cache.log.1")).find("first") != std::string::npos);
        const std::string now = LogTest::readAll(dir.file("cache.log"));
        CPPUNIT_ASSERT(now.find("second") != std::string::npos);
        CPPUNIT_ASSERT(now.find("first") == std::string::npos);
    }

    void rotateUsesRotateOption()
    {
        LogTest::TempDir dir;
        Log::CacheLog log;
        log.setOptions(Log::DebugOptions::Parse("ALL,1 rotate=1"));
        log.open(dir.file("cache.log"));
        log.write(0, 1, "old");
        log.rotate(0); // fallback 0 is ignored: rotate=1 from debug_options wins
        log.write(0, 1, "new");
        CPPUNIT_ASSERT(LogTest::readAll(dir.file("cache.log.0")).find("old") != std::string::npos);
        CPPUNIT_ASSERT(LogTest::readAll(dir.file("cache.log")).find("new") != std::string::npos);
    }

    void debugsSkipsDisabledMessages()
    {
        Log::CacheLog& log = Log::cacheLog();
        const Log::DebugOptions saved = log.options();
        std::ostringstream err;
        log.setStderrStream(&err);
        log.setOptions(Log::DebugOptions::Parse("ALL,1"));
        int evaluated = 0;
        const auto costly = [&evaluated]() {
            ++evaluated;
            return "costly";
        };
        debugs(11, 5, "never " << costly());
        CPPUNIT_ASSERT_EQUAL(0, evaluated); // the stream is not even built
        CPPUNIT_ASSERT(err.str().empty());
        log.setOptions(saved);
        log.setStderrStream(nullptr);
    }

    void debugsWritesEnabledMessages()
    {
        Log::CacheLog& log = Log::cacheLog();
        std::ostringstream err;
        log.setStderrStream(&err);
        debugs(11, 1, "value=" << 42 << " name=" << std::string("x"));
        CPPUNIT_ASSERT(err.str().find("| value=42 name=x\n") != std::string::npos);
        log.setStderrStream(nullptr);
    }

    /// workers' threads write at once while the main thread changes the
    /// levels and flushes (a reconfigure): each line is whole and carries its
    /// own thread's kid label (doc/design.md "Workers"; ThreadSanitizer
    /// builds check the locking too)
    void threadsWriteWholeLinesUnderTheirOwnLabels()
    {
        LogTest::TempDir dir;
        Log::CacheLog log;
        log.setOptions(Log::DebugOptions::Parse("ALL,2"));
        log.open(dir.file("cache.log"));
        const int threads = 4;
        const int lines = 200;
        std::latch labelled(threads); // every label is set before any line is written
        std::vector<std::thread> writers;
        for (int kid = 1; kid <= threads; ++kid) {
            writers.emplace_back([&log, &labelled, kid] {
                log.setKidLabel("kid" + std::to_string(kid));
                labelled.arrive_and_wait();
                for (int i = 0; i < lines; ++i) {
                    if (log.isEnabled(5, 2))
                        log.write(5, 2, "line " + std::to_string(i) + " of kid" + std::to_string(kid));
                }
            });
        }
        for (int i = 0; i < 50; ++i) {
            log.setOptions(Log::DebugOptions::Parse("ALL,2"));
            log.flush();
        }
        for (auto& writer : writers)
            writer.join();
        log.flush();
        std::istringstream file(LogTest::readAll(dir.file("cache.log")));
        std::string line;
        int count = 0;
        while (std::getline(file, line)) {
            ++count;
            const auto label = line.find(" kid");
            CPPUNIT_ASSERT_MESSAGE(line, label != std::string::npos);
            const std::string kid = line.substr(label + 1, 4);
            CPPUNIT_ASSERT_MESSAGE(line,
                                   line.size() > kid.size() && line.substr(line.size() - kid.size()) == kid);
        }
        CPPUNIT_ASSERT_EQUAL(threads * lines, count);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestCacheLog);
