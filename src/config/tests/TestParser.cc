/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "config/Parser.h"
#include "config/Directives.h"
#include "config/SquidDirectives.h"
#include "config/tests/TempDir.h"

#include <chrono>
#include <fstream>

#include <cppunit/TestAssert.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace Config;

/// squid.conf into Settings: each directive's good and bad values, unknown
/// words, Squid-only words, fail-closed words.
class TestParser : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestParser);
    CPPUNIT_TEST(diagnosticFormat);
    CPPUNIT_TEST(sizesFillTheirFields);
    CPPUNIT_TEST(badSizeIsAnErrorWithFileAndLine);
    CPPUNIT_TEST(bareSizeWarns);
    CPPUNIT_TEST(timesFillTheirFields);
    CPPUNIT_TEST(badTimesAreErrors);
    CPPUNIT_TEST(lastValueWins);
    CPPUNIT_TEST(onOffIsSquidStyle);
    CPPUNIT_TEST(forwardedForValues);
    CPPUNIT_TEST(httpPortForms);
    CPPUNIT_TEST(httpPortBadValues);
    CPPUNIT_TEST(httpPortOptionsWarnOrFailClosed);
    CPPUNIT_TEST(requestBufferSizeForms);
    CPPUNIT_TEST(requestBufferSizeBounds);
    CPPUNIT_TEST(accessLogForms);
    CPPUNIT_TEST(accessLogBadFormatIsAnError);
    CPPUNIT_TEST(accessLogAclsWarnAndLogEverything);
    CPPUNIT_TEST(pathsResolveAgainstTheBaseDirectory);
    CPPUNIT_TEST(debugOptionsValidation);
    CPPUNIT_TEST(dnsNameserversForms);
    CPPUNIT_TEST(otherWordDirectives);
    CPPUNIT_TEST(aclAndHttpAccessDelegate);
    CPPUNIT_TEST(httpAccessWithUndefinedAclIsAnError);
    CPPUNIT_TEST(unknownWordIsAnErrorWithSuggestion);
    CPPUNIT_TEST(hugeUnknownWordsAreQuickAndShortened);
    CPPUNIT_TEST(squidOnlyWordWarnsOncePerName);
    CPPUNIT_TEST(looseningWordsAreErrors);
    CPPUNIT_TEST(everyErrorIsReported);
    CPPUNIT_TEST(missingValueIsAnError);
    CPPUNIT_TEST(missingFileIsAnErrorNamingIt);
    CPPUNIT_TEST(includedFileErrorsNameTheIncludedFile);
    CPPUNIT_TEST(logfileRotateCount);
    CPPUNIT_TEST(aclWarningsOnSuccessAreWarningsWithFileAndLine);
    CPPUNIT_TEST(httpAccessWithoutAclWarnsAndAddsNoRule);
    CPPUNIT_TEST(serviceNameDefaultsToCuttle);
    CPPUNIT_TEST(setServiceNameChangesTheMacro);
    CPPUNIT_TEST(badServiceNameFailsTheParse);
    CPPUNIT_TEST(conditionalsSelectDirectives);
    CPPUNIT_TEST(preprocessorErrorsFailTheParse);
    CPPUNIT_TEST(everySquidDefaultParses);
    CPPUNIT_TEST_SUITE_END();

    Parser parser;

    std::unique_ptr<Settings> ok(const std::string& text)
    {
        auto s = parser.parseText(text, "t.conf");
        std::string all;
        for (const auto& d : parser.diagnostics())
            all += d.format() + "\n";
        CPPUNIT_ASSERT_MESSAGE(all, s);
        CPPUNIT_ASSERT(!parser.hasErrors());
        return s;
    }

    /// Parses text that must fail; returns the error lines.
    std::vector<std::string> errors(const std::string& text)
    {
        const auto s = parser.parseText(text, "t.conf");
        CPPUNIT_ASSERT(!s);
        CPPUNIT_ASSERT(parser.hasErrors());
        std::vector<std::string> out;
        for (const auto& d : parser.diagnostics())
            if (d.isError())
                out.push_back(d.format());
        return out;
    }

    std::vector<std::string> warnings() const
    {
        std::vector<std::string> out;
        for (const auto& d : parser.diagnostics())
            if (!d.isError())
                out.push_back(d.format());
        return out;
    }

    static bool has(const std::string& text, const std::string& part)
    {
        return text.find(part) != std::string::npos;
    }

public:
    void diagnosticFormat()
    {
        Diagnostic e{Diagnostic::Level::Error, "a.conf", 3, "bad"};
        CPPUNIT_ASSERT_EQUAL(std::string("a.conf:3: bad"), e.format());
        Diagnostic w{Diagnostic::Level::Warning, "a.conf", 4, "hmm"};
        CPPUNIT_ASSERT_EQUAL(std::string("a.conf:4: WARNING: hmm"), w.format());
        Diagnostic f{Diagnostic::Level::Error, "a.conf", 0, "cannot open"};
        CPPUNIT_ASSERT_EQUAL(std::string("a.conf: cannot open"), f.format());
    }

    void sizesFillTheirFields()
    {
        const auto s = ok("cache_mem 64 MB\nmaximum_object_size_in_memory 1 MB\nread_ahead_gap 512 KB\n"
                          "request_header_max_size 32 KB\nreply_header_max_size 100 bytes\n");
        CPPUNIT_ASSERT_EQUAL(uint64_t(64) << 20, s->cacheMem);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1) << 20, s->maximumObjectSizeInMemory);
        CPPUNIT_ASSERT_EQUAL(uint64_t(512) << 10, s->readAheadGap);
        CPPUNIT_ASSERT_EQUAL(uint64_t(32) << 10, s->requestHeaderMaxSize);
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), s->replyHeaderMaxSize);
        CPPUNIT_ASSERT(parser.diagnostics().empty());
    }

    void badSizeIsAnErrorWithFileAndLine()
    {
        const auto e = errors("\ncache_mem 64KB\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), e.size());
        CPPUNIT_ASSERT(e[0].rfind("t.conf:2: bad cache_mem value", 0) == 0);
        CPPUNIT_ASSERT_EQUAL(size_t(1), errors("cache_mem -1 MB\n").size());
        CPPUNIT_ASSERT_EQUAL(size_t(1), errors("read_ahead_gap lots\n").size());
        CPPUNIT_ASSERT_EQUAL(size_t(1), errors("cache_mem 1 TB\n").size());
    }

    void bareSizeWarns()
    {
        const auto s = ok("cache_mem 4096\n");
        CPPUNIT_ASSERT_EQUAL(uint64_t(4096), s->cacheMem);
        CPPUNIT_ASSERT_EQUAL(size_t(1), warnings().size());
        CPPUNIT_ASSERT(warnings()[0].rfind("t.conf:1: WARNING: ", 0) == 0);
    }

    void timesFillTheirFields()
    {
        const auto s = ok("connect_timeout 30 seconds\nread_timeout 2 minutes\nrequest_timeout 1 hour\n"
                          "client_idle_pconn_timeout 500 milliseconds\nserver_idle_pconn_timeout 1 day\n"
                          "shutdown_lifetime 0 seconds\n");
        CPPUNIT_ASSERT_EQUAL(int64_t(30000), s->connectTimeout.count());
        CPPUNIT_ASSERT_EQUAL(int64_t(120000), s->readTimeout.count());
        CPPUNIT_ASSERT_EQUAL(int64_t(3600000), s->requestTimeout.count());
        CPPUNIT_ASSERT_EQUAL(int64_t(500), s->clientIdlePconnTimeout.count());
        CPPUNIT_ASSERT_EQUAL(int64_t(86400000), s->serverIdlePconnTimeout.count());
        CPPUNIT_ASSERT_EQUAL(int64_t(0), s->shutdownLifetime.count());
    }

    void badTimesAreErrors()
    {
        CPPUNIT_ASSERT_EQUAL(size_t(1), errors("connect_timeout 30\n").size());
        CPPUNIT_ASSERT_EQUAL(size_t(1), errors("read_timeout 30 sec\n").size());
        CPPUNIT_ASSERT_EQUAL(size_t(1), errors("request_timeout -1 seconds\n").size());
    }

    void lastValueWins()
    {
        const auto s = ok("cache_mem 1 MB\ncache_mem 2 MB\nvia off\nvia on\n");
        CPPUNIT_ASSERT_EQUAL(uint64_t(2) << 20, s->cacheMem);
        CPPUNIT_ASSERT(s->via);
    }

    void onOffIsSquidStyle()
    {
        CPPUNIT_ASSERT(!ok("via off\n")->via);
        CPPUNIT_ASSERT(ok("via on\n")->via);
        CPPUNIT_ASSERT(!ok("via disable\n")->via);
        CPPUNIT_ASSERT_EQUAL(size_t(1), warnings().size()); // deprecated, as in Squid
        errors("via yes\n");
        errors("via ON\n");
    }

    void forwardedForValues()
    {
        CPPUNIT_ASSERT(ForwardedFor::On == ok("forwarded_for on\n")->forwardedFor);
        CPPUNIT_ASSERT(ForwardedFor::Off == ok("forwarded_for off\n")->forwardedFor);
        CPPUNIT_ASSERT(ForwardedFor::Transparent == ok("forwarded_for transparent\n")->forwardedFor);
        CPPUNIT_ASSERT(ForwardedFor::Truncate == ok("forwarded_for truncate\n")->forwardedFor);
        CPPUNIT_ASSERT(ForwardedFor::Delete == ok("forwarded_for delete\n")->forwardedFor);
        errors("forwarded_for maybe\n");
    }

    void httpPortForms()
    {
        const auto s =
            ok("http_port 3128\nhttp_port 127.0.0.1:0\nhttp_port [::1]:8080\nhttp_port localhost:81\n");
        CPPUNIT_ASSERT_EQUAL(size_t(4), s->httpPorts.size());
        CPPUNIT_ASSERT_EQUAL(std::string(), s->httpPorts[0].host);
        CPPUNIT_ASSERT_EQUAL(uint16_t(3128), s->httpPorts[0].port);
        CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), s->httpPorts[1].host);
        CPPUNIT_ASSERT_EQUAL(uint16_t(0), s->httpPorts[1].port);
        CPPUNIT_ASSERT_EQUAL(std::string("::1"), s->httpPorts[2].host);
        CPPUNIT_ASSERT_EQUAL(uint16_t(8080), s->httpPorts[2].port);
        CPPUNIT_ASSERT_EQUAL(std::string("localhost"), s->httpPorts[3].host);
        CPPUNIT_ASSERT_EQUAL(std::string("t.conf:3"), s->httpPorts[2].origin);
    }

    void httpPortBadValues()
    {
        for (const char* bad :
             {"http_port 65536\n", "http_port ::1:3128\n", "http_port [::1\n", "http_port [x]:1\n",
              "http_port 1.2.3.4:\n", "http_port abc\n", "http_port\n"})
            CPPUNIT_ASSERT_EQUAL_MESSAGE(bad, size_t(1), errors(bad).size());
    }

    void httpPortOptionsWarnOrFailClosed()
    {
        const auto s = ok("http_port 3128 name=main tcpkeepalive\n");
        CPPUNIT_ASSERT_EQUAL(size_t(2), warnings().size());
        CPPUNIT_ASSERT_EQUAL(size_t(1), s->httpPorts.size());
        for (const char* opt :
             {"ssl-bump", "intercept", "transparent", "tproxy", "accel", "require-proxy-header"}) {
            const auto e = errors(std::string("http_port 3128 ") + opt + "\n");
            CPPUNIT_ASSERT_EQUAL_MESSAGE(opt, size_t(1), e.size());
        }
        CPPUNIT_ASSERT(has(errors("http_port 3128 foo=bar\n").at(0), "unknown http_port option"));
    }

    void requestBufferSizeForms()
    {
        auto s = ok("request_buffer_size 64 KB\n");
        CPPUNIT_ASSERT(!s->requestBufferSize.isAuto);
        CPPUNIT_ASSERT_EQUAL(uint64_t(64) << 10, s->requestBufferSize.fixed);
        s = ok("request_buffer_size auto min=4 KB max=256 KB\n");
        CPPUNIT_ASSERT(s->requestBufferSize.isAuto);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4) << 10, s->requestBufferSize.min);
        CPPUNIT_ASSERT_EQUAL(uint64_t(256) << 10, s->requestBufferSize.max);
        s = ok("request_buffer_size auto max=2MB\n");
        CPPUNIT_ASSERT_EQUAL(uint64_t(16) << 10, s->requestBufferSize.min);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2) << 20, s->requestBufferSize.max);
        s = ok("request_buffer_size auto\n");
        CPPUNIT_ASSERT_EQUAL(uint64_t(1) << 20, s->requestBufferSize.max);
    }

    void requestBufferSizeBounds()
    {
        CPPUNIT_ASSERT(has(errors("request_buffer_size auto min=1 MB max=64 KB\n").at(0), "above max"));
        CPPUNIT_ASSERT(has(errors("request_buffer_size 8 MB\n").at(0), "256 bytes to 4 MB"));
        errors("request_buffer_size 100 bytes\n");
        errors("request_buffer_size auto max=5 MB\n");
        errors("request_buffer_size auto size=1 MB\n");
        errors("request_buffer_size auto min=x\n");
        ok("request_buffer_size auto min=256 bytes max=4 MB\n");
    }

    void accessLogForms()
    {
        auto s = ok("access_log stdio:/var/log/a.log\naccess_log daemon:/var/log/b.log common\n"
                    "access_log /var/log/c.log logformat=squid\n");
        CPPUNIT_ASSERT_EQUAL(size_t(3), s->accessLogs.size());
        CPPUNIT_ASSERT(AccessLogSpec::Kind::Stdio == s->accessLogs[0].kind);
        CPPUNIT_ASSERT_EQUAL(std::string("squid"), s->accessLogs[0].format);
        CPPUNIT_ASSERT(AccessLogSpec::Kind::Daemon == s->accessLogs[1].kind);
        CPPUNIT_ASSERT_EQUAL(std::string("common"), s->accessLogs[1].format);
        CPPUNIT_ASSERT_EQUAL(std::string("/var/log/c.log"), s->accessLogs[2].path);
        s = ok("access_log none\n");
        CPPUNIT_ASSERT(s->accessLogs.empty()); // and the default is not added
    }

    void accessLogBadFormatIsAnError()
    {
        CPPUNIT_ASSERT(
            has(errors("access_log stdio:/x.log fancy\n").at(0), "unknown access_log format 'fancy'"));
        errors("access_log stdio:\n");
        errors("access_log ftp:/x\n");
        errors("access_log stdio:/x squid foo=bar\n");
    }

    void accessLogAclsWarnAndLogEverything()
    {
        const auto s = ok("acl lan src 10.0.0.0/8\naccess_log stdio:/x.log squid lan\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), s->accessLogs.size());
        CPPUNIT_ASSERT_EQUAL(size_t(1), warnings().size());
        CPPUNIT_ASSERT(has(errors("access_log stdio:/x.log squid nosuchacl\n").at(0), "nosuchacl"));
    }

    void pathsResolveAgainstTheBaseDirectory()
    {
        parser.setBaseDirectory("/start/here");
        const auto s = ok("cache_log var/cache.log\npid_filename none\naccess_log stdio:var/a.log\n"
                          "coredump_dir /abs\nhosts_file hosts\nerror_directory errors\n");
        CPPUNIT_ASSERT_EQUAL(std::string("/start/here/var/cache.log"), s->cacheLog);
        CPPUNIT_ASSERT_EQUAL(std::string("none"), s->pidFilename);
        CPPUNIT_ASSERT_EQUAL(std::string("/start/here/var/a.log"), s->accessLogs.at(0).path);
        CPPUNIT_ASSERT_EQUAL(std::string("/abs"), s->coredumpDir);
        CPPUNIT_ASSERT_EQUAL(std::string("/start/here/hosts"), s->hostsFile);
        CPPUNIT_ASSERT_EQUAL(std::string("/start/here/errors"), s->errorDirectory);
        errors("cache_log none\n");
    }

    void debugOptionsValidation()
    {
        CPPUNIT_ASSERT_EQUAL(std::string("ALL,1 33,2 rotate=3"),
                             ok("debug_options ALL,1 33,2 rotate=3\n")->debugOptions);
        for (const char* bad :
             {"debug_options ALL\n", "debug_options ALL,x\n", "debug_options 200,1\n",
              "debug_options ALL,10\n", "debug_options rotate=x\n", "debug_options foo,1\n"})
            CPPUNIT_ASSERT_EQUAL_MESSAGE(bad, size_t(1), errors(bad).size());
    }

    void dnsNameserversForms()
    {
        TempDir dir;
        dir.write("ns.txt", "10.0.0.2\n");
        parser.setBaseDirectory(dir.path());
        const auto s =
            ok("dns_nameservers 127.0.0.1 127.0.0.1:5353\ndns_nameservers [::1]:53 ::1 \"ns.txt\"\n");
        CPPUNIT_ASSERT((s->dnsNameservers == std::vector<std::string>{"127.0.0.1", "127.0.0.1:5353",
                                                                      "[::1]:53", "::1", "10.0.0.2"}));
        for (const char* bad : {"dns_nameservers dns.example\n", "dns_nameservers 1.2.3.4:99999\n",
                                "dns_nameservers [::1\n", "dns_nameservers \"missing.txt\"\n"})
            CPPUNIT_ASSERT_EQUAL_MESSAGE(bad, size_t(1), errors(bad).size());
    }

    void otherWordDirectives()
    {
        const auto s = ok("visible_hostname proxy.example.com\ncache_effective_user nobody\n");
        CPPUNIT_ASSERT_EQUAL(std::string("proxy.example.com"), s->visibleHostname);
        CPPUNIT_ASSERT_EQUAL(std::string("nobody"), s->cacheEffectiveUser);
        errors("visible_hostname bad/name\n");
    }

    void aclAndHttpAccessDelegate()
    {
        const auto s = ok("acl lan src 10.0.0.0/8\nacl lan src 192.168.0.0/16\nhttp_access allow lan\n"
                          "http_access deny all\n");
        CPPUNIT_ASSERT(s->acls.find("lan"));
        CPPUNIT_ASSERT_EQUAL(size_t(2), s->httpAccess.size());
        errors("acl lan nosuchtype 1\n");
    }

    void httpAccessWithUndefinedAclIsAnError()
    {
        const auto e = errors("http_access allow nosuchacl\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), e.size());
        CPPUNIT_ASSERT(e[0].rfind("t.conf:1: ", 0) == 0);
    }

    void unknownWordIsAnErrorWithSuggestion()
    {
        const auto e = errors("acl lan src 10.0.0.0/8\nhttp_acess allow lan\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), e.size());
        CPPUNIT_ASSERT_EQUAL(
            std::string("t.conf:2: unknown directive 'http_acess' (did you mean 'http_access'?)"), e[0]);
        CPPUNIT_ASSERT_EQUAL(std::string("t.conf:1: unknown directive 'zzzzzz'"), errors("zzzzzz 1\n").at(0));
    }

    void hugeUnknownWordsAreQuickAndShortened()
    {
        // 200 lines of a 100 KB word: the suggestion search took about 4 s
        // per line (edit distance to every directive name)
        std::string text;
        const std::string word(100000, 'x');
        for (int i = 0; i < 200; ++i)
            text += word + " 1\n";
        const auto start = std::chrono::steady_clock::now();
        const auto e = errors(text);
        CPPUNIT_ASSERT(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
        CPPUNIT_ASSERT_EQUAL(size_t(200), e.size());
        CPPUNIT_ASSERT_EQUAL("t.conf:1: unknown directive '" + word.substr(0, 64) + "...'", e[0]);
    }

    void squidOnlyWordWarnsOncePerName()
    {
        const auto s =
            ok("refresh_pattern ^ftp: 1440 20% 10080\nbuffered_logs on\nrefresh_pattern . 0 20% 4320\n"
               "refresh_pattern x 0 0% 0\n");
        const auto w = warnings();
        CPPUNIT_ASSERT_EQUAL(size_t(2), w.size());
        CPPUNIT_ASSERT(w[0].rfind("t.conf:1: WARNING: 'refresh_pattern'", 0) == 0);
        CPPUNIT_ASSERT(has(w[0], "2 more lines"));
        CPPUNIT_ASSERT(w[1].rfind("t.conf:2: WARNING: 'buffered_logs'", 0) == 0);
    }

    void looseningWordsAreErrors()
    {
        for (const char* word :
             {"auth_param", "http_reply_access", "ssl_bump", "adapted_http_access", "miss_access"}) {
            const auto e = errors(std::string(word) + " whatever\n");
            CPPUNIT_ASSERT_EQUAL_MESSAGE(word, size_t(1), e.size());
            CPPUNIT_ASSERT(has(e[0], "loosen access control"));
            CPPUNIT_ASSERT(warnings().empty());
        }
    }

    void everyErrorIsReported()
    {
        const auto e = errors("cache_mem x\nvia maybe\nfoo_bar\nssl_bump peek all\nconnect_timeout 5\n");
        CPPUNIT_ASSERT_EQUAL(size_t(5), e.size());
        for (unsigned i = 0; i < 5; ++i)
            CPPUNIT_ASSERT(e[i].rfind("t.conf:" + std::to_string(i + 1) + ": ", 0) == 0);
    }

    void missingValueIsAnError()
    {
        for (const char* bad :
             {"cache_mem\n", "via\n", "connect_timeout\n", "cache_log\n", "access_log\n", "debug_options\n",
              "dns_nameservers\n", "forwarded_for\n", "request_buffer_size\n"})
            CPPUNIT_ASSERT_EQUAL_MESSAGE(bad, size_t(1), errors(bad).size());
    }

    void missingFileIsAnErrorNamingIt()
    {
        CPPUNIT_ASSERT(!parser.parseFile("/nonexistent-cuttle/squid.conf"));
        CPPUNIT_ASSERT(parser.hasErrors());
        CPPUNIT_ASSERT(parser.diagnostics().at(0).format().rfind("/nonexistent-cuttle/squid.conf: ", 0) == 0);
    }

    void includedFileErrorsNameTheIncludedFile()
    {
        TempDir dir;
        dir.write("conf.d/a.conf", "\n\ncache_mem lots\n");
        const std::string main =
            dir.write("squid.conf", "via on\ninclude conf.d/*.conf\nhttp_acess allow all\n");
        parser.setBaseDirectory(dir.path());
        CPPUNIT_ASSERT(!parser.parseFile(main));
        const auto& d = parser.diagnostics();
        CPPUNIT_ASSERT_EQUAL(size_t(2), d.size());
        CPPUNIT_ASSERT(d[0].format().rfind("conf.d/a.conf:3: ", 0) == 0);
        CPPUNIT_ASSERT(d[1].format().rfind(main + ":3: ", 0) == 0);
    }

    void logfileRotateCount()
    {
        CPPUNIT_ASSERT_EQUAL(10u, ok("")->logfileRotate); // Squid's default
        CPPUNIT_ASSERT_EQUAL(0u, ok("logfile_rotate 0\n")->logfileRotate);
        CPPUNIT_ASSERT(parser.diagnostics().empty()); // no "not implemented" warning any more
        CPPUNIT_ASSERT_EQUAL(3u, ok("logfile_rotate 7\nlogfile_rotate 3\n")->logfileRotate);
        CPPUNIT_ASSERT_EQUAL(999999999u, ok("logfile_rotate 999999999\n")->logfileRotate);
        CPPUNIT_ASSERT_EQUAL(2u, ok("logfile_rotate 2 x\n")->logfileRotate);
        CPPUNIT_ASSERT_EQUAL(size_t(1), warnings().size());
        for (const char* bad : {"-1", "abc", "5.5", "0x10", "1000000000", "+3"}) {
            const auto e = errors(std::string("\nlogfile_rotate ") + bad + "\n");
            CPPUNIT_ASSERT_EQUAL_MESSAGE(bad, size_t(1), e.size());
            CPPUNIT_ASSERT_MESSAGE(bad, e[0].rfind("t.conf:2: bad logfile_rotate value", 0) == 0);
        }
        CPPUNIT_ASSERT_EQUAL(size_t(1), errors("logfile_rotate\n").size());
    }

    void aclWarningsOnSuccessAreWarningsWithFileAndLine()
    {
        TempDir dir;
        const std::string empty = dir.write("empty.txt", "# nothing here\n");
        const auto s = ok("\nacl nothing src \"" + empty + "\"\n");
        CPPUNIT_ASSERT(s->acls.find("nothing"));
        const auto w = warnings();
        CPPUNIT_ASSERT_EQUAL(size_t(1), w.size());
        CPPUNIT_ASSERT_MESSAGE(w[0], w[0].rfind("t.conf:2: WARNING: acl: ", 0) == 0);
        CPPUNIT_ASSERT_MESSAGE(w[0], has(w[0], "empty acl"));
        // a clean acl line says nothing
        ok("acl lan src 10.0.0.0/8\n");
        CPPUNIT_ASSERT(parser.diagnostics().empty());
    }

    void httpAccessWithoutAclWarnsAndAddsNoRule()
    {
        const auto s = ok("acl lan src 10.0.0.0/8\nhttp_access allow\nhttp_access deny lan\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), s->httpAccess.size());
        const auto w = warnings();
        CPPUNIT_ASSERT_EQUAL(size_t(1), w.size());
        CPPUNIT_ASSERT_MESSAGE(w[0], w[0].rfind("t.conf:2: WARNING: http_access: ", 0) == 0);
    }

    void serviceNameDefaultsToCuttle()
    {
        Parser fresh;
        CPPUNIT_ASSERT_EQUAL(std::string("cuttle"), fresh.serviceName());
        const auto s = fresh.parseText("pid_filename /run/${service_name}-${process_name}.pid\n", "t.conf");
        CPPUNIT_ASSERT(s);
        CPPUNIT_ASSERT_EQUAL(std::string("/run/cuttle-cuttle.pid"), s->pidFilename);
    }

    void setServiceNameChangesTheMacro()
    {
        parser.setServiceName("edge2");
        const auto s =
            ok("pid_filename /run/${service_name}.pid\ncache_log /var/log/${service_name}/cache.log\n");
        CPPUNIT_ASSERT_EQUAL(std::string("/run/edge2.pid"), s->pidFilename);
        CPPUNIT_ASSERT_EQUAL(std::string("/var/log/edge2/cache.log"), s->cacheLog);
        // and it stays for the next parse (reconfigure)
        CPPUNIT_ASSERT_EQUAL(std::string("/run/edge2.pid"),
                             ok("pid_filename /run/${service_name}.pid\n")->pidFilename);
    }

    void badServiceNameFailsTheParse()
    {
        std::string why;
        CPPUNIT_ASSERT(Parser::IsValidServiceName("squid2", why));
        CPPUNIT_ASSERT(Parser::IsValidServiceName(std::string(32, 'a'), why));
        for (const std::string& bad : {std::string(), std::string("a-b"), std::string("a b"),
                                       std::string("a.b"), std::string("../x"), std::string(33, 'a')}) {
            why.clear();
            CPPUNIT_ASSERT_MESSAGE(bad, !Parser::IsValidServiceName(bad, why));
            CPPUNIT_ASSERT_MESSAGE(bad, !why.empty());
        }
        parser.setServiceName("a/b");
        const auto e = errors("via on\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), e.size());
        CPPUNIT_ASSERT(has(e[0], "-n option"));
    }

    void conditionalsSelectDirectives()
    {
        const auto s = ok("if ${process_number} = 1\n"
                          "  cache_mem 1 MB\n"
                          "else\n"
                          "  cache_mem 2 MB\n"
                          "  http_access allow nosuchacl\n"
                          "  nosuchdirective\n"
                          "endif\n"
                          "if false\n"
                          "  logfile_rotate 1\n"
                          "endif\n");
        CPPUNIT_ASSERT_EQUAL(uint64_t(1) << 20, s->cacheMem);
        CPPUNIT_ASSERT_EQUAL(10u, s->logfileRotate); // a dropped line leaves the default
        CPPUNIT_ASSERT(parser.diagnostics().empty());
    }

    void preprocessorErrorsFailTheParse()
    {
        const auto e = errors("via on\nendif\nvisible_hostname ${hostname}\nif true\n");
        CPPUNIT_ASSERT_EQUAL(size_t(3), e.size());
        CPPUNIT_ASSERT(e[0].rfind("t.conf:2: ", 0) == 0);
        CPPUNIT_ASSERT(e[1].rfind("t.conf:3: unknown macro '${hostname}'", 0) == 0);
        CPPUNIT_ASSERT(e[2].rfind("t.conf:4: ", 0) == 0);
    }

    /// Squid 5.7's documented default of each of its directives
    /// (squid-5.7-defaults.txt): alone, and all in one file, each gives
    /// warnings at most, unless the directive is one that fails closed.
    void everySquidDefaultParses()
    {
        std::ifstream in(CONFIG_TEST_DATA_DIR "/squid-5.7-defaults.txt");
        CPPUNIT_ASSERT_MESSAGE("cannot read " CONFIG_TEST_DATA_DIR "/squid-5.7-defaults.txt", in);
        std::string line, all;
        size_t count = 0;
        while (std::getline(in, line)) {
            if (line.empty() || line[0] == '#')
                continue;
            ++count;
            const std::string name = line.substr(0, line.find(' '));
            CPPUNIT_ASSERT_MESSAGE(name, IsSquidDirective(name));
            const auto s = parser.parseText(line + "\n", "defaults.conf");
            std::string said;
            for (const auto& d : parser.diagnostics())
                said += d.format() + "\n";
            if (LooseningDirectiveReason(name)) {
                CPPUNIT_ASSERT_MESSAGE(line + "\n" + said, !s);
                continue;
            }
            CPPUNIT_ASSERT_MESSAGE(line + "\n" + said, s);
            CPPUNIT_ASSERT_MESSAGE(line + "\n" + said, !parser.hasErrors());
            all += line + "\n";
        }
        CPPUNIT_ASSERT(count > 150); // the whole list, not a truncated file
        CPPUNIT_ASSERT(ok(all));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestParser);
