/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file libFuzzer harness of a whole client connection: the real
/// Proxy::Instance and a client Connection, on a real event loop, read a fuzzed
/// request stream from a loopback client and forward what they allow to a
/// loopback origin that answers with fuzzed bytes.
///
/// Input: `REQUEST-BYTES [@@@@ REPLY-BYTES]`. Every `ORIGIN` in the request
/// bytes becomes the origin's `127.0.0.1:PORT`; the origin answers every
/// request it gets with the reply bytes (a small 200 when there are none)
/// and closes. The client writes the request bytes, half-closes, and reads
/// until the proxy closes or about 300 ms passed; then it closes too.
///
/// Nothing leaves loopback: http_access allows only dst 127.0.0.1 on the
/// origin's port, hosts_file is off and the only DNS server is NameServer,
/// on loopback, which says no name exists. A `dst` acl looks up a request's
/// host name (client/Destination.cc), so the lookup must end at once: a
/// server that never answers keeps each such input waiting for dns_timeout.
/// `cache deny all` keeps one input's result from depending on the inputs
/// before it (libFuzzer can then minimise a crash).
///
/// Properties checked: no crash or sanitizer report; every byte the proxy
/// sends is a sequence of replies whose heads ReplyParser accepts (status
/// 100..999, HTTP/1.1), as far as their framing lets us walk; and once the
/// client has closed, the proxy lets go of the connection.

#include "cuttle.h"

#include "proxy/Instance.h"
#include "comm/Loop.h"
#include "config/Parser.h"
#include "fuzz/Check.h"
#include "http/ReplyParser.h"
#include "http/RequestParser.h"

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <netinet/in.h>
#include <poll.h>
#include <string>
#include <string_view>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

/// A socket of `type` bound to 127.0.0.1 on a free port (listening when a
/// stream), or abort(): `port` gets the port.
int BindLoopback(int type, uint16_t& port)
{
    const int fd = ::socket(AF_INET, type | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
        (type == SOCK_STREAM && ::listen(fd, 64) != 0) ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
        std::abort();
    port = ntohs(a.sin_port);
    return fd;
}

/// The scripted origin: a thread that answers each connection with script().
class Origin {
public:
    Origin()
    {
        fd_ = BindLoopback(SOCK_STREAM, port_);
        std::thread([this] { serve(); }).detach();
    }

    uint16_t port() const { return port_; }

    /// what the origin answers from now on
    void setScript(std::string_view reply)
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        script_ = reply;
    }

private:
    void serve()
    {
        while (true) {
            const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
            if (c < 0)
                continue;
            // read the head (or what comes within 50 ms), then answer and close
            std::string got;
            pollfd p{c, POLLIN, 0};
            while (got.find("\r\n\r\n") == std::string::npos && got.size() < 65536 && ::poll(&p, 1, 50) > 0) {
                char buf[4096];
                const ssize_t n = ::read(c, buf, sizeof(buf));
                if (n <= 0)
                    break;
                got.append(buf, size_t(n));
            }
            std::string reply;
            {
                const std::lock_guard<std::mutex> lock(mutex_);
                reply = script_;
            }
            (void)!::write(c, reply.data(), reply.size());
            ::close(c);
        }
    }

    int fd_ = -1;
    uint16_t port_ = 0;
    std::mutex mutex_;
    std::string script_;
};

/// A DNS server on loopback that answers every query "no such name" (RFC 1035
/// RCODE 3, the query echoed back as the question), from its own thread.
class NameServer {
public:
    NameServer()
    {
        fd_ = BindLoopback(SOCK_DGRAM, port_);
        std::thread([this] { serve(); }).detach();
    }

    uint16_t port() const { return port_; }

private:
    void serve()
    {
        while (true) {
            unsigned char msg[512];
            sockaddr_storage from{};
            socklen_t fromLen = sizeof(from);
            const ssize_t n =
                ::recvfrom(fd_, msg, sizeof(msg), 0, reinterpret_cast<sockaddr*>(&from), &fromLen);
            if (n < 12)
                continue;                                                // shorter than a DNS header
            msg[2] = static_cast<unsigned char>(msg[2] | 0x80);          // QR: a response
            msg[3] = static_cast<unsigned char>((msg[3] & 0xF0) | 0x83); // RA, RCODE 3
            (void)!::sendto(fd_, msg, size_t(n), 0, reinterpret_cast<sockaddr*>(&from), fromLen);
        }
    }

    int fd_ = -1;
    uint16_t port_ = 0;
};

/// The proxy, its loop, the origin and the name server, made once per process.
struct Rig {
    Rig()
    {
        // as cuttle's main() does: a write to a socket the other side closed
        // is an EPIPE, not a signal that ends the process without a report
        // (two 10-million runs died so, silently, after about 270,000 inputs)
        std::signal(SIGPIPE, SIG_IGN);
        char tmpl[] = "/tmp/cuttle-fuzzconn-XXXXXX";
        dir = ::mkdtemp(tmpl);
        static const std::string made = dir; // nothing is written there: removed empty at exit
        std::atexit([] { ::rmdir(made.c_str()); });
        const std::string port = std::to_string(origin.port());
        const std::string conf = "http_port 127.0.0.1:0\n"
                                 "acl origin dst 127.0.0.1\n"
                                 "acl originport port " +
                                 port +
                                 "\n"
                                 "http_access allow origin originport\n"
                                 "http_access deny all\n"
                                 "cache deny all\n"
                                 "access_log none\n"
                                 "cache_log /dev/null\n"
                                 "pid_filename none\n"
                                 "hosts_file none\n"
                                 "dns_nameservers 127.0.0.1:" +
                                 std::to_string(nameServer.port()) +
                                 "\n"
                                 "connect_timeout 1 second\n"
                                 "error_directory " TOP_SRCDIR "/errors/templates\n";
        Config::Parser parser;
        parser.setBaseDirectory(dir);
        auto settings = parser.parseText(conf, dir + "/squid.conf");
        if (!settings) {
            for (const auto& d : parser.diagnostics())
                std::fprintf(stderr, "%s\n", d.format().c_str());
            std::abort();
        }
        server = std::make_unique<Proxy::Instance>(loop);
        server->configure(std::shared_ptr<const Config::Settings>(std::move(settings)), true);
        listening = server->side().listeningAddresses().front();
        originAuthority = "127.0.0.1:" + port;
    }

    std::string dir;
    Origin origin;
    NameServer nameServer;
    Comm::Loop loop;
    std::unique_ptr<Proxy::Instance> server;
    Comm::Address listening;
    std::string originAuthority;
};

Rig& TheRig()
{
    static Rig* rig = new Rig; // lives as long as the process
    return *rig;
}

/// The methods of the requests at the start of `stream` that parse, in
/// order, as far as their bodies let us find the next one: whether each is HEAD.
std::vector<bool> HeadRequests(std::string_view stream)
{
    std::vector<bool> isHead;
    while (!stream.empty()) {
        Http::RequestParser parser(64 * 1024);
        if (parser.parse(stream) != Http::ParseResult::Done)
            break;
        isHead.push_back(parser.method() == Http::Method::Head);
        stream.remove_prefix(parser.headSize());
        if (parser.findField("Transfer-Encoding") || parser.method() == Http::Method::Connect)
            break;
        const uint64_t length = parser.contentLength().value_or(0);
        if (length > stream.size())
            break;
        stream.remove_prefix(size_t(length));
    }
    return isHead;
}

/// Walks the replies in `out` to the requests in `request`: each head must
/// parse; stops where framing does not let us find the next one.
void CheckReplies(std::string_view out, std::string_view request, bool closed)
{
    const auto isHead = HeadRequests(request);
    size_t index = 0;
    while (!out.empty()) {
        Http::ReplyParser parser(64 * 1024);
        const auto result = parser.parse(out);
        if (result == Http::ParseResult::NeedMore) {
            // a head cut short is fine only while the proxy is still writing
            FUZZ_CHECK(!closed || out.size() < 5 || out.substr(0, 5) == "HTTP/");
            return;
        }
        FUZZ_CHECK(result == Http::ParseResult::Done);
        FUZZ_CHECK(parser.statusCode() >= 100 && parser.statusCode() <= 999); // 6xx..9xx pass as in Squid
        FUZZ_CHECK(parser.versionMajor() == 1 && parser.versionMinor() == 1);
        out.remove_prefix(parser.headSize());
        if (parser.statusCode() < 200)
            continue;
        // the reply to a request we could not parse (an error page) ends the walk
        if (index >= isHead.size())
            return;
        const auto framing = parser.framing(isHead[index++], false);
        if (framing == Http::ReplyParser::Framing::None)
            continue;
        if (framing != Http::ReplyParser::Framing::Length)
            return; // chunked or close-delimited: no next reply we can find cheaply
        const uint64_t length = *parser.contentLength();
        if (length > out.size())
            return;
        out.remove_prefix(size_t(length));
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    Rig& proxy = TheRig();
    const auto input = Fuzz::AsText(data, size);
    const auto separator = input.find("@@@@");
    std::string request(input.substr(0, separator));
    for (size_t at = 0; (at = request.find("ORIGIN", at)) != std::string::npos;) {
        request.replace(at, 6, proxy.originAuthority);
        at += proxy.originAuthority.size();
    }
    proxy.origin.setScript(separator == std::string_view::npos
                               ? std::string_view("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
                               : input.substr(separator + 4));

    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    FUZZ_CHECK(fd >= 0);
    const int rc = ::connect(fd, proxy.listening.raw(), proxy.listening.length());
    FUZZ_CHECK(rc == 0 || errno == EINPROGRESS);
    proxy.loop.runOnce(Comm::Milliseconds(0));

    std::string out;
    size_t written = 0;
    bool closed = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
    while (!closed && std::chrono::steady_clock::now() < deadline) {
        if (written < request.size()) {
            const ssize_t n = ::send(fd, request.data() + written, request.size() - written, MSG_NOSIGNAL);
            if (n > 0)
                written += size_t(n);
            if (written == request.size())
                ::shutdown(fd, SHUT_WR);
        } else if (request.empty()) {
            ::shutdown(fd, SHUT_WR);
        }
        proxy.loop.runOnce(Comm::Milliseconds(1));
        char buf[16384];
        ssize_t n;
        while ((n = ::read(fd, buf, sizeof(buf))) > 0)
            out.append(buf, size_t(n));
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
            closed = true;
    }
    ::close(fd);

    if (std::getenv("FUZZ_CONNECTION_DUMP")) // replaying a failure: show the exchange
        std::fprintf(stderr, "--- request:\n%s\n--- reply (%s):\n%s\n---\n", request.c_str(),
                     closed ? "closed" : "open", out.c_str());
    CheckReplies(out, request, closed);

    // the proxy lets go of a connection whose client left
    // (within 2 s: it may first wait for the origin, which answers within 50 ms)
    const auto release = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (proxy.server->connectionCount() > 0 && std::chrono::steady_clock::now() < release)
        proxy.loop.runOnce(Comm::Milliseconds(1));
    FUZZ_CHECK(proxy.server->connectionCount() == 0);
    return 0;
}
