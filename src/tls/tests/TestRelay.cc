/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "tls/Relay.h"
#include "base/TextException.h"
#include "tls/Context.h"
#include "tls/tests/TestPeer.h"

#include <cppunit/extensions/HelperMacros.h>

#include <chrono>
#include <csignal>
#include <string>

#include <openssl/err.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

/// A Tls::Relay on a real loop: a TLS client (OpenSSL, in the test) on one
/// socketpair, the relay between its other end and a second socketpair
/// whose far end (plain) stands for the Client::Connection.
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

    Bench()
    {
        std::string why;
        // the production context (tls/Context.cc): read-ahead on
        serverCtx = Tls::NewContext(TLS_server_method(), 0, 0, TLS1_2_VERSION, "TLSv1.2", why);
        CPPUNIT_ASSERT_MESSAGE(why, serverCtx != nullptr);
        CPPUNIT_ASSERT(SSL_CTX_use_certificate(serverCtx.get(), identity.cert.get()) == 1);
        CPPUNIT_ASSERT(SSL_CTX_use_PrivateKey(serverCtx.get(), identity.key.get()) == 1);
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
        relay = std::make_unique<Tls::Relay>(loop, serverCtx.get(), Comm::Descriptor(tlsPair[1]),
                                             Comm::Descriptor(plainPair[1]), Comm::Milliseconds(5000));
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

    /// the client's handshake, the relay's loop turning between its steps
    bool clientHandshake()
    {
        for (int i = 0; i < 200; ++i) {
            ERR_clear_error();
            const int r = SSL_connect(client.get());
            if (r == 1)
                return true;
            const int e = SSL_get_error(client.get(), r);
            if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
                return false;
            loop.runOnce(Comm::Milliseconds(5));
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

std::string Pattern(size_t n)
{
    std::string s(n, '\0');
    for (size_t i = 0; i < n; ++i)
        s[i] = char('a' + i % 19);
    return s;
}

} // namespace

/// Tls::Relay: the TLS end of an https_port or bumped connection.
class TestRelay : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestRelay);
    CPPUNIT_TEST(bytesSentWithTheFinishedAreRelayed);
    CPPUNIT_TEST(bigTransfersBothWays);
    CPPUNIT_TEST(closesEndTheRelay);
    CPPUNIT_TEST_SUITE_END();

public:
    void setUp() override { std::signal(SIGPIPE, SIG_IGN); }

    /// a request written right after the client's Finished, before the
    /// relay ran: both are in its socket at once, and the read-ahead of the
    /// handshake takes the request into OpenSSL's buffer, where no event
    /// will announce it
    void bytesSentWithTheFinishedAreRelayed()
    {
        Bench b;
        // the relay answers the ClientHello; the client then sends its
        // Finished and the request with the loop standing still
        ERR_clear_error();
        CPPUNIT_ASSERT(SSL_connect(b.client.get()) != 1); // the ClientHello
        b.loop.runOnce(Comm::Milliseconds(5));            // the relay's ServerHello .. Finished
        int r = 0;
        for (int i = 0; i < 200 && (r = SSL_connect(b.client.get())) != 1; ++i) {
            const int e = SSL_get_error(b.client.get(), r);
            CPPUNIT_ASSERT(e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE);
            b.loop.runOnce(Comm::Milliseconds(5));
        }
        CPPUNIT_ASSERT_EQUAL(1, r);
        const std::string request = "GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n";
        b.clientWrite(request + request, false);
        CPPUNIT_ASSERT_EQUAL(request + request, b.plainRead(2 * request.size()));
        CPPUNIT_ASSERT(!b.done);
    }

    /// 4 MB each way at once, through small socket buffers: every byte, in order
    void bigTransfersBothWays()
    {
        Bench b;
        CPPUNIT_ASSERT(b.clientHandshake());
        const std::string up = Pattern(4 * 1024 * 1024);
        const std::string down = Pattern(4 * 1024 * 1024 + 7).substr(7);
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
        CPPUNIT_ASSERT(b.clientHandshake());
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
