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
/// The client and the origin run on the proxy's loop, on this thread, so the
/// harness sees when nothing moves and never waits for a fixed time; only a
/// proxy timer makes it wait (Rig::stillUntil()). The fixed 1 ms rounds, the
/// origin thread's 50 ms wait for a head and the hand-overs between threads
/// were more than half of the time of an input (doc/fuzzing.md, "Measured").
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

#include <algorithm>
#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <netinet/in.h>
#include <string>
#include <string_view>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

/// A socket of `type` (with SOCK_NONBLOCK, maybe) bound to 127.0.0.1 on a
/// free port (listening when a stream), or abort(): `port` gets the port.
int BindLoopback(int type, uint16_t& port)
{
    const int fd = ::socket(AF_INET, type | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
        ((type & ~SOCK_NONBLOCK) == SOCK_STREAM && ::listen(fd, 64) != 0) ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
        std::abort();
    port = ntohs(a.sin_port);
    return fd;
}

/// The scripted origin, on the proxy's loop: it answers each connection with
/// the script once it has read a head, the end of the stream or 64 KB, or when
/// answerWaiting() says that nothing more will come; then it closes.
///
/// It used to be a thread that waited up to 50 ms for the rest of a head.
/// That wait was most of the time of an input that speaks TLS to the origin
/// (a ClientHello has no blank line: each https request cost 50 ms, and a
/// few of them ran into the client's 300 ms), and every hand-over between
/// the threads cost context switches on a 2-core machine.
///
/// The thread closed right after writing and raced the proxy: sometimes the
/// proxy read the reply and the end together, sometimes it read the reply,
/// pooled the connection, and found it closed later (Server::Pool, and the
/// retry of a request sent on it). To keep both without the race, a
/// connection closes either with its reply or one loop round after it,
/// alternating by connection from the parity of the script's length.
class Origin {
public:
    explicit Origin(Comm::Loop& loop) : loop_(loop), listener_(*this)
    {
        fd_ = BindLoopback(SOCK_STREAM | SOCK_NONBLOCK, port_);
        listener_.registration = loop_.watch(fd_, listener_);
    }

    uint16_t port() const { return port_; }

    /// what the origin answers from now on (one input)
    void setScript(std::string_view reply)
    {
        script_ = reply;
        accepted_ = script_.size();
    }

    /// Answers every connection still waiting for the rest of a head: the
    /// harness calls it when nothing moves (the loop has nothing to do and the
    /// client nothing to send), so no more bytes can come. Whether there was one.
    bool answerWaiting()
    {
        bool any = false;
        for (const auto& e : exchanges_) {
            if (e->state == Exchange::State::Reading) {
                e->answer();
                any = true;
            }
        }
        return any;
    }

    /// After each round of the loop: closes the connections whose reply went
    /// out before this round. Whether one still waited to close.
    bool endRound()
    {
        bool any = false;
        for (const auto& e : exchanges_) {
            if (e->state == Exchange::State::Written) {
                if (e->heldOneRound)
                    e->finish();
                e->heldOneRound = true;
                any = true;
            }
        }
        return any;
    }

private:
    /// one accepted connection
    struct Exchange : Comm::IoHandler {
        enum class State { Reading, Writing, Written, Done };

        Exchange(Origin& o, int f, bool linger) : origin(o), fd(f), lingers(linger)
        {
            registration = origin.loop_.watch(fd, *this);
        }
        ~Exchange() override { finish(); }

        void handleIo(const Comm::IoEvents&) override
        {
            if (state == State::Reading)
                read();
            else if (state == State::Writing)
                write();
        }

        /// reads a head (or up to 64 KB, or to the end), 4 KB at a time as
        /// the thread did, so what the proxy sent past them stays unread and
        /// the close resets the connection as before
        void read()
        {
            while (got.find("\r\n\r\n") == std::string::npos && got.size() < 65536) {
                char buf[4096];
                const ssize_t n = ::read(fd, buf, sizeof(buf));
                if (n > 0) {
                    got.append(buf, size_t(n));
                    continue;
                }
                if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                    return; // edge-triggered: the next bytes bring another event
                break;      // the end of the stream, or an error
            }
            answer();
        }

        void answer()
        {
            state = State::Writing;
            reply = origin.script_;
            write();
        }

        void write()
        {
            while (sent < reply.size()) {
                const ssize_t n = ::send(fd, reply.data() + sent, reply.size() - sent, MSG_NOSIGNAL);
                if (n > 0)
                    sent += size_t(n);
                else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                    return; // the rest when the proxy has read some
                else
                    break;
            }
            if (lingers && sent == reply.size())
                state = State::Written; // endRound() closes
            else
                finish();
        }

        void finish()
        {
            if (state == State::Done)
                return;
            state = State::Done;
            registration.cancel();
            ::close(fd);
        }

        Origin& origin;
        const int fd;
        const bool lingers; ///< closes a round after its reply, not with it
        State state = State::Reading;
        bool heldOneRound = false; ///< Written: endRound() saw it once
        std::string got;
        std::string reply;
        size_t sent = 0;
        Comm::Registration registration; ///< after fd: cancelled first
    };

    /// accepts the proxy's connections
    struct Listener : Comm::IoHandler {
        explicit Listener(Origin& o) : origin(o) {}

        void handleIo(const Comm::IoEvents&) override
        {
            // done exchanges go here, outside their own callbacks
            auto& all = origin.exchanges_;
            all.erase(std::remove_if(all.begin(), all.end(),
                                     [](const auto& e) { return e->state == Exchange::State::Done; }),
                      all.end());
            while (true) {
                const int c = ::accept4(origin.fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
                if (c < 0) {
                    if (errno == EAGAIN || errno == EWOULDBLOCK)
                        return;
                    continue; // e.g. ECONNABORTED: the next one
                }
                // its first event reads what is there already
                all.push_back(std::make_unique<Exchange>(origin, c, origin.accepted_++ % 2 == 0));
            }
        }

        Origin& origin;
        Comm::Registration registration;
    };

    Comm::Loop& loop_;
    int fd_ = -1;
    uint16_t port_ = 0;
    std::string script_;
    size_t accepted_ = 0; ///< connections of this input, from the script's length
    std::vector<std::unique_ptr<Exchange>> exchanges_;
    Listener listener_;
};

/// A DNS server on loopback that answers every query "no such name" (RFC 1035
/// RCODE 3, the query echoed back as the question), from its own thread: an
/// answer that comes while c-ares still reads the one before it is a case
/// of Comm::Resolver (Channel::drain()) that only another thread makes.
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

/// The client's socket on the loop: its events do nothing but wake the loop
/// (runOnce() then returns early and counts a call), so a wait for a timer
/// ends as soon as the proxy writes to the client or closes.
struct ClientWake : Comm::IoHandler {
    void handleIo(const Comm::IoEvents&) override {}
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

    /// One round of the loop, without waiting; whether anything moved.
    bool round()
    {
        const bool called = loop.runOnce(Comm::Milliseconds(0)) > 0;
        return origin.endRound() || called;
    }

    /// Nothing moved: the origin answers what it has (no more can come), or
    /// else only a timer (or the name server's answer, from its thread) can
    /// move things, and the loop waits for it, or for any event, the client's
    /// too, until `until`, as the old 1 ms rounds did.
    void stillUntil(std::chrono::steady_clock::time_point until)
    {
        if (origin.answerWaiting())
            return;
        const auto left = std::chrono::ceil<Comm::Milliseconds>(until - std::chrono::steady_clock::now());
        if (left > Comm::Milliseconds(0))
            loop.runOnce(left);
    }

    std::string dir;
    Comm::Loop loop; // first: the origin and the name server run on it
    Origin origin{loop};
    NameServer nameServer;
    ClientWake client;
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
    Comm::Registration watched = proxy.loop.watch(fd, proxy.client);
    proxy.loop.runOnce(Comm::Milliseconds(0));

    // Everything runs on this thread, so the harness knows when nothing moves
    // (the loop made no call, the client neither wrote nor read, the origin
    // has nothing to close): then only the origin's answer or a timer can
    // move things, and nobody waits in vain (the old fixed 1 ms rounds and
    // the origin's 50 ms were most of the time of an input).
    std::string out;
    size_t written = 0;
    bool halfClosed = false;
    bool closed = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
    while (!closed && std::chrono::steady_clock::now() < deadline) {
        bool moved = false;
        if (!halfClosed) {
            const ssize_t n = ::send(fd, request.data() + written, request.size() - written, MSG_NOSIGNAL);
            if (n > 0) {
                written += size_t(n);
                moved = true;
            }
            if (written == request.size()) {
                ::shutdown(fd, SHUT_WR);
                halfClosed = true;
                moved = true;
            }
        }
        if (proxy.round())
            moved = true;
        char buf[16384];
        ssize_t n;
        while ((n = ::read(fd, buf, sizeof(buf))) > 0) {
            out.append(buf, size_t(n));
            moved = true;
        }
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
            closed = true;
        if (!closed && !moved)
            proxy.stillUntil(deadline);
    }
    watched.cancel();
    ::close(fd);

    if (std::getenv("FUZZ_CONNECTION_DUMP")) // replaying a failure: show the exchange
        std::fprintf(stderr, "--- request:\n%s\n--- reply (%s):\n%s\n---\n", request.c_str(),
                     closed ? "closed" : "open", out.c_str());
    CheckReplies(out, request, closed);

    // the proxy lets go of a connection whose client left (within 2 s: it
    // may first wait for the origin, which answers when nothing else moves)
    const auto release = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (proxy.server->connectionCount() > 0 && std::chrono::steady_clock::now() < release) {
        if (!proxy.round())
            proxy.stillUntil(release);
    }
    FUZZ_CHECK(proxy.server->connectionCount() == 0);
    // what is left (an origin connection to close, the proxy's end of it)
    // settles now, so that the next input starts from the same state
    const auto settle = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
    while ((proxy.round() || proxy.origin.answerWaiting()) && std::chrono::steady_clock::now() < settle) {
    }
    return 0;
}
