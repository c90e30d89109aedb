/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "client/Connection.h"
#include "proxy/Instance.h"
#include "config/Parser.h"
#include "sbuf/BlockPool.h"

#include <cppunit/extensions/HelperMacros.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <memory>
#include <string>

#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

/// Client::Connection through a real Server on a loopback port: replies,
/// keep-alive, pipelining, errors, and the idle connection's memory.
class TestConnection : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestConnection);
    CPPUNIT_TEST(allowedRequestGets501AndStaysOpen);
    CPPUNIT_TEST(deniedRequestGets403);
    CPPUNIT_TEST(garbageGets400AndCloses);
    CPPUNIT_TEST(originFormGetsInvalidUrl);
    CPPUNIT_TEST(tooLargeHeadGets431);
    CPPUNIT_TEST(pipelinedRequestsAnsweredInOrder);
    CPPUNIT_TEST(headSplitAcrossReads);
    CPPUNIT_TEST(idleConnectionHoldsNoBuffer);
    CPPUNIT_TEST(clientCloseRequestCloses);
    CPPUNIT_TEST(idleTimeoutCloses);
    CPPUNIT_TEST(shutdownClosesIdleConnections);
    CPPUNIT_TEST(halfClosedPartialHeadClosesAtOnce);
    CPPUNIT_TEST(badMethodLoggedAsSquidDoes);
    CPPUNIT_TEST(userinfoNeverReachesTheLog);
    CPPUNIT_TEST(connectWithUserinfoIsInvalid);
    CPPUNIT_TEST(urlOfMaxUrlBytesIsInvalid);
    CPPUNIT_TEST(longRequestLineGets414);
    CPPUNIT_TEST(thousandConnectionsLeaveNothingBehind);
    CPPUNIT_TEST(bodyAlreadyInSocketIsForwarded);
    CPPUNIT_TEST(errorPageToHeadHasNoBody);
    CPPUNIT_TEST_SUITE_END();

public:
    void setUp() override;
    void tearDown() override;

    void allowedRequestGets501AndStaysOpen();
    void deniedRequestGets403();
    void garbageGets400AndCloses();
    void originFormGetsInvalidUrl();
    void tooLargeHeadGets431();
    void pipelinedRequestsAnsweredInOrder();
    void headSplitAcrossReads();
    void idleConnectionHoldsNoBuffer();
    void clientCloseRequestCloses();
    void idleTimeoutCloses();
    void shutdownClosesIdleConnections();
    void halfClosedPartialHeadClosesAtOnce();
    void badMethodLoggedAsSquidDoes();
    void userinfoNeverReachesTheLog();
    void connectWithUserinfoIsInvalid();
    void urlOfMaxUrlBytesIsInvalid();
    void longRequestLineGets414();
    void thousandConnectionsLeaveNothingBehind();
    void bodyAlreadyInSocketIsForwarded();
    void errorPageToHeadHasNoBody();

private:
    /// a listening loopback socket for an origin the test plays; its port in port
    int listenAsOrigin(uint16_t& port);
    /// spins the loop until the origin's accepted connection (accepted into
    /// upstream if not yet) has sent bytes holding `until`, or 2 s pass
    void startServer(const std::string& extraConfig = "");
    int connectClient();
    void send(int fd, const std::string& bytes);
    /// reads until `replies` complete replies arrived, EOF, or a bounded wait
    std::string receive(int fd, size_t replies, bool* sawEof = nullptr);
    std::string readAsOrigin(int listener, int& upstream, const std::string& until);
    void spin(int iterations = 5);
    /// the access.log lines written so far
    std::string accessLog();

    std::unique_ptr<Comm::Loop> loop_;
    std::unique_ptr<Proxy::Instance> server_; ///< the proxy under test
    std::string dir_;
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestConnection);

namespace {

size_t CountReplies(const std::string& s)
{
    size_t n = 0;
    for (size_t pos = 0; (pos = s.find("HTTP/1.1 ", pos)) != std::string::npos; ++pos) {
        if (pos == 0 || s.compare(pos - 2, 2, "\r\n") == 0 || s.compare(pos - 1, 1, ">") == 0 ||
            s[pos - 1] == '\n')
            ++n;
    }
    return n;
}

/// whether all the bodies announced so far have arrived
bool RepliesComplete(const std::string& s, size_t wanted)
{
    size_t pos = 0, got = 0;
    while (got < wanted) {
        const auto start = s.find("HTTP/1.1 ", pos);
        if (start == std::string::npos)
            return false;
        const auto end = s.find("\r\n\r\n", start);
        if (end == std::string::npos)
            return false;
        const auto cl = s.find("Content-Length: ", start);
        size_t body = 0;
        if (cl != std::string::npos && cl < end)
            body = std::stoul(s.substr(cl + 16));
        if (s.size() < end + 4 + body)
            return false;
        pos = end + 4 + body;
        ++got;
    }
    return true;
}

} // namespace

void TestConnection::setUp()
{
    char tmpl[] = "/tmp/cuttle-testclient-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
}

void TestConnection::tearDown()
{
    server_.reset();
    loop_.reset();
    std::string cmd = "rm -rf '" + dir_ + "'";
    (void)!::system(cmd.c_str());
}

void TestConnection::startServer(const std::string& extraConfig)
{
    const std::string conf = "http_port 127.0.0.1:0\n"
                             "acl p81 port 81\n"
                             "http_access deny p81\n"
                             "http_access allow localhost\n"
                             "http_access deny all\n"
                             "access_log stdio:" +
                             dir_ + "/access.log\n" + "cache_log " + dir_ + "/cache.log\n" +
                             "pid_filename none\n" + "error_directory " TOP_SRCDIR "/errors/templates\n" +
                             extraConfig;
    Config::Parser parser;
    auto settings = parser.parseText(conf, dir_ + "/squid.conf");
    std::string problems;
    for (const auto& d : parser.diagnostics())
        problems += d.format() + "\n";
    CPPUNIT_ASSERT_MESSAGE(problems, settings);
    loop_ = std::make_unique<Comm::Loop>();
    server_ = std::make_unique<Proxy::Instance>(*loop_);
    server_->configure(std::shared_ptr<const Config::Settings>(std::move(settings)), true);
    CPPUNIT_ASSERT_EQUAL(size_t(1), server_->side().listeningAddresses().size());
}

int TestConnection::connectClient()
{
    const auto where = server_->side().listeningAddresses().front();
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    const int rc = ::connect(fd, where.raw(), where.length());
    CPPUNIT_ASSERT(rc == 0 || errno == EINPROGRESS);
    spin();
    return fd;
}

void TestConnection::spin(int iterations)
{
    for (int i = 0; i < iterations; ++i)
        loop_->runOnce(Comm::Milliseconds(2));
}

void TestConnection::send(int fd, const std::string& bytes)
{
    CPPUNIT_ASSERT_EQUAL(ssize_t(bytes.size()), ::write(fd, bytes.data(), bytes.size()));
}

std::string TestConnection::receive(int fd, size_t replies, bool* sawEof)
{
    std::string got;
    if (sawEof)
        *sawEof = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < deadline) {
        loop_->runOnce(Comm::Milliseconds(5));
        char buf[16384];
        const ssize_t n = ::read(fd, buf, sizeof(buf));
        if (n > 0) {
            got.append(buf, n);
            continue;
        }
        if (n == 0) {
            if (sawEof)
                *sawEof = true;
            break;
        }
        if (RepliesComplete(got, replies) && !sawEof)
            break;
    }
    return got;
}

void TestConnection::allowedRequestGets501AndStaysOpen()
{
    startServer();
    const int fd = connectClient();
    send(fd, "GET ftp://127.0.0.1:9/x HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n");
    const auto reply = receive(fd, 1);
    CPPUNIT_ASSERT_MESSAGE(reply, reply.starts_with("HTTP/1.1 501 Not Implemented\r\n"));
    CPPUNIT_ASSERT(reply.find("X-Squid-Error: ERR_UNSUP_REQ") != std::string::npos);
    CPPUNIT_ASSERT(reply.find("Connection: keep-alive") != std::string::npos);
    CPPUNIT_ASSERT_EQUAL(size_t(1), server_->connectionCount());
    // the same connection serves a second request
    send(fd, "GET ftp://127.0.0.1:9/y HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n");
    CPPUNIT_ASSERT(receive(fd, 1).starts_with("HTTP/1.1 501 "));
    ::close(fd);
}

void TestConnection::deniedRequestGets403()
{
    startServer();
    const int fd = connectClient();
    send(fd, "GET http://127.0.0.1:81/ HTTP/1.1\r\nHost: x\r\n\r\n");
    const auto reply = receive(fd, 1);
    CPPUNIT_ASSERT_MESSAGE(reply, reply.starts_with("HTTP/1.1 403 Forbidden\r\n"));
    CPPUNIT_ASSERT(reply.find("ERR_ACCESS_DENIED") != std::string::npos);
    ::close(fd);
}

void TestConnection::garbageGets400AndCloses()
{
    startServer();
    const int fd = connectClient();
    send(fd, "garbage\r\n\r\n");
    bool eof = false;
    const auto reply = receive(fd, 1, &eof);
    CPPUNIT_ASSERT_MESSAGE(reply, reply.starts_with("HTTP/1.1 400 Bad Request\r\n"));
    CPPUNIT_ASSERT(reply.find("Connection: close") != std::string::npos);
    CPPUNIT_ASSERT(eof);
    ::close(fd);
    spin();
    CPPUNIT_ASSERT_EQUAL(size_t(0), server_->connectionCount());
}

void TestConnection::originFormGetsInvalidUrl()
{
    startServer();
    const int fd = connectClient();
    send(fd, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    const auto reply = receive(fd, 1);
    CPPUNIT_ASSERT_MESSAGE(reply, reply.starts_with("HTTP/1.1 400 "));
    CPPUNIT_ASSERT(reply.find("ERR_INVALID_URL") != std::string::npos);
    ::close(fd);
}

void TestConnection::tooLargeHeadGets431()
{
    startServer("request_header_max_size 2 KB\n");
    const int fd = connectClient();
    send(fd, "GET ftp://127.0.0.1:9/ HTTP/1.1\r\nX: " + std::string(3000, 'a') + "\r\n\r\n");
    const auto reply = receive(fd, 1);
    CPPUNIT_ASSERT_MESSAGE(reply, reply.starts_with("HTTP/1.1 431 "));
    CPPUNIT_ASSERT(reply.find("ERR_TOO_BIG") != std::string::npos);
    ::close(fd);
}

void TestConnection::pipelinedRequestsAnsweredInOrder()
{
    startServer();
    const int fd = connectClient();
    send(fd, "GET ftp://127.0.0.1:9/1 HTTP/1.1\r\n\r\n"
             "GET http://127.0.0.1:81/2 HTTP/1.1\r\n\r\n"
             "GET ftp://127.0.0.1:9/3 HTTP/1.1\r\n\r\n");
    const auto reply = receive(fd, 3);
    CPPUNIT_ASSERT_EQUAL(size_t(3), CountReplies(reply));
    const auto first = reply.find("HTTP/1.1 501");
    const auto second = reply.find("HTTP/1.1 403");
    const auto third = reply.find("HTTP/1.1 501", first + 1);
    CPPUNIT_ASSERT(first < second && second < third && third != std::string::npos);
    ::close(fd);
}

void TestConnection::headSplitAcrossReads()
{
    startServer();
    const int fd = connectClient();
    const std::string request =
        "GET ftp://127.0.0.1:9/" + std::string(1500, 'p') + " HTTP/1.1\r\nHost: h\r\n\r\n";
    for (size_t i = 0; i < request.size(); i += 300) {
        send(fd, request.substr(i, 300));
        spin(2);
    }
    const auto reply = receive(fd, 1);
    CPPUNIT_ASSERT_MESSAGE(reply, reply.starts_with("HTTP/1.1 501 "));
    ::close(fd);
}

void TestConnection::idleConnectionHoldsNoBuffer()
{
    startServer();
    const int fd = connectClient();
    CPPUNIT_ASSERT_EQUAL(size_t(1), server_->connectionCount());
    send(fd, "GET ftp://127.0.0.1:9/ HTTP/1.1\r\n\r\n");
    CPPUNIT_ASSERT(receive(fd, 1).starts_with("HTTP/1.1 501 "));
    // the accepted connection object is ours to inspect through a fresh request
    send(fd, "GET ftp://127.0.0.1:9/ HT");
    spin();
    send(fd, "TP/1.1\r\n\r\n");
    CPPUNIT_ASSERT(receive(fd, 1).starts_with("HTTP/1.1 501 "));
    // a small object, no block: well under the 1 kB aim
    CPPUNIT_ASSERT(sizeof(Client::Connection) <= 1024);
    ::close(fd);
}

void TestConnection::clientCloseRequestCloses()
{
    startServer();
    const int fd = connectClient();
    send(fd, "GET ftp://127.0.0.1:9/ HTTP/1.1\r\nConnection: close\r\n\r\n");
    bool eof = false;
    const auto reply = receive(fd, 1, &eof);
    CPPUNIT_ASSERT(reply.starts_with("HTTP/1.1 501 "));
    CPPUNIT_ASSERT(reply.find("Connection: close") != std::string::npos);
    CPPUNIT_ASSERT(eof);
    ::close(fd);
}

void TestConnection::idleTimeoutCloses()
{
    startServer("request_timeout 1 second\nclient_idle_pconn_timeout 1 second\n");
    const int fd = connectClient();
    bool eof = false;
    const auto reply = receive(fd, 1, &eof);
    CPPUNIT_ASSERT(eof);
    CPPUNIT_ASSERT(reply.empty()); // closed silently
    ::close(fd);
    spin();
    CPPUNIT_ASSERT_EQUAL(size_t(0), server_->connectionCount());
}

void TestConnection::shutdownClosesIdleConnections()
{
    startServer();
    const int fd = connectClient();
    CPPUNIT_ASSERT_EQUAL(size_t(1), server_->connectionCount());
    server_->side().startShutdown();
    spin();
    CPPUNIT_ASSERT_EQUAL(size_t(0), server_->connectionCount());
    CPPUNIT_ASSERT(server_->side().listeningAddresses().empty());
    ::close(fd);
}

std::string TestConnection::accessLog()
{
    server_->flushLogs();
    std::ifstream in(dir_ + "/access.log", std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

void TestConnection::halfClosedPartialHeadClosesAtOnce()
{
    // the bytes and the FIN reach the socket before the loop looks: one
    // edge-triggered event reports both, and a short read must not hide the EOF
    startServer();
    const int fd = connectClient();
    send(fd, "GET ftp://127.0.0.1:9/ HTTP/1.1\r\nHost: h\r\n");
    ::shutdown(fd, SHUT_WR);
    spin(10);
    CPPUNIT_ASSERT_EQUAL(size_t(0), server_->connectionCount()); // not after request_timeout
    CPPUNIT_ASSERT_EQUAL(size_t(0), loop_->pendingTimers());
    ::close(fd);
}

void TestConnection::badMethodLoggedAsSquidDoes()
{
    startServer();
    const int fd = connectClient();
    send(fd, std::string("G\x01T\tftp://127.0.0.1:9/ HTTP/1.1\r\n\r\n"));
    const auto reply = receive(fd, 1);
    CPPUNIT_ASSERT_MESSAGE(reply, reply.starts_with("HTTP/1.1 400 "));
    CPPUNIT_ASSERT(reply.find("ERR_PROTOCOL_UNKNOWN") != std::string::npos);
    ::close(fd);
    spin();
    const auto log = accessLog();
    CPPUNIT_ASSERT_MESSAGE(log, log.find(" NONE_NONE/400 ") != std::string::npos);
    CPPUNIT_ASSERT_MESSAGE(log, log.find(" G error:invalid-request ") != std::string::npos);
    for (const char c : log)
        CPPUNIT_ASSERT_MESSAGE(log, c == '\n' || (c >= 0x20 && c < 0x7f));
}

void TestConnection::userinfoNeverReachesTheLog()
{
    startServer();
    const int fd = connectClient();
    send(fd, "GET FTP://User:secret@127.0.0.1:21/a?b#c HTTP/1.1\r\n\r\n");
    const auto reply = receive(fd, 1);
    CPPUNIT_ASSERT_MESSAGE(reply, reply.starts_with("HTTP/1.1 501 "));
    // the page shows the canonical URL, its query cut by strip_query_terms as Squid's %U is
    CPPUNIT_ASSERT_MESSAGE(reply, reply.find("ftp://127.0.0.1/a?<") != std::string::npos);
    CPPUNIT_ASSERT(reply.find("secret") == std::string::npos);
    ::close(fd);
    spin();
    const auto log = accessLog();
    // strip_query_terms (on by default) cuts the query, as in Squid
    CPPUNIT_ASSERT_MESSAGE(log, log.find(" GET ftp://127.0.0.1/a? ") != std::string::npos);
    CPPUNIT_ASSERT(log.find("secret") == std::string::npos);
}

void TestConnection::connectWithUserinfoIsInvalid()
{
    startServer();
    const int fd = connectClient();
    send(fd, "CONNECT user@127.0.0.1:443 HTTP/1.1\r\n\r\n");
    const auto reply = receive(fd, 1);
    CPPUNIT_ASSERT_MESSAGE(reply, reply.starts_with("HTTP/1.1 400 "));
    CPPUNIT_ASSERT(reply.find("ERR_INVALID_URL") != std::string::npos);
    ::close(fd);
}

void TestConnection::urlOfMaxUrlBytesIsInvalid()
{
    startServer();
    const int fd = connectClient();
    send(fd, "GET ftp://127.0.0.1:9/" + std::string(9000, 'a') + " HTTP/1.1\r\n\r\n");
    const auto reply = receive(fd, 1);
    CPPUNIT_ASSERT_MESSAGE(reply.substr(0, 200), reply.starts_with("HTTP/1.1 400 "));
    CPPUNIT_ASSERT(reply.find("ERR_INVALID_URL") != std::string::npos);
    ::close(fd);
}

void TestConnection::longRequestLineGets414()
{
    startServer("request_header_max_size 2 KB\n");
    const int fd = connectClient();
    send(fd, "GET ftp://127.0.0.1:9/" + std::string(3000, 'a') + " HTTP/1.1\r\n\r\n");
    const auto reply = receive(fd, 1);
    CPPUNIT_ASSERT_MESSAGE(reply.substr(0, 200), reply.starts_with("HTTP/1.1 414 "));
    CPPUNIT_ASSERT(reply.find("ERR_TOO_BIG") != std::string::npos);
    ::close(fd);
}

namespace {
size_t OpenDescriptors()
{
    size_t n = 0;
    if (DIR* d = ::opendir("/proc/self/fd")) {
        while (::readdir(d))
            ++n;
        ::closedir(d);
    }
    return n;
}
} // namespace

void TestConnection::thousandConnectionsLeaveNothingBehind()
{
    startServer();
    spin();
    const size_t fdsBefore = OpenDescriptors();
    const auto blocksBefore = Sbuf::DefaultPool().stats().total.blocksInUse;
    for (int i = 0; i < 1000; ++i) {
        const int fd = connectClient();
        switch (i % 4) {
        case 0: // a full request, then the client closes
            send(fd, "GET ftp://127.0.0.1:9/ HTTP/1.1\r\n\r\n");
            (void)receive(fd, 1);
            break;
        case 1: // half a head, then a reset
            send(fd, "GET ftp://127.0.0.1:9/ HT");
            spin(1);
            break;
        case 2: // garbage: 400 and the server closes
            send(fd, "garbage\r\n\r\n");
            (void)receive(fd, 1);
            break;
        default: // connect and close
            break;
        }
        if (i % 4 == 1) {
            const linger reset{1, 0};
            ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
        }
        ::close(fd);
        spin(1);
    }
    for (int i = 0; i < 100 && server_->connectionCount(); ++i)
        loop_->runOnce(Comm::Milliseconds(10));
    CPPUNIT_ASSERT_EQUAL(size_t(0), server_->connectionCount());
    CPPUNIT_ASSERT_EQUAL(size_t(0), loop_->pendingTimers());
    CPPUNIT_ASSERT_EQUAL(fdsBefore, OpenDescriptors());
    CPPUNIT_ASSERT_EQUAL(blocksBefore, Sbuf::DefaultPool().stats().total.blocksInUse);
}

int TestConnection::listenAsOrigin(uint16_t& port)
{
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_in origin{};
    origin.sin_family = AF_INET;
    origin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(origin);
    CPPUNIT_ASSERT_EQUAL(0, ::bind(listener, reinterpret_cast<sockaddr*>(&origin), sizeof(origin)));
    CPPUNIT_ASSERT_EQUAL(0, ::listen(listener, 4));
    CPPUNIT_ASSERT_EQUAL(0, ::getsockname(listener, reinterpret_cast<sockaddr*>(&origin), &length));
    port = ntohs(origin.sin_port);
    return listener;
}

std::string TestConnection::readAsOrigin(int listener, int& upstream, const std::string& until)
{
    std::string got;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (std::chrono::steady_clock::now() < deadline && got.find(until) == std::string::npos) {
        loop_->runOnce(Comm::Milliseconds(5));
        if (upstream < 0)
            upstream = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        char buf[8192];
        ssize_t n;
        while (upstream >= 0 && (n = ::read(upstream, buf, sizeof(buf))) > 0)
            got.append(buf, size_t(n));
    }
    return got;
}

void TestConnection::bodyAlreadyInSocketIsForwarded()
{
    // a whole PUT already in the socket when cuttle first reads it: the
    // first read fills its 1 KB block (head and part of the body), and
    // edge-triggered epoll sends no new event for the rest of the body
    startServer();
    uint16_t port = 0;
    const int listener = listenAsOrigin(port);
    const std::string body(4000, 'b');
    const int fd = connectClient(); // cuttle's first read finds nothing
    send(fd, "PUT http://127.0.0.1:" + std::to_string(port) +
                 "/up HTTP/1.1\r\nHost: x\r\nContent-Length: 4000\r\n\r\n" + body);
    int upstream = -1;
    const auto got = readAsOrigin(listener, upstream, body);
    const auto headEnd = got.find("\r\n\r\n");
    CPPUNIT_ASSERT_MESSAGE(got, headEnd != std::string::npos);
    CPPUNIT_ASSERT_EQUAL(body.size(), got.size() - headEnd - 4);
    ::close(upstream);
    ::close(listener);
    ::close(fd);
}

void TestConnection::errorPageToHeadHasNoBody()
{
    // the origin's failure is answered after the parser was reset for the
    // next request: the error page to a HEAD must still go without its body
    // (RFC 9110 section 9.3.2), or the client takes the body for the next reply
    startServer();
    uint16_t port = 0;
    const int listener = listenAsOrigin(port);
    const int fd = connectClient();
    send(fd, "HEAD http://127.0.0.1:" + std::to_string(port) + "/h HTTP/1.1\r\nHost: x\r\n\r\n");
    int upstream = -1;
    (void)readAsOrigin(listener, upstream, "\r\n\r\n");
    const std::string junk = "this is no HTTP reply\r\n\r\n";
    CPPUNIT_ASSERT_EQUAL(ssize_t(junk.size()), ::write(upstream, junk.data(), junk.size()));
    std::string reply;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (std::chrono::steady_clock::now() < deadline && reply.find("\r\n\r\n") == std::string::npos) {
        loop_->runOnce(Comm::Milliseconds(5));
        char buf[8192];
        const ssize_t n = ::read(fd, buf, sizeof(buf));
        if (n > 0)
            reply.append(buf, size_t(n));
    }
    spin(20); // a body, if one were sent, would arrive now
    char buf[8192];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof(buf))) > 0)
        reply.append(buf, size_t(n));
    CPPUNIT_ASSERT_MESSAGE(reply, reply.starts_with("HTTP/1.1 502 "));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(reply, reply.find("\r\n\r\n") + 4, reply.size());
    ::close(upstream);
    ::close(listener);
    ::close(fd);
}
