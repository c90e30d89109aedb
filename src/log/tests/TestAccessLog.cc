/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "log/AccessLog.h"
#include "log/CacheLog.h"
#include "log/tests/TestHelpers.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

/// The record of the example line in AccessLog.h.
Log::AccessRecord sampleRecord()
{
    Log::AccessRecord r;
    r.start = {1700000000, 118000};
    r.responseTimeMs = 5;
    r.clientAddress = "127.0.0.1";
    r.resultCode = "TCP_MISS";
    r.httpStatus = 200;
    r.bytesSent = 1234;
    r.method = "GET";
    r.url = "http://x/";
    r.hierarchy = "HIER_DIRECT";
    r.peerAddress = "127.0.0.1";
    r.mimeType = "text/html";
    return r;
}

size_t countLines(const std::string& s)
{
    size_t n = 0;
    for (const char c : s)
        n += c == '\n';
    return n;
}

} // namespace

/// Tests of Log::AccessLog and its line formats.
class TestAccessLog : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestAccessLog);
    CPPUNIT_TEST(squidLineIsExact);
    CPPUNIT_TEST(deniedLineMatchesSquid);
    CPPUNIT_TEST(responseTimeIsSixWideAndGrows);
    CPPUNIT_TEST(timestampIsEndOfTransaction);
    CPPUNIT_TEST(finishComputesResponseTime);
    CPPUNIT_TEST(ipv6ClientIsBare);
    CPPUNIT_TEST(longUrlIsCutAtMaxUrl);
    CPPUNIT_TEST(controlCharactersEscapeTheUrl);
    CPPUNIT_TEST(plainUrlIsNotEscaped);
    CPPUNIT_TEST(userIsQuoted);
    CPPUNIT_TEST(mimeTypeParametersAreDropped);
    CPPUNIT_TEST(commonLineMatchesSquid);
    CPPUNIT_TEST(combinedLineHasRefererAndAgent);
    CPPUNIT_TEST(formatNamesParse);
    CPPUNIT_TEST(linesWaitForFlush);
    CPPUNIT_TEST(everyDestinationGetsTheLine);
    CPPUNIT_TEST(noneAddsNothing);
    CPPUNIT_TEST(badPlacesAreRejected);
    CPPUNIT_TEST(reopenAfterRenameWritesNewFile);
    CPPUNIT_TEST(rotateKeepsCopies);
    CPPUNIT_TEST(destructionFlushes);
    CPPUNIT_TEST(writeErrorIsLoggedOnce);
    CPPUNIT_TEST(filterChoosesTheLogs);
    CPPUNIT_TEST(noneThatAcceptsEndsTheList);
    CPPUNIT_TEST(needsFollowFormatsAndMimeHeaders);
    CPPUNIT_TEST(customFormatCountsLines);
    CPPUNIT_TEST(udpSendsALinePerDatagram);
    CPPUNIT_TEST(bufferedLogsWaitForTheSecond);
    CPPUNIT_TEST(bufferSizeBoundsTheBuffer);
    CPPUNIT_TEST_SUITE_END();

public:
    void setUp() override
    {
        ::setenv("TZ", "UTC", 1);
        ::tzset();
    }

    void squidLineIsExact()
    {
        CPPUNIT_ASSERT_EQUAL(std::string("1700000000.123      5 127.0.0.1 TCP_MISS/200 1234 GET http://x/ - "
                                         "HIER_DIRECT/127.0.0.1 text/html"),
                             Log::formatSquid(sampleRecord()));
    }

    void deniedLineMatchesSquid()
    {
        // As Squid 5.7 wrote it for a denied request (status 0 would print 000).
        Log::AccessRecord r;
        r.start = {1795408121, 263000};
        r.clientAddress = "127.0.0.1";
        r.resultCode = "NONE_NONE";
        r.httpStatus = 400;
        r.bytesSent = 3400;
        r.method = "BOGUS";
        r.url = "error:invalid-request";
        r.mimeType = "text/html;charset=utf-8";
        CPPUNIT_ASSERT_EQUAL(std::string("1795408121.263      0 127.0.0.1 NONE_NONE/400 3400 BOGUS "
                                         "error:invalid-request - HIER_NONE/- text/html"),
                             Log::formatSquid(r));
        r.httpStatus = 0;
        CPPUNIT_ASSERT(Log::formatSquid(r).find(" NONE_NONE/000 ") != std::string::npos);
    }

    void responseTimeIsSixWideAndGrows()
    {
        auto r = sampleRecord();
        r.end = {1700000000, 0};
        r.responseTimeMs = 0;
        CPPUNIT_ASSERT(Log::formatSquid(r).rfind("1700000000.000      0 127", 0) == 0);
        r.responseTimeMs = 123456;
        CPPUNIT_ASSERT(Log::formatSquid(r).rfind("1700000000.000 123456 127", 0) == 0);
        r.responseTimeMs = 1234567; // wider than 6: never cut
        CPPUNIT_ASSERT(Log::formatSquid(r).rfind("1700000000.000 1234567 127", 0) == 0);
    }

    void timestampIsEndOfTransaction()
    {
        auto r = sampleRecord();
        r.start = {1700000000, 999000};
        r.responseTimeMs = 2;
        CPPUNIT_ASSERT(Log::formatSquid(r).rfind("1700000001.001 ", 0) == 0);
    }

    void finishComputesResponseTime()
    {
        Log::AccessRecord r;
        r.start = {100, 900000};
        r.finish({102, 100000});
        CPPUNIT_ASSERT_EQUAL(int64_t(1200), r.responseTimeMs);
        CPPUNIT_ASSERT(Log::formatSquid(r).rfind("102.100   1200 ", 0) == 0);
    }

    void ipv6ClientIsBare()
    {
        auto r = sampleRecord();
        r.clientAddress = "2001:db8::1";
        r.peerAddress = "::1";
        const std::string line = Log::formatSquid(r);
        CPPUNIT_ASSERT(line.find(" 2001:db8::1 TCP_MISS/200 ") != std::string::npos);
        CPPUNIT_ASSERT(line.find(" HIER_DIRECT/::1 ") != std::string::npos);
    }

    void longUrlIsCutAtMaxUrl()
    {
        auto r = sampleRecord();
        r.url = "http://x/" + std::string(10000, 'a');
        const std::string line = Log::formatSquid(r);
        const auto start = line.find("http://x/");
        const auto end = line.find(' ', start);
        CPPUNIT_ASSERT_EQUAL(size_t(8191), end - start);
        r.url = "http://x/" + std::string(8000, 'b');
        CPPUNIT_ASSERT(Log::formatSquid(r).find(r.url + " - ") != std::string::npos); // kept whole
    }

    void controlCharactersEscapeTheUrl()
    {
        auto r = sampleRecord();
        r.url = "http://x/a\tb<c>~d%41";
        CPPUNIT_ASSERT(Log::formatSquid(r).find(" http://x/a%09b%3Cc%3E%7Ed%41 ") != std::string::npos);
    }

    void plainUrlIsNotEscaped()
    {
        // Squid 5.7 logs these bytes as received when no control character is present.
        auto r = sampleRecord();
        r.url = "http://x/a%20b~c<d>?\xc3\xa9";
        CPPUNIT_ASSERT(Log::formatSquid(r).find(" http://x/a%20b~c<d>?\xc3\xa9 ") != std::string::npos);
    }

    void userIsQuoted()
    {
        auto r = sampleRecord();
        r.user = "bob";
        CPPUNIT_ASSERT(Log::formatSquid(r).find(" http://x/ bob HIER_DIRECT") != std::string::npos);
        // as Squid 5.7 logged the user 'a"b[c]\x%;<>?{}|^~`#é z' (QuoteMimeBlob)
        r.user = "a\"b[c]\\x%;<>?{}|^~`#\xc3\xa9 z\n";
        CPPUNIT_ASSERT(Log::formatSquid(r).find(" a\"b%5bc%5d\\\\x%25;<>?{}|^~`#%c3%a9 z\\n HIER") !=
                       std::string::npos);
    }

    void mimeTypeParametersAreDropped()
    {
        auto r = sampleRecord();
        r.mimeType = "text/html; charset=utf-8";
        CPPUNIT_ASSERT(Log::formatSquid(r).size() >= 9);
        CPPUNIT_ASSERT(Log::formatSquid(r).substr(Log::formatSquid(r).size() - 10) == " text/html");
        r.mimeType.clear();
        const std::string line = Log::formatSquid(r);
        CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1 -"), line.substr(line.size() - 11));
    }

    void commonLineMatchesSquid()
    {
        Log::AccessRecord r;
        r.start = {1795408121, 263000};
        r.clientAddress = "127.0.0.1";
        r.resultCode = "TCP_DENIED";
        r.httpStatus = 403;
        r.bytesSent = 3425;
        r.method = "GET";
        r.url = "http://[::1]:81/";
        CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1 - - [23/Nov/2026:04:28:41 +0000] \"GET http://[::1]:81/ "
                                         "HTTP/1.1\" 403 3425 TCP_DENIED:HIER_NONE"),
                             Log::formatCommon(r));
    }

    void combinedLineHasRefererAndAgent()
    {
        auto r = sampleRecord();
        r.userAgent = "curl/7.88.1";
        const std::string line = Log::formatCombined(r);
        CPPUNIT_ASSERT(line.find("\" 200 1234 \"-\" \"curl/7.88.1\" TCP_MISS:HIER_DIRECT") !=
                       std::string::npos);
    }

    void formatNamesParse()
    {
        CPPUNIT_ASSERT(Log::ParseFormatName("squid") == Log::AccessFormat::Squid);
        CPPUNIT_ASSERT(Log::ParseFormatName("common") == Log::AccessFormat::Common);
        CPPUNIT_ASSERT(Log::ParseFormatName("combined") == Log::AccessFormat::Combined);
        CPPUNIT_ASSERT(Log::ParseFormatName("auto") == Log::AccessFormat::Squid);
        CPPUNIT_ASSERT(Log::ParseFormatName("icap_squid") == Log::AccessFormat::IcapSquid);
        CPPUNIT_ASSERT_THROW(Log::ParseFormatName("squid2"), std::invalid_argument);
    }

    void linesWaitForFlush()
    {
        LogTest::TempDir dir;
        Log::AccessLog log;
        log.add("stdio:" + dir.file("access.log"));
        for (int i = 0; i < 10; ++i)
            log.log(sampleRecord());
        CPPUNIT_ASSERT_EQUAL(std::string(), LogTest::readAll(dir.file("access.log")));
        log.flush();
        const std::string text = LogTest::readAll(dir.file("access.log"));
        CPPUNIT_ASSERT_EQUAL(size_t(10), countLines(text));
        CPPUNIT_ASSERT_EQUAL(Log::formatSquid(sampleRecord()) + "\n", text.substr(0, text.find('\n') + 1));
    }

    void everyDestinationGetsTheLine()
    {
        LogTest::TempDir dir;
        {
            Log::AccessLog log;
            log.add("stdio:" + dir.file("a.log"));
            log.add("daemon:" + dir.file("sub/b.log"), Log::AccessFormat::Common);
            CPPUNIT_ASSERT_EQUAL(size_t(2), log.size());
            log.log(sampleRecord());
        } // the daemon's thread has written its lines when the log is gone
        CPPUNIT_ASSERT_EQUAL(Log::formatSquid(sampleRecord()) + "\n", LogTest::readAll(dir.file("a.log")));
        CPPUNIT_ASSERT_EQUAL(Log::formatCommon(sampleRecord()) + "\n",
                             LogTest::readAll(dir.file("sub/b.log")));
    }

    void noneAddsNothing()
    {
        Log::AccessLog log;
        log.add("none");
        CPPUNIT_ASSERT_EQUAL(size_t(0), log.size());
        log.log(sampleRecord()); // harmless
        log.flush();
    }

    void badPlacesAreRejected()
    {
        Log::AccessLog log;
        CPPUNIT_ASSERT_THROW(log.add("syslog:daemon.loud"), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(log.add("syslog:kitchen.info"), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(log.add("udp://host.example:514"), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(log.add("tcp://127.0.0.1:0"), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(log.add("ftp:/x"), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(log.add("access.log"), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(log.add("stdio:"), std::invalid_argument);
        CPPUNIT_ASSERT_EQUAL(size_t(0), log.size());
    }

    void reopenAfterRenameWritesNewFile()
    {
        LogTest::TempDir dir;
        Log::AccessLog log;
        log.add("stdio:" + dir.file("access.log"));
        log.log(sampleRecord());
        log.flush();
        CPPUNIT_ASSERT_EQUAL(0,
                             std::rename(dir.file("access.log").c_str(), dir.file("access.log.1").c_str()));
        log.reopen();
        auto second = sampleRecord();
        second.url = "http://second/";
        log.log(second);
        log.flush();
        CPPUNIT_ASSERT_EQUAL(size_t(1), countLines(LogTest::readAll(dir.file("access.log.1"))));
        const std::string now = LogTest::readAll(dir.file("access.log"));
        CPPUNIT_ASSERT_EQUAL(size_t(1), countLines(now));
        CPPUNIT_ASSERT(now.find("http://second/") != std::string::npos);
    }

    void rotateKeepsCopies()
    {
        LogTest::TempDir dir;
        Log::AccessLog log;
        log.add(dir.file("access.log"));
        log.log(sampleRecord());
        log.rotate(3); // flushes, renames to .0, reopens
        log.log(sampleRecord());
        log.flush();
        CPPUNIT_ASSERT_EQUAL(size_t(1), countLines(LogTest::readAll(dir.file("access.log.0"))));
        CPPUNIT_ASSERT_EQUAL(size_t(1), countLines(LogTest::readAll(dir.file("access.log"))));
    }

    void destructionFlushes()
    {
        LogTest::TempDir dir;
        {
            Log::AccessLog log;
            log.add("stdio:" + dir.file("access.log"));
            log.log(sampleRecord());
        }
        CPPUNIT_ASSERT_EQUAL(size_t(1), countLines(LogTest::readAll(dir.file("access.log"))));
    }

    void writeErrorIsLoggedOnce()
    {
        std::ostringstream cacheLog;
        Log::cacheLog().setStderrStream(&cacheLog);
        {
            Log::AccessLog log;
            Log::OutputSpec spec;
            spec.parsePlace("stdio:/dev/full");
            spec.dieOnError = false; // on-error=drop
            log.add(std::move(spec));
            for (int i = 0; i < 3; ++i) {
                log.log(sampleRecord());
                log.flush();
            }
        }
        Log::cacheLog().setStderrStream(nullptr);
        const std::string text = cacheLog.str();
        CPPUNIT_ASSERT_EQUAL_MESSAGE(text, size_t(1), countLines(text));
        CPPUNIT_ASSERT(text.find("/dev/full") != std::string::npos);
    }

    void filterChoosesTheLogs()
    {
        LogTest::TempDir dir;
        {
            Log::AccessLog log;
            Log::OutputSpec spec;
            spec.parsePlace("stdio:" + dir.file("posts.log"));
            spec.filter = std::make_shared<MethodFilter>("POST");
            log.add(std::move(spec));
            log.add("stdio:" + dir.file("all.log"));
            auto r = sampleRecord();
            log.log(r);
            r.method = "POST";
            log.log(r);
        }
        CPPUNIT_ASSERT_EQUAL(size_t(1), countLines(LogTest::readAll(dir.file("posts.log"))));
        CPPUNIT_ASSERT(LogTest::readAll(dir.file("posts.log")).find(" POST ") != std::string::npos);
        CPPUNIT_ASSERT_EQUAL(size_t(2), countLines(LogTest::readAll(dir.file("all.log"))));
    }

    void noneThatAcceptsEndsTheList()
    {
        LogTest::TempDir dir;
        {
            Log::AccessLog log;
            log.add("stdio:" + dir.file("before.log"));
            Log::OutputSpec none;
            none.parsePlace("none");
            none.filter = std::make_shared<MethodFilter>("POST");
            log.add(std::move(none));
            log.add("stdio:" + dir.file("after.log"));
            CPPUNIT_ASSERT_EQUAL(size_t(2), log.size());
            auto r = sampleRecord();
            log.log(r);
            r.method = "POST";
            log.log(r);
        }
        CPPUNIT_ASSERT_EQUAL(size_t(2), countLines(LogTest::readAll(dir.file("before.log"))));
        const std::string after = LogTest::readAll(dir.file("after.log"));
        CPPUNIT_ASSERT_EQUAL(size_t(1), countLines(after));
        CPPUNIT_ASSERT(after.find(" GET ") != std::string::npos);
    }

    void needsFollowFormatsAndMimeHeaders()
    {
        LogTest::TempDir dir;
        Log::AccessLog log;
        log.add("stdio:" + dir.file("a.log"), Log::AccessFormat::Common);
        CPPUNIT_ASSERT(!log.needs().requestHead && !log.needs().replyHead && !log.needs().requestUrl);
        log.setMimeHeaders(true);
        CPPUNIT_ASSERT(log.needs().requestHead && log.needs().replyHead && !log.needs().requestUrl);
        log.setMimeHeaders(false);
        Log::OutputSpec spec;
        spec.parsePlace("stdio:" + dir.file("b.log"));
        spec.format = Log::AccessFormat::Custom;
        spec.custom = parsed("%>ru");
        log.add(std::move(spec));
        CPPUNIT_ASSERT(!log.needs().requestHead && log.needs().requestUrl);
    }

    void customFormatCountsLines()
    {
        LogTest::TempDir dir;
        {
            Log::AccessLog log;
            Log::OutputSpec spec;
            spec.parsePlace("stdio:" + dir.file("a.log"));
            spec.format = Log::AccessFormat::Custom;
            spec.custom = parsed("%sn %rm");
            log.add(std::move(spec));
            for (int i = 0; i < 3; ++i)
                log.log(sampleRecord());
        }
        CPPUNIT_ASSERT_EQUAL(std::string("0 GET\n1 GET\n2 GET\n"), LogTest::readAll(dir.file("a.log")));
    }

    void udpSendsALinePerDatagram()
    {
        const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof(a);
        CPPUNIT_ASSERT_EQUAL(0, ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)));
        CPPUNIT_ASSERT_EQUAL(0, ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &length));
        Log::AccessLog log;
        log.add("udp://127.0.0.1:" + std::to_string(ntohs(a.sin_port)));
        log.log(sampleRecord());
        log.log(sampleRecord());
        char buffer[512];
        for (int i = 0; i < 2; ++i) {
            const ssize_t n = ::recv(fd, buffer, sizeof(buffer), 0);
            CPPUNIT_ASSERT_EQUAL(Log::formatSquid(sampleRecord()) + "\n", std::string(buffer, size_t(n)));
        }
        ::close(fd);
    }

    void bufferedLogsWaitForTheSecond()
    {
        LogTest::TempDir dir;
        Log::AccessLog log;
        log.setBuffered(true);
        log.add("stdio:" + dir.file("a.log"));
        log.flush(); // starts this second
        log.log(sampleRecord());
        log.flush();
        log.flush();
        // written at the latest once the monotonic second changed
        const auto deadline = std::time(nullptr) + 3;
        while (LogTest::readAll(dir.file("a.log")).empty() && std::time(nullptr) < deadline) {
            ::usleep(50 * 1000);
            log.flush();
        }
        CPPUNIT_ASSERT_EQUAL(size_t(1), countLines(LogTest::readAll(dir.file("a.log"))));
    }

    void bufferSizeBoundsTheBuffer()
    {
        LogTest::TempDir dir;
        Log::AccessLog log;
        Log::OutputSpec spec;
        spec.parsePlace("stdio:" + dir.file("a.log"));
        spec.bufferSize = 300; // about two lines
        log.add(std::move(spec));
        for (int i = 0; i < 5; ++i)
            log.log(sampleRecord());
        // no flush(): the buffer was written each time it filled
        CPPUNIT_ASSERT(countLines(LogTest::readAll(dir.file("a.log"))) >= 3);
    }

private:
    /// accepts the records of one method
    class MethodFilter : public Log::RecordFilter {
    public:
        explicit MethodFilter(std::string method) : method_(std::move(method)) {}
        bool accepts(const Log::AccessRecord& r) const override { return r.method == method_; }

    private:
        std::string method_;
    };

    static std::shared_ptr<const Log::Format> parsed(const std::string& text)
    {
        auto f = std::make_shared<Log::Format>();
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(f->parse(text, why, warnings));
        return f;
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestAccessLog);
