/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file cuttle-origin: the test origin server of the system tests and the
/// benchmark. The command line, the listening socket, signals, and one thread
/// per accepted connection. Its URL interface is described in README.md.

#include "cuttle.h"

#include "Connection.h"
#include "Pattern.h"
#include "ReplySpec.h"
#include "Server.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

/// the stack of a connection thread: its frames are small, its buffers on the heap
constexpr size_t ThreadStackSize = 2u << 20;
/// how long a SIGTERM waits for the connection threads
constexpr auto StopTime = std::chrono::seconds(10);

void usage(FILE* out)
{
    std::fputs("usage: cuttle-origin [--listen ADDR:PORT] [--files DIR] [--print-body SIZE]\n"
               "  --listen ADDR:PORT  listen there (default 127.0.0.1:0; IPv6 as [::1]:0)\n"
               "  --files DIR         serve /files/NAME from DIR\n"
               "  --print-body SIZE   write the s=SIZE pattern body to stdout and exit\n"
               "The URL interface is in test-suite/origin/README.md.\n",
               out);
}

[[noreturn]] void die(const std::string& what)
{
    std::fprintf(stderr, "cuttle-origin: %s\n", what.c_str());
    std::exit(1);
}

[[noreturn]] void dieErrno(const std::string& what)
{
    die(what + ": " + std::strerror(errno));
}

/// Binds and listens on "ADDR:PORT" or "[ADDR6]:PORT" (numeric only: no DNS).
int listenOn(std::string_view where)
{
    std::string host, port;
    if (!where.empty() && where.front() == '[') {
        const auto close = where.find("]:");
        if (close == std::string_view::npos)
            die("bad --listen " + std::string(where) + " (want [ADDR]:PORT)");
        host = where.substr(1, close - 1);
        port = where.substr(close + 2);
    } else {
        const auto colon = where.rfind(':');
        if (colon == std::string_view::npos)
            die("bad --listen " + std::string(where) + " (want ADDR:PORT)");
        host = where.substr(0, colon);
        port = where.substr(colon + 1);
    }
    addrinfo hints{};
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (const int error = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); error != 0)
        die("bad --listen " + std::string(where) + ": " + ::gai_strerror(error));
    const std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> owner(found, ::freeaddrinfo);

    const int fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        dieErrno("socket");
    const int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    if (::bind(fd, found->ai_addr, found->ai_addrlen) != 0)
        dieErrno("bind " + std::string(where));
    if (::listen(fd, 4096) != 0)
        dieErrno("listen");
    return fd;
}

/// "127.0.0.1:41234" or "[::1]:41234": where fd listens
std::string localAddress(int fd)
{
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
        dieErrno("getsockname");
    char text[INET6_ADDRSTRLEN] = "";
    if (address.ss_family == AF_INET6) {
        const auto& in6 = reinterpret_cast<const sockaddr_in6&>(address);
        ::inet_ntop(AF_INET6, &in6.sin6_addr, text, sizeof(text));
        return "[" + std::string(text) + "]:" + std::to_string(ntohs(in6.sin6_port));
    }
    const auto& in4 = reinterpret_cast<const sockaddr_in&>(address);
    ::inet_ntop(AF_INET, &in4.sin_addr, text, sizeof(text));
    return std::string(text) + ":" + std::to_string(ntohs(in4.sin_port));
}

void* runConnection(void* argument)
{
    std::unique_ptr<Origin::Connection> connection(static_cast<Origin::Connection*>(argument));
    auto& server = connection->server();
    try {
        connection->serve();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cuttle-origin: connection failed: %s\n", e.what());
    }
    connection.reset(); // closes the socket before the server counts the thread out
    server.threadFinished();
    return nullptr;
}

/// Accepts every pending connection, each into a thread of its own.
void acceptAll(int listener, Origin::Server& server, const pthread_attr_t& attributes)
{
    for (;;) {
        const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                // out of descriptors or memory: let the backlog wait a little
                std::fprintf(stderr, "cuttle-origin: accept: %s\n", std::strerror(errno));
                ::usleep(10000);
            }
            return;
        }
        const int on = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
        const auto id = server.newConnectionId();
        if (!server.threadStarting()) {
            ::close(fd);
            return;
        }
        auto connection = std::make_unique<Origin::Connection>(server, fd, id);
        pthread_t thread;
        if (const int error = ::pthread_create(&thread, &attributes, runConnection, connection.get());
            error != 0) {
            std::fprintf(stderr, "cuttle-origin: pthread_create: %s\n", std::strerror(error));
            connection.reset();
            server.threadFinished();
            continue;
        }
        connection.release(); // the thread owns it now
    }
}

} // namespace

int main(int argc, char** argv)
{
    std::string listen = "127.0.0.1:0";
    std::string files;
    std::string printBody;
    bool printsBody = false;
    for (int i = 1; i < argc; ++i) {
        std::string_view arg = argv[i];
        std::string value;
        auto option = [&](std::string_view name) {
            if (arg == name) {
                if (i + 1 >= argc)
                    die(std::string(name) + " needs a value");
                value = argv[++i];
                return true;
            }
            if (arg.size() > name.size() && arg.substr(0, name.size()) == name && arg[name.size()] == '=') {
                value = arg.substr(name.size() + 1);
                return true;
            }
            return false;
        };
        if (option("--listen")) {
            listen = value;
        } else if (option("--files")) {
            files = value;
        } else if (option("--print-body")) {
            printBody = value;
            printsBody = true;
        } else if (arg == "-h" || arg == "--help") {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }

    if (printsBody) {
        const auto size = Origin::parseSize(printBody);
        if (!size)
            die("bad --print-body size " + printBody);
        return Origin::writePattern(STDOUT_FILENO, *size) ? 0 : 1;
    }

    int filesDir = -1;
    if (!files.empty()) {
        filesDir = ::open(files.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (filesDir < 0)
            dieErrno("--files " + files);
    }

    // Every thread inherits the blocked signals; only the signalfd sees them.
    sigset_t stopSignals;
    sigemptyset(&stopSignals);
    sigaddset(&stopSignals, SIGTERM);
    sigaddset(&stopSignals, SIGINT);
    if (::pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr) != 0)
        die("pthread_sigmask failed");
    const int signals = ::signalfd(-1, &stopSignals, SFD_CLOEXEC);
    if (signals < 0)
        dieErrno("signalfd");
    std::signal(SIGPIPE, SIG_IGN);

    const int listener = listenOn(listen);
    std::printf("listening on %s\n", localAddress(listener).c_str());
    std::fflush(stdout);

    pthread_attr_t attributes;
    ::pthread_attr_init(&attributes);
    ::pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    ::pthread_attr_setstacksize(&attributes, ThreadStackSize);

    Origin::Server server(filesDir);
    for (;;) {
        pollfd fds[2] = {{listener, POLLIN, 0}, {signals, POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            dieErrno("poll");
        }
        if (fds[1].revents)
            break;
        if (fds[0].revents)
            acceptAll(listener, server, attributes);
    }

    ::close(listener);
    server.stop();
    if (!server.waitIdle(StopTime)) {
        std::fprintf(stderr, "cuttle-origin: connection threads still busy after the stop signal\n");
        std::fflush(stderr);
        ::_exit(1);
    }
    ::pthread_attr_destroy(&attributes);
    ::close(signals);
    if (filesDir >= 0)
        ::close(filesDir);
    return 0;
}
