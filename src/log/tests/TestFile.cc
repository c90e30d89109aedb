/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "log/File.h"
#include "log/tests/TestHelpers.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cstdio>
#include <string>
#include <system_error>

/// Tests of Log::File (buffered append-only file).
class TestFile : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestFile);
    CPPUNIT_TEST(bytesWaitForFlush);
    CPPUNIT_TEST(fullBufferIsWrittenWithoutFlush);
    CPPUNIT_TEST(openCreatesParentDirectories);
    CPPUNIT_TEST(openFailureThrows);
    CPPUNIT_TEST(reopenAfterRenameWritesNewFile);
    CPPUNIT_TEST(rotateShiftsCopies);
    CPPUNIT_TEST(writeErrorIsReportedOnce);
    CPPUNIT_TEST_SUITE_END();

public:
    void bytesWaitForFlush()
    {
        LogTest::TempDir dir;
        Log::File f;
        f.open(dir.file("a.log"));
        f.append("one\n");
        CPPUNIT_ASSERT_EQUAL(std::string(), LogTest::readAll(dir.file("a.log")));
        CPPUNIT_ASSERT_EQUAL(size_t(4), f.buffered());
        CPPUNIT_ASSERT(f.flush());
        CPPUNIT_ASSERT_EQUAL(std::string("one\n"), LogTest::readAll(dir.file("a.log")));
        CPPUNIT_ASSERT_EQUAL(size_t(0), f.buffered());
    }

    void fullBufferIsWrittenWithoutFlush()
    {
        LogTest::TempDir dir;
        Log::File f;
        f.open(dir.file("a.log"));
        const std::string chunk(1000, 'x');
        for (size_t i = 0; i < 2 * Log::File::BufferLimit / chunk.size(); ++i)
            f.append(chunk);
        CPPUNIT_ASSERT(f.buffered() <= Log::File::BufferLimit);
        CPPUNIT_ASSERT(!LogTest::readAll(dir.file("a.log")).empty());
    }

    void openCreatesParentDirectories()
    {
        LogTest::TempDir dir;
        Log::File f;
        f.open(dir.file("x/y/z.log"));
        f.append("hi\n");
        f.close();
        CPPUNIT_ASSERT_EQUAL(std::string("hi\n"), LogTest::readAll(dir.file("x/y/z.log")));
    }

    void openFailureThrows()
    {
        Log::File f;
        CPPUNIT_ASSERT_THROW(f.open("/proc/no/such/dir/file.log"), std::system_error);
        CPPUNIT_ASSERT(!f.isOpen());
    }

    void reopenAfterRenameWritesNewFile()
    {
        LogTest::TempDir dir;
        Log::File f;
        f.open(dir.file("a.log"));
        f.append("before\n");
        CPPUNIT_ASSERT_EQUAL(0, std::rename(dir.file("a.log").c_str(), dir.file("a.log.old").c_str()));
        f.append("still old\n"); // written to the renamed file: the descriptor follows it
        CPPUNIT_ASSERT(f.reopen());
        f.append("after\n");
        f.flush();
        CPPUNIT_ASSERT_EQUAL(std::string("before\nstill old\n"), LogTest::readAll(dir.file("a.log.old")));
        CPPUNIT_ASSERT_EQUAL(std::string("after\n"), LogTest::readAll(dir.file("a.log")));
    }

    void rotateShiftsCopies()
    {
        LogTest::TempDir dir;
        Log::File f;
        f.open(dir.file("a.log"));
        f.append("1\n");
        CPPUNIT_ASSERT(f.rotate(2));
        f.append("2\n");
        CPPUNIT_ASSERT(f.rotate(2));
        f.append("3\n");
        CPPUNIT_ASSERT(f.rotate(2));
        f.append("4\n");
        f.flush();
        CPPUNIT_ASSERT_EQUAL(std::string("4\n"), LogTest::readAll(dir.file("a.log")));
        CPPUNIT_ASSERT_EQUAL(std::string("3\n"), LogTest::readAll(dir.file("a.log.0")));
        CPPUNIT_ASSERT_EQUAL(std::string("2\n"), LogTest::readAll(dir.file("a.log.1")));
        CPPUNIT_ASSERT_EQUAL(std::string(), LogTest::readAll(dir.file("a.log.2"))); // only 2 copies kept
    }

    void writeErrorIsReportedOnce()
    {
        Log::File f;
        f.open("/dev/full");
        f.append("x\n");
        CPPUNIT_ASSERT(!f.flush());
        CPPUNIT_ASSERT(!f.lastError().empty());
        CPPUNIT_ASSERT(f.takeErrorReport());
        f.append("y\n");
        CPPUNIT_ASSERT(!f.flush());
        CPPUNIT_ASSERT(!f.takeErrorReport());
        CPPUNIT_ASSERT_EQUAL(size_t(0), f.buffered()); // failed bytes are not kept
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestFile);
