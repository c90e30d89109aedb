/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file ioloop-bench: how much an io_uring event loop would save over
/// cuttle's edge-triggered epoll one, measured without the rest of a proxy
/// (doc/tuning.md "io_uring"). One thread serves keep-alive HTTP/1.1
/// requests on 127.0.0.1 with a fixed reply of SIZE bytes (head and body in
/// one send), the way cuttle's client side answers a small request:
///
///   epoll  edge-triggered epoll_wait; accept4 until EAGAIN; per readable
///          connection recv until EAGAIN, one send per complete request
///   uring  io_uring (IORING_SETUP_SINGLE_ISSUER | DEFER_TASKRUN when the
///          kernel has them, else none): a multishot accept, one recv in
///          flight per connection (re-armed from its completion), one send
///          per complete request; submissions batched, one
///          io_uring_submit_and_wait per turn
///
/// Usage: ioloop-bench epoll|uring SIZE
/// Prints "listening on 127.0.0.1:PORT" and serves until SIGTERM or SIGINT.
/// Requests are taken as whole heads ending in CRLF CRLF, with no body.

#include <liburing.h>

#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <unordered_map>

namespace {

volatile sig_atomic_t Stop = 0;

void OnSignal(int)
{
    Stop = 1;
}

std::string Reply;

/// one client connection's request bytes not yet answered
struct Conn {
    int fd = -1;
    std::string in;
    char buffer[16384];
};

/// answers the complete requests at the start of c.in: how many
int CompleteRequests(Conn& c)
{
    int n = 0;
    size_t at;
    while ((at = c.in.find("\r\n\r\n")) != std::string::npos) {
        c.in.erase(0, at + 4);
        ++n;
    }
    return n;
}

int Listen(uint16_t& port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 || ::listen(fd, 1024) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
        std::perror("listen");
        std::exit(1);
    }
    port = ntohs(a.sin_port);
    return fd;
}

void NoDelay(int fd)
{
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int RunEpoll(int listener)
{
    const int ep = ::epoll_create1(EPOLL_CLOEXEC);
    std::unordered_map<int, std::unique_ptr<Conn>> conns;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLET;
    ev.data.fd = listener;
    ::epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
    epoll_event events[256];
    while (!Stop) {
        const int n = ::epoll_wait(ep, events, 256, 100);
        for (int i = 0; i < n; ++i) {
            const int fd = events[i].data.fd;
            if (fd == listener) {
                int c;
                while ((c = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                    NoDelay(c);
                    auto conn = std::make_unique<Conn>();
                    conn->fd = c;
                    epoll_event cev{};
                    cev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
                    cev.data.fd = c;
                    ::epoll_ctl(ep, EPOLL_CTL_ADD, c, &cev);
                    conns[c] = std::move(conn);
                }
                continue;
            }
            auto it = conns.find(fd);
            if (it == conns.end())
                continue;
            Conn& c = *it->second;
            bool closed = false;
            for (;;) {
                const ssize_t got = ::recv(fd, c.buffer, sizeof(c.buffer), 0);
                if (got > 0) {
                    c.in.append(c.buffer, size_t(got));
                    if (size_t(got) < sizeof(c.buffer))
                        break; // a short read drained the socket
                    continue;
                }
                if (got == 0 || (errno != EAGAIN && errno != EINTR))
                    closed = true;
                break;
            }
            for (int r = CompleteRequests(c); r > 0 && !closed; --r) {
                if (::send(fd, Reply.data(), Reply.size(), MSG_NOSIGNAL) != ssize_t(Reply.size()))
                    closed = true; // small replies: the socket takes each whole
            }
            if (closed) {
                ::close(fd);
                conns.erase(it);
            }
        }
    }
    return 0;
}

enum Kind : uint64_t { Accept = 1, Recv = 2, Send = 3 };

uint64_t Tag(Kind kind, int fd)
{
    return (uint64_t(kind) << 32) | uint32_t(fd);
}

int RunUring(int listener)
{
    io_uring ring;
    io_uring_params params{};
#ifdef IORING_SETUP_DEFER_TASKRUN
    params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
#endif
    if (io_uring_queue_init_params(4096, &ring, &params) < 0) {
        params.flags = 0;
        if (const int e = io_uring_queue_init_params(4096, &ring, &params); e < 0) {
            std::fprintf(stderr, "io_uring_queue_init: %s\n", std::strerror(-e));
            return 1;
        }
    }
    std::fprintf(stderr, "io_uring flags 0x%x\n", params.flags);
    std::unordered_map<int, std::unique_ptr<Conn>> conns;
    auto sqe = [&ring] {
        io_uring_sqe* s = io_uring_get_sqe(&ring);
        if (!s) {
            io_uring_submit(&ring);
            s = io_uring_get_sqe(&ring);
        }
        return s;
    };
    auto armRecv = [&](Conn& c) {
        io_uring_sqe* s = sqe();
        io_uring_prep_recv(s, c.fd, c.buffer, sizeof(c.buffer), 0);
        io_uring_sqe_set_data64(s, Tag(Recv, c.fd));
    };
    io_uring_sqe* a = sqe();
    io_uring_prep_multishot_accept(a, listener, nullptr, nullptr, SOCK_CLOEXEC);
    io_uring_sqe_set_data64(a, Tag(Accept, listener));
    __kernel_timespec tick{0, 100 * 1000 * 1000};
    while (!Stop) {
        io_uring_cqe* cqe = nullptr;
        io_uring_submit_and_wait_timeout(&ring, &cqe, 1, &tick, nullptr);
        unsigned head;
        unsigned seen = 0;
        io_uring_for_each_cqe(&ring, head, cqe)
        {
            ++seen;
            const uint64_t data = io_uring_cqe_get_data64(cqe);
            const auto kind = Kind(data >> 32);
            const int fd = int(uint32_t(data));
            const int res = cqe->res;
            if (kind == Accept) {
                if (res >= 0) {
                    NoDelay(res);
                    auto conn = std::make_unique<Conn>();
                    conn->fd = res;
                    armRecv(*conn);
                    conns[res] = std::move(conn);
                }
                if (!(cqe->flags & IORING_CQE_F_MORE)) { // the multishot ended: again
                    io_uring_sqe* s = sqe();
                    io_uring_prep_multishot_accept(s, listener, nullptr, nullptr, SOCK_CLOEXEC);
                    io_uring_sqe_set_data64(s, Tag(Accept, listener));
                }
                continue;
            }
            if (kind == Send)
                continue; // small replies: each send took them whole
            auto it = conns.find(fd);
            if (it == conns.end())
                continue;
            Conn& c = *it->second;
            if (res <= 0) {
                ::close(fd);
                conns.erase(it);
                continue;
            }
            c.in.append(c.buffer, size_t(res));
            for (int r = CompleteRequests(c); r > 0; --r) {
                io_uring_sqe* s = sqe();
                io_uring_prep_send(s, fd, Reply.data(), Reply.size(), MSG_NOSIGNAL);
                io_uring_sqe_set_data64(s, Tag(Send, fd));
            }
            armRecv(c);
        }
        io_uring_cq_advance(&ring, seen);
    }
    io_uring_queue_exit(&ring);
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 3 || (std::strcmp(argv[1], "epoll") != 0 && std::strcmp(argv[1], "uring") != 0)) {
        std::fprintf(stderr, "usage: ioloop-bench epoll|uring SIZE\n");
        return 2;
    }
    const size_t size = std::strtoul(argv[2], nullptr, 10);
    Reply = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(size) +
            "\r\nContent-Type: application/octet-stream\r\nCache-Control: no-store\r\n\r\n" +
            std::string(size, 'x');
    std::signal(SIGTERM, OnSignal);
    std::signal(SIGINT, OnSignal);
    std::signal(SIGPIPE, SIG_IGN);
    uint16_t port = 0;
    const int listener = Listen(port);
    std::printf("listening on 127.0.0.1:%u\n", unsigned(port));
    std::fflush(stdout);
    return std::strcmp(argv[1], "epoll") == 0 ? RunEpoll(listener) : RunUring(listener);
}
