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
#include "base/TextException.h"
#include "proxy/Instance.h"
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
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <fcntl.h>
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
    auto settings = ParseConfig(options, &std::cerr);
    if (!settings) {
        std::cerr << "FATAL: " << options.configFile << " has errors\n";
        return 1;
    }
    try {
        Privileges privileges;
        (void)privileges.leaveRoot(settings->cacheEffectiveUser, settings->cacheEffectiveGroup);
    } catch (const std::exception& e) {
        std::cerr << "FATAL: cannot leave root: " << e.what() << "\n";
        return 1;
    }
    int failures = 0;
    for (const auto& dir : settings->cacheDirs) {
        std::cout << "Creating missing swap directories in " << dir.path << "\n";
        if (const auto failed = Disk::Layout(dir).create(); !failed.empty()) {
            std::cerr << "FATAL: cache_dir " << failed << "\n";
            ++failures;
        }
    }
    return failures ? 1 : 0;
}

/// Runs the proxy until shutdown; returns the exit code. `ready` is called
/// once the ports are bound and the pid file written (daemonizing uses it).
int Run(const Options& options, std::unique_ptr<Config::Settings> parsed,
        const std::function<void(bool)>& ready)
{
    std::shared_ptr<const Config::Settings> settings(std::move(parsed));
    const std::string pidFile = settings->pidFilename;
    ApplyLogSettings(*settings, options);
    std::string cacheLogPath = settings->cacheLog;
    Privileges privileges;
    NoteFilesToCreate(privileges, *settings);
    try {
        Log::cacheLog().open(cacheLogPath);
    } catch (const std::exception& e) {
        std::cerr << "WARNING: Cannot write log file: " << cacheLogPath << ": " << e.what()
                  << "\n         messages will be sent to 'stderr'.\n";
    }
    debugs(1, 0, "Starting cuttle version " PACKAGE_VERSION "...");
    debugs(1, 0, "Process ID " << ::getpid());
    ApplyDescriptorLimit(*settings);

    Comm::Loop loop;
    Proxy::Instance proxy(loop);
    try {
        proxy.configure(settings, true);
    } catch (const std::exception& e) {
        const std::string message = dynamic_cast<const TextException*>(&e)
                                        ? static_cast<const TextException&>(e).message()
                                        : std::string(e.what());
        ReportFatal(message);
        ready(false);
        return 1;
    }
    if (!WritePidFile(pidFile)) {
        debugs(1, 0, "FATAL: cannot write the pid file " << pidFile << ": " << std::strerror(errno));
        std::cerr << "FATAL: cannot write the pid file " << pidFile << "\n";
        ready(false);
        return 1;
    }
    // never serve a request as root: bound, logs open, pid file written
    // (doc/design.md "Daemon and privileges")
    try {
        // tcp_outgoing_mark's SO_MARK needs CAP_NET_ADMIN, kept only then
        debugs(1, 1,
               privileges.leaveRoot(settings->cacheEffectiveUser, settings->cacheEffectiveGroup,
                                    !settings->tcpOutgoingMarks.empty()));
    } catch (const std::exception& e) {
        ReportFatal(std::string("cannot leave root: ") + e.what());
        RemovePidFile(pidFile);
        ready(false);
        return 1;
    }
    EnterCoredumpDir(*settings);
    proxy.startHelpers();

    Comm::Timer shutdownTimer;
    bool stopping = false;
    auto shutdown = [&](bool immediately) {
        if (!stopping) {
            stopping = true;
            Comm::NotifySystemd("STOPPING=1");
            debugs(1, 1, "Preparing for shutdown after " << proxy.connectionCount() << " open connections");
            proxy.side().startShutdown();
        }
        const auto lifetime = proxy.settings().shutdownLifetime;
        if (immediately || lifetime <= Comm::Milliseconds(0)) {
            proxy.side().closeAll();
            loop.stop();
            return;
        }
        debugs(1, 1,
               "Waiting " << std::chrono::duration_cast<std::chrono::seconds>(lifetime).count()
                          << " seconds for active connections to finish");
        shutdownTimer = loop.schedule(lifetime, [&] {
            proxy.side().closeAll();
            loop.stop();
        });
    };

    auto reconfigure = [&] {
        debugs(1, 1, "Reconfiguring cuttle from " << options.configFile);
        Comm::NotifySystemd("RELOADING=1");
        ConfigReader reader(options);
        auto& parser = reader.parser;
        auto fresh = parser.parseFile(options.configFile);
        for (const auto& d : parser.diagnostics())
            debugs(3, 0, (d.isError() ? "ERROR: " : "") << d.format());
        if (!fresh || parser.hasErrors()) {
            debugs(1, 0,
                   "ERROR: reconfiguration failed: " << options.configFile
                                                     << " has errors; keeping the old configuration");
            Comm::NotifySystemd("READY=1\nSTATUS=reconfiguration failed; running the old configuration");
            return;
        }
        ApplyCommandLine(*fresh, options);
        std::shared_ptr<const Config::Settings> next(std::move(fresh));
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
        debugs(1, 1, "Reconfigured");
        Comm::NotifySystemd("READY=1\nSTATUS=serving");
    };

    Comm::SignalSource signals(loop, {SIGHUP, SIGUSR1, SIGTERM, SIGINT}, [&](int signo) {
        switch (signo) {
        case SIGHUP:
            reconfigure();
            break;
        case SIGUSR1:
            debugs(1, 1, "Rotating logs");
            Log::cacheLog().rotate(static_cast<int>(proxy.settings().logfileRotate));
            proxy.rotateLogs();
            break;
        case SIGTERM:
            shutdown(false);
            break;
        case SIGINT:
            shutdown(true);
            break;
        }
    });

    loop.addIterationHook([&] {
        proxy.flushLogs();
        proxy.sampleCounters();
        Log::cacheLog().flush();
        if (stopping && proxy.connectionCount() == 0)
            loop.stop();
    });

    ready(true);
    // under a Type=notify systemd unit: the ports are bound and the pid file written
    Comm::NotifySystemd("READY=1\nSTATUS=serving\nMAINPID=" + std::to_string(::getpid()));
    loop.run();

    debugs(1, 1, "Shutting down...");
    proxy.side().closeAll();
    // destroys the closed connections, which log their last lines, and what
    // their destruction defers (a few rounds at most)
    for (int round = 0; round < 10 && loop.hasDeferred(); ++round)
        loop.runOnce(Comm::Milliseconds(0));
    {
        // doc/design.md "Budgets": body bytes travel without a user-space copy; say so (tests read it)
        const auto& copies = Sbuf::DefaultPool().copyStats();
        debugs(1, 1,
               "user-space body copies: " << copies.bodyCopies << " (" << copies.bodyBytesCopied
                                          << " bytes)");
    }
    proxy.flushLogs();
    RemovePidFile(pidFile);
    debugs(1, 0, "cuttle (Version " PACKAGE_VERSION "): Exiting normally.");
    Log::cacheLog().flush();
    return 0;
}

/// Squid's start without -N: the parent returns when the child is serving
/// (exit 0) or has failed to start (exit 1), so scripts see start-up errors.
int Daemonize(const Options& options, std::unique_ptr<Config::Settings> settings)
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

    if (options.command == "parse") {
        ConfigReader reader(options);
        (void)reader.parser.parseFile(options.configFile);
        for (const auto& d : reader.parser.diagnostics())
            std::cerr << d.format() << "\n";
        return reader.parser.hasErrors() ? 1 : 0;
    }
    if (!options.command.empty())
        return SendCommand(options);
    if (options.createDirectories)
        return CreateCacheDirectories(options);

    auto settings = ParseConfig(options, &std::cerr);
    if (!settings) {
        std::cerr << "FATAL: cannot start: " << options.configFile << " has errors\n";
        return 1;
    }
    if (const auto pid = RunningPid(settings->pidFilename); pid && *pid != ::getpid()) {
        std::cerr << "FATAL: cuttle is already running: process ID " << *pid << " (" << settings->pidFilename
                  << ")\n";
        return 1;
    }
    if (options.foreground)
        return Run(options, std::move(settings), [](bool) {});
    return Daemonize(options, std::move(settings));
}
