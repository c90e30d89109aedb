/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "log/AccessLog.h"
#include "log/File.h"
#include "log/Sink.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <syslog.h>
#include <unistd.h>

bool Log::Sink::takeErrorReport()
{
    if (error_.empty() || reported_)
        return false;
    reported_ = true;
    return true;
}

void Log::Sink::setError(const std::string& reason)
{
    if (reason.empty()) {
        error_.clear();
        reported_ = false;
    } else if (error_.empty()) {
        error_ = reason;
        reported_ = false;
    }
}

namespace {

/// a socket address from "HOST:PORT" or "[V6]:PORT" (address literals: the
/// log is opened before the resolver runs, as Squid's needs a literal too)
sockaddr_storage ParseHostPort(const std::string& place, socklen_t& length)
{
    const size_t colon = place.rfind(':');
    if (colon == std::string::npos || colon + 1 == place.size())
        throw std::invalid_argument("'" + place + "' is not HOST:PORT");
    std::string host = place.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    if (host == "localhost")
        host = "127.0.0.1";
    const std::string portText = place.substr(colon + 1);
    char* end = nullptr;
    const long port = std::strtol(portText.c_str(), &end, 10);
    if (*end || port <= 0 || port > 65535)
        throw std::invalid_argument("bad port in '" + place + "'");
    sockaddr_storage ss{};
    auto* v4 = reinterpret_cast<sockaddr_in*>(&ss);
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&ss);
    if (::inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(static_cast<uint16_t>(port));
        length = sizeof(*v4);
    } else if (::inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(static_cast<uint16_t>(port));
        length = sizeof(*v6);
    } else {
        throw std::invalid_argument("'" + host + "' is not an IP address");
    }
    return ss;
}

/// stdio: the loop writes the file at flush()
class FileSink : public Log::Sink {
public:
    explicit FileSink(const Log::OutputSpec& spec)
    {
        file_.setBufferLimit(spec.bufferSize);
        file_.open(spec.place);
    }
    void append(std::string_view line) override
    {
        file_.append(line);
        noteFile();
    }
    bool flush() override { return noteFile(file_.flush()); }
    bool rotate(int count) override { return noteFile(file_.rotate(count)); }
    bool reopen() override { return noteFile(file_.reopen()); }
    size_t buffered() const override { return file_.buffered(); }

private:
    bool noteFile(bool ok = true)
    {
        setError(file_.lastError());
        return ok && file_.lastError().empty();
    }
    Log::File file_;
};

/// What a writer thread writes to: a file (daemon) or a TCP receiver (tcp).
class Target {
public:
    virtual ~Target() = default;
    /// writes all of BYTES; false with `why` when it cannot
    virtual bool write(const std::string& bytes, std::string& why) = 0;
    /// rotates (a file) or reconnects (tcp)
    virtual bool rotate(int count, std::string& why) = 0;
};

class FileTarget : public Target {
public:
    explicit FileTarget(const std::string& path)
    {
        file_.setBufferLimit(SIZE_MAX);
        file_.open(path);
    }
    bool write(const std::string& bytes, std::string& why) override
    {
        file_.append(bytes);
        if (file_.flush())
            return true;
        why = file_.lastError();
        return false;
    }
    bool rotate(int count, std::string& why) override
    {
        if (count < 0 ? file_.reopen() : file_.rotate(count))
            return true;
        why = file_.lastError();
        return false;
    }

private:
    Log::File file_;
};

/// tcp: connects on the first write and after a failure (in the writer thread)
class TcpTarget : public Target {
public:
    explicit TcpTarget(const std::string& place) : place_(place) { address_ = ParseHostPort(place, length_); }
    ~TcpTarget() override { disconnect(); }
    bool write(const std::string& bytes, std::string& why) override
    {
        if (fd_ < 0 && !connect(why))
            return false;
        size_t done = 0;
        while (done < bytes.size()) {
            const ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
            if (n > 0) {
                done += static_cast<size_t>(n);
            } else if (n < 0 && errno == EINTR) {
                continue;
            } else {
                why = "cannot send to tcp://" + place_ + ": " + std::strerror(n < 0 ? errno : EPIPE);
                disconnect();
                return false;
            }
        }
        return true;
    }
    bool rotate(int, std::string&) override
    {
        disconnect(); // Squid's tcp module reconnects on rotate
        return true;
    }

private:
    bool connect(std::string& why)
    {
        fd_ = ::socket(address_.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd_ >= 0 && ::connect(fd_, reinterpret_cast<const sockaddr*>(&address_), length_) == 0)
            return true;
        why = "cannot connect to tcp://" + place_ + ": " + std::strerror(errno);
        disconnect();
        return false;
    }
    void disconnect()
    {
        if (fd_ >= 0)
            ::close(fd_);
        fd_ = -1;
    }
    std::string place_;
    sockaddr_storage address_{};
    socklen_t length_ = 0;
    int fd_ = -1;
};

/// daemon and tcp: a thread writes the Target; the loop only appends and hands over
class ThreadSink : public Log::Sink {
public:
    ThreadSink(std::unique_ptr<Target> target, size_t bufferSize)
        : target_(std::move(target)), bufferSize_(bufferSize),
          queueLimit_(std::max<size_t>(8 * bufferSize, 1024 * 1024))
    {}
    ~ThreadSink() override
    {
        flush();
        if (!thread_.joinable())
            return;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_one();
        thread_.join();
    }
    void append(std::string_view line) override
    {
        pending_.append(line);
        if (pending_.size() >= bufferSize_)
            flush();
    }
    bool flush() override
    {
        std::string failure;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!pending_.empty()) {
                if (queue_.size() + pending_.size() > queueLimit_)
                    failure = "the writer is " + std::to_string(queue_.size()) +
                              " bytes behind; some log lines were lost";
                else
                    queue_.append(pending_);
            }
            if (failure.empty())
                failure = threadError_;
            isOutcomeNew_ = false;
            if (threadError_.empty() && failure.empty())
                setError("");
        }
        const bool handedOver = !pending_.empty();
        pending_.clear();
        if (handedOver)
            startThread();
        wake_.notify_one();
        setError(failure);
        return failure.empty();
    }
    bool rotate(int count) override { return command(count); }
    bool reopen() override { return command(-1); }
    size_t buffered() const override { return pending_.size(); }
    bool isSettled() const override
    {
        std::lock_guard<std::mutex> lock(mutex_);
        return pending_.empty() && queue_.empty() && !rotationDue_ && !isWriting_ && !isOutcomeNew_;
    }

private:
    /// The writer starts with the first bytes or rotation, so that it runs
    /// after start-up dropped root (Privileges::leaveRoot() changes every
    /// thread's user, but its capability settings apply to the calling thread only).
    void startThread()
    {
        if (thread_.joinable())
            return;
        // the loop takes signals through a signalfd (Comm::SignalSource): the
        // writer must never be the thread a signal is delivered to
        sigset_t all, old;
        ::sigfillset(&all);
        ::pthread_sigmask(SIG_SETMASK, &all, &old);
        thread_ = std::thread([this] { run(); });
        ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
    }
    bool command(int rotation)
    {
        flush();
        startThread();
        {
            std::lock_guard<std::mutex> lock(mutex_);
            rotation_ = rotation;
            rotationDue_ = true;
        }
        wake_.notify_one();
        if (rotation >= 0) {
            // the files are renamed before this returns: a worker that
            // reopens the same path next (doc/design.md "Workers") must not
            // find the old file still there; a thread stuck on a full disk
            // is not waited for long
            std::unique_lock<std::mutex> lock(mutex_);
            done_.wait_for(lock, std::chrono::seconds(2), [this] { return !rotationDue_ && !isWriting_; });
        }
        return error().empty();
    }
    void run()
    {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            wake_.wait(lock, [this] { return stopping_ || rotationDue_ || !queue_.empty(); });
            std::string bytes;
            bytes.swap(queue_);
            const bool rotate = rotationDue_;
            const int rotation = rotation_;
            rotationDue_ = false;
            const bool stop = stopping_;
            isWriting_ = true;
            lock.unlock();
            std::string why;
            bool ok = bytes.empty() || target_->write(bytes, why);
            if (rotate && ok)
                ok = target_->rotate(rotation, why);
            lock.lock();
            isWriting_ = false;
            isOutcomeNew_ = true;
            threadError_ = ok ? std::string() : why;
            done_.notify_all();
            if (stop && queue_.empty())
                return;
        }
    }

    std::unique_ptr<Target> target_; ///< touched by the thread only, after construction
    const size_t bufferSize_;        ///< pending_ is handed over at this size
    const size_t queueLimit_;        ///< queue_ never grows past this
    std::string pending_;            ///< loop side: lines not handed over
    mutable std::mutex mutex_;       ///< guards what follows
    std::condition_variable wake_;   ///< the thread waits on it
    std::condition_variable done_;   ///< the thread finished a batch (a rotation waits on it)
    std::string queue_;              ///< bytes for the thread
    std::string threadError_;        ///< the thread's last failure, "" after a success
    int rotation_ = 0;               ///< the rotation asked for (-1: reopen)
    bool rotationDue_ = false;       ///< a rotation waits
    bool stopping_ = false;          ///< the thread writes what is queued and ends
    bool isWriting_ = false;         ///< the thread holds bytes taken from queue_
    bool isOutcomeNew_ = false;      ///< threadError_ changed since flush() read it
    std::thread thread_;             ///< the writer, with every signal blocked (see startThread())
};

/// syslog: Squid's module, one message per line
class SyslogSink : public Log::Sink {
public:
    explicit SyslogSink(const std::string& place) : priority_(ParsePriority(place))
    {
        ::openlog("cuttle", LOG_PID | LOG_NDELAY, LOG_USER);
    }
    void append(std::string_view line) override
    {
        if (!line.empty() && line.back() == '\n')
            line.remove_suffix(1);
        ::syslog(priority_, "%.*s", static_cast<int>(line.size()), line.data());
    }
    bool flush() override { return true; }
    bool rotate(int) override { return true; }
    bool reopen() override { return true; }
    size_t buffered() const override { return 0; }

    /// Squid's syslog_ntoa(): FACILITY.PRIORITY, either part optional (user.info)
    static int ParsePriority(const std::string& place)
    {
        static const std::pair<const char*, int> priorities[] = {
            {"emerg", LOG_EMERG},     {"alert", LOG_ALERT},   {"crit", LOG_CRIT}, {"err", LOG_ERR},
            {"warning", LOG_WARNING}, {"notice", LOG_NOTICE}, {"info", LOG_INFO}, {"debug", LOG_DEBUG},
        };
        int facility = LOG_USER;
        int priority = LOG_INFO;
        if (place.empty())
            return facility | priority;
        const size_t dot = place.find('.');
        const std::string f = place.substr(0, dot);
        const std::string p = dot == std::string::npos ? std::string() : place.substr(dot + 1);
        if (!f.empty() && (facility = Log::SyslogFacility(f)) < 0)
            throw std::invalid_argument("unknown syslog facility '" + f + "'");
        if (!p.empty()) {
            const auto known = std::find_if(std::begin(priorities), std::end(priorities),
                                            [&](const auto& entry) { return p == entry.first; });
            if (known == std::end(priorities))
                throw std::invalid_argument("unknown syslog priority '" + p + "'");
            priority = known->second;
        }
        return facility | priority;
    }

private:
    int priority_; ///< facility | priority
};

/// udp: one datagram per line, never blocking
class UdpSink : public Log::Sink {
public:
    explicit UdpSink(const std::string& place) : place_(place)
    {
        socklen_t length = 0;
        const sockaddr_storage to = ParseHostPort(place, length);
        fd_ = ::socket(to.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd_ < 0 || ::connect(fd_, reinterpret_cast<const sockaddr*>(&to), length) != 0) {
            const int err = errno;
            if (fd_ >= 0)
                ::close(fd_);
            throw std::system_error(err, std::generic_category(), "cannot open udp://" + place);
        }
    }
    ~UdpSink() override { ::close(fd_); }
    void append(std::string_view line) override
    {
        if (::send(fd_, line.data(), line.size(), MSG_NOSIGNAL) < 0)
            setError("cannot send to udp://" + place_ + ": " + std::strerror(errno));
        else
            setError("");
    }
    bool flush() override { return error().empty(); }
    bool rotate(int) override { return true; }
    bool reopen() override { return true; }
    size_t buffered() const override { return 0; }

private:
    std::string place_;
    int fd_ = -1;
};

} // namespace

int Log::SyslogFacility(const std::string& name)
{
    static const std::pair<const char*, int> facilities[] = {
        {"auth", LOG_AUTH},     {"authpriv", LOG_AUTHPRIV}, {"cron", LOG_CRON},     {"daemon", LOG_DAEMON},
        {"ftp", LOG_FTP},       {"kern", LOG_KERN},         {"lpr", LOG_LPR},       {"mail", LOG_MAIL},
        {"news", LOG_NEWS},     {"syslog", LOG_SYSLOG},     {"user", LOG_USER},     {"uucp", LOG_UUCP},
        {"local0", LOG_LOCAL0}, {"local1", LOG_LOCAL1},     {"local2", LOG_LOCAL2}, {"local3", LOG_LOCAL3},
        {"local4", LOG_LOCAL4}, {"local5", LOG_LOCAL5},     {"local6", LOG_LOCAL6}, {"local7", LOG_LOCAL7},
    };
    for (const auto& [known, value] : facilities) {
        if (name == known || name == std::string("LOG_") + known)
            return value;
    }
    return -1;
}

std::unique_ptr<Log::Sink> Log::Sink::Open(const OutputSpec& spec)
{
    if (spec.module == "stdio")
        return std::make_unique<FileSink>(spec);
    if (spec.module == "daemon")
        return std::make_unique<ThreadSink>(std::make_unique<FileTarget>(spec.place), spec.bufferSize);
    if (spec.module == "tcp")
        return std::make_unique<ThreadSink>(std::make_unique<TcpTarget>(spec.place), spec.bufferSize);
    if (spec.module == "udp")
        return std::make_unique<UdpSink>(spec.place);
    if (spec.module == "syslog")
        return std::make_unique<SyslogSink>(spec.place);
    throw std::invalid_argument("unknown access_log module '" + spec.module + "'");
}

void Log::OutputSpec::parsePlace(const std::string& text)
{
    if (text == "none") {
        module = "none";
        place.clear();
        return;
    }
    const size_t colon = text.find(':');
    if (!text.empty() && text.front() == '/') {
        module = "stdio"; // Squid: a bare path is a stdio log
        place = text;
    } else if (colon == std::string::npos && text != "syslog") {
        throw std::invalid_argument("'" + text +
                                    "' is not MODULE:PLACE (stdio:PATH, daemon:PATH, "
                                    "syslog:FACILITY.PRIORITY, udp://HOST:PORT, tcp://HOST:PORT or none)");
    } else {
        module = text.substr(0, colon);
        place = colon == std::string::npos ? std::string() : text.substr(colon + 1);
    }
    if (module == "udp" || module == "tcp") {
        if (place.rfind("//", 0) == 0)
            place.erase(0, 2);
        socklen_t length = 0;
        ParseHostPort(place, length);
    } else if (module == "syslog") {
        SyslogSink::ParsePriority(place);
    } else if (isFile()) {
        if (place.empty())
            throw std::invalid_argument("access_log '" + text + "' names no file");
    } else {
        throw std::invalid_argument("unknown access_log module '" + module +
                                    "' (use stdio, daemon, syslog, udp, tcp or none)");
    }
}
