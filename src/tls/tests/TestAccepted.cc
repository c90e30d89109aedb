/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "tls/Accepted.h"
#include "tls/tests/TestPeer.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cerrno>
#include <csignal>
#include <string>

#include <openssl/err.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

namespace {

/// A Tls::Accepted on one end of a socketpair (the production server
/// context: read-ahead on, moving buffers), a TLS client (OpenSSL, in the
/// test) on the other; nothing runs but what the test calls.
struct Pair {
    TlsTest::Identity identity = TlsTest::MakeLeaf("proxy.test", nullptr);
    Tls::CtxPtr serverCtx;
    Tls::CtxPtr clientCtx{SSL_CTX_new(TLS_client_method())};
    Tls::SslPtr client;
    int clientFd = -1;
    int serverFd = -1;
    std::unique_ptr<Tls::Accepted> server;

    Pair()
    {
        serverCtx = TlsTest::ProductionServerContext(identity);
        int fds[2];
        CPPUNIT_ASSERT_EQUAL(0, ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds));
        clientFd = fds[0];
        serverFd = fds[1];
        client.reset(SSL_new(clientCtx.get()));
        SSL_set_fd(client.get(), clientFd);
        SSL_set_connect_state(client.get());
        server = std::make_unique<Tls::Accepted>(serverCtx.get(), serverFd);
    }
    ~Pair()
    {
        server.reset();
        client.reset();
        ::close(clientFd);
        ::close(serverFd);
    }

    /// the client's handshake up to its Finished, the server's handshake
    /// running in its reads (which find no application bytes yet)
    void handshake()
    {
        char byte;
        int r = 0;
        for (int i = 0; i < 100 && (r = SSL_connect(client.get())) != 1; ++i) {
            const int e = SSL_get_error(client.get(), r);
            CPPUNIT_ASSERT(e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE);
            errno = 0;
            CPPUNIT_ASSERT_EQUAL(ssize_t(-1), server->read(&byte, 1));
            CPPUNIT_ASSERT_EQUAL(EAGAIN, errno);
        }
        CPPUNIT_ASSERT_EQUAL(1, r);
    }

    /// writes all of text from the client (the socket holds it)
    void clientWrite(const std::string& text)
    {
        size_t n = 0;
        CPPUNIT_ASSERT_EQUAL(1, SSL_write_ex(client.get(), text.data(), text.size(), &n));
        CPPUNIT_ASSERT_EQUAL(text.size(), n);
    }
};

} // namespace

/// Tls::Accepted (and Tls::Channel's reads and writes): a client's TLS
/// ending in the Client::Connection.
class TestAccepted : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestAccepted);
    CPPUNIT_TEST(requestSentWithTheFinishedIsReadWhole);
    CPPUNIT_TEST(fullSpaceLeavesTheRestForTheNextRead);
    CPPUNIT_TEST(writesTakeWhatTheSocketTakes);
    CPPUNIT_TEST(closeNotifyBothWays);
    CPPUNIT_TEST(garbageFailsTheHandshake);
    CPPUNIT_TEST_SUITE_END();

public:
    void setUp() override { std::signal(SIGPIPE, SIG_IGN); }

    /// the client's Finished and two requests are all in the socket before
    /// the server reads again: one read() takes them all (no event would
    /// announce bytes OpenSSL read ahead), and the next says EAGAIN
    void requestSentWithTheFinishedIsReadWhole()
    {
        Pair p;
        p.handshake();
        const std::string request = "GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n";
        p.clientWrite(request);
        p.clientWrite(request);
        char buffer[4096];
        const ssize_t n = p.server->read(buffer, sizeof(buffer));
        CPPUNIT_ASSERT_EQUAL(ssize_t(2 * request.size()), n);
        CPPUNIT_ASSERT_EQUAL(request + request, std::string(buffer, size_t(n)));
        CPPUNIT_ASSERT(!p.server->cipheredBy().empty()); // the handshake was noted
        errno = 0;
        CPPUNIT_ASSERT_EQUAL(ssize_t(-1), p.server->read(buffer, sizeof(buffer)));
        CPPUNIT_ASSERT_EQUAL(EAGAIN, errno);
    }

    /// a read that fills its space may leave bytes in OpenSSL's buffer: the
    /// next read (the owner's "my last read filled the space" rule) gets
    /// them with no new byte on the socket
    void fullSpaceLeavesTheRestForTheNextRead()
    {
        Pair p;
        p.handshake();
        const std::string body = TlsTest::Pattern(40000);
        p.clientWrite(body);
        std::string got(1000, '\0');
        CPPUNIT_ASSERT_EQUAL(ssize_t(1000), p.server->read(got.data(), 1000));
        char sink[1];
        CPPUNIT_ASSERT_EQUAL(ssize_t(-1), ::recv(p.serverFd, sink, 1, MSG_PEEK)); // the socket is empty
        std::string rest(65536, '\0');
        const ssize_t n = p.server->read(rest.data(), rest.size());
        CPPUNIT_ASSERT_EQUAL(ssize_t(39000), n);
        CPPUNIT_ASSERT(got + rest.substr(0, 39000) == body);
    }

    /// writev() takes what the socket takes (a short count, then EAGAIN)
    /// and goes on when the same bytes are offered again; every byte
    /// arrives in order
    void writesTakeWhatTheSocketTakes()
    {
        Pair p;
        p.handshake();
        const std::string body = TlsTest::Pattern(3 * 1024 * 1024 + 11);
        size_t sent = 0;
        std::string got;
        bool blocked = false;
        int blocks = 0;
        char buffer[65536];
        for (int i = 0; i < 100000 && got.size() < body.size(); ++i) {
            // the client reads only once the socket was full
            for (int j = 0; j < 1000 && sent < body.size() && !blocked; ++j) {
                // as a reply's writer offers its stored blocks: the rest of
                // the block at `sent`, then the next block (the contract:
                // what a record took is offered again, at least as long)
                const size_t block = 50000;
                const size_t end = std::min(body.size(), (sent / block + 1) * block);
                const size_t next = std::min(body.size() - end, block);
                iovec iov[2] = {{const_cast<char*>(body.data() + sent), end - sent},
                                {const_cast<char*>(body.data() + end), next}};
                const ssize_t w = p.server->writev(iov, 2);
                if (w > 0)
                    sent += size_t(w);
                else {
                    CPPUNIT_ASSERT_EQUAL(EAGAIN, errno);
                    blocked = true;
                }
            }
            if (blocked && got.size() > 0 && sent < body.size())
                blocked = false, ++blocks;
            size_t m = 0;
            while (SSL_read_ex(p.client.get(), buffer, sizeof(buffer), &m) == 1)
                got.append(buffer, m);
        }
        CPPUNIT_ASSERT(blocks > 0); // the socket was full, and writes went on after it
        CPPUNIT_ASSERT_EQUAL(body.size(), got.size());
        CPPUNIT_ASSERT(got == body);
    }

    /// the client's close_notify reads as an EOF after its last bytes; the
    /// server's reaches the client once, not again when it is destroyed
    void closeNotifyBothWays()
    {
        Pair p;
        p.handshake();
        p.clientWrite("last words");
        SSL_shutdown(p.client.get());
        char buffer[100];
        CPPUNIT_ASSERT_EQUAL(ssize_t(10), p.server->read(buffer, sizeof(buffer)));
        CPPUNIT_ASSERT_EQUAL(ssize_t(0), p.server->read(buffer, sizeof(buffer)));

        Pair q;
        q.handshake();
        q.clientWrite("x");
        CPPUNIT_ASSERT_EQUAL(ssize_t(1), q.server->read(buffer, sizeof(buffer)));
        q.server->closeNotify();
        q.server->closeNotify();
        size_t m = 0;
        CPPUNIT_ASSERT_EQUAL(0, SSL_read_ex(q.client.get(), buffer, sizeof(buffer), &m));
        CPPUNIT_ASSERT_EQUAL(SSL_ERROR_ZERO_RETURN, SSL_get_error(q.client.get(), 0));
        q.server.reset();
        CPPUNIT_ASSERT_EQUAL(ssize_t(-1), ::recv(q.clientFd, buffer, sizeof(buffer), 0)); // nothing more
    }

    /// bytes that are not TLS: the read fails (EPROTO), as the client side
    /// of a failed handshake does
    void garbageFailsTheHandshake()
    {
        Pair p;
        const std::string junk = "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n";
        CPPUNIT_ASSERT_EQUAL(ssize_t(junk.size()), ::send(p.clientFd, junk.data(), junk.size(), 0));
        char buffer[100];
        errno = 0;
        CPPUNIT_ASSERT_EQUAL(ssize_t(-1), p.server->read(buffer, sizeof(buffer)));
        CPPUNIT_ASSERT_EQUAL(EPROTO, errno);
        CPPUNIT_ASSERT(p.server->cipheredBy().empty());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestAccepted);
