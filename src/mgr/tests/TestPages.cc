/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "mgr/Pages.h"
#include "base/Regex.h"
#include "config/Settings.h"

#include <cppunit/extensions/HelperMacros.h>

#include <set>
#include <sstream>
#include <vector>

namespace {

/// the names before " = " of each line, joined by spaces
std::string Names(const std::string& page)
{
    std::istringstream in(page);
    std::string line, names;
    while (std::getline(in, line))
        names += line.substr(0, line.find(" = ")) + " ";
    return names;
}

Mgr::Figures SomeFigures()
{
    Mgr::Figures f;
    f.version = "1.0";
    f.serviceName = "proxy1";
    f.startTime = 1795746768.5;
    f.now = f.startTime + 120;
    f.counters.sampleTime = f.now;
    f.counters.clientRequests = 7;
    f.counters.clientHits = 2;
    f.counters.clientBytesOut = 4096;
    f.cacheBudget = 1024 * 1024;
    f.cacheBytes = 256 * 1024;
    f.cacheObjects = 2;
    f.objects.push_back({"GET http://o.example/a", "0123456789ABCDEF0123456789ABCDEF", true, 100, 0, -1, -1});
    f.clients.push_back({"127.0.0.1", 1, 7, 2, {{"TCP_MEM_HIT", 2}, {"TCP_MISS", 5}}});
    return f;
}

bool Has(const std::string& page, const std::string& text)
{
    return page.find(text) != std::string::npos;
}

} // namespace

/// Mgr::RenderPage(): Squid 5.7's page formats.
class TestPages : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestPages);
    CPPUNIT_TEST(countersHaveSquidsNamesInSquidsOrder);
    CPPUNIT_TEST(averagesHaveSquidsNamesInSquidsOrder);
    CPPUNIT_TEST(infoCountsTheDiskStoreAndItsHits);
    CPPUNIT_TEST(averagesAreRatesBetweenSamples);
    CPPUNIT_TEST(menuLinesAreSquids);
    CPPUNIT_TEST(infoHasSquidsFields);
    CPPUNIT_TEST(listsShowTheirEntries);
    CPPUNIT_TEST(commandsAreNotPages);
    CPPUNIT_TEST(configMasksPasswords);
    CPPUNIT_TEST(metricsAreValidOpenMetrics);
    CPPUNIT_TEST(countersOfWorkersAddUp);
    CPPUNIT_TEST(workerPartsAreFramedAsSquidKids);
    CPPUNIT_TEST_SUITE_END();

public:
    void workerPartsAreFramedAsSquidKids()
    {
        // Squid 5.7's Mgr::Action::fillEntry() for an atomic action with SMP
        CPPUNIT_ASSERT_EQUAL(std::string("by kid2 {\nCache Clients:\n} by kid2\n\n"),
                             Mgr::WorkerPart(2, "Cache Clients:\n"));
        CPPUNIT_ASSERT(Mgr::IsPerWorkerList("active_requests"));
        CPPUNIT_ASSERT(Mgr::IsPerWorkerList("client_list"));
        // summed (counters) or shared (the memory cache's objects, the DNS cache)
        for (const char* whole : {"info", "counters", "objects", "ipcache", "fqdncache", "menu"})
            CPPUNIT_ASSERT_MESSAGE(whole, !Mgr::IsPerWorkerList(whole));
    }

    void countersOfWorkersAddUp()
    {
        Mgr::Counters mine, theirs;
        mine.sampleTime = 100;
        mine.clientRequests = 7;
        mine.icpTimesUsed = 1;
        mine.pageFaults = 3;
        mine.cpuTime = 1.5;
        theirs.sampleTime = 99;
        theirs.clientRequests = 5;
        theirs.serverBytesOut = 2048;
        theirs.icpTimesUsed = 2;
        theirs.pageFaults = 3;
        theirs.cpuTime = 1.5;
        mine.add(theirs);
        CPPUNIT_ASSERT_EQUAL(uint64_t(12), mine.clientRequests);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2048), mine.serverBytesOut);
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), mine.icpTimesUsed);
        // the process's own figures are not counted twice
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), mine.pageFaults);
        CPPUNIT_ASSERT_EQUAL(1.5, mine.cpuTime);
        CPPUNIT_ASSERT_EQUAL(100.0, mine.sampleTime);
    }

    void countersHaveSquidsNamesInSquidsOrder()
    {
        // the names of Squid 5.7's page, captured from squid
        const auto page = *Mgr::RenderPage("counters", SomeFigures(), {}, settings_);
        CPPUNIT_ASSERT_EQUAL(
            std::string(
                "sample_time client_http.requests client_http.hits client_http.errors client_http.kbytes_in "
                "client_http.kbytes_out client_http.hit_kbytes_out server.all.requests server.all.errors "
                "server.all.kbytes_in server.all.kbytes_out server.http.requests server.http.errors "
                "server.http.kbytes_in server.http.kbytes_out server.ftp.requests server.ftp.errors "
                "server.ftp.kbytes_in server.ftp.kbytes_out server.other.requests server.other.errors "
                "server.other.kbytes_in server.other.kbytes_out icp.pkts_sent icp.pkts_recv icp.queries_sent "
                "icp.replies_sent icp.queries_recv icp.replies_recv icp.query_timeouts icp.replies_queued "
                "icp.kbytes_sent icp.kbytes_recv icp.q_kbytes_sent icp.r_kbytes_sent icp.q_kbytes_recv "
                "icp.r_kbytes_recv icp.times_used cd.times_used cd.msgs_sent cd.msgs_recv cd.memory "
                "cd.local_memory cd.kbytes_sent cd.kbytes_recv unlink.requests page_faults select_loops "
                "cpu_time wall_time swap.outs swap.ins swap.files_cleaned aborted_requests "),
            Names(page));
        CPPUNIT_ASSERT(Has(page, "client_http.requests = 7\n"));
        CPPUNIT_ASSERT(Has(page, "client_http.kbytes_out = 4\n"));
        CPPUNIT_ASSERT(Has(page, "sample_time = 1795746888.500000 ("));
    }

    void averagesHaveSquidsNamesInSquidsOrder()
    {
        const auto page = *Mgr::RenderPage("5min", SomeFigures(), {}, settings_);
        CPPUNIT_ASSERT_EQUAL(
            std::string(
                "sample_start_time sample_end_time client_http.requests client_http.hits client_http.errors "
                "client_http.kbytes_in client_http.kbytes_out client_http.all_median_svc_time "
                "client_http.miss_median_svc_time client_http.nm_median_svc_time "
                "client_http.nh_median_svc_time client_http.hit_median_svc_time server.all.requests "
                "server.all.errors server.all.kbytes_in server.all.kbytes_out server.http.requests "
                "server.http.errors server.http.kbytes_in server.http.kbytes_out server.ftp.requests "
                "server.ftp.errors server.ftp.kbytes_in server.ftp.kbytes_out server.other.requests "
                "server.other.errors server.other.kbytes_in server.other.kbytes_out icp.pkts_sent "
                "icp.pkts_recv icp.queries_sent icp.replies_sent icp.queries_recv icp.replies_recv "
                "icp.replies_queued icp.query_timeouts icp.kbytes_sent icp.kbytes_recv icp.q_kbytes_sent "
                "icp.r_kbytes_sent icp.q_kbytes_recv icp.r_kbytes_recv icp.query_median_svc_time "
                "icp.reply_median_svc_time dns.median_svc_time unlink.requests page_faults select_loops "
                "select_fds average_select_fd_period median_select_fds swap.outs swap.ins swap.files_cleaned "
                "aborted_requests syscalls.disk.opens syscalls.disk.closes syscalls.disk.reads "
                "syscalls.disk.writes syscalls.disk.seeks syscalls.disk.unlinks syscalls.sock.accepts "
                "syscalls.sock.sockets syscalls.sock.connects syscalls.sock.binds syscalls.sock.closes "
                "syscalls.sock.reads syscalls.sock.writes syscalls.sock.recvfroms syscalls.sock.sendtos "
                "cpu_time wall_time cpu_usage "),
            Names(page));
    }

    void averagesAreRatesBetweenSamples()
    {
        Mgr::History history;
        Mgr::Counters older;
        older.sampleTime = 1000;
        history.sample(older);
        for (int minute = 1; minute <= 5; ++minute) {
            Mgr::Counters c;
            c.sampleTime = 1000 + 60 * minute;
            c.clientRequests = 60 * minute; // one a second
            history.sample(c);
        }
        const auto page = *Mgr::RenderPage("5min", SomeFigures(), history, settings_);
        CPPUNIT_ASSERT_MESSAGE(page, Has(page, "client_http.requests = 1.000000/sec\n"));
        CPPUNIT_ASSERT(Has(page, "wall_time = 300.000000 seconds\n"));
        // the hour is not covered: 60min compares with the oldest sample
        const auto hour = *Mgr::RenderPage("60min", SomeFigures(), history, settings_);
        CPPUNIT_ASSERT(Has(hour, "client_http.requests = 1.000000/sec\n"));
        const auto util = *Mgr::RenderPage("utilization", SomeFigures(), history, settings_);
        CPPUNIT_ASSERT(Has(util, "Last 5 minutes:\nsample_start_time"));
        CPPUNIT_ASSERT(Has(util, "Last 15 minutes:\n(no values recorded yet)\n"));
        CPPUNIT_ASSERT(Has(util, "Totals since cache startup:\nsample_time = "));
    }

    void menuLinesAreSquids()
    {
        Config::Settings s;
        s.managerPasswords = {{"secret", {"shutdown"}}, {"disable", {"mem"}}};
        const auto page = *Mgr::RenderPage("menu", SomeFigures(), {}, s);
        CPPUNIT_ASSERT(Has(page, " menu                  \tCache Manager Menu              \tpublic\n"));
        CPPUNIT_ASSERT(Has(page, " shutdown              \tShut Down the Squid Process     \tprotected\n"));
        CPPUNIT_ASSERT(Has(page, " reconfigure           \tReconfigure Squid               \thidden\n"));
        CPPUNIT_ASSERT(Has(page, " mem                   \tMemory Utilization              \tdisabled\n"));
    }

    void infoHasSquidsFields()
    {
        const auto page = *Mgr::RenderPage("info", SomeFigures(), {}, settings_);
        for (const char* field :
             {"Squid Object Cache: Version 1.0\n", "Service Name: proxy1\n", "Start Time:\t",
              "\tNumber of HTTP requests received:\t7\n", "\tNumber of clients accessing cache:\t1\n",
              "\tStorage Mem size:\t256 KB\n", "\tStorage Mem capacity:\t25.0% used, 75.0% free\n",
              "\tHTTP Requests (All):   0.00000  0.00000\n", "\tCache Misses:          0.00000  0.00000\n",
              "\tUP Time:\t120.000 seconds\n", "\tMaximum number of file descriptors:   ",
              "\t     2 StoreEntries\n", "\t     0 on-disk objects\n"})
            CPPUNIT_ASSERT_MESSAGE(field, Has(page, field));
    }

    /// the cache_dirs' size and objects, and the hits split memory / disk
    /// (the page had 0 KB and 0% disk hits, as before there was a disk store)
    void infoCountsTheDiskStoreAndItsHits()
    {
        auto f = SomeFigures();
        Mgr::StoreDir dir;
        dir.maxBytes = 100 * 1024 * 1024;
        dir.usedBytes = 25 * 1024 * 1024;
        f.storeDirs.push_back(dir);
        f.diskObjects = 100;
        Mgr::History history;
        Mgr::Counters older;
        older.sampleTime = 1000;
        history.sample(older);
        Mgr::Counters now;
        now.sampleTime = 1060;
        now.clientRequests = 10;
        now.clientHits = 8;
        now.clientMemHits = 2;
        now.clientDiskHits = 6;
        history.sample(now);
        const auto page = *Mgr::RenderPage("info", f, history, settings_);
        for (const char* field :
             {"\tMemory hits as % of hit requests:\t5min: 25.0%, 60min: 25.0%\n",
              "\tDisk hits as % of hit requests:\t5min: 75.0%, 60min: 75.0%\n",
              "\tStorage Swap size:\t25600 KB\n", "\tStorage Swap capacity:\t25.0% used, 75.0% free\n",
              "\tMean Object Size:\t256.00 KB\n"})
            CPPUNIT_ASSERT_MESSAGE(page, Has(page, field));
    }

    void listsShowTheirEntries()
    {
        const auto f = SomeFigures();
        const auto objects = *Mgr::RenderPage("objects", f, {}, settings_);
        const Regex key("KEY 0123456789ABCDEF0123456789ABCDEF\n\tSTORE_OK ", false);
        CPPUNIT_ASSERT_MESSAGE(objects, key.matches(objects));
        CPPUNIT_ASSERT(Has(objects, "\tGET http://o.example/a\n"));
        auto longUrl = f;
        longUrl.objects[0].key = "GET http://o.example/" + std::string(3000, 'x');
        CPPUNIT_ASSERT(
            Has(*Mgr::RenderPage("objects", longUrl, {}, settings_), "\t" + longUrl.objects[0].key + "\n"));
        CPPUNIT_ASSERT(Has(objects, "\tinmem_hi: 100\n"));
        CPPUNIT_ASSERT_EQUAL(objects, *Mgr::RenderPage("vm_objects", f, {}, settings_));
        const auto clients = *Mgr::RenderPage("client_list", f, {}, settings_);
        CPPUNIT_ASSERT(Has(clients, "Address: 127.0.0.1\n"));
        CPPUNIT_ASSERT(Has(clients, "        TCP_MISS                   5  71%\n"));
        CPPUNIT_ASSERT(Has(clients, "HTTP: 7 Requests, 2 Hits ( 28%)\n"));
        CPPUNIT_ASSERT_EQUAL(std::string("There are no neighbors installed.\n"),
                             *Mgr::RenderPage("server_list", f, {}, settings_));
        CPPUNIT_ASSERT(Has(*Mgr::RenderPage("ipcache", f, {}, settings_), "IPcache Requests: 0\n"));
        CPPUNIT_ASSERT(Has(*Mgr::RenderPage("fqdncache", f, {}, settings_), "FQDN Cache Statistics:\n"));
    }

    void commandsAreNotPages()
    {
        for (const char* action : {"shutdown", "reconfigure", "rotate", "nosuch"})
            CPPUNIT_ASSERT_MESSAGE(action, !Mgr::RenderPage(action, SomeFigures(), {}, settings_));
    }

    void configMasksPasswords()
    {
        CPPUNIT_ASSERT_EQUAL(std::string("cachemgr_passwd XXXXXXXXXX shutdown all"),
                             Mgr::MaskSecrets("cachemgr_passwd s3cret shutdown all"));
        CPPUNIT_ASSERT_EQUAL(std::string("cachemgr_passwd none info"),
                             Mgr::MaskSecrets("cachemgr_passwd none info"));
        CPPUNIT_ASSERT_EQUAL(std::string("cachemgr_passwd disable all"),
                             Mgr::MaskSecrets("cachemgr_passwd disable all"));
        CPPUNIT_ASSERT_EQUAL(std::string("cache_peer p parent 3128 0 login=joe:XXXXXXXXXX default"),
                             Mgr::MaskSecrets("cache_peer p parent 3128 0 login=joe:pw default"));
        CPPUNIT_ASSERT_EQUAL(std::string("cache_peer p parent 3128 0 login=PASSTHRU"),
                             Mgr::MaskSecrets("cache_peer p parent 3128 0 login=PASSTHRU"));
        Config::Settings s;
        s.appliedLines = {"http_port 3128", "cachemgr_passwd s3cret all"};
        CPPUNIT_ASSERT_EQUAL(std::string("http_port 3128\ncachemgr_passwd XXXXXXXXXX all\n"),
                             *Mgr::RenderPage("config", SomeFigures(), {}, s));
    }

    void metricsAreValidOpenMetrics()
    {
        // OpenMetrics 1.0 text: each family's TYPE and HELP before its one
        // sample, a counter's sample NAME_total, names [a-zA-Z_:][a-zA-Z0-9_:]*,
        // every family once, and "# EOF" last
        const auto page = Mgr::RenderMetrics(SomeFigures());
        std::istringstream in(page);
        std::string line, family, type;
        std::set<std::string> seen;
        bool helped = false, ended = false;
        size_t samples = 0;
        // POSIX expressions (base/Regex), not std::regex: GCC 12 warns inside
        // <regex> under the sanitizers' -O1 (as TestCacheLog notes)
        const Regex typeLine("^# TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge)$", false);
        const Regex helpLine("^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* [^\n]+$", false);
        const Regex sampleLine("^[a-zA-Z_:][a-zA-Z0-9_:]* -?[0-9]+(\\.[0-9]+)?(e[-+][0-9]+)?$", false);
        // the NAME word of "# TYPE NAME ...", "# HELP NAME ..." or "NAME VALUE"
        const auto word = [](const std::string& text, size_t index) {
            std::istringstream split(text);
            std::vector<std::string> words;
            for (std::string w; split >> w;)
                words.push_back(w);
            return index < words.size() ? words[index] : std::string();
        };
        while (std::getline(in, line)) {
            CPPUNIT_ASSERT_MESSAGE("after # EOF: " + line, !ended);
            if (line == "# EOF") {
                ended = true;
            } else if (typeLine.matches(line)) {
                family = word(line, 2);
                type = word(line, 3);
                helped = false;
                CPPUNIT_ASSERT_MESSAGE(family, seen.insert(family).second);
                CPPUNIT_ASSERT_MESSAGE(family,
                                       family.rfind("squid_", 0) == 0 || family.rfind("cuttle_", 0) == 0);
            } else if (helpLine.matches(line)) {
                CPPUNIT_ASSERT_EQUAL(family, word(line, 2));
                helped = true;
            } else {
                CPPUNIT_ASSERT_MESSAGE(line, sampleLine.matches(line));
                CPPUNIT_ASSERT_MESSAGE(line, helped);
                CPPUNIT_ASSERT_EQUAL(type == "counter" ? family + "_total" : family, word(line, 0));
                ++samples;
            }
        }
        CPPUNIT_ASSERT(ended);
        CPPUNIT_ASSERT_EQUAL(seen.size(), samples);
        CPPUNIT_ASSERT(Has(page, "squid_client_http_requests_total 7\n"));
    }

private:
    Config::Settings settings_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestPages);
