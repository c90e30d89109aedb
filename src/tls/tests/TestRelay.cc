/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "tls/Relay.h"
#include "tls/Accepted.h"
#include "base/TextException.h"
#include "tls/tests/TestPeer.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <string>

#include <openssl/err.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

/// A Tls::Relay on a real loop: a TLS client (OpenSSL, in the test) on one
/// socketpair, the relay between its other end and a second socketpair
/// whose far end (plain) stands for the tunnel. The relay takes the
/// server side's Tls::Accepted once its handshake is done, after the test
/// had it read `before` bytes.
struct Bench {
    Comm::Loop loop;
    TlsTest::Identity identity = TlsTest::MakeLeaf("proxy.test", nullptr);
    Tls::CtxPtr serverCtx;
    Tls::CtxPtr clientCtx{SSL_CTX_new(TLS_client_method())};
    Tls::SslPtr client;
    int clientFd = -1;
    int plainFd = -1;
    std::unique_ptr<Tls::Relay> relay;
    bool done = false;

    explicit Bench(size_t before = 0)
    {
        serverCtx = TlsTest::ProductionServerContext(identity); // read-ahead on
        int tlsPair[2], plainPair[2];
        CPPUNIT_ASSERT_EQUAL(0,
                             ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, tlsPair));
        CPPUNIT_ASSERT_EQUAL(0,
                             ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, plainPair));
        clientFd = tlsPair[0];
        plainFd = plainPair[0];
        client.reset(SSL_new(clientCtx.get()));
        SSL_set_fd(client.get(), clientFd);
        SSL_set_connect_state(client.get());
        auto server = std::make_unique<Tls::Accepted>(serverCtx.get(), tlsPair[1]);
        CPPUNIT_ASSERT(handshake(*server));
        if (before > 0) {
            // the client's first bytes come; the server reads `before` of them
            // and OpenSSL's read-ahead takes the rest off the socket
            clientWrite(TlsTest::Pattern(before) + "after", false);
            std::string got(before, '\0');
            CPPUNIT_ASSERT_EQUAL(ssize_t(before), server->read(got.data(), before));
            char byte;
            CPPUNIT_ASSERT_EQUAL(ssize_t(-1), ::recv(tlsPair[1], &byte, 1, MSG_PEEK)); // not in the socket
        }
        relay = std::make_unique<Tls::Relay>(loop, std::move(server), Comm::Descriptor(tlsPair[1]),
                                             Comm::Descriptor(plainPair[1]));
        relay->setDoneHandler([this] { done = true; });
        relay->start();
    }
    ~Bench()
    {
        relay.reset();
        client.reset();
        ::close(clientFd);
        ::close(plainFd);
    }

    /// the client's handshake, the server's running in its reads (which
    /// find no application bytes yet)
    bool handshake(Tls::Accepted& server)
    {
        char byte;
        for (int i = 0; i < 200; ++i) {
            ERR_clear_error();
            const int r = SSL_connect(client.get());
            if (r == 1)
                return server.read(&byte, 1) < 0 && errno == EAGAIN && server.isEstablished();
            const int e = SSL_get_error(client.get(), r);
            if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
                return false;
            if (server.read(&byte, 1) >= 0 || errno != EAGAIN)
                return false;
        }
        return false;
    }

    /// writes all of text through TLS, turning the loop while the socket is full
    void clientWrite(const std::string& text, bool runLoop = true)
    {
        size_t sent = 0;
        for (int i = 0; sent < text.size() && i < 100000; ++i) {
            size_t n = 0;
            if (SSL_write_ex(client.get(), text.data() + sent, text.size() - sent, &n) == 1)
                sent += n;
            else if (runLoop)
                loop.runOnce(Comm::Milliseconds(1));
        }
        CPPUNIT_ASSERT_EQUAL(text.size(), sent);
    }

    /// what the plain end gets, until it holds size bytes (turning the loop)
    std::string plainRead(size_t size)
    {
        std::string got;
        char buf[65536];
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (got.size() < size && std::chrono::steady_clock::now() < until) {
            loop.runOnce(Comm::Milliseconds(1));
            ssize_t n;
            while ((n = ::recv(plainFd, buf, sizeof(buf), 0)) > 0)
                got.append(buf, size_t(n));
        }
        return got;
    }
};

} // namespace

/// Tls::Relay: the TLS end of a tunnel inside a TLS client connection.
class TestRelay : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestRelay);
    CPPUNIT_TEST(bytesReadAheadAreRelayed);
    CPPUNIT_TEST(bigTransfersBothWays);
    CPPUNIT_TEST(closesEndTheRelay);
    CPPUNIT_TEST_SUITE_END();

public:
    void setUp() override { std::signal(SIGPIPE, SIG_IGN); }

    /// bytes OpenSSL read ahead before the relay took the SSL are in its
    /// buffer, not the socket, where no event will announce them: the
    /// relay's first pump passes them on
    void bytesReadAheadAreRelayed()
    {
        Bench b(100);
        CPPUNIT_ASSERT_EQUAL(std::string("after"), b.plainRead(5));
        CPPUNIT_ASSERT(!b.done);
    }

    /// 4 MB each way at once, through small socket buffers: every byte, in order
    void bigTransfersBothWays()
    {
        Bench b;
        const std::string up = TlsTest::Pattern(4 * 1024 * 1024);
        const std::string down = TlsTest::Pattern(4 * 1024 * 1024 + 7).substr(7);
        size_t sentUp = 0, sentDown = 0;
        std::string gotUp, gotDown;
        char buf[65536];
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while ((gotUp.size() < up.size() || gotDown.size() < down.size()) &&
               std::chrono::steady_clock::now() < until) {
            if (sentUp < up.size()) {
                size_t n = 0;
                if (SSL_write_ex(b.client.get(), up.data() + sentUp,
                                 std::min<size_t>(up.size() - sentUp, 100000), &n) == 1)
                    sentUp += n;
            }
            if (sentDown < down.size()) {
                const ssize_t n =
                    ::send(b.plainFd, down.data() + sentDown, down.size() - sentDown, MSG_NOSIGNAL);
                if (n > 0)
                    sentDown += size_t(n);
            }
            b.loop.runOnce(Comm::Milliseconds(1));
            ssize_t n;
            while ((n = ::recv(b.plainFd, buf, sizeof(buf), 0)) > 0)
                gotUp.append(buf, size_t(n));
            size_t m = 0;
            while (SSL_read_ex(b.client.get(), buf, sizeof(buf), &m) == 1)
                gotDown.append(buf, m);
        }
        CPPUNIT_ASSERT(gotUp == up);
        CPPUNIT_ASSERT(gotDown == down);
        CPPUNIT_ASSERT(!b.done);
    }

    /// the client's close_notify half-closes the plain end; the plain end
    /// closing ends the relay
    void closesEndTheRelay()
    {
        Bench b;
        b.clientWrite("last words");
        SSL_shutdown(b.client.get());
        CPPUNIT_ASSERT_EQUAL(std::string("last words"), b.plainRead(10));
        char byte;
        ssize_t n = -1;
        for (int i = 0; i < 1000 && n < 0; ++i) {
            b.loop.runOnce(Comm::Milliseconds(1));
            n = ::recv(b.plainFd, &byte, 1, 0);
        }
        CPPUNIT_ASSERT_EQUAL(ssize_t(0), n); // the client's EOF, passed on
        ::shutdown(b.plainFd, SHUT_RDWR);
        for (int i = 0; i < 1000 && !b.done; ++i)
            b.loop.runOnce(Comm::Milliseconds(1));
        CPPUNIT_ASSERT(b.done);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestRelay);
