/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The daemon: Squid's command line, the pid file, daemonizing, signals
/// and the start-up/shutdown phases. Everything else lives in the libraries.

#include "cuttle.h"

#include "base/Heap.h"
#include "base/Privileges.h"
#include "disk/Layout.h"
#include "disk/Shelf.h"
#include "base/TextException.h"
#include "proxy/Worker.h"
#include "sbuf/BlockPool.h"
#include "comm/Loop.h"
#include "comm/SignalSource.h"
#include "comm/SystemdNotify.h"
#include "config/Parser.h"
#include "proxy/ConfigDns.h"
#include "log/CacheLog.h"
#include "log/Sink.h"
#include "log/DebugOptions.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <getopt.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <syslog.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

/// what the command line asked for
struct Options {
    std::string configFile = CUTTLE_DEFAULT_CONFIG_FILE;
    bool foreground = false;        ///< -N or --foreground (cuttle has no kids: the same)
    int debugLevel = -1;            ///< -d LEVEL
    std::string command;            ///< -k WORD, empty to run
    std::string serviceName;        ///< -n NAME: ${service_name} in squid.conf
    int syslogFacility = -1;        ///< -s (LOG_LOCAL4) or -l FACILITY
    int httpPort = -1;              ///< -a PORT: replaces the first http_port's port
    int icpPort = -1;               ///< -u PORT: replaces icp_port
    bool fullDebugging = false;     ///< -X: every section at level 9
    bool createDirectories = false; ///< -z: make the cache_dirs' directories and exit
};

void Usage(std::ostream& out)
{
    out << "Usage: cuttle [-hvzCFNRSXY] [-n name] [-s | -l facility] [-d level] [-f config-file]\n"
           "              [-[au] port] [-k parse|check|reconfigure|rotate|shutdown|interrupt|kill]\n"
           "    -h | --help       Print help message.\n"
           "    -v | --version    Print version details.\n"
           "\n"
           "       -a port   Listen on this HTTP port instead of the first http_port's.\n"
           "       -d level  Write debugging to stderr also.\n"
           "       -u port   Answer ICP on this UDP port instead of icp_port's (0: none).\n"
           "       -f file   Use given config-file instead of\n"
           "                 " CUTTLE_DEFAULT_CONFIG_FILE "\n"
           "       -k reconfigure|rotate|shutdown|interrupt|kill|check|parse\n"
           "                 Parse configuration file, then send signal to\n"
           "                 running copy (except -k parse) and exit.\n"
           "       -n name   Service name: the value of ${service_name} in squid.conf\n"
           "                 (default: cuttle).\n"
           "       -s | -l facility\n"
           "                 Also send important cache.log messages to syslog\n"
           "                 (facility local4 with -s).\n"
           "       -z        Create missing swap directories and then exit.\n"
           "       -N        Run in the foreground.\n"
           "       --foreground\n"
           "                 The same as -N: cuttle runs one process and no kids.\n"
           "       -X        Force full debugging (every section at level 9).\n"
           "       -C -F -R -S -Y\n"
           "                 Accepted for Squid's scripts; they change nothing in cuttle\n"
           "                 (no fatal-signal catching, no store rebuild; SO_REUSEADDR is\n"
           "                 always set).\n";
}

/// a port number from the command line, or -1
int ParsePort(const char* text)
{
    char* end = nullptr;
    const long port = std::strtol(text, &end, 10);
    if (!*text || *end || port < 0 || port > 65535)
        return -1;
    return static_cast<int>(port);
}

bool IsKnownCommand(const std::string& word)
{
    for (const char* known : {"parse", "reconfigure", "rotate", "shutdown", "interrupt", "kill", "check"}) {
        if (word == known)
            return true;
    }
    return false;
}

/// A parser set up as the command line says.
struct ConfigReader {
    Config::Parser parser;
    explicit ConfigReader(const Options& options)
    {
        if (!options.serviceName.empty())
            parser.setServiceName(options.serviceName);
        parser.setHostResolver(Proxy::ResolveAclHost);
    }
};

/// Applies what the command line overrides in a parsed configuration (-a, -u).
void ApplyCommandLine(Config::Settings& settings, const Options& options)
{
    if (options.icpPort >= 0)
        settings.icpPort = unsigned(options.icpPort);
    if (options.httpPort < 0)
        return;
    if (settings.httpPorts.empty())
        settings.httpPorts.emplace_back();
    settings.httpPorts.front().port = static_cast<uint16_t>(options.httpPort);
}

/// parses the configuration, writing its diagnostics to `out`; null on errors
std::unique_ptr<Config::Settings> ParseConfig(const Options& options, std::ostream* out)
{
    ConfigReader reader(options);
    auto settings = reader.parser.parseFile(options.configFile);
    if (out) {
        for (const auto& d : reader.parser.diagnostics())
            *out << d.format() << "\n";
    }
    if (reader.parser.hasErrors() || !settings)
        return nullptr;
    ApplyCommandLine(*settings, options);
    return settings;
}

/// one configuration per worker, [0] for worker 1
using WorkerSettings = std::vector<std::shared_ptr<Config::Settings>>;

/// Reads squid.conf once more for each worker after the first (`first`,
/// read already): worker K reads it with ${process_number} K, as Squid's
/// kids do. Diagnostics of those readings that the first did not give go to
/// `report`; empty on errors, among them two workers sharing a cache_dir.
WorkerSettings ParseWorkers(const Options& options, std::unique_ptr<Config::Settings> first,
                            const std::function<void(const std::string&, bool isError)>& report)
{
    const unsigned count = first->workers;
    WorkerSettings all;
    all.emplace_back(std::move(first));
    bool failed = false;
    for (unsigned number = 2; number <= count; ++number) {
        ConfigReader reader(options);
        reader.parser.setProcess(number, count);
        auto settings = reader.parser.parseFile(options.configFile);
        for (const auto& d : reader.parser.diagnostics()) {
            if (d.isError())
                report("worker " + std::to_string(number) + ": " + d.format(), true);
        }
        if (reader.parser.hasErrors() || !settings) {
            failed = true;
            continue;
        }
        ApplyCommandLine(*settings, options);
        all.emplace_back(std::move(settings));
    }
    if (failed)
        return {};
    // workers share a cache_dir only with the same cache_dir lines: one
    // Disk::Shelf (doc/design.md "Workers")
    for (size_t a = 0; a < all.size(); ++a) {
        for (size_t b = a + 1; b < all.size(); ++b) {
            if (Disk::Shelf::KeyOf(all[a]->cacheDirs) == Disk::Shelf::KeyOf(all[b]->cacheDirs))
                continue;
            for (const auto& dir : all[a]->cacheDirs) {
                for (const auto& other : all[b]->cacheDirs) {
                    if (dir.path != other.path)
                        continue;
                    report("cache_dir " + dir.path + " is used by workers " + std::to_string(a + 1) +
                               " and " + std::to_string(b + 1) +
                               " with other cache_dir lines beside it: workers share cache_dirs only "
                               "when they have the same cache_dir lines (or put ${process_number} in "
                               "its path, or give it to one worker inside `if ${process_number} = N`)",
                           true);
                    failed = true;
                }
            }
        }
    }
    if (failed)
        return {};
    return all;
}

/// ParseConfig() and ParseWorkers(), every diagnostic to `out`; empty on errors
WorkerSettings ParseAll(const Options& options, std::ostream& out)
{
    auto first = ParseConfig(options, &out);
    if (!first)
        return {};
    return ParseWorkers(options, std::move(first), [&out](const std::string& text, bool isError) {
        out << (isError ? "ERROR: " : "") << text << "\n";
    });
}

/// the pid in the pid file, if it names a live process
std::optional<pid_t> RunningPid(const std::string& pidFile)
{
    std::ifstream in(pidFile);
    long pid = 0;
    if (!(in >> pid) || pid <= 1)
        return std::nullopt;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM)
        return std::nullopt;
    return static_cast<pid_t>(pid);
}

/// -k WORD other than parse: signals the running copy
int SendCommand(const Options& options)
{
    const auto settings = ParseConfig(options, &std::cerr);
    if (!settings) {
        std::cerr << "cuttle: ERROR: cannot read " << options.configFile << "\n";
        return 1;
    }
    if (settings->pidFilename.empty() || settings->pidFilename == "none") {
        std::cerr
            << "cuttle: ERROR: No pid file is configured (pid_filename none): cannot find the running copy\n";
        return 1;
    }
    const auto pid = RunningPid(settings->pidFilename);
    if (!pid) {
        std::cerr << "cuttle: ERROR: No running copy (no live process in " << settings->pidFilename << ")\n";
        return 1;
    }
    int signo = 0;
    if (options.command == "reconfigure")
        signo = SIGHUP;
    else if (options.command == "rotate")
        signo = SIGUSR1;
    else if (options.command == "shutdown")
        signo = SIGTERM;
    else if (options.command == "interrupt")
        signo = SIGINT;
    else if (options.command == "kill")
        signo = SIGKILL;
    if (::kill(*pid, signo) != 0) {
        std::cerr << "cuttle: ERROR: could not send signal " << signo << " to process " << *pid << ": "
                  << std::strerror(errno) << "\n";
        return 1;
    }
    return 0;
}

/// writes the pid file (creating missing parent directories); true on success
bool WritePidFile(const std::string& path)
{
    if (path.empty() || path == "none")
        return true;
    std::error_code ec;
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty())
        std::filesystem::create_directories(parent, ec);
    std::ofstream out(path, std::ios::trunc);
    out << ::getpid() << "\n";
    out.close();
    return bool(out);
}

void RemovePidFile(const std::string& path)
{
    if (path.empty() || path == "none")
        return;
    // only our own: a newer copy may have taken over the file
    const auto pid = RunningPid(path);
    if (!pid || *pid != ::getpid() || ::unlink(path.c_str()) == 0)
        return;
    // after the drop, a directory that only root may change (/run) keeps the
    // file, which is ours: empty it, so that no -k command takes the pid for
    // a running copy (systemd removes a PIDFile= itself)
    const int error = errno;
    const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    debugs(1, 1,
           "Cannot remove the pid file " << path << ": " << std::strerror(error)
                                         << (fd >= 0 ? "; emptied it instead" : ""));
    if (fd >= 0)
        ::close(fd);
}

/// Notes the files that starting as root may create (see Privileges).
void NoteFilesToCreate(Privileges& privileges, const Config::Settings& settings)
{
    if (settings.cacheLog != "none") // `cache_log none`: CacheLog::open() opens nothing
        privileges.willCreate(settings.cacheLog);
    for (const auto& log : settings.accessLogs) {
        if (log.output.isFile())
            privileges.willCreate(log.output.place);
    }
    if (settings.pidFilename != "none")
        privileges.willCreate(settings.pidFilename);
}

/// Squid's mainSetCwd(): core dumps land in coredump_dir
void EnterCoredumpDir(const Config::Settings& settings)
{
    const auto& dir = settings.coredumpDir;
    if (dir.empty() || dir == "none")
        return;
    if (::chdir(dir.c_str()) == 0)
        debugs(0, 1, "Set Current Directory to " << dir);
    else
        debugs(50, 0,
               "ERROR: cannot change the current directory to " << dir << ": " << std::strerror(errno));
}

/// max_filedescriptors, as Squid's setMaxFD(): the soft limit set to it, the
/// hard one raised too where cuttle may (as root, before the drop)
void ApplyDescriptorLimit(const Config::Settings& settings)
{
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0)
        return;
    if (const rlim_t wanted = settings.maxFiledescriptors) {
        rlimit next{wanted,
                    limit.rlim_max == RLIM_INFINITY ? RLIM_INFINITY : std::max(wanted, limit.rlim_max)};
        if (::setrlimit(RLIMIT_NOFILE, &next) != 0) {
            debugs(50, 0,
                   "WARNING: max_filedescriptors " << wanted << ": " << std::strerror(errno)
                                                   << "; at most the hard limit " << limit.rlim_max);
            next = rlimit{std::min(wanted, limit.rlim_max), limit.rlim_max};
            (void)::setrlimit(RLIMIT_NOFILE, &next);
        }
        (void)::getrlimit(RLIMIT_NOFILE, &limit);
    }
    debugs(1, 0, "With " << limit.rlim_cur << " file descriptors available");
    debugs(1, 1, "Memory allocator: " << Base::HeapAllocator());
}

void ApplyLogSettings(const Config::Settings& settings, const Options& options)
{
    // -X overrides debug_options, as in Squid
    Log::cacheLog().setOptions(
        Log::DebugOptions::Parse(options.fullDebugging ? "ALL,9" : settings.debugOptions));
}

/// a start-up failure, in cache.log and (unless -d copies it there) on stderr
void ReportFatal(const std::string& message)
{
    debugs(1, 0, "FATAL: " << message);
    if (!Log::cacheLog().isOpen() || Log::cacheLog().stderrLevel() < 0)
        std::cerr << "FATAL: " << message << "\n";
    Log::cacheLog().flush();
}

/// Squid's -z: makes every cache_dir's directories, as cache_effective_user
/// when started as root, then exits (0 when all were made)
int CreateCacheDirectories(const Options& options)
{
    const auto all = ParseAll(options, std::cerr);
    if (all.empty()) {
        std::cerr << "FATAL: " << options.configFile << " has errors\n";
        return 1;
    }
    try {
        Privileges privileges;
        (void)privileges.leaveRoot(all.front()->cacheEffectiveUser, all.front()->cacheEffectiveGroup);
    } catch (const std::exception& e) {
        std::cerr << "FATAL: cannot leave root: " << e.what() << "\n";
        return 1;
    }
    int failures = 0;
    for (const auto& settings : all) { // each worker's (doc/design.md "Workers")
        for (const auto& dir : settings->cacheDirs) {
            std::cout << "Creating missing swap directories in " << dir.path << "\n";
            if (const auto failed = Disk::Layout(dir).create(); !failed.empty()) {
                std::cerr << "FATAL: cache_dir " << failed << "\n";
                ++failures;
            }
        }
    }
    return failures ? 1 : 0;
}

/// cpu_affinity_map: pins the calling thread, worker `number`'s, to its core
/// when the map names it
void PinWorker(const Config::Settings& settings, unsigned number)
{
    for (const auto& [worker, core] : settings.cpuAffinity) {
        if (worker != number)
            continue;
        cpu_set_t cpus;
        CPU_ZERO(&cpus);
        CPU_SET(core - 1, &cpus);
        if (const int error = ::pthread_setaffinity_np(::pthread_self(), sizeof(cpus), &cpus))
            debugs(54, 0,
                   "ERROR: cpu_affinity_map: cannot pin worker " << number << " to core " << core << ": "
                                                                 << std::strerror(error));
        else
            debugs(54, 1, "Worker " << number << " runs on core " << core);
    }
}

/// Gives each http_port of `settings` that asks for port 0 the port that
/// worker 1 bound for it (the n-th such port of that host), so that every
/// worker listens on the same ports (doc/design.md "Workers").
void TakeBoundPorts(Config::Settings& settings, const Client::Side& first)
{
    const auto bound = first.listeningPorts();
    // counted as configured: the ports before this one already took theirs
    std::map<std::string, size_t> seen;
    for (auto& port : settings.httpPorts) {
        if (port.port != 0)
            continue;
        size_t nth = seen[port.host]++;
        for (const auto& b : bound) {
            if (b.configuredPort == 0 && b.host == port.host && nth-- == 0) {
                port.port = b.boundPort;
                break;
            }
        }
    }
}

/// Rotates the logs of workers[next] on its thread, and from there those of
/// the workers after it, in turn: a file that several workers write is
/// rotated once, by the first of them, and reopened by the others (`done`
/// holds the paths rotated so far). Workers are destroyed only once no
/// loop runs (WorkerThread::waitFinished(), then join()), so none is gone
/// when a call is posted to it.
void RotateInTurn(std::vector<Proxy::Worker*> workers, size_t next,
                  std::shared_ptr<std::set<std::string>> done)
{
    if (next >= workers.size())
        return;
    auto* worker = workers[next];
    worker->post([workers = std::move(workers), next, done = std::move(done)]() mutable {
        workers[next]->proxy().rotateLogs(*done);
        RotateInTurn(std::move(workers), next + 1, std::move(done));
    });
}

/// the message of a start-up exception
std::string FailureMessage(const std::exception& e)
{
    return dynamic_cast<const TextException*>(&e) ? static_cast<const TextException&>(e).message()
                                                  : std::string(e.what());
}

/// A worker after the first, on a thread of its own (see Proxy::Worker):
/// made and configured there, then it waits for go(), runs, and is destroyed
/// there once join() releases it.
class WorkerThread {
public:
    /// starts worker `number` with `settings`; returns once it is configured or has failed
    WorkerThread(unsigned number, std::shared_ptr<const Config::Settings> settings, Proxy::Board& board)
    {
        auto configured = configured_.get_future();
        thread_ = std::thread(
            [this, number, settings, &board]() mutable { body(number, std::move(settings), board); });
        failure_ = configured.get();
    }
    WorkerThread(const WorkerThread&) = delete;
    WorkerThread& operator=(const WorkerThread&) = delete;
    ~WorkerThread()
    {
        if (thread_.joinable())
            (void)join();
    }

    /// why the start-up configuration failed; empty when it did not
    const std::string& failure() const { return failure_; }
    /// the worker, to post() to (valid until join())
    Proxy::Worker& worker() { return *worker_; }

    /// Lets a configured worker serve, once the main thread has left root
    /// keeping the capabilities `kept`: the worker's thread follows the drop
    /// (Privileges::FollowDrop()), starts its helpers and runs its loop.
    /// Returns why following failed (the worker then ends), or "".
    std::string go(uint64_t kept)
    {
        went_ = true;
        auto followed = followed_.get_future();
        go_.set_value(kept);
        return followed.get();
    }

    /// Waits for the worker's loop to end and what is left to close; returns
    /// its body copies. The worker is still there: others may post to it
    /// until every worker has finished (Proxy::Board::postToOthers()).
    Sbuf::CopyStats waitFinished()
    {
        holdBack();
        return finished_.get_future().get();
    }

    /// has the worker destroyed on its thread (after waitFinished() of every
    /// worker, or when the start failed), and ends the thread
    void join()
    {
        holdBack();
        release_.set_value();
        thread_.join();
    }

private:
    /// a worker not let go() yet ends without serving
    void holdBack()
    {
        if (!went_) {
            went_ = true;
            go_.set_value(std::nullopt);
        }
    }

    void body(unsigned number, std::shared_ptr<const Config::Settings> settings, Proxy::Board& board)
    {
        Log::cacheLog().setKidLabel("kid" + std::to_string(number));
        try {
            Privileges::PrepareThread(); // before the main thread leaves root
            PinWorker(*settings, number);
            worker_ = std::make_unique<Proxy::Worker>(number);
            worker_->proxy().joinBoard(board, number);
            worker_->proxy().configure(std::move(settings), true);
        } catch (const std::exception& e) {
            configured_.set_value(FailureMessage(e));
            finished_.set_value(Sbuf::CopyStats());
            release_.get_future().wait();
            worker_.reset();
            return;
        }
        board.enroll(number, worker_.get());
        configured_.set_value(std::string());
        if (const auto kept = go_.get_future().get()) {
            std::string failure;
            try {
                Privileges::FollowDrop(*kept);
            } catch (const std::exception& e) {
                failure = e.what();
            }
            followed_.set_value(failure);
            if (failure.empty()) {
                worker_->proxy().startHelpers();
                worker_->run();
            }
        }
        finished_.set_value(worker_->finish());
        // others may post until every worker has finished: the main thread says when
        release_.get_future().wait();
        board.enroll(number, nullptr);
        worker_.reset();
    }

    std::thread thread_;
    std::unique_ptr<Proxy::Worker> worker_;    ///< made and destroyed on thread_
    std::promise<std::string> configured_;     ///< the start-up outcome (a failure's message)
    std::promise<std::optional<uint64_t>> go_; ///< serve, keeping these capabilities, or end (nullopt)
    std::promise<std::string> followed_;       ///< why following the drop failed, or ""
    std::promise<Sbuf::CopyStats> finished_;   ///< the loop ended: its body copies
    std::promise<void> release_;               ///< the main thread is done with the worker
    std::string failure_;                      ///< see failure()
    bool went_ = false;                        ///< go_ was set
};

/// Runs the proxy until shutdown; returns the exit code. `ready` is called
/// once the ports are bound and the pid file written (daemonizing uses it).
/// Worker 1 runs on this thread, with the signals; the others on their own
/// (doc/design.md "Workers").
int Run(const Options& options, std::vector<std::shared_ptr<Config::Settings>> parsed,
        const std::function<void(bool)>& ready)
{
    std::shared_ptr<const Config::Settings> settings(parsed.front());
    const std::string pidFile = settings->pidFilename;
    const unsigned workerCount = unsigned(parsed.size());
    ApplyLogSettings(*settings, options);
    std::string cacheLogPath = settings->cacheLog;
    Privileges privileges;
    for (const auto& each : parsed)
        NoteFilesToCreate(privileges, *each);
    if (workerCount > 1)
        Log::cacheLog().setKidLabel("kid1");
    try {
        Log::cacheLog().open(cacheLogPath);
    } catch (const std::exception& e) {
        std::cerr << "WARNING: Cannot write log file: " << cacheLogPath << ": " << e.what()
                  << "\n         messages will be sent to 'stderr'.\n";
    }
    debugs(1, 0, "Starting cuttle version " PACKAGE_VERSION "...");
    debugs(1, 0, "Process ID " << ::getpid());
    if (workerCount > 1)
        debugs(1, 1, "Starting " << workerCount << " workers");
    ApplyDescriptorLimit(*settings);

    Proxy::Board board(workerCount); // outlives the workers
    Proxy::Worker first(1);
    auto& loop = first.loop();
    auto& proxy = first.proxy();
    if (workerCount > 1) {
        proxy.joinBoard(board, 1);
        board.enroll(1, &first);
    }
    try {
        proxy.configure(settings, true);
    } catch (const std::exception& e) {
        ReportFatal(FailureMessage(e));
        ready(false);
        return 1;
    }

    // set before the other workers' threads start, which inherit the mask
    bool stopping = false;
    std::vector<std::unique_ptr<WorkerThread>> others;
    std::function<void(int)> onSignal;
    Comm::SignalSource signals(loop, {SIGHUP, SIGUSR1, SIGTERM, SIGINT}, [&](int signo) { onSignal(signo); });

    // the failure of a start after worker 1 was configured: the others end
    auto abandon = [&](const std::string& message, bool removePidFile) {
        ReportFatal(message);
        for (auto& other : others) {
            if (other->failure().empty()) { // it may be serving already
                auto* worker = &other->worker();
                worker->post([worker] { worker->startShutdown(true); });
            }
        }
        for (auto& other : others)
            (void)other->waitFinished();
        for (auto& other : others)
            other->join();
        if (removePidFile)
            RemovePidFile(pidFile);
        ready(false);
        return 1;
    };
    for (unsigned number = 2; number <= workerCount; ++number) {
        TakeBoundPorts(*parsed[number - 1], proxy.side());
        others.push_back(std::make_unique<WorkerThread>(number, parsed[number - 1], board));
        if (!others.back()->failure().empty())
            return abandon("worker " + std::to_string(number) + ": " + others.back()->failure(), false);
    }
    if (!WritePidFile(pidFile)) {
        std::cerr << "FATAL: cannot write the pid file " << pidFile << "\n";
        return abandon("cannot write the pid file " + pidFile + ": " + std::strerror(errno), false);
    }
    // never serve a request as root: bound, logs open, pid file written
    // (doc/design.md "Daemon and privileges")
    try {
        // tcp_outgoing_mark's SO_MARK needs CAP_NET_ADMIN, kept only then
        debugs(1, 1,
               privileges.leaveRoot(settings->cacheEffectiveUser, settings->cacheEffectiveGroup,
                                    !settings->tcpOutgoingMarks.empty()));
    } catch (const std::exception& e) {
        return abandon(std::string("cannot leave root: ") + e.what(), true);
    }
    // each worker's thread holds what the drop left on this one (Privileges::FollowDrop())
    const uint64_t kept = Privileges::CurrentMask(false);
    for (size_t i = 0; i < others.size(); ++i) {
        if (const auto failure = others[i]->go(kept); !failure.empty())
            return abandon("worker " + std::to_string(i + 2) + ": cannot follow the drop of root: " + failure,
                           true);
    }
    EnterCoredumpDir(*settings);
    proxy.startHelpers();
    // after the other threads started: they would inherit worker 1's core
    PinWorker(*settings, 1);

    auto shutdown = [&](bool immediately) {
        if (!stopping) {
            stopping = true;
            Comm::NotifySystemd("STOPPING=1");
        }
        first.startShutdown(immediately);
        for (auto& other : others) {
            auto* worker = &other->worker();
            worker->post([worker, immediately] { worker->startShutdown(immediately); });
        }
    };

    auto reconfigure = [&] {
        debugs(1, 1, "Reconfiguring cuttle from " << options.configFile);
        Comm::NotifySystemd("RELOADING=1");
        ConfigReader reader(options);
        auto& parser = reader.parser;
        auto fresh = parser.parseFile(options.configFile);
        for (const auto& d : parser.diagnostics())
            debugs(3, 0, (d.isError() ? "ERROR: " : "") << d.format());
        WorkerSettings all;
        if (fresh && !parser.hasErrors()) {
            ApplyCommandLine(*fresh, options);
            all = ParseWorkers(options, std::move(fresh), [](const std::string& text, bool isError) {
                debugs(3, 0, (isError ? "ERROR: " : "") << text);
            });
        }
        if (all.empty()) {
            debugs(1, 0,
                   "ERROR: reconfiguration failed: " << options.configFile
                                                     << " has errors; keeping the old configuration");
            Comm::NotifySystemd("READY=1\nSTATUS=reconfiguration failed; running the old configuration");
            return;
        }
        if (all.size() != workerCount)
            debugs(1, 0,
                   "WARNING: workers " << all.size() << " takes effect at the next start; running "
                                       << workerCount << " workers");
        std::shared_ptr<const Config::Settings> next(all.front());
        ApplyLogSettings(*next, options);
        if (next->cacheLog != cacheLogPath) {
            cacheLogPath = next->cacheLog;
            try {
                Log::cacheLog().close();
                Log::cacheLog().open(cacheLogPath);
            } catch (const std::exception& e) {
                std::cerr << "WARNING: Cannot write log file: " << cacheLogPath << ": " << e.what() << "\n";
            }
        }
        proxy.configure(next, false);
        for (size_t i = 1; i < all.size() && i < workerCount; ++i) {
            TakeBoundPorts(*all[i], proxy.side());
            auto* worker = &others[i - 1]->worker();
            std::shared_ptr<const Config::Settings> theirs(all[i]);
            worker->post([worker, theirs] { worker->proxy().configure(theirs, false); });
        }
        debugs(1, 1, "Reconfigured");
        Comm::NotifySystemd("READY=1\nSTATUS=serving");
    };

    onSignal = [&](int signo) {
        switch (signo) {
        case SIGHUP:
            if (!stopping) // the other workers may be gone
                reconfigure();
            break;
        case SIGUSR1: {
            debugs(1, 1, "Rotating logs");
            Log::cacheLog().rotate(static_cast<int>(proxy.settings().logfileRotate));
            auto done = std::make_shared<std::set<std::string>>();
            proxy.rotateLogs(*done);
            std::vector<Proxy::Worker*> rest;
            for (auto& other : others)
                rest.push_back(&other->worker());
            RotateInTurn(std::move(rest), 0, std::move(done));
            break;
        }
        case SIGTERM:
            shutdown(false);
            break;
        case SIGINT:
            shutdown(true);
            break;
        }
    };

    ready(true);
    // under a Type=notify systemd unit: the ports are bound and the pid file written
    Comm::NotifySystemd("READY=1\nSTATUS=serving\nMAINPID=" + std::to_string(::getpid()));
    first.run();

    debugs(1, 1, "Shutting down...");
    auto copies = first.finish();
    for (auto& other : others) {
        const auto theirs = other->waitFinished();
        copies.bodyCopies += theirs.bodyCopies;
        copies.bodyBytesCopied += theirs.bodyBytesCopied;
    }
    // no loop runs any more: nobody posts; each worker goes on its own thread
    board.enroll(1, nullptr);
    for (auto& other : others)
        other->join();
    // doc/design.md "Budgets": body bytes travel without a user-space copy; say so (tests read it)
    debugs(1, 1,
           "user-space body copies: " << copies.bodyCopies << " (" << copies.bodyBytesCopied << " bytes)");
    RemovePidFile(pidFile);
    debugs(1, 0, "cuttle (Version " PACKAGE_VERSION "): Exiting normally.");
    Log::cacheLog().flush();
    return 0;
}

/// Squid's start without -N: the parent returns when the child is serving
/// (exit 0) or has failed to start (exit 1), so scripts see start-up errors.
int Daemonize(const Options& options, WorkerSettings settings)
{
    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0) {
        std::cerr << "FATAL: pipe: " << std::strerror(errno) << "\n";
        return 1;
    }
    const pid_t child = ::fork();
    if (child < 0) {
        std::cerr << "FATAL: fork: " << std::strerror(errno) << "\n";
        return 1;
    }
    if (child > 0) {
        ::close(pipeFds[1]);
        char status = 1;
        ssize_t n;
        do {
            n = ::read(pipeFds[0], &status, 1);
        } while (n < 0 && errno == EINTR);
        ::close(pipeFds[0]);
        return (n == 1 && status == 0) ? 0 : 1;
    }
    ::close(pipeFds[0]);
    ::setsid(); // Squid keeps the start-up directory as its cwd (until coredump_dir)
    const int notify = pipeFds[1];
    return Run(options, std::move(settings), [notify](bool ok) {
        const char status = ok ? 0 : 1;
        (void)!::write(notify, &status, 1);
        ::close(notify);
        if (ok) {
            // start-up messages are out: detach from the terminal
            const int devNull = ::open("/dev/null", O_RDWR);
            if (devNull >= 0) {
                ::dup2(devNull, 0);
                ::dup2(devNull, 1);
                ::dup2(devNull, 2);
                if (devNull > 2)
                    ::close(devNull);
            }
        }
    });
}

} // namespace

int main(int argc, char** argv)
{
    // before any log is opened: a write to a closed pipe (an access log that is
    // a FIFO, a client gone) must be an EPIPE, never the end of the process
    ::signal(SIGPIPE, SIG_IGN);
    Options options;
    static const option longOptions[] = {
        {"help", no_argument, nullptr, 'h'},
        {"version", no_argument, nullptr, 'v'},
        {"foreground", no_argument, nullptr, 'F' + 256},
        {nullptr, 0, nullptr, 0},
    };
    opterr = 0;
    int c;
    while ((c = ::getopt_long(argc, argv, "a:d:f:hk:l:n:su:vzCDFNRSXY", longOptions, nullptr)) != -1) {
        switch (c) {
        case 'a':
            options.httpPort = ParsePort(optarg);
            if (options.httpPort < 0) {
                std::cerr << "cuttle: -a needs a port number from 0 to 65535\n";
                Usage(std::cerr);
                return 2;
            }
            break;
        case 'f':
            options.configFile = optarg;
            break;
        case 'N':
        case 'F' + 256: // --foreground
            options.foreground = true;
            break;
        case 'd': {
            char* end = nullptr;
            const long level = std::strtol(optarg, &end, 10);
            if (!*optarg || *end || level < 0 || level > 9) {
                std::cerr << "cuttle: -d needs a level from 0 to 9\n";
                Usage(std::cerr);
                return 2;
            }
            options.debugLevel = static_cast<int>(level);
            break;
        }
        case 'k':
            if (!IsKnownCommand(optarg)) {
                std::cerr << "cuttle: unknown -k command: " << optarg << "\n";
                Usage(std::cerr);
                return 2;
            }
            options.command = optarg;
            break;
        case 'l':
            options.syslogFacility = Log::SyslogFacility(optarg);
            if (options.syslogFacility < 0) {
                std::cerr << "cuttle: unknown syslog facility: " << optarg << "\n";
                Usage(std::cerr);
                return 2;
            }
            break;
        case 's':
            if (options.syslogFacility < 0)
                options.syslogFacility = LOG_LOCAL4;
            break;
        case 'n': {
            std::string why;
            if (!Config::Parser::IsValidServiceName(optarg, why)) {
                std::cerr << "cuttle: -n " << optarg << ": " << why << "\n";
                Usage(std::cerr);
                return 2;
            }
            options.serviceName = optarg;
            break;
        }
        case 'u':
            if (ParsePort(optarg) < 0) {
                std::cerr << "cuttle: -u needs a port number from 0 to 65535\n";
                Usage(std::cerr);
                return 2;
            }
            options.icpPort = ParsePort(optarg);
            break;
        case 'X':
            options.fullDebugging = true;
            break;
        case 'D':
            std::cerr << "cuttle: WARNING: -D is obsolete (as in Squid); ignoring it\n";
            break;
        case 'C': // cuttle does not catch fatal signals anyway
        case 'F': // no store to rebuild before serving
        case 'R': // SO_REUSEADDR is always set
        case 'S': // no swap to check
        case 'Y': // ICP answers only hits during a store rebuild: cuttle rebuilds none
            break;
        case 'v':
            std::cout << "cuttle version " PACKAGE_VERSION "\n"
                      << "configure options: " << CUTTLE_CONFIGURE_OPTIONS << "\n";
            return 0;
        case 'h':
            Usage(std::cout);
            return 0;
        case 'z':
            options.createDirectories = true;
            break;
        default:
            if (optopt > 0 && optopt < 256)
                std::cerr << "cuttle: unknown option or missing argument: -" << char(optopt) << "\n";
            else
                std::cerr << "cuttle: unknown option: " << argv[optind - 1] << "\n";
            Usage(std::cerr);
            return 2;
        }
    }
    if (optind < argc) {
        std::cerr << "cuttle: unexpected argument: " << argv[optind] << "\n";
        Usage(std::cerr);
        return 2;
    }
    Log::cacheLog().setStderrLevel(options.debugLevel);
    Log::cacheLog().setSyslogFacility(options.syslogFacility);

    if (options.command == "parse")
        return ParseAll(options, std::cerr).empty() ? 1 : 0;
    if (!options.command.empty())
        return SendCommand(options);
    if (options.createDirectories)
        return CreateCacheDirectories(options);

    auto settings = ParseAll(options, std::cerr);
    if (settings.empty()) {
        std::cerr << "FATAL: cannot start: " << options.configFile << " has errors\n";
        return 1;
    }
    const auto& pidFile = settings.front()->pidFilename;
    if (const auto pid = RunningPid(pidFile); pid && *pid != ::getpid()) {
        std::cerr << "FATAL: cuttle is already running: process ID " << *pid << " (" << pidFile << ")\n";
        return 1;
    }
    if (options.foreground)
        return Run(options, std::move(settings), [](bool) {});
    return Daemonize(options, std::move(settings));
}
