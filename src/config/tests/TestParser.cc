/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "config/Parser.h"
#include "config/Directives.h"
#include "config/Loosening.h"
#include "config/SquidDirectives.h"
#include "config/tests/ParseChecks.h"
#include "base/tests/TempDir.h"

#include <chrono>
#include <fstream>

#include <cppunit/TestAssert.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace Config;

/// squid.conf into Settings: each directive's good and bad values, unknown
/// words, Squid-only words, fail-closed words.
class TestParser : public CppUnit::TestFixture, public ParseChecks {
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
    CPPUNIT_TEST(httpPortIntercept);
    CPPUNIT_TEST(requestBufferSizeForms);
    CPPUNIT_TEST(requestBufferSizeBounds);
    CPPUNIT_TEST(accessLogForms);
    CPPUNIT_TEST(accessLogBadFormatIsAnError);
    CPPUNIT_TEST(accessLogAclsChooseTheRequests);
    CPPUNIT_TEST(pathsResolveAgainstTheBaseDirectory);
    CPPUNIT_TEST(debugOptionsValidation);
    CPPUNIT_TEST(dnsNameserversForms);
    CPPUNIT_TEST(otherWordDirectives);
    CPPUNIT_TEST(effectiveUserAndGroupMustExist);
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
    CPPUNIT_TEST(refreshPatternFields);
    CPPUNIT_TEST(refreshPatternFirstMatchWins);
    CPPUNIT_TEST(refreshPatternBuiltInDefault);
    CPPUNIT_TEST(refreshPatternCropsAgesAsSquid);
    CPPUNIT_TEST(refreshPatternBadLinesAreErrors);
    CPPUNIT_TEST(refreshPatternObsoleteOptionsWarn);
    CPPUNIT_TEST(cacheRulesDelegateToAccessLists);
    CPPUNIT_TEST(cacheRulesFailClosed);
    CPPUNIT_TEST(cacheSizesTimesAndSwitches);
    CPPUNIT_TEST(quickAbortAsSquidReadsIt);
    CPPUNIT_TEST(memoryReplacementPolicyValues);
    CPPUNIT_TEST(cacheReplacementPolicyAppliesBelow);
    CPPUNIT_TEST(rangeOffsetLimitForms);
    CPPUNIT_TEST(replyBodyMaxSizeFirstMatchingLine);
    CPPUNIT_TEST(requestBodyMaxSizeIsOneSize);
    CPPUNIT_TEST(indirectClientDirectives);
    CPPUNIT_TEST(cacheDefaultsAreSquids);
    CPPUNIT_TEST(cacheDirectivesAreNoLongerSquidOnly);
    CPPUNIT_TEST_SUITE_END();

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
        const auto s = ok("http_port 3128 name=main tcpkeepalive\nhttp_port 127.0.0.1:3129\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), warnings().size()); // tcpkeepalive; name= is implemented
        CPPUNIT_ASSERT_EQUAL(size_t(2), s->httpPorts.size());
        CPPUNIT_ASSERT_EQUAL(std::string("main"), s->httpPorts[0].name);
        CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1:3129"), s->httpPorts[1].name); // Squid's default
        for (const char* opt : {"ssl-bump", "tproxy", "accel", "require-proxy-header"}) {
            const auto e = errors(std::string("http_port 3128 ") + opt + "\n");
            CPPUNIT_ASSERT_EQUAL_MESSAGE(opt, size_t(1), e.size());
        }
        CPPUNIT_ASSERT(has(errors("http_port 3128 foo=bar\n").at(0), "unknown http_port option"));
    }

    void httpPortIntercept()
    {
        // Squid 5.7 takes `transparent` as `intercept`, without a warning
        for (const char* opt : {"intercept", "transparent"}) {
            const auto s = ok(std::string("http_port 3128\nhttp_port 3129 ") + opt + "\n");
            CPPUNIT_ASSERT(warnings().empty());
            CPPUNIT_ASSERT(!s->httpPorts.at(0).intercept);
            CPPUNIT_ASSERT(s->httpPorts.at(1).intercept);
        }
        CPPUNIT_ASSERT(!ok("http_port 3128\n")->hostVerifyStrict);
        CPPUNIT_ASSERT(ok("host_verify_strict on\n")->hostVerifyStrict);
        // the other interception mode is refused in either order, with Squid's reason
        CPPUNIT_ASSERT(
            has(errors("http_port 3129 intercept tproxy\n").at(0), "TPROXY option requires its own"));
        CPPUNIT_ASSERT(
            has(errors("http_port 3129 tproxy intercept\n").back(), "Intercept mode requires its own"));
        CPPUNIT_ASSERT(has(errors("http_port 3129 tproxy\n").at(0), "'tproxy' is not implemented"));
        CPPUNIT_ASSERT(!errors("http_port 3129 intercept accel\n").empty());
        CPPUNIT_ASSERT(has(errors("http_port 3129 intercept=yes\n").at(0), "unknown http_port option"));
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
        CPPUNIT_ASSERT_EQUAL(std::string("stdio"), s->accessLogs[0].output.module);
        CPPUNIT_ASSERT_EQUAL(std::string("squid"), s->accessLogs[0].format);
        CPPUNIT_ASSERT_EQUAL(std::string("daemon"), s->accessLogs[1].output.module);
        CPPUNIT_ASSERT_EQUAL(std::string("common"), s->accessLogs[1].format);
        CPPUNIT_ASSERT_EQUAL(std::string("/var/log/c.log"), s->accessLogs[2].output.place);
        s = ok("access_log none\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), s->accessLogs.size()); // and the default is not added
        CPPUNIT_ASSERT_EQUAL(std::string("none"), s->accessLogs[0].output.module);
        s = ok("access_log syslog:local4.notice\naccess_log tcp://127.0.0.1:5140 common\naccess_log "
               "udp://[::1]:514\n");
        CPPUNIT_ASSERT_EQUAL(std::string("local4.notice"), s->accessLogs[0].output.place);
        CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1:5140"), s->accessLogs[1].output.place);
        CPPUNIT_ASSERT_EQUAL(std::string("udp"), s->accessLogs[2].output.module);
    }

    void accessLogBadFormatIsAnError()
    {
        // as in Squid 5.7, a word that names no format is an acl
        CPPUNIT_ASSERT(has(errors("access_log stdio:/x.log fancy\n").at(0), "acl fancy is not defined"));
        errors("access_log stdio:\n");
        errors("access_log ftp:/x\n");
        errors("access_log stdio:/x squid foo=bar\n");
        errors("access_log syslog:local9.info\n");
        errors("access_log tcp://nowhere.example:5140\n");
        errors("access_log relative.log\n");
    }

    void accessLogAclsChooseTheRequests()
    {
        const auto s = ok("acl lan src 10.0.0.0/8\naccess_log stdio:/x.log squid lan\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), s->accessLogs.size());
        CPPUNIT_ASSERT(warnings().empty());
        Acl::Checklist facts;
        facts.srcAddr = *Acl::Address::Parse("10.1.2.3");
        CPPUNIT_ASSERT(s->accessLogs[0].matches(facts));
        facts.srcAddr = *Acl::Address::Parse("192.0.2.1");
        CPPUNIT_ASSERT(!s->accessLogs[0].matches(facts));
        CPPUNIT_ASSERT(has(errors("access_log stdio:/x.log squid nosuchacl\n").at(0), "nosuchacl"));
    }

    void pathsResolveAgainstTheBaseDirectory()
    {
        parser.setBaseDirectory("/start/here");
        const auto s = ok("cache_log var/cache.log\npid_filename none\naccess_log stdio:var/a.log\n"
                          "coredump_dir /abs\nhosts_file hosts\nerror_directory errors\n");
        CPPUNIT_ASSERT_EQUAL(std::string("/start/here/var/cache.log"), s->cacheLog);
        CPPUNIT_ASSERT_EQUAL(std::string("none"), s->pidFilename);
        CPPUNIT_ASSERT_EQUAL(std::string("/start/here/var/a.log"), s->accessLogs.at(0).output.place);
        CPPUNIT_ASSERT_EQUAL(std::string("/abs"), s->coredumpDir);
        CPPUNIT_ASSERT_EQUAL(std::string("/start/here/hosts"), s->hostsFile);
        CPPUNIT_ASSERT_EQUAL(std::string("/start/here/errors"), s->errorDirectory);
        CPPUNIT_ASSERT_EQUAL(std::string("none"), ok("cache_log none\n")->cacheLog);
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

    /// as Squid's configure step: a user or group the system does not know,
    /// or root, fails at FILE:LINE (so -k parse says so, not the drop)
    void effectiveUserAndGroupMustExist()
    {
        const auto s = ok("cache_effective_user nobody\ncache_effective_group 4242\n");
        CPPUNIT_ASSERT_EQUAL(std::string("4242"), s->cacheEffectiveGroup);
        CPPUNIT_ASSERT(ok("cache_effective_group root\n")->cacheEffectiveUser == "proxy"); // the default
        CPPUNIT_ASSERT((errors("\ncache_effective_user cuttle-no-such-user\n") ==
                        std::vector<std::string>{"t.conf:2: cache_effective_user: no such user "
                                                 "'cuttle-no-such-user' in the user database"}));
        CPPUNIT_ASSERT(
            (errors("cache_effective_user root\n") ==
             std::vector<std::string>{"t.conf:1: cache_effective_user root is root (user id 0): cuttle "
                                      "does not serve as root; name an unprivileged user"}));
        CPPUNIT_ASSERT((errors("cache_effective_group cuttle-no-such-group\n") ==
                        std::vector<std::string>{"t.conf:1: cache_effective_group: no such group "
                                                 "'cuttle-no-such-group' in the group database"}));
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
        // two edits away is suggested, three are not (the search stops a
        // name at the first row of its table whose every cell reached 3)
        CPPUNIT_ASSERT_EQUAL(
            std::string("t.conf:1: unknown directive 'htp_acess' (did you mean 'http_access'?)"),
            errors("htp_acess allow all\n").at(0));
        CPPUNIT_ASSERT_EQUAL(std::string("t.conf:1: unknown directive 'htp_aces'"),
                             errors("htp_aces allow all\n").at(0));
        CPPUNIT_ASSERT_EQUAL(
            std::string("t.conf:1: unknown directive 'xhttp_acces' (did you mean 'http_access'?)"),
            errors("xhttp_acces allow all\n").at(0));
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
        const auto s = ok("half_closed_clients off\nclient_db on\nhalf_closed_clients on\n"
                          "half_closed_clients off\n");
        const auto w = warnings();
        CPPUNIT_ASSERT_EQUAL(size_t(2), w.size());
        CPPUNIT_ASSERT(w[0].rfind("t.conf:1: WARNING: 'half_closed_clients'", 0) == 0);
        CPPUNIT_ASSERT(has(w[0], "2 more lines"));
        CPPUNIT_ASSERT(w[1].rfind("t.conf:2: WARNING: 'client_db'", 0) == 0);
    }

    void looseningWordsAreErrors()
    {
        for (const char* word : {"mark_client_packet", "adaptation_access"}) {
            const auto e = errors(std::string(word) + " whatever\n");
            CPPUNIT_ASSERT_EQUAL_MESSAGE(word, size_t(1), e.size());
            CPPUNIT_ASSERT(has(e[0], "loosen access control"));
            CPPUNIT_ASSERT(warnings().empty());
        }
    }

    void everyErrorIsReported()
    {
        const auto e =
            errors("cache_mem x\nvia maybe\nfoo_bar\nadaptation_access svc allow all\nconnect_timeout 5\n");
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
            // Squid's default of a refused directive is its harmless form, except
            // umask: cuttle applies none, so even Squid's 027 would be looser ignored
            const SquidOnlyRule* rule = FindSquidOnlyRule(name);
            if (rule && rule->refused && name == "umask") {
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

    // The cache's directives.

    void refreshPatternFields()
    {
        const auto s =
            ok("refresh_pattern ^ftp:\t\t1440\t20%\t10080\n"
               "refresh_pattern -i (/cgi-bin/|\\?) 0\t0%\t0\n"
               "refresh_pattern -i \\.deb$ 60 150 120 override-expire override-lastmod "
               "reload-into-ims ignore-reload ignore-no-store ignore-private refresh-ims store-stale "
               "max-stale=600\n"
               "refresh_pattern . 0 20% 4320\n");
        CPPUNIT_ASSERT(parser.diagnostics().empty());
        const auto& p = s->refreshPatterns;
        CPPUNIT_ASSERT_EQUAL(size_t(4), p.size());
        CPPUNIT_ASSERT_EQUAL(std::string("^ftp:"), p[0].pattern);
        CPPUNIT_ASSERT(!p[0].caseInsensitive);
        CPPUNIT_ASSERT_EQUAL(int64_t(1440 * 60), p[0].min);
        CPPUNIT_ASSERT_EQUAL(int64_t(20), p[0].percent);
        CPPUNIT_ASSERT_EQUAL(int64_t(10080 * 60), p[0].max);
        CPPUNIT_ASSERT_EQUAL(int64_t(-1), p[0].maxStale);
        CPPUNIT_ASSERT(!p[0].overrideExpire && !p[0].storeStale && !p[0].refreshIms);
        CPPUNIT_ASSERT_EQUAL(std::string("t.conf:1"), p[0].origin);
        CPPUNIT_ASSERT_EQUAL(std::string("(/cgi-bin/|\\?)"), p[1].pattern);
        CPPUNIT_ASSERT(p[1].caseInsensitive);
        CPPUNIT_ASSERT_EQUAL(int64_t(0), p[1].percent);
        // every option, a percent over 100 without its %
        CPPUNIT_ASSERT_EQUAL(int64_t(150), p[2].percent);
        CPPUNIT_ASSERT(p[2].overrideExpire && p[2].overrideLastmod && p[2].reloadIntoIms &&
                       p[2].ignoreReload && p[2].ignoreNoStore && p[2].ignorePrivate && p[2].refreshIms &&
                       p[2].storeStale);
        CPPUNIT_ASSERT_EQUAL(int64_t(600), p[2].maxStale);
        CPPUNIT_ASSERT_EQUAL(std::string("t.conf:4"), p[3].origin);
    }

    void refreshPatternFirstMatchWins()
    {
        const auto s = ok("refresh_pattern ^ftp: 1440 20% 10080\nrefresh_pattern ^gopher: 1440 0% 1440\n"
                          "refresh_pattern -i (/cgi-bin/|\\?) 0 0% 0\nrefresh_pattern . 0 20% 4320\n");
        CPPUNIT_ASSERT_EQUAL(std::string("^ftp:"), s->refreshPatternFor("ftp://example.com/x").pattern);
        CPPUNIT_ASSERT_EQUAL(std::string("^gopher:"), s->refreshPatternFor("gopher://example.com/").pattern);
        CPPUNIT_ASSERT_EQUAL(std::string("(/cgi-bin/|\\?)"),
                             s->refreshPatternFor("http://example.com/CGI-BIN/x").pattern);
        CPPUNIT_ASSERT_EQUAL(std::string("(/cgi-bin/|\\?)"),
                             s->refreshPatternFor("http://example.com/a?b=1").pattern);
        CPPUNIT_ASSERT_EQUAL(std::string("."), s->refreshPatternFor("http://example.com/a.html").pattern);
        // case-sensitive without -i: "FTP:" is not "^ftp:"
        CPPUNIT_ASSERT_EQUAL(std::string("."), s->refreshPatternFor("FTP://example.com/").pattern);
        // ^ anchors at the start of the URL, not of a line in it
        CPPUNIT_ASSERT_EQUAL(std::string("."), s->refreshPatternFor("http://x/ftp:").pattern);
    }

    void refreshPatternBuiltInDefault()
    {
        const auto s = ok("refresh_pattern ^ftp: 1440 20% 10080\n");
        const RefreshPattern& d = s->refreshPatternFor("http://example.com/");
        CPPUNIT_ASSERT(!d.regex);
        CPPUNIT_ASSERT_EQUAL(int64_t(0), d.min);
        CPPUNIT_ASSERT_EQUAL(int64_t(20), d.percent);
        CPPUNIT_ASSERT_EQUAL(int64_t(4320 * 60), d.max);
        CPPUNIT_ASSERT_EQUAL(int64_t(-1), d.maxStale);
        // no line at all: the built-in rule for every URL, as in Squid
        const auto empty = ok("");
        CPPUNIT_ASSERT(empty->refreshPatterns.empty());
        CPPUNIT_ASSERT_EQUAL(int64_t(4320 * 60), empty->refreshPatternFor("ftp://x/").max);
    }

    void refreshPatternCropsAgesAsSquid()
    {
        const auto s = ok("refresh_pattern a -5 20% 600000\nrefresh_pattern b 525600 0% 525600\n");
        CPPUNIT_ASSERT_EQUAL(int64_t(0), s->refreshPatterns[0].min);
        CPPUNIT_ASSERT_EQUAL(int64_t(525600) * 60, s->refreshPatterns[0].max);
        CPPUNIT_ASSERT_EQUAL(int64_t(525600) * 60, s->refreshPatterns[1].min);
        const auto w = warnings();
        CPPUNIT_ASSERT_EQUAL(size_t(2), w.size());
        CPPUNIT_ASSERT(w[0].rfind("t.conf:1: WARNING: refresh_pattern minimum age -5 is negative", 0) == 0);
        CPPUNIT_ASSERT(w[1].rfind("t.conf:1: WARNING: refresh_pattern maximum age 600000", 0) == 0);
    }

    void refreshPatternBadLinesAreErrors()
    {
        struct Case {
            const char* line;
            const char* reason;
        };
        const Case cases[] = {
            {"refresh_pattern ( 0 20% 60", "bad refresh_pattern regular expression '(': "},
            {"refresh_pattern -i a{2,1} 0 20% 60", "bad refresh_pattern regular expression 'a{2,1}': "},
            {"refresh_pattern . 0 x% 60", "bad refresh_pattern percent 'x%'"},
            {"refresh_pattern . 0 -1% 60", "bad refresh_pattern percent '-1%'"},
            {"refresh_pattern . 0 20%% 60", "bad refresh_pattern percent '20%%'"},
            {"refresh_pattern . 0 99999999999% 60", "bad refresh_pattern percent"},
            {"refresh_pattern . 0 20% 60 fast", "unknown refresh_pattern option 'fast'"},
            {"refresh_pattern . 0 20% 60 Override-Expire",
             "unknown refresh_pattern option 'Override-Expire'"},
            {"refresh_pattern . 0 20% 60 max-stale=", "bad refresh_pattern option 'max-stale='"},
            {"refresh_pattern . 0 20% 60 max-stale=1h", "bad refresh_pattern option 'max-stale=1h'"},
            {"refresh_pattern . 1h 20% 60", "bad refresh_pattern minimum age '1h'"},
            {"refresh_pattern . 0 20% 0x10", "bad refresh_pattern maximum age '0x10'"},
            {"refresh_pattern . 0 20%", "refresh_pattern needs [-i] REGEX MIN PERCENT MAX"},
            {"refresh_pattern -i . 0 20%", "refresh_pattern needs"},
            {"refresh_pattern", "refresh_pattern needs"},
        };
        for (const auto& c : cases) {
            const auto e = errors(std::string("\n") + c.line + "\n");
            CPPUNIT_ASSERT_EQUAL_MESSAGE(c.line, size_t(1), e.size());
            CPPUNIT_ASSERT_MESSAGE(e[0], e[0].rfind(std::string("t.conf:2: ") + c.reason, 0) == 0);
        }
    }

    void refreshPatternObsoleteOptionsWarn()
    {
        const auto s = ok("refresh_pattern . 0 20% 60 ignore-no-cache ignore-must-revalidate ignore-auth "
                          "max-stale=-1\n");
        CPPUNIT_ASSERT_EQUAL(size_t(3), warnings().size());
        CPPUNIT_ASSERT(has(warnings()[0], "'ignore-no-cache' is obsolete"));
        CPPUNIT_ASSERT_EQUAL(int64_t(-1), s->refreshPatterns.at(0).maxStale);
    }

    void cacheRulesDelegateToAccessLists()
    {
        const auto s = ok("acl lan src 10.0.0.0/8\nacl api port 8443\ncache deny api\ncache allow lan\n");
        CPPUNIT_ASSERT_EQUAL(size_t(2), s->cacheAccess.size());
        Acl::Checklist facts;
        facts.srcAddr = *Acl::Address::Parse("10.1.2.3");
        facts.dstPort = 80;
        CPPUNIT_ASSERT(s->mayCache(facts));
        facts.dstPort = 8443;
        CPPUNIT_ASSERT(!s->mayCache(facts));
        facts.dstPort = 80;
        facts.srcAddr = *Acl::Address::Parse("192.168.1.1");
        CPPUNIT_ASSERT(!s->mayCache(facts)); // the opposite of the last line
        // with no cache line everything may be cached (Squid: "no effect")
        const auto none = ok("");
        CPPUNIT_ASSERT_EQUAL(size_t(0), none->cacheAccess.size());
        CPPUNIT_ASSERT(none->mayCache(facts));
        // and `cache deny X` alone caches everything but X
        const auto denyOnly = ok("acl api port 8443\ncache deny api\n");
        CPPUNIT_ASSERT(denyOnly->mayCache(facts));
    }

    void cacheRulesFailClosed()
    {
        CPPUNIT_ASSERT(
            has(errors("cache deny nosuchacl\n").at(0), "t.conf:1: bad cache: acl nosuchacl is not defined"));
        // an acl type cuttle does not implement: the rule is refused, not dropped
        const auto e = errors("acl cgi ident cgi.example.com\ncache deny cgi\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), e.size());
        CPPUNIT_ASSERT(e[0].rfind("t.conf:2: bad cache: acl cgi ", 0) == 0);
        CPPUNIT_ASSERT(has(errors("cache maybe all\n").at(0), "expecting 'allow' or 'deny'"));
        errors("cache\n");
        // no acl: skipped with a warning, as Squid does
        const auto s = ok("cache deny\n");
        CPPUNIT_ASSERT_EQUAL(size_t(0), s->cacheAccess.size());
        CPPUNIT_ASSERT_EQUAL(size_t(1), warnings().size());
    }

    void cacheSizesTimesAndSwitches()
    {
        const auto s =
            ok("minimum_object_size 2 KB\ncollapsed_forwarding on\nquick_abort_min 1 MB\n"
               "quick_abort_max 2 MB\nquick_abort_pct 50\nnegative_ttl 5 minutes\nmax_stale 1 day\n");
        CPPUNIT_ASSERT(parser.diagnostics().empty());
        CPPUNIT_ASSERT_EQUAL(uint64_t(2048), s->minimumObjectSize);
        CPPUNIT_ASSERT(s->collapsedForwarding);
        CPPUNIT_ASSERT_EQUAL(int64_t(1) << 20, s->quickAbortMin);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2) << 20, s->quickAbortMax);
        CPPUNIT_ASSERT_EQUAL(50u, s->quickAbortPct);
        CPPUNIT_ASSERT_EQUAL(int64_t(300000), s->negativeTtl.count());
        CPPUNIT_ASSERT_EQUAL(int64_t(86400000), s->maxStale.count());
        errors("collapsed_forwarding yes\n");
        errors("negative_ttl 5\n");
        errors("max_stale -1 seconds\n");
        errors("minimum_object_size 1KB\n");
    }

    void quickAbortAsSquidReadsIt()
    {
        // a bare number is KB (Squid's kb_int64_t), with a warning
        auto s = ok("quick_abort_min 8\n");
        CPPUNIT_ASSERT_EQUAL(int64_t(8) << 10, s->quickAbortMin);
        CPPUNIT_ASSERT(has(warnings().at(0), "assuming KB"));
        s = ok("quick_abort_max 32\n");
        CPPUNIT_ASSERT_EQUAL(uint64_t(32) << 10, s->quickAbortMax);
        // -1 KB (and any negative size) always finishes a kept fetch
        for (const char* always : {"quick_abort_min -1 KB\n", "quick_abort_min -1\n",
                                   "quick_abort_min -4 KB\n", "quick_abort_min none\n"}) {
            s = ok(always);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(always, int64_t(-1), s->quickAbortMin);
        }
        // 0 KB for both: abandon every fetch nobody waits for
        s = ok("quick_abort_min 0 KB\nquick_abort_max 0 KB\n");
        CPPUNIT_ASSERT(parser.diagnostics().empty());
        CPPUNIT_ASSERT_EQUAL(int64_t(0), s->quickAbortMin);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), s->quickAbortMax);
        errors("quick_abort_max -1 KB\n");
        errors("quick_abort_min 16KB\n");
        for (const char* bad : {"quick_abort_pct 101\n", "quick_abort_pct -1\n", "quick_abort_pct 95%\n",
                                "quick_abort_pct ninety\n", "quick_abort_pct\n"})
            CPPUNIT_ASSERT_EQUAL_MESSAGE(bad, size_t(1), errors(bad).size());
        CPPUNIT_ASSERT_EQUAL(0u, ok("quick_abort_pct 0\n")->quickAbortPct);
        CPPUNIT_ASSERT_EQUAL(100u, ok("quick_abort_pct 100\n")->quickAbortPct);
    }

    void memoryReplacementPolicyValues()
    {
        CPPUNIT_ASSERT(ReplacementPolicy::Lru ==
                       ok("memory_replacement_policy lru\n")->memoryReplacementPolicy);
        CPPUNIT_ASSERT(ReplacementPolicy::HeapGdsf ==
                       ok("memory_replacement_policy heap GDSF\n")->memoryReplacementPolicy);
        CPPUNIT_ASSERT(ReplacementPolicy::HeapLfuda ==
                       ok("memory_replacement_policy heap LFUDA\n")->memoryReplacementPolicy);
        CPPUNIT_ASSERT(ReplacementPolicy::HeapLru ==
                       ok("memory_replacement_policy heap LRU\n")->memoryReplacementPolicy);
        CPPUNIT_ASSERT(parser.diagnostics().empty());
        // `heap` alone is heap LRU, as in Squid, with a warning
        CPPUNIT_ASSERT(ReplacementPolicy::HeapLru ==
                       ok("memory_replacement_policy heap\n")->memoryReplacementPolicy);
        CPPUNIT_ASSERT_EQUAL(size_t(1), warnings().size());
        for (const char* bad : {"memory_replacement_policy LRU\n", "memory_replacement_policy heap gdsf\n",
                                "memory_replacement_policy lfu\n", "memory_replacement_policy\n"})
            CPPUNIT_ASSERT_EQUAL_MESSAGE(bad, size_t(1), errors(bad).size());
    }

    /// as in Squid, each cache_dir takes the cache_replacement_policy in force above it
    void cacheReplacementPolicyAppliesBelow()
    {
        auto s = ok("cache_dir ufs /a 10 16 256\n"
                    "cache_replacement_policy heap LFUDA\n"
                    "cache_dir aufs /b 10 16 256\n"
                    "cache_replacement_policy heap GDSF\n"
                    "cache_dir rock /c 10\n");
        CPPUNIT_ASSERT(parser.diagnostics().empty());
        CPPUNIT_ASSERT_EQUAL(size_t(3), s->cacheDirs.size());
        CPPUNIT_ASSERT(ReplacementPolicy::Lru == s->cacheDirs[0].policy);
        CPPUNIT_ASSERT(ReplacementPolicy::HeapLfuda == s->cacheDirs[1].policy);
        CPPUNIT_ASSERT(ReplacementPolicy::HeapGdsf == s->cacheDirs[2].policy);
        CPPUNIT_ASSERT(ReplacementPolicy::HeapGdsf == s->cacheReplacementPolicy);
        CPPUNIT_ASSERT(ReplacementPolicy::Lru == ok("cache_dir ufs /a 10 16 256\n")->cacheDirs[0].policy);
        CPPUNIT_ASSERT(
            ReplacementPolicy::HeapLru ==
            ok("cache_replacement_policy heap LRU\ncache_dir ufs /a 10 16 256\n")->cacheDirs[0].policy);
        CPPUNIT_ASSERT(
            ReplacementPolicy::HeapLru ==
            ok("cache_replacement_policy heap\ncache_dir ufs /a 10 16 256\n")->cacheDirs[0].policy);
        CPPUNIT_ASSERT_EQUAL(size_t(1), warnings().size());
        const auto bad = errors("cache_dir ufs /a 10 16 256\ncache_replacement_policy heap FOO\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), bad.size());
        CPPUNIT_ASSERT_MESSAGE(bad[0], has(bad[0], "t.conf:2:") &&
                                           has(bad[0], "cache_replacement_policy heap key 'FOO'"));
        for (const char* wrong : {"cache_replacement_policy LRU\n", "cache_replacement_policy\n"})
            CPPUNIT_ASSERT_EQUAL_MESSAGE(wrong, size_t(1), errors(wrong).size());
    }

    void rangeOffsetLimitForms()
    {
        auto s = ok("");
        CPPUNIT_ASSERT_EQUAL(size_t(1), s->rangeOffsetLimits.size());
        Acl::Checklist facts;
        facts.srcAddr = *Acl::Address::Parse("10.0.0.1");
        CPPUNIT_ASSERT_EQUAL(int64_t(0), s->rangeOffsetLimitFor(facts));
        for (const char* none : {"range_offset_limit none\n", "range_offset_limit -1\n"})
            CPPUNIT_ASSERT_EQUAL(int64_t(-1), ok(none)->rangeOffsetLimitFor(facts));
        CPPUNIT_ASSERT_EQUAL(int64_t(10) << 20, ok("range_offset_limit 10 MB\n")->rangeOffsetLimitFor(facts));
        // lines with acls: the first whose acls match applies; none matching: 0
        s = ok("acl lan src 10.0.0.0/8\nacl big port 8080\nrange_offset_limit none lan !big\n"
               "range_offset_limit 64 KB big\n");
        CPPUNIT_ASSERT(parser.diagnostics().empty());
        CPPUNIT_ASSERT_EQUAL(size_t(2), s->rangeOffsetLimits.size());
        facts.dstPort = 80;
        CPPUNIT_ASSERT_EQUAL(int64_t(-1), s->rangeOffsetLimitFor(facts));
        facts.dstPort = 8080;
        CPPUNIT_ASSERT_EQUAL(int64_t(64) << 10, s->rangeOffsetLimitFor(facts));
        facts.srcAddr = *Acl::Address::Parse("192.168.0.1");
        facts.dstPort = 80;
        CPPUNIT_ASSERT_EQUAL(int64_t(0), s->rangeOffsetLimitFor(facts));
        // a bare 0 takes no unit (Squid's parseBytesLine64), so acls may follow it
        s = ok("acl lan src 10.0.0.0/8\nrange_offset_limit 0 lan\nrange_offset_limit 0 KB\n");
        CPPUNIT_ASSERT(parser.diagnostics().empty());
        CPPUNIT_ASSERT_EQUAL(size_t(2), s->rangeOffsetLimits.size());
        CPPUNIT_ASSERT_EQUAL(size_t(1), s->rangeOffsetLimits[0].acls.size());
        CPPUNIT_ASSERT_EQUAL(size_t(0), s->rangeOffsetLimits[1].acls.size());
        CPPUNIT_ASSERT(
            has(errors("range_offset_limit 1 MB nosuchacl\n").at(0), "acl nosuchacl is not defined"));
        CPPUNIT_ASSERT(has(errors("acl lan src 10.0.0.0/8\nrange_offset_limit 10 lan\n").at(0),
                           "t.conf:2: bad range_offset_limit value: unknown size unit 'lan'"));
        errors("range_offset_limit lots\n");
        // any negative size is no limit in Squid
        CPPUNIT_ASSERT_EQUAL(int64_t(-1), ok("range_offset_limit -2 MB\n")->rangeOffsetLimits.at(0).bytes);
        errors("range_offset_limit\n");
    }

    void replyBodyMaxSizeFirstMatchingLine()
    {
        Acl::Checklist facts;
        facts.srcAddr = *Acl::Address::Parse("10.0.0.1");
        auto s = ok("");
        CPPUNIT_ASSERT(s->replyBodyMaxSizes.empty());
        CPPUNIT_ASSERT_EQUAL(int64_t(-1), s->replyBodyMaxSizeFor(facts)); // no line: no limit
        s = ok("acl lan src 10.0.0.0/8\nreply_body_max_size 10 MB lan\nreply_body_max_size 1 KB\n");
        CPPUNIT_ASSERT(parser.diagnostics().empty());
        CPPUNIT_ASSERT_EQUAL(int64_t(10) << 20, s->replyBodyMaxSizeFor(facts));
        facts.srcAddr = *Acl::Address::Parse("192.168.0.1");
        CPPUNIT_ASSERT_EQUAL(int64_t(1) << 10, s->replyBodyMaxSizeFor(facts));
        // none (or -1) is no limit; 0 is a limit of 0 bytes, as in Squid's calcMaxBodySize()
        CPPUNIT_ASSERT_EQUAL(int64_t(-1), ok("reply_body_max_size none\n")->replyBodyMaxSizeFor(facts));
        CPPUNIT_ASSERT_EQUAL(int64_t(0), ok("reply_body_max_size 0\n")->replyBodyMaxSizeFor(facts));
        // only lines whose acls match: none matching is no limit
        CPPUNIT_ASSERT_EQUAL(
            int64_t(-1),
            ok("acl lan src 10.0.0.0/8\nreply_body_max_size 1 KB lan\n")->replyBodyMaxSizeFor(facts));
        CPPUNIT_ASSERT(
            has(errors("reply_body_max_size 1 MB nosuchacl\n").at(0), "acl nosuchacl is not defined"));
        CPPUNIT_ASSERT(has(errors("acl lan src 10.0.0.0/8\nreply_body_max_size 10 lan\n").at(0),
                           "a size followed by acls needs its unit"));
        errors("reply_body_max_size\n");
        errors("reply_body_max_size lots\n");
    }

    void indirectClientDirectives()
    {
        auto s = ok("");
        CPPUNIT_ASSERT_EQUAL(size_t(0), s->followXForwardedFor.size()); // X-Forwarded-For is not read
        CPPUNIT_ASSERT(s->aclUsesIndirectClient);                       // Squid's defaults
        CPPUNIT_ASSERT(s->logUsesIndirectClient);
        s = ok(
            "acl proxies src 10.0.0.0/8\nfollow_x_forwarded_for allow proxies\n"
            "follow_x_forwarded_for deny all\nacl_uses_indirect_client off\nlog_uses_indirect_client off\n");
        CPPUNIT_ASSERT(parser.diagnostics().empty());
        CPPUNIT_ASSERT_EQUAL(size_t(2), s->followXForwardedFor.size());
        CPPUNIT_ASSERT(!s->aclUsesIndirectClient);
        CPPUNIT_ASSERT(!s->logUsesIndirectClient);
        errors("follow_x_forwarded_for allow nosuch\n");
        errors("acl_uses_indirect_client maybe\n");
    }

    void requestBodyMaxSizeIsOneSize()
    {
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), ok("")->requestBodyMaxSize);
        CPPUNIT_ASSERT(parser.diagnostics().empty());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1) << 20, ok("request_body_max_size 1 MB\n")->requestBodyMaxSize);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), ok("request_body_max_size 0\n")->requestBodyMaxSize);
        // Squid 5.7 takes no acls here and ignores the words: the limit applies to all, with a warning
        const auto s = ok("acl lan src 10.0.0.0/8\nrequest_body_max_size 2 MB lan\n");
        CPPUNIT_ASSERT_EQUAL(uint64_t(2) << 20, s->requestBodyMaxSize);
        CPPUNIT_ASSERT_EQUAL(size_t(1), warnings().size());
        errors("request_body_max_size\n");
        errors("request_body_max_size -1 KB\n");
        errors("request_body_max_size many bytes\n");
    }

    void cacheDefaultsAreSquids()
    {
        const auto s = ok("");
        CPPUNIT_ASSERT(parser.diagnostics().empty());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), s->minimumObjectSize);
        CPPUNIT_ASSERT(ReplacementPolicy::Lru == s->memoryReplacementPolicy);
        CPPUNIT_ASSERT(!s->collapsedForwarding);
        CPPUNIT_ASSERT_EQUAL(int64_t(16) << 10, s->quickAbortMin);
        CPPUNIT_ASSERT_EQUAL(uint64_t(16) << 10, s->quickAbortMax);
        CPPUNIT_ASSERT_EQUAL(95u, s->quickAbortPct);
        CPPUNIT_ASSERT_EQUAL(int64_t(0), s->negativeTtl.count());
        CPPUNIT_ASSERT_EQUAL(int64_t(7 * 86400) * 1000, s->maxStale.count());
        CPPUNIT_ASSERT_EQUAL(size_t(1), s->rangeOffsetLimits.size());
        CPPUNIT_ASSERT_EQUAL(int64_t(0), s->rangeOffsetLimits[0].bytes);
        // a file that sets it replaces the default line instead of adding to it
        CPPUNIT_ASSERT_EQUAL(size_t(1), ok("range_offset_limit none\n")->rangeOffsetLimits.size());
    }

    void cacheDirectivesAreNoLongerSquidOnly()
    {
        ok("refresh_pattern . 0 20% 4320\nminimum_object_size 0 KB\nmemory_replacement_policy lru\n"
           "cache_replacement_policy heap LFUDA\n"
           "cache allow all\ncollapsed_forwarding off\nquick_abort_min 16 KB\nquick_abort_max 16 KB\n"
           "quick_abort_pct 95\nnegative_ttl 0 seconds\nrange_offset_limit 0\nmax_stale 1 week\n");
        CPPUNIT_ASSERT(parser.diagnostics().empty());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestParser);
