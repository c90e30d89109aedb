/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "helper/Child.h"
#include "base/TextException.h"
#include "log/CacheLog.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>

#include <fcntl.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace {

constexpr int DebugSection = 84; // Squid's "Helper process maintenance"

/// the signals whose handling the proxy changes (signalfd, SIGPIPE ignored):
/// a helper gets them back at their defaults
void ProxySignals(sigset_t& set)
{
    sigemptyset(&set);
    for (const int s : {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGCHLD})
        sigaddset(&set, s);
}

/// posix_spawn's attributes and file actions, destroyed on every path
struct SpawnSetup {
    posix_spawnattr_t attr;
    posix_spawn_file_actions_t actions;
    SpawnSetup()
    {
        posix_spawnattr_init(&attr);
        posix_spawn_file_actions_init(&actions);
    }
    ~SpawnSetup()
    {
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attr);
    }
    SpawnSetup(const SpawnSetup&) = delete;
    SpawnSetup& operator=(const SpawnSetup&) = delete;
};

} // namespace

Helper::Child::Child(Comm::Loop& loop, Events& events, uint64_t id, size_t maxLineSize)
    : loop_(loop), events_(events), id_(id), maxLineSize_(maxLineSize)
{}

Helper::Child::~Child()
{
    close();
}

bool Helper::Child::start(const std::vector<std::string>& argv, std::string& error)
{
    Must(!socket_.isOpen() && pid_ == 0);
    if (argv.empty() || argv[0].empty()) {
        error = "no program";
        return false;
    }
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        error = std::string("socketpair: ") + std::strerror(errno);
        return false;
    }
    Comm::Descriptor ours(pair[0]);
    Comm::Descriptor theirs(pair[1]);
    const int flags = ::fcntl(ours.get(), F_GETFL);
    if (flags < 0 || ::fcntl(ours.get(), F_SETFL, flags | O_NONBLOCK) != 0) {
        error = std::string("fcntl O_NONBLOCK: ") + std::strerror(errno);
        return false;
    }
    // dup2() onto itself would leave close-on-exec set: keep theirs above stderr
    if (theirs.get() <= STDERR_FILENO)
        theirs.reset(::fcntl(theirs.get(), F_DUPFD_CLOEXEC, STDERR_FILENO + 1));
    if (!theirs.isOpen()) {
        error = std::string("fcntl: ") + std::strerror(errno);
        return false;
    }

    SpawnSetup setup;
    posix_spawn_file_actions_adddup2(&setup.actions, theirs.get(), STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&setup.actions, theirs.get(), STDOUT_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    // whatever a library opened without O_CLOEXEC stays out of the helper too
    posix_spawn_file_actions_addclosefrom_np(&setup.actions, STDERR_FILENO + 1);
#endif
    sigset_t none;
    sigemptyset(&none);
    sigset_t defaults;
    ProxySignals(defaults);
    posix_spawnattr_setsigmask(&setup.attr, &none);
    posix_spawnattr_setsigdefault(&setup.attr, &defaults);
    posix_spawnattr_setflags(&setup.attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);

    pid_t pid = 0;
    const int err = ::posix_spawnp(&pid, args[0], &setup.actions, &setup.attr, args.data(), environ);
    if (err != 0) {
        error = argv[0] + ": " + std::strerror(err);
        return false;
    }
    pid_ = pid;
    theirs.reset();
    socket_ = std::move(ours);
    watch_ = loop_.watch(socket_.get(), *this);
    return true;
}

void Helper::Child::send(std::string_view bytes)
{
    if (!socket_.isOpen())
        return;
    outbox_.append(bytes);
    if (!writeBlocked_ && !flush())
        endLater(std::string("write: ") + std::strerror(errno));
}

void Helper::Child::close()
{
    resume_.cancel();
    watch_.cancel();
    socket_.reset();
    outbox_.clear();
    outboxStart_ = 0;
    inbox_.clear();
}

void Helper::Child::handleIo(const Comm::IoEvents& events)
{
    if (events.writable && writeBlocked_) {
        writeBlocked_ = false;
        if (!flush()) {
            end(std::string("write: ") + std::strerror(errno));
            return;
        }
    }
    if (events.readable || events.hangup || events.error)
        readSome();
}

void Helper::Child::handleBug(const std::exception& e) noexcept
{
    try {
        end(std::string("BUG: ") + e.what());
    } catch (...) {
        close();
    }
}

bool Helper::Child::flush()
{
    while (outboxStart_ < outbox_.size()) {
        const ssize_t n =
            ::send(socket_.get(), outbox_.data() + outboxStart_, outbox_.size() - outboxStart_, MSG_NOSIGNAL);
        if (n > 0) {
            outboxStart_ += static_cast<size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            writeBlocked_ = true;
            break;
        }
        return false;
    }
    if (outboxStart_ == outbox_.size()) {
        outbox_.clear();
        outboxStart_ = 0;
    } else if (outboxStart_ > outbox_.size() / 2) {
        outbox_.erase(0, outboxStart_);
        outboxStart_ = 0;
    }
    return true;
}

void Helper::Child::readSome()
{
    resume_.cancel();
    size_t budget = MaxReadPerCall;
    char chunk[16 * 1024];
    while (socket_.isOpen()) {
        if (budget == 0) {
            // more may be queued: read it after the others had their turn
            resume_ = loop_.defer([this] { readSome(); }, this);
            return;
        }
        const ssize_t n = ::read(socket_.get(), chunk, sizeof(chunk));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return; // drained: the next bytes bring an edge
            end(std::string("read: ") + std::strerror(errno));
            return;
        }
        if (n == 0) {
            end("exited (EOF on its stdout)");
            return;
        }
        budget -= std::min(budget, static_cast<size_t>(n));
        const size_t scanFrom = inbox_.size();
        inbox_.append(chunk, static_cast<size_t>(n));
        size_t lineStart = 0;
        for (size_t lf = inbox_.find('\n', scanFrom); lf != std::string::npos;
             lf = inbox_.find('\n', lineStart)) {
            size_t lineEnd = lf;
            if (lineEnd > lineStart && inbox_[lineEnd - 1] == '\r')
                --lineEnd;
            if (lineEnd - lineStart > maxLineSize_) {
                endTooLong();
                return;
            }
            // a copy: the owner may close this child (clearing inbox_) inside
            const std::string line = inbox_.substr(lineStart, lineEnd - lineStart);
            lineStart = lf + 1;
            events_.childLine(*this, line);
            if (!socket_.isOpen())
                return;
        }
        inbox_.erase(0, lineStart);
        if (inbox_.size() > maxLineSize_ + 1) { // + 1: a CR may still come before its LF
            endTooLong();
            return;
        }
    }
}

void Helper::Child::end(const std::string& why)
{
    if (!socket_.isOpen())
        return;
    close();
    events_.childClosed(*this, why);
}

void Helper::Child::endTooLong()
{
    end("sent a reply line longer than " + std::to_string(maxLineSize_) + " bytes");
}

void Helper::Child::endLater(const std::string& why)
{
    if (resume_.isPending())
        resume_.cancel();
    resume_ = loop_.defer([this, why] { end(why); }, this);
}

Helper::Reaper::~Reaper()
{
    timer_.cancel();
    // a closed helper normally exits within milliseconds: give it 200 ms
    for (int round = 0; round < 40 && !processes_.empty(); ++round) {
        std::erase_if(processes_, [](const Process& p) { return TryReap(p.pid); });
        if (!processes_.empty())
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    for (const auto& p : processes_) {
        debugs(DebugSection, 1, "WARNING: killing helper process " << p.pid << " at exit");
        ::kill(p.pid, SIGKILL);
        int status = 0;
        while (::waitpid(p.pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
}

void Helper::Reaper::adopt(pid_t pid, Comm::Milliseconds grace)
{
    if (pid <= 0)
        return;
    if (TryReap(pid))
        return;
    processes_.push_back({pid, Comm::Clock::now() + grace});
    if (!timer_.isPending())
        timer_ = loop_.schedule(PollInterval, [this] { poll(); });
}

void Helper::Reaper::poll()
{
    const auto now = Comm::Clock::now();
    std::erase_if(processes_, [](const Process& p) { return TryReap(p.pid); });
    for (auto& p : processes_) {
        if (!p.isKilled && now >= p.killAt) {
            debugs(DebugSection, 1,
                   "WARNING: helper process " << p.pid << " did not exit after its stdin closed: killing it");
            ::kill(p.pid, SIGKILL);
            p.isKilled = true;
            ++killed_;
        }
    }
    if (!processes_.empty())
        timer_ = loop_.schedule(PollInterval, [this] { poll(); });
}

bool Helper::Reaper::TryReap(pid_t pid)
{
    int status = 0;
    for (;;) {
        const pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            if (WIFSIGNALED(status))
                debugs(DebugSection, 2, "helper process " << pid << " ended by signal " << WTERMSIG(status));
            else
                debugs(DebugSection, 3, "helper process " << pid << " exited with " << WEXITSTATUS(status));
            return true;
        }
        if (r == 0)
            return false;
        if (errno == EINTR)
            continue;
        return true; // ECHILD: not ours (SIGCHLD ignored reaps automatically)
    }
}
