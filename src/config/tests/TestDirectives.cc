/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "config/Directives.h"
#include "config/Loosening.h"
#include "config/Generate.h"
#include "config/Parser.h"
#include "config/SquidDirectives.h"

#include <cppunit/TestAssert.h>
#include <cppunit/extensions/HelperMacros.h>

#include <set>

using namespace Config;

/// The one table of directives and what is generated from it.
class TestDirectives : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestDirectives);
    CPPUNIT_TEST(everyRowIsComplete);
    CPPUNIT_TEST(namesAreUnique);
    CPPUNIT_TEST(everyDefaultParsesCleanlyThroughTheParser);
    CPPUNIT_TEST(buildDependentDefaultsAreShownSymbolically);
    CPPUNIT_TEST(generatedSquidConfParsesWithoutErrors);
    CPPUNIT_TEST(generatedSquidConfDocumentsEveryDirective);
    CPPUNIT_TEST(stateDirMakesAbsoluteLogPaths);
    CPPUNIT_TEST(markdownDocumentsEveryDirective);
    CPPUNIT_TEST(squidNamesAreSortedAndIncludeTheCommonOnes);
    CPPUNIT_TEST(looseningDirectivesAreSquidDirectives);
    CPPUNIT_TEST_SUITE_END();

public:
    void everyRowIsComplete()
    {
        CPPUNIT_ASSERT(Directives().size() >= 27);
        for (const auto& d : Directives()) {
            CPPUNIT_ASSERT(d.name && *d.name);
            CPPUNIT_ASSERT_MESSAGE(d.name, d.syntax && *d.syntax);
            CPPUNIT_ASSERT_MESSAGE(d.name, d.field && *d.field);
            CPPUNIT_ASSERT_MESSAGE(d.name, d.doc && std::string(d.doc).size() > 40);
            CPPUNIT_ASSERT_MESSAGE(d.name, d.handler);
            CPPUNIT_ASSERT_EQUAL(&d, FindDirective(d.name));
        }
        CPPUNIT_ASSERT(!FindDirective("no_such_directive"));
    }

    void namesAreUnique()
    {
        std::set<std::string> names;
        for (const auto& d : Directives())
            CPPUNIT_ASSERT_MESSAGE(d.name, names.insert(d.name).second);
    }

    void everyDefaultParsesCleanlyThroughTheParser()
    {
        for (const auto& d : Directives()) {
            if (!d.defaultValue)
                continue;
            Parser parser;
            const auto s =
                parser.parseText(std::string(d.name) + " " + d.defaultValue + "\n", "default.conf");
            CPPUNIT_ASSERT_MESSAGE(d.name, s);
            CPPUNIT_ASSERT_MESSAGE(d.name, parser.diagnostics().empty());
        }
        // and an empty file gets exactly the defaults, with no complaint
        Parser parser;
        const auto s = parser.parseText("", "empty.conf");
        CPPUNIT_ASSERT(s);
        CPPUNIT_ASSERT(parser.diagnostics().empty());
        CPPUNIT_ASSERT_EQUAL(uint64_t(256) << 20, s->cacheMem);
        CPPUNIT_ASSERT_EQUAL(uint64_t(16) << 10, s->readAheadGap);
        CPPUNIT_ASSERT(s->requestBufferSize.isAuto);
        CPPUNIT_ASSERT_EQUAL(uint64_t(16) << 10, s->requestBufferSize.min);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1) << 20, s->requestBufferSize.max);
        CPPUNIT_ASSERT_EQUAL(std::string(CUTTLE_DEFAULT_LOG_DIR "/cache.log"), s->cacheLog);
        CPPUNIT_ASSERT_EQUAL(std::string(CUTTLE_DEFAULT_RUN_DIR "/cuttle.pid"), s->pidFilename);
        CPPUNIT_ASSERT(s->errorDirectory.empty()); // negotiated pages, as Squid's default
        CPPUNIT_ASSERT_EQUAL(std::string("webmaster"), s->cacheMgr);
        CPPUNIT_ASSERT(!s->emailErrData);
        CPPUNIT_ASSERT(s->errorLogLanguages);
        CPPUNIT_ASSERT_EQUAL(std::string("none"), s->errPageStylesheet);
        CPPUNIT_ASSERT_EQUAL(size_t(1), s->accessLogs.size());
        CPPUNIT_ASSERT_EQUAL(std::string(CUTTLE_DEFAULT_LOG_DIR "/access.log"),
                             s->accessLogs[0].output.place);
        CPPUNIT_ASSERT_EQUAL(int64_t(60000), s->connectTimeout.count());
        CPPUNIT_ASSERT_EQUAL(int64_t(15 * 60000), s->readTimeout.count());
        CPPUNIT_ASSERT_EQUAL(int64_t(30000), s->shutdownLifetime.count());
        CPPUNIT_ASSERT(s->via);
        CPPUNIT_ASSERT(s->httpPorts.empty());
        CPPUNIT_ASSERT_EQUAL(std::string("ALL,1"), s->debugOptions);
        CPPUNIT_ASSERT_EQUAL(95u, s->quickAbortPct);
        CPPUNIT_ASSERT_EQUAL(int64_t(7 * 86400000LL), s->maxStale.count());
        CPPUNIT_ASSERT(s->refreshPatterns.empty());
        CPPUNIT_ASSERT_EQUAL(size_t(0), s->cacheAccess.size());
    }

    void buildDependentDefaultsAreShownSymbolically()
    {
        for (const char* name : {"cache_log", "access_log", "pid_filename"}) {
            const Directive* d = FindDirective(name);
            CPPUNIT_ASSERT(d && d->defaultShown);
            CPPUNIT_ASSERT_MESSAGE(name, std::string(d->defaultShown).find("$(") != std::string::npos);
        }
        const std::string conf = GenerateSquidConf(StateLayout());
        const std::string md = GenerateDirectivesMarkdown();
        for (const char* macro : {CUTTLE_DEFAULT_LOG_DIR, CUTTLE_DEFAULT_RUN_DIR, CUTTLE_DEFAULT_ERROR_DIR}) {
            CPPUNIT_ASSERT_MESSAGE(macro, conf.find(macro) == std::string::npos);
            CPPUNIT_ASSERT_MESSAGE(macro, md.find(macro) == std::string::npos);
        }
    }

    void generatedSquidConfParsesWithoutErrors()
    {
        Parser parser;
        const auto s = parser.parseText(GenerateSquidConf(StateLayout()), "squid.conf.default");
        CPPUNIT_ASSERT(s);
        CPPUNIT_ASSERT(parser.diagnostics().empty());
        CPPUNIT_ASSERT_EQUAL(size_t(1), s->httpPorts.size());
        CPPUNIT_ASSERT_EQUAL(uint16_t(3128), s->httpPorts[0].port);
        CPPUNIT_ASSERT_EQUAL(size_t(6), s->httpAccess.size());
        // Squid's four refresh_pattern lines, in Squid's order
        CPPUNIT_ASSERT_EQUAL(size_t(4), s->refreshPatterns.size());
        CPPUNIT_ASSERT_EQUAL(std::string("^ftp:"), s->refreshPatterns[0].pattern);
        CPPUNIT_ASSERT_EQUAL(int64_t(1440 * 60), s->refreshPatterns[0].min);
        CPPUNIT_ASSERT_EQUAL(int64_t(10080 * 60), s->refreshPatterns[0].max);
        CPPUNIT_ASSERT_EQUAL(std::string("^gopher:"), s->refreshPatterns[1].pattern);
        CPPUNIT_ASSERT_EQUAL(int64_t(0), s->refreshPatterns[1].percent);
        CPPUNIT_ASSERT_EQUAL(std::string("(/cgi-bin/|\\?)"), s->refreshPatterns[2].pattern);
        CPPUNIT_ASSERT(s->refreshPatterns[2].caseInsensitive);
        CPPUNIT_ASSERT_EQUAL(int64_t(0), s->refreshPatterns[2].max);
        CPPUNIT_ASSERT_EQUAL(std::string("."), s->refreshPatterns[3].pattern);
        CPPUNIT_ASSERT_EQUAL(int64_t(20), s->refreshPatterns[3].percent);
        CPPUNIT_ASSERT_EQUAL(int64_t(4320 * 60), s->refreshPatterns[3].max);
        CPPUNIT_ASSERT_EQUAL(parser.baseDirectory() + "/var/log/cache.log", s->cacheLog);
        CPPUNIT_ASSERT_EQUAL(parser.baseDirectory() + "/var/run/cuttle.pid", s->pidFilename);
        CPPUNIT_ASSERT_EQUAL(parser.baseDirectory() + "/var/log/access.log",
                             s->accessLogs.at(0).output.place);
    }

    void generatedSquidConfDocumentsEveryDirective()
    {
        const std::string conf = GenerateSquidConf(StateLayout());
        for (const auto& d : Directives())
            CPPUNIT_ASSERT_MESSAGE(d.name,
                                   conf.find("#  TAG: " + std::string(d.name) + "\n") != std::string::npos);
        CPPUNIT_ASSERT(conf.find("#Default:\n# cache_mem 256 MB\n") != std::string::npos);
        CPPUNIT_ASSERT(conf.find("\nhttp_access deny CONNECT !SSL_ports\n") != std::string::npos);
        CPPUNIT_ASSERT(conf.find("\nrefresh_pattern -i (/cgi-bin/|\\?) 0\t0%\t0\n") != std::string::npos);
        CPPUNIT_ASSERT(conf.find("#Default:\n# quick_abort_min 16 KB\n") != std::string::npos);
        CPPUNIT_ASSERT(conf.find("#Default:\n# max_stale 1 week\n") != std::string::npos);
        CPPUNIT_ASSERT(conf.find("\naccess_log stdio:var/log/access.log squid\n") != std::string::npos);
    }

    void stateDirMakesAbsoluteLogPaths()
    {
        StateLayout layout;
        layout.logDir = "/srv/cuttle/log";
        layout.runDir = "/srv/cuttle/run";
        const std::string conf = GenerateSquidConf(layout);
        CPPUNIT_ASSERT(conf.find("\ncache_log /srv/cuttle/log/cache.log\n") != std::string::npos);
        CPPUNIT_ASSERT(conf.find("\npid_filename /srv/cuttle/run/cuttle.pid\n") != std::string::npos);
        Parser parser;
        const auto s = parser.parseText(conf, "installed.conf");
        CPPUNIT_ASSERT(s);
        CPPUNIT_ASSERT_EQUAL(std::string("/srv/cuttle/log/cache.log"), s->cacheLog);
    }

    void markdownDocumentsEveryDirective()
    {
        const std::string md = GenerateDirectivesMarkdown();
        for (const auto& d : Directives()) {
            CPPUNIT_ASSERT_MESSAGE(d.name,
                                   md.find("\n## " + std::string(d.name) + "\n") != std::string::npos);
            CPPUNIT_ASSERT_MESSAGE(d.name, md.find("`" + std::string(d.field) + "`") != std::string::npos);
        }
        for (const auto& [name, why] : LooseningDirectives())
            CPPUNIT_ASSERT_MESSAGE(name, md.find("`" + name + "`") != std::string::npos);
    }

    void squidNamesAreSortedAndIncludeTheCommonOnes()
    {
        CPPUNIT_ASSERT_EQUAL(size_t(384), SquidDirectiveCount());
        for (size_t i = 1; i < SquidDirectiveCount(); ++i)
            CPPUNIT_ASSERT(std::string(SquidDirectiveName(i - 1)) < SquidDirectiveName(i));
        CPPUNIT_ASSERT(!SquidDirectiveName(SquidDirectiveCount()));
        for (const char* name :
             {"refresh_pattern", "logfile_rotate", "cache_dir", "http_port", "upgrade_http0.9"})
            CPPUNIT_ASSERT_MESSAGE(name, IsSquidDirective(name));
        CPPUNIT_ASSERT(!IsSquidDirective("http_acess"));
        // every directive cuttle implements is Squid's too, but cuttle's own
        // (doc/differences.md lists them)
        for (const auto& d : Directives()) {
            const std::string name = d.name;
            CPPUNIT_ASSERT_MESSAGE(name, IsSquidDirective(d.name) || name == "request_buffer_size" ||
                                             name == "memory_populate_ahead" || name == "splice_min_size");
        }
    }

    void looseningDirectivesAreSquidDirectives()
    {
        for (const char* name : {"mark_client_packet", "adaptation_access"})
            CPPUNIT_ASSERT_MESSAGE(name, LooseningDirectiveReason(name));
        for (const auto& [name, why] : LooseningDirectives()) {
            CPPUNIT_ASSERT_MESSAGE(name, IsSquidDirective(name));
            CPPUNIT_ASSERT_MESSAGE(name, !FindDirective(name));
            CPPUNIT_ASSERT(!why.empty());
        }
        CPPUNIT_ASSERT(!LooseningDirectiveReason("refresh_pattern"));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestDirectives);
