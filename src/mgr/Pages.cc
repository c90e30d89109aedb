/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "mgr/Pages.h"
#include "config/Settings.h"
#include "http/Date.h"
#include "mgr/Action.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <ctime>

namespace {

using Mgr::Counters;
using Mgr::Figures;

/// appends printf-style text to out, however long (a URL may be)
__attribute__((format(printf, 2, 3))) void Printf(std::string& out, const char* format, ...)
{
    char line[512];
    va_list args;
    va_start(args, format);
    va_list again;
    va_copy(again, args);
    const int n = std::vsnprintf(line, sizeof(line), format, args);
    va_end(args);
    if (n > 0 && static_cast<size_t>(n) < sizeof(line)) {
        out.append(line, static_cast<size_t>(n));
    } else if (n > 0) {
        const auto at = out.size();
        out.resize(at + static_cast<size_t>(n) + 1);
        std::vsnprintf(out.data() + at, static_cast<size_t>(n) + 1, format, again);
        out.resize(at + static_cast<size_t>(n));
    }
    va_end(again);
}

/// Squid's "%d.%06d (RFC 1123 date)"
std::string SampleTime(double t)
{
    const auto seconds = static_cast<time_t>(t);
    char text[64];
    std::snprintf(text, sizeof(text), "%ld.%06ld", static_cast<long>(seconds),
                  static_cast<long>((t - static_cast<double>(seconds)) * 1e6));
    return std::string(text) + " (" + Http::FormatHttpDate(seconds) + ")";
}

double Kb(uint64_t bytes)
{
    return static_cast<double>(bytes) / 1024.0;
}

double Percent(double part, double whole)
{
    return whole != 0 ? 100.0 * part / whole : 0.0;
}

/// One counter of the counters page; value: what cuttle has (zero: Squid's zero).
struct CounterLine {
    const char* name;          ///< Squid's name
    uint64_t Counters::*field; ///< where cuttle counts it; nullptr: cuttle does not (printed 0)
    bool kilobytes;            ///< shown in KB
};

/// Squid 5.7's counters page, in its order.
const std::vector<CounterLine>& CounterLines()
{
    static const std::vector<CounterLine> lines = {
        {"client_http.requests", &Counters::clientRequests, false},
        {"client_http.hits", &Counters::clientHits, false},
        {"client_http.errors", &Counters::clientErrors, false},
        {"client_http.kbytes_in", &Counters::clientBytesIn, true},
        {"client_http.kbytes_out", &Counters::clientBytesOut, true},
        {"client_http.hit_kbytes_out", &Counters::clientHitBytesOut, true},
        {"server.all.requests", &Counters::serverRequests, false},
        {"server.all.errors", &Counters::serverErrors, false},
        {"server.all.kbytes_in", &Counters::serverBytesIn, true},
        {"server.all.kbytes_out", &Counters::serverBytesOut, true},
        {"server.http.requests", &Counters::serverRequests, false},
        {"server.http.errors", &Counters::serverErrors, false},
        {"server.http.kbytes_in", &Counters::serverBytesIn, true},
        {"server.http.kbytes_out", &Counters::serverBytesOut, true},
        {"server.ftp.requests", nullptr, false},
        {"server.ftp.errors", nullptr, false},
        {"server.ftp.kbytes_in", nullptr, false},
        {"server.ftp.kbytes_out", nullptr, false},
        {"server.other.requests", nullptr, false},
        {"server.other.errors", nullptr, false},
        {"server.other.kbytes_in", nullptr, false},
        {"server.other.kbytes_out", nullptr, false},
        {"icp.pkts_sent", &Counters::icpPacketsSent, false},
        {"icp.pkts_recv", &Counters::icpPacketsReceived, false},
        {"icp.queries_sent", &Counters::icpQueriesSent, false},
        {"icp.replies_sent", &Counters::icpRepliesSent, false},
        {"icp.queries_recv", &Counters::icpQueriesReceived, false},
        {"icp.replies_recv", &Counters::icpRepliesReceived, false},
        {"icp.query_timeouts", &Counters::icpQueryTimeouts, false},
        {"icp.replies_queued", nullptr, false},
        {"icp.kbytes_sent", &Counters::icpBytesSent, true},
        {"icp.kbytes_recv", &Counters::icpBytesReceived, true},
        {"icp.q_kbytes_sent", &Counters::icpQueryBytesSent, true},
        {"icp.r_kbytes_sent", &Counters::icpReplyBytesSent, true},
        {"icp.q_kbytes_recv", &Counters::icpQueryBytesReceived, true},
        {"icp.r_kbytes_recv", &Counters::icpReplyBytesReceived, true},
        {"icp.times_used", &Counters::icpTimesUsed, false},
        {"cd.times_used", nullptr, false},
        {"cd.msgs_sent", nullptr, false},
        {"cd.msgs_recv", nullptr, false},
        {"cd.memory", nullptr, false},
        {"cd.local_memory", nullptr, false},
        {"cd.kbytes_sent", nullptr, false},
        {"cd.kbytes_recv", nullptr, false},
        {"unlink.requests", nullptr, false},
        {"page_faults", &Counters::pageFaults, false},
        {"select_loops", &Counters::selectLoops, false},
    };
    return lines;
}

/// the counters page's line called name, or nullptr
const CounterLine* FindCounterLine(std::string_view name)
{
    for (const auto& line : CounterLines())
        if (name == line.name)
            return &line;
    return nullptr;
}

uint64_t ValueOf(const CounterLine& line, const Counters& c)
{
    if (!line.field)
        return 0;
    const uint64_t v = c.*line.field;
    return line.kilobytes ? v / 1024 : v;
}

void CountersPage(std::string& out, const Figures& f)
{
    Printf(out, "sample_time = %s\n", SampleTime(f.counters.sampleTime).c_str());
    for (const auto& line : CounterLines())
        Printf(out, "%s = %llu\n", line.name, static_cast<unsigned long long>(ValueOf(line, f.counters)));
    Printf(out, "cpu_time = %f\n", f.counters.cpuTime);
    Printf(out, "wall_time = %f\n", f.now - f.startTime);
    out += "swap.outs = 0\nswap.ins = 0\nswap.files_cleaned = 0\n";
    Printf(out, "aborted_requests = %llu\n", static_cast<unsigned long long>(f.counters.abortedRequests));
}

/// The 5min and 60min pages: rates between two samples (Squid's statAvgDump()).
void AveragePage(std::string& out, const Counters& newer, const Counters& older)
{
    const double dt = newer.sampleTime - older.sampleTime;
    const auto rate = [dt](uint64_t a, uint64_t b, bool kb) {
        const double d = static_cast<double>(a - b) / (kb ? 1024.0 : 1.0);
        return dt > 0 ? d / dt : 0.0;
    };
    Printf(out, "sample_start_time = %s\n", SampleTime(older.sampleTime).c_str());
    Printf(out, "sample_end_time = %s\n", SampleTime(newer.sampleTime).c_str());
    const auto perSec = [&](const char* name, uint64_t Counters::*field, bool kb) {
        Printf(out, "%s = %f/sec\n", name, field ? rate(newer.*field, older.*field, kb) : 0.0);
    };
    const auto seconds = [&](const char* name) { Printf(out, "%s = %f seconds\n", name, 0.0); };
    perSec("client_http.requests", &Counters::clientRequests, false);
    perSec("client_http.hits", &Counters::clientHits, false);
    perSec("client_http.errors", &Counters::clientErrors, false);
    perSec("client_http.kbytes_in", &Counters::clientBytesIn, true);
    perSec("client_http.kbytes_out", &Counters::clientBytesOut, true);
    for (const char* name : {"client_http.all_median_svc_time", "client_http.miss_median_svc_time",
                             "client_http.nm_median_svc_time", "client_http.nh_median_svc_time",
                             "client_http.hit_median_svc_time"})
        seconds(name);
    for (const char* group : {"all", "http"}) {
        const std::string p = std::string("server.") + group + ".";
        perSec((p + "requests").c_str(), &Counters::serverRequests, false);
        perSec((p + "errors").c_str(), &Counters::serverErrors, false);
        perSec((p + "kbytes_in").c_str(), &Counters::serverBytesIn, true);
        perSec((p + "kbytes_out").c_str(), &Counters::serverBytesOut, true);
    }
    for (const char* name :
         {"server.ftp.requests",   "server.ftp.errors",   "server.ftp.kbytes_in",   "server.ftp.kbytes_out",
          "server.other.requests", "server.other.errors", "server.other.kbytes_in", "server.other.kbytes_out",
          "icp.pkts_sent",         "icp.pkts_recv",       "icp.queries_sent",       "icp.replies_sent",
          "icp.queries_recv",      "icp.replies_recv",    "icp.replies_queued",     "icp.query_timeouts",
          "icp.kbytes_sent",       "icp.kbytes_recv",     "icp.q_kbytes_sent",      "icp.r_kbytes_sent",
          "icp.q_kbytes_recv",     "icp.r_kbytes_recv"}) {
        const auto* line = FindCounterLine(name);
        perSec(name, line ? line->field : nullptr, line && line->kilobytes);
    }
    seconds("icp.query_median_svc_time");
    seconds("icp.reply_median_svc_time");
    seconds("dns.median_svc_time");
    perSec("unlink.requests", nullptr, false);
    perSec("page_faults", &Counters::pageFaults, false);
    perSec("select_loops", &Counters::selectLoops, false);
    out +=
        "select_fds = 0.000000/sec\naverage_select_fd_period = 0.000000/fd\nmedian_select_fds = 0.000000\n";
    for (const char* name : {"swap.outs", "swap.ins", "swap.files_cleaned"})
        perSec(name, nullptr, false);
    perSec("aborted_requests", &Counters::abortedRequests, false);
    for (const char* name : {"syscalls.disk.opens", "syscalls.disk.closes", "syscalls.disk.reads",
                             "syscalls.disk.writes", "syscalls.disk.seeks", "syscalls.disk.unlinks"})
        perSec(name, nullptr, false);
    perSec("syscalls.sock.accepts", &Counters::acceptedConnections, false);
    for (const char* name :
         {"syscalls.sock.sockets", "syscalls.sock.connects", "syscalls.sock.binds", "syscalls.sock.closes",
          "syscalls.sock.reads", "syscalls.sock.writes", "syscalls.sock.recvfroms", "syscalls.sock.sendtos"})
        perSec(name, nullptr, false);
    const double cpu = newer.cpuTime - older.cpuTime;
    Printf(out, "cpu_time = %f seconds\n", cpu);
    Printf(out, "wall_time = %f seconds\n", dt);
    Printf(out, "cpu_usage = %f%%\n", dt > 0 ? 100.0 * cpu / dt : 0.0);
}

/// the 5min or 60min page: the newest minute sample against the one `minutes` before
void AverageOver(std::string& out, const Figures& f, const Mgr::History& history, size_t minutes)
{
    const Counters* newer = history.minutesAgo(0);
    const Counters* older = history.minutesAgo(minutes);
    if (!newer || !older) {
        Counters start;
        start.sampleTime = f.startTime;
        AveragePage(out, start, start);
        return;
    }
    AveragePage(out, *newer, *older);
}

void UtilizationPage(std::string& out, const Figures& f, const Mgr::History& history)
{
    out += "Cache Utilisation:\n\n";
    const std::pair<const char*, size_t> windows[] = {{"Last 5 minutes", 5}, {"Last 15 minutes", 15},
                                                      {"Last hour", 60},     {"Last 8 hours", 480},
                                                      {"Last day", 1440},    {"Last 3 days", 4320}};
    for (const auto& [title, minutes] : windows) {
        Printf(out, "%s:\n", title);
        // a window is shown once the samples cover it (History keeps an hour)
        if (history.size() > minutes)
            AveragePage(out, *history.minutesAgo(0), *history.minutesAgo(minutes));
        else
            out += "(no values recorded yet)\n";
        out += "\n";
    }
    out += "Totals since cache startup:\n";
    CountersPage(out, f);
}

void InfoPage(std::string& out, const Figures& f, const Mgr::History& history)
{
    const Counters& c = f.counters;
    const double up = f.now - f.startTime;
    Printf(out, "Squid Object Cache: Version %s\n", f.version.c_str());
    out += "Build Info: cuttle\n";
    Printf(out, "Service Name: %s\n", f.serviceName.c_str());
    Printf(out, "Start Time:\t%s\n", Http::FormatHttpDate(static_cast<time_t>(f.startTime)).c_str());
    Printf(out, "Current Time:\t%s\n", Http::FormatHttpDate(static_cast<time_t>(f.now)).c_str());
    out += "Connection information for squid:\n";
    Printf(out, "\tNumber of clients accessing cache:\t%zu\n", f.clients.size());
    Printf(out, "\tNumber of HTTP requests received:\t%llu\n",
           static_cast<unsigned long long>(c.clientRequests));
    out += "\tNumber of ICP messages received:\t0\n\tNumber of ICP messages sent:\t0\n"
           "\tNumber of queued ICP replies:\t0\n\tNumber of HTCP messages received:\t0\n"
           "\tNumber of HTCP messages sent:\t0\n";
    Printf(out, "\tRequest failure ratio:\t%5.2f\n",
           c.clientRequests ? static_cast<double>(c.clientErrors) / static_cast<double>(c.clientRequests)
                            : 0.0);
    Printf(out, "\tAverage HTTP requests per minute since start:\t%.1f\n",
           up > 0 ? static_cast<double>(c.clientRequests) / (up / 60.0) : 0.0);
    out += "\tAverage ICP messages per minute since start:\t0.0\n";
    Printf(out, "\tSelect loop called: %llu times, %.3f ms avg\n",
           static_cast<unsigned long long>(c.selectLoops),
           c.selectLoops ? 1000.0 * up / static_cast<double>(c.selectLoops) : 0.0);
    // a hit ratio line: part of whole over the windows the samples cover, as Squid's
    const auto ratioLine = [&](const char* label, uint64_t Counters::*part, uint64_t Counters::*whole) {
        double percent[2] = {0.0, 0.0};
        const size_t windows[2] = {5, 60};
        for (size_t i = 0; i < 2; ++i) {
            const Counters* newer = history.minutesAgo(0);
            const Counters* older = history.minutesAgo(windows[i]);
            if (newer && older)
                percent[i] = Percent(static_cast<double>(newer->*part - older->*part),
                                     static_cast<double>(newer->*whole - older->*whole));
        }
        Printf(out, "\t%s:\t5min: %3.1f%%, 60min: %3.1f%%\n", label, percent[0], percent[1]);
    };
    out += "Cache information for squid:\n";
    ratioLine("Hits as % of all requests", &Counters::clientHits, &Counters::clientRequests);
    ratioLine("Hits as % of bytes sent", &Counters::clientHitBytesOut, &Counters::clientBytesOut);
    ratioLine("Memory hits as % of hit requests", &Counters::clientMemHits, &Counters::clientHits);
    ratioLine("Disk hits as % of hit requests", &Counters::clientDiskHits, &Counters::clientHits);
    uint64_t swapBytes = 0;
    uint64_t swapMax = 0;
    for (const auto& dir : f.storeDirs) {
        swapBytes += dir.usedBytes;
        swapMax += dir.maxBytes;
    }
    Printf(out, "\tStorage Swap size:\t%llu KB\n", static_cast<unsigned long long>(swapBytes / 1024));
    const double swapUsed = Percent(static_cast<double>(swapBytes), static_cast<double>(swapMax));
    Printf(out, "\tStorage Swap capacity:\t%4.1f%% used, %4.1f%% free\n", swapUsed,
           swapMax ? 100.0 - swapUsed : 0.0);
    Printf(out, "\tStorage Mem size:\t%llu KB\n", static_cast<unsigned long long>(f.cacheBytes / 1024));
    const double used = Percent(static_cast<double>(f.cacheBytes), static_cast<double>(f.cacheBudget));
    Printf(out, "\tStorage Mem capacity:\t%4.1f%% used, %4.1f%% free\n", used,
           f.cacheBudget ? 100.0 - used : 0.0);
    // Squid's is the cache_dirs' (the memory cache's without any)
    Printf(out, "\tMean Object Size:\t%0.2f KB\n",
           f.diskObjects    ? Kb(swapBytes) / static_cast<double>(f.diskObjects)
           : f.cacheObjects ? Kb(f.cacheBytes) / static_cast<double>(f.cacheObjects)
                            : 0.0);
    out += "\tRequests given to unlinkd:\t0\n";
    out += "Median Service Times (seconds)  5 min    60 min:\n";
    for (const char* name : {"HTTP Requests (All):", "Cache Misses:", "Cache Hits:", "Near Hits:",
                             "Not-Modified Replies:", "DNS Lookups:", "ICP Queries:"})
        Printf(out, "\t%-22s%8.5f %8.5f\n", name, 0.0, 0.0);
    out += "Resource usage for squid:\n";
    Printf(out, "\tUP Time:\t%.3f seconds\n", up);
    Printf(out, "\tCPU Time:\t%.3f seconds\n", c.cpuTime);
    Printf(out, "\tCPU Usage:\t%.2f%%\n", up > 0 ? 100.0 * c.cpuTime / up : 0.0);
    const auto cpu = [&](size_t minutes) {
        const Counters* newer = history.minutesAgo(0);
        const Counters* older = history.minutesAgo(minutes);
        if (!newer || !older || newer->sampleTime <= older->sampleTime)
            return 0.0;
        return 100.0 * (newer->cpuTime - older->cpuTime) / (newer->sampleTime - older->sampleTime);
    };
    Printf(out, "\tCPU Usage, 5 minute avg:\t%.2f%%\n", cpu(5));
    Printf(out, "\tCPU Usage, 60 minute avg:\t%.2f%%\n", cpu(60));
    Printf(out, "\tMaximum Resident Size: %llu KB\n", static_cast<unsigned long long>(f.maxRssKb));
    Printf(out, "\tPage faults with physical i/o: %llu\n", static_cast<unsigned long long>(c.pageFaults));
    out += "Memory accounted for:\n";
    Printf(out, "\tTotal accounted:       %6.0f KB\n", Kb(f.blockBytesInUse + f.blockBytesFree));
    out += "\tmemPoolAlloc calls:         0\n\tmemPoolFree calls:          0\n";
    out += "File descriptor usage for squid:\n";
    Printf(out, "\tMaximum number of file descriptors:   %4zu\n", f.fdMax);
    Printf(out, "\tLargest file desc currently in use:   %4d\n", f.fdLargest);
    Printf(out, "\tNumber of file desc currently in use: %4zu\n", f.fdInUse);
    out += "\tFiles queued for open:                   0\n";
    Printf(out, "\tAvailable number of file descriptors: %4zu\n", f.fdMax - std::min(f.fdMax, f.fdInUse));
    out += "\tReserved number of file descriptors:   100\n";
    out += "\tStore Disk files open:                   0\n";
    out += "Internal Data Structures:\n";
    Printf(out, "\t%6zu StoreEntries\n", f.cacheObjects);
    Printf(out, "\t%6zu StoreEntries with MemObjects\n", f.cacheObjects);
    Printf(out, "\t%6zu Hot Object Cache Items\n",
           f.cacheObjects - std::min(f.cacheObjects, f.cacheInFlight));
    out += "\t     0 on-disk objects\n";
}

void MenuPage(std::string& out, const Config::Settings& settings)
{
    for (const auto& action : Mgr::Actions())
        Printf(out, " %-22s\t%-32s\t%s\n", action.name, action.description,
               Mgr::ProtectionName(Mgr::Protect(settings.managerPasswords, action)));
}

/// Squid's table of pools, cuttle's block pool in it; then cuttle's own
/// figures under a heading of their own, as `NAME: VALUE` lines
void MemPage(std::string& out, const Figures& f)
{
    out += "Current memory usage:\n";
    out += "Pool\t Obj Size\t(#) in use\t(KB) in use\t(#) idle\t(KB) idle\t(#) idle in arena\n";
    for (const auto& c : f.blockClasses)
        Printf(out, "block %-14zu\t %zu\t %zu\t %zu\t %zu\t %zu\t %zu\n", c.size, c.size, c.inUse,
               c.inUse * c.size / 1024, c.free, c.free * c.size / 1024, c.arenaFree);
    Printf(out, "Total in use:\t %llu KB\n", static_cast<unsigned long long>(f.blockBytesInUse / 1024));
    Printf(out, "Total idle:\t %llu KB\n", static_cast<unsigned long long>(f.blockBytesFree / 1024));
    out += "\ncuttle:\n";
    for (const auto& figure : f.own)
        Printf(out, "%s: %llu\n", figure.name, static_cast<unsigned long long>(figure.value));
    for (const auto& c : f.blockClasses)
        Printf(out, "blocks_%zu: %zu in use, %zu free, %zu free in the arena\n", c.size, c.inUse, c.free,
               c.arenaFree);
    out += "\ncuttle origin reads by space offered (request_buffer_size):\n";
    for (const auto& [size, times] : f.readSizes)
        Printf(out, "reads_from_%zu: %llu\n", size, static_cast<unsigned long long>(times));
}

/// objects and vm_objects: cuttle's cache is all in memory, so both list every object
void ObjectsPage(std::string& out, const Figures& f)
{
    for (const auto& o : f.objects) {
        Printf(out, "KEY %s\n", o.keyDigest.c_str());
        Printf(out, "\t%s NOT_IN_MEMORY SWAPOUT_NONE PING_NONE   \n",
               o.complete ? "STORE_OK     " : "STORE_PENDING");
        out += "\tVALIDATED\n";
        Printf(out, "\tLV:%-9lld LU:%-9lld LM:%-9lld EX:%-9lld\n", -1LL, -1LL,
               static_cast<long long>(o.lastModified), static_cast<long long>(o.expires));
        Printf(out, "\t%zu locks, %zu clients, 0 refs\n", o.readers, o.readers);
        out += "\tSwap Dir -1, File 0XFFFFFFFF\n";
        Printf(out, "\t%s\n", o.key.substr(0, o.key.find('\n')).c_str()); // a variant's key: the URL's part
        out += "\tinmem_lo: 0\n";
        Printf(out, "\tinmem_hi: %llu\n", static_cast<unsigned long long>(o.bytes));
        out += "\tswapout: 0 bytes queued\n";
        if (o.complete)
            Printf(out, "\tobject_sz: %llu\n", static_cast<unsigned long long>(o.bytes));
        out += "\n";
    }
}

/// storedir: Squid 5.7's store directory page (StoreController::stat() and
/// UFSSwapDir::stat()); cuttle's own figures under "cuttle:"
void StoreDirPage(std::string& out, const Figures& f)
{
    uint64_t maxBytes = 0, usedBytes = 0;
    for (const auto& d : f.storeDirs) {
        maxBytes += d.maxBytes;
        usedBytes += d.usedBytes;
    }
    out += "Store Directory Statistics:\n";
    Printf(out, "Store Entries          : %zu\n", f.objects.size() + f.diskObjects);
    Printf(out, "Maximum Swap Size      : %llu KB\n", static_cast<unsigned long long>(maxBytes / 1024));
    Printf(out, "Current Store Swap Size: %.2f KB\n", static_cast<double>(usedBytes) / 1024.0);
    const double used = Percent(static_cast<double>(usedBytes), static_cast<double>(maxBytes));
    Printf(out, "Current Capacity       : %.2f%% used, %.2f%% free\n", used, 100.0 - used);
    for (size_t i = 0; i < f.storeDirs.size(); ++i) {
        const auto& d = f.storeDirs[i];
        Printf(out, "\nStore Directory #%zu (%s): %s\n", i, d.type.c_str(), d.path.c_str());
        Printf(out, "FS Block Size %llu Bytes\n", static_cast<unsigned long long>(d.fsBlockSize));
        Printf(out, "First level subdirectories: %u\n", d.l1);
        Printf(out, "Second level subdirectories: %u\n", d.l2);
        Printf(out, "Maximum Size: %llu KB\n", static_cast<unsigned long long>(d.maxBytes / 1024));
        Printf(out, "Current Size: %.2f KB\n", static_cast<double>(d.usedBytes) / 1024.0);
        Printf(out, "Percent Used: %0.2f%%\n",
               Percent(static_cast<double>(d.usedBytes), static_cast<double>(d.maxBytes)));
        // Squid's file map starts at 2^14 bits and doubles as it fills
        size_t bits = 16384;
        while (bits < d.objects)
            bits *= 2;
        Printf(out, "Filemap bits in use: %zu of %zu (%d%%)\n", d.objects, bits,
               static_cast<int>(Percent(static_cast<double>(d.objects), static_cast<double>(bits))));
        Printf(out, "Filesystem Space in use: %llu/%llu KB (%d%%)\n",
               static_cast<unsigned long long>(d.fsUsedKb), static_cast<unsigned long long>(d.fsTotalKb),
               static_cast<int>(Percent(static_cast<double>(d.fsUsedKb), static_cast<double>(d.fsTotalKb))));
        Printf(out, "Filesystem Inodes in use: %llu/%llu (%d%%)\n",
               static_cast<unsigned long long>(d.fsInodesUsed),
               static_cast<unsigned long long>(d.fsInodesTotal),
               static_cast<int>(
                   Percent(static_cast<double>(d.fsInodesUsed), static_cast<double>(d.fsInodesTotal))));
        Printf(out, "Flags:%s\n", d.noStore ? " READ-ONLY" : "");
        Printf(out, "Removal policy: %s\n", d.policy.c_str());
        out += "cuttle:\n";
        Printf(out, "objects: %zu\n", d.objects);
        Printf(out, "partial objects: %zu\n", d.partialObjects);
        Printf(out, "rebuilding: %s\n", d.rebuilding ? "yes" : "no");
        Printf(out, "storing: %s\n",
               d.noStore ? "no (no-store)"
               : d.full  ? "stopped (the disk is full)"
                         : "yes");
    }
}

void ActiveRequestsPage(std::string& out, const Figures& f)
{
    for (const auto& r : f.active) {
        Printf(out, "Connection: FD %d\n", r.fd);
        Printf(out, "\tFD %d, read 0, wrote 0\n", r.fd);
        Printf(out, "\tFD desc: %s\n", r.state.c_str());
        out += "\tin: buf 0, used 0, free 0\n";
        Printf(out, "\tremote: %s\n", r.peer.c_str());
        Printf(out, "\tlocal: %s\n", r.local.c_str());
        Printf(out, "\tnrequests: %llu\n", static_cast<unsigned long long>(r.requests));
        Printf(out, "uri %s\n", r.uri.c_str());
        Printf(out, "logType %s\n", r.logType.c_str());
        out += "out.offset 0, out.size 0\nreq_sz 0\nentry 0\n";
        Printf(out, "start %.6f (%f seconds ago)\n", r.start, f.now - r.start);
        Printf(out, "username %s\n", r.user.empty() ? "-" : r.user.c_str());
        out += "delay_pool 0\n\n";
    }
}

void ClientListPage(std::string& out, const Figures& f)
{
    out += "Cache Clients:\n";
    uint64_t requests = 0, hits = 0;
    for (const auto& c : f.clients) {
        Printf(out, "Address: %s\n", c.address.c_str());
        Printf(out, "Name:    %s\n", c.address.c_str());
        Printf(out, "Currently established connections: %zu\n", c.connections);
        out += "    ICP  Requests 0\n";
        Printf(out, "    HTTP Requests %llu\n", static_cast<unsigned long long>(c.requests));
        for (const auto& [code, n] : c.codes)
            Printf(out, "        %-20.20s %7llu %3d%%\n", code.c_str(), static_cast<unsigned long long>(n),
                   static_cast<int>(Percent(static_cast<double>(n), static_cast<double>(c.requests))));
        out += "\n";
        requests += c.requests;
        hits += c.hits;
    }
    out += "TOTALS\n";
    out += "ICP : 0 Queries, 0 Hits (  0%)\n";
    Printf(out, "HTTP: %llu Requests, %llu Hits (%3d%%)\n", static_cast<unsigned long long>(requests),
           static_cast<unsigned long long>(hits),
           static_cast<int>(Percent(static_cast<double>(hits), static_cast<double>(requests))));
}

void FqdnCachePage(std::string& out, const Figures& f)
{
    // hosts_file's addresses (H), then the name cache of reverse lookups
    // (N: a lookup that found no name), as Squid's fqdncache lists them
    const size_t entries = f.hosts.size() + f.cachedNames.size();
    out += "FQDN Cache Statistics:\n";
    Printf(out, "FQDNcache Entries In Use: %zu\n", entries);
    Printf(out, "FQDNcache Entries Cached: %zu\n", entries);
    Printf(out, "FQDNcache Requests: %llu\n", static_cast<unsigned long long>(f.addressLookups));
    Printf(out, "FQDNcache Hits: %llu\n", static_cast<unsigned long long>(f.nameCacheHits));
    Printf(out, "FQDNcache Negative Hits: %llu\n", static_cast<unsigned long long>(f.negativeNameHits));
    Printf(out, "FQDNcache Misses: %llu\n",
           static_cast<unsigned long long>(f.addressLookups - std::min(f.addressLookups, f.nameCacheHits)));
    out += "FQDN Cache Contents:\n\n";
    out += "Address                                       Flg TTL Cnt Hostnames\n";
    for (const auto& h : f.hosts)
        for (const auto& a : h.addresses)
            Printf(out, "%-45.45s  H -001   1 %s\n", a.c_str(), h.name.c_str());
    for (const auto& c : f.cachedNames) {
        Printf(out, "%-45.45s %c  %3.3lld %3zu", c.address.c_str(), c.names.empty() ? 'N' : ' ',
               static_cast<long long>(c.ttl), c.names.size());
        for (const auto& name : c.names)
            Printf(out, " %s", name.c_str());
        out += "\n";
    }
}

void IpCachePage(std::string& out, const Figures& f)
{
    out += "IP Cache Statistics:\n";
    Printf(out, "IPcache Entries Cached:  %zu\n", f.hosts.size());
    Printf(out, "IPcache Requests: %llu\n", static_cast<unsigned long long>(f.dnsLookups));
    Printf(out, "IPcache Hits:            %llu\n",
           static_cast<unsigned long long>(f.dnsHostsFile + f.addressCacheHits));
    Printf(out, "IPcache Negative Hits:       %llu\n",
           static_cast<unsigned long long>(f.negativeAddressHits));
    Printf(out, "IPcache Numeric Hits:        %llu\n", static_cast<unsigned long long>(f.dnsLiterals));
    Printf(out, "IPcache Misses:          %llu\n",
           static_cast<unsigned long long>(f.dnsAnswered + f.dnsNotFound + f.dnsFailures));
    Printf(out, "IPcache Retrieved A:     %llu\n", static_cast<unsigned long long>(f.dnsAnswered));
    out += "IPcache Retrieved AAAA:  0\nIPcache Retrieved CNAME: 0\nIPcache CNAME-Only Response: 0\n";
    Printf(out, "IPcache Invalid Request: %llu\n", 0ULL);
    out += "\n\nIP Cache Contents:\n\n";
    out += " Hostname                        Flg lstref    TTL  N(b)\n";
    for (const auto& h : f.hosts) {
        // Squid's flags: N a kept failure, H from hosts_file
        Printf(out, " %-32.32s %c%c %6d %6lld %2zu( 0)", h.name.c_str(), h.addresses.empty() ? 'N' : ' ',
               h.fromHostsFile ? 'H' : ' ', 0, static_cast<long long>(h.ttl), h.addresses.size());
        for (const auto& a : h.addresses)
            Printf(out, " %39s-OK ", a.c_str());
        out += "\n";
    }
}

void ConfigPage(std::string& out, const Config::Settings& settings)
{
    for (const auto& line : settings.appliedLines)
        out += Mgr::MaskSecrets(line) + "\n";
}

} // namespace

void Mgr::Counters::add(const Counters& o)
{
    for (auto [mine, theirs] : {std::pair{&clientRequests, o.clientRequests},
                                {&clientHits, o.clientHits},
                                {&clientMemHits, o.clientMemHits},
                                {&clientDiskHits, o.clientDiskHits},
                                {&clientErrors, o.clientErrors},
                                {&clientBytesIn, o.clientBytesIn},
                                {&clientBytesOut, o.clientBytesOut},
                                {&clientHitBytesOut, o.clientHitBytesOut},
                                {&serverRequests, o.serverRequests},
                                {&serverErrors, o.serverErrors},
                                {&serverBytesIn, o.serverBytesIn},
                                {&serverBytesOut, o.serverBytesOut},
                                {&abortedRequests, o.abortedRequests},
                                {&selectLoops, o.selectLoops},
                                {&dnsQueries, o.dnsQueries},
                                {&acceptedConnections, o.acceptedConnections},
                                {&icpPacketsSent, o.icpPacketsSent},
                                {&icpPacketsReceived, o.icpPacketsReceived},
                                {&icpQueriesSent, o.icpQueriesSent},
                                {&icpRepliesSent, o.icpRepliesSent},
                                {&icpQueriesReceived, o.icpQueriesReceived},
                                {&icpRepliesReceived, o.icpRepliesReceived},
                                {&icpQueryTimeouts, o.icpQueryTimeouts},
                                {&icpBytesSent, o.icpBytesSent},
                                {&icpBytesReceived, o.icpBytesReceived},
                                {&icpQueryBytesSent, o.icpQueryBytesSent},
                                {&icpReplyBytesSent, o.icpReplyBytesSent},
                                {&icpQueryBytesReceived, o.icpQueryBytesReceived},
                                {&icpReplyBytesReceived, o.icpReplyBytesReceived},
                                {&icpTimesUsed, o.icpTimesUsed}})
        *mine += theirs;
}

void Mgr::History::sample(const Counters& counters)
{
    samples_.push_front(counters);
    if (samples_.size() > 61)
        samples_.pop_back();
}

const Mgr::Counters* Mgr::History::minutesAgo(size_t minutes) const
{
    if (samples_.empty())
        return nullptr;
    return &samples_[std::min(minutes, samples_.size() - 1)];
}

std::string Mgr::MaskSecrets(const std::string& line)
{
    static const std::string mask = "XXXXXXXXXX";
    if (line.rfind("cachemgr_passwd ", 0) == 0) {
        const auto start = line.find(' ') + 1;
        auto end = line.find(' ', start);
        end = end == std::string::npos ? line.size() : end;
        const auto word = line.substr(start, end - start);
        if (word == "none" || word == "disable")
            return line;
        return line.substr(0, start) + mask + line.substr(end);
    }
    std::string out = line;
    for (const char* option : {"login=", "password="}) {
        for (auto at = out.find(option); at != std::string::npos; at = out.find(option, at + 1)) {
            auto value = at + std::char_traits<char>::length(option);
            const auto end = std::min(out.find(' ', value), out.size());
            // login=USER:PASSWORD keeps the user; the keywords PASS, PASSTHRU, ... have no secret
            const auto colon = out.find(':', value);
            if (colon != std::string::npos && colon < end)
                value = colon + 1;
            else if (option[0] == 'l')
                continue;
            out.replace(value, end - value, mask);
        }
    }
    return out;
}

bool Mgr::IsPerWorkerList(std::string_view action)
{
    return action == "active_requests" || action == "client_list";
}

std::string Mgr::WorkerPart(unsigned worker, std::string_view page)
{
    const std::string kid = "by kid" + std::to_string(worker);
    return kid + " {\n" + std::string(page) + "} " + kid + "\n\n";
}

std::optional<std::string> Mgr::RenderPage(std::string_view action, const Figures& figures,
                                           const History& history, const Config::Settings& settings)
{
    std::string out;
    if (action == "menu")
        MenuPage(out, settings);
    else if (action == "info")
        InfoPage(out, figures, history);
    else if (action == "counters")
        CountersPage(out, figures);
    else if (action == "5min")
        AverageOver(out, figures, history, 5);
    else if (action == "60min")
        AverageOver(out, figures, history, 60);
    else if (action == "utilization")
        UtilizationPage(out, figures, history);
    else if (action == "mem")
        MemPage(out, figures);
    else if (action == "objects" || action == "vm_objects")
        ObjectsPage(out, figures);
    else if (action == "storedir")
        StoreDirPage(out, figures);
    else if (action == "active_requests")
        ActiveRequestsPage(out, figures);
    else if (action == "client_list")
        ClientListPage(out, figures);
    else if (action == "server_list")
        out += "There are no neighbors installed.\n";
    else if (action == "fqdncache")
        FqdnCachePage(out, figures);
    else if (action == "ipcache")
        IpCachePage(out, figures);
    else if (action == "config")
        ConfigPage(out, settings);
    else if (action == "metrics")
        out = RenderMetrics(figures);
    else
        return std::nullopt;
    return out;
}
