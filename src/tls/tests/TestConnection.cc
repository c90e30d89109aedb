/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "tls/Connection.h"
#include "tls/Context.h"
#include "base/TlsErrors.h"
#include "tls/tests/TestPeer.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <string>

#include <sys/uio.h>

namespace {

using Tls::Connection;
using TlsTest::Server;

/// A CA, its PEM file and a client context that trusts it (and nothing else).
struct Trust {
    TlsTest::Identity ca = TlsTest::MakeCa();
    std::string caFile = TlsTest::WritePem(ca.cert.get());
    Tls::ClientContextRef context;
    /// with setOptions: options= bits
    explicit Trust(uint64_t setOptions = 0)
    {
        Tls::ClientOptions options;
        options.setOptions = setOptions;
        options.caFile = caFile;
        options.defaultCa = false;
        std::string why;
        context = Tls::ClientContext::Make(options, why);
        CPPUNIT_ASSERT_MESSAGE(why, context != nullptr);
    }
    ~Trust() { std::remove(caFile.c_str()); }
};

} // namespace

/// Tls::Connection against an in-process TLS server.
class TestConnection : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestConnection);
    CPPUNIT_TEST(trustedCertificateIsAccepted);
    CPPUNIT_TEST(readTakesEveryRecordUntilDrained);
    CPPUNIT_TEST(fullSpaceLeavesTheRestForTheNextRead);
    CPPUNIT_TEST(endAfterBytesWaitsForTheNextRead);
    CPPUNIT_TEST(writevSendsEveryPiece);
    CPPUNIT_TEST(wrongNameIsSquidsDomainMismatch);
    CPPUNIT_TEST(allowedErrorLetsTheHandshakeEnd);
    CPPUNIT_TEST(expiredCertificateIsNamed);
    CPPUNIT_TEST(selfSignedCertificateIsNamed);
    CPPUNIT_TEST(secondConnectionResumes);
    CPPUNIT_TEST(sessionOfAnEndedConnectionResumes);
    CPPUNIT_TEST(kernelTlsAskedForFallsBackToOpenSsl);
    CPPUNIT_TEST_SUITE_END();

public:
    // cuttle ignores SIGPIPE (src/main.cc): a close_notify to a closed peer is an EPIPE
    void setUp() override { std::signal(SIGPIPE, SIG_IGN); }

    void trustedCertificateIsAccepted()
    {
        Trust trust;
        const auto leaf = TlsTest::MakeLeaf("origin.test", &trust.ca);
        const auto serverCtx = Server::ContextFor(leaf);
        Server server(serverCtx.get());
        Connection client(trust.context, server.clientFd(), "origin.test", "origin.test:443", nullptr);
        CPPUNIT_ASSERT(TlsTest::Handshake(client, server) == Connection::Step::Done);
        CPPUNIT_ASSERT_EQUAL(0, client.failure().code);
    }

    void kernelTlsAskedForFallsBackToOpenSsl()
    {
        // a socketpair takes no TCP upper-layer protocol, on any kernel:
        // the connection asked, was counted, and OpenSSL ciphers it
        for (const bool ask : {false, true}) {
            Trust trust(ask ? SSL_OP_ENABLE_KTLS : 0);
            const auto leaf = TlsTest::MakeLeaf("origin.test", &trust.ca);
            const auto serverCtx = Server::ContextFor(leaf);
            Server server(serverCtx.get());
            Connection client(trust.context, server.clientFd(), "origin.test", "origin.test:443", nullptr);
            const auto before = Tls::ThreadKernelTls();
            CPPUNIT_ASSERT(TlsTest::Handshake(client, server) == Connection::Step::Done);
            const auto& after = Tls::ThreadKernelTls();
            CPPUNIT_ASSERT_EQUAL(before.asked + (ask ? 1 : 0), after.asked);
            CPPUNIT_ASSERT_EQUAL(before.send, after.send);
            CPPUNIT_ASSERT_EQUAL(before.receive, after.receive);
            CPPUNIT_ASSERT_EQUAL(
                std::string(ask ? "OpenSSL (kernel TLS asked for, not taken: no tls module, or "
                                  "the cipher)"
                                : "OpenSSL"),
                client.cipheredBy());
            // and the bytes go through
            server.write("hello");
            char buffer[16];
            CPPUNIT_ASSERT_EQUAL(ssize_t(5), client.read(buffer, sizeof(buffer)));
            CPPUNIT_ASSERT_EQUAL(std::string("hello"), std::string(buffer, 5));
        }
    }

    void readTakesEveryRecordUntilDrained()
    {
        // three records queued: one read() takes them all, as recv() would
        // take three segments, so a short read means drained (edge-triggered)
        Trust trust;
        const auto leaf = TlsTest::MakeLeaf("origin.test", &trust.ca);
        const auto serverCtx = Server::ContextFor(leaf);
        Server server(serverCtx.get());
        Connection client(trust.context, server.clientFd(), "origin.test", "k", nullptr);
        CPPUNIT_ASSERT(TlsTest::Handshake(client, server) == Connection::Step::Done);
        server.write(std::string(10000, 'a'));
        server.write(std::string(10000, 'b'));
        server.write(std::string(10000, 'c'));
        std::string buffer(65536, '\0');
        CPPUNIT_ASSERT_EQUAL(ssize_t(30000), client.read(buffer.data(), buffer.size()));
        CPPUNIT_ASSERT_EQUAL('c', buffer[29999]);
        errno = 0;
        CPPUNIT_ASSERT_EQUAL(ssize_t(-1), client.read(buffer.data(), buffer.size()));
        CPPUNIT_ASSERT_EQUAL(EAGAIN, errno);
    }

    void fullSpaceLeavesTheRestForTheNextRead()
    {
        Trust trust;
        const auto leaf = TlsTest::MakeLeaf("origin.test", &trust.ca);
        const auto serverCtx = Server::ContextFor(leaf);
        Server server(serverCtx.get());
        Connection client(trust.context, server.clientFd(), "origin.test", "k", nullptr);
        CPPUNIT_ASSERT(TlsTest::Handshake(client, server) == Connection::Step::Done);
        server.write("0123456789");
        char small[4];
        CPPUNIT_ASSERT_EQUAL(ssize_t(4), client.read(small, sizeof(small)));
        std::string rest(64, '\0');
        CPPUNIT_ASSERT_EQUAL(ssize_t(6), client.read(rest.data(), rest.size()));
        CPPUNIT_ASSERT_EQUAL(std::string("456789"), rest.substr(0, 6));
    }

    void endAfterBytesWaitsForTheNextRead()
    {
        Trust trust;
        const auto leaf = TlsTest::MakeLeaf("origin.test", &trust.ca);
        const auto serverCtx = Server::ContextFor(leaf);
        Server server(serverCtx.get());
        Connection client(trust.context, server.clientFd(), "origin.test", "k", nullptr);
        CPPUNIT_ASSERT(TlsTest::Handshake(client, server) == Connection::Step::Done);
        server.write("last");
        server.close();
        char buffer[64];
        CPPUNIT_ASSERT_EQUAL(ssize_t(4), client.read(buffer, sizeof(buffer)));
        CPPUNIT_ASSERT(client.hasPendingEnd());
        CPPUNIT_ASSERT_EQUAL(ssize_t(0), client.read(buffer, sizeof(buffer)));
    }

    void writevSendsEveryPiece()
    {
        Trust trust;
        const auto leaf = TlsTest::MakeLeaf("origin.test", &trust.ca);
        const auto serverCtx = Server::ContextFor(leaf);
        Server server(serverCtx.get());
        Connection client(trust.context, server.clientFd(), "origin.test", "k", nullptr);
        CPPUNIT_ASSERT(TlsTest::Handshake(client, server) == Connection::Step::Done);
        std::string head = "POST / HTTP/1.1\r\n\r\n", one(5000, 'x'), two = "tail";
        iovec iov[3] = {{head.data(), head.size()}, {one.data(), one.size()}, {two.data(), two.size()}};
        CPPUNIT_ASSERT_EQUAL(ssize_t(head.size() + one.size() + two.size()), client.writev(iov, 3));
        CPPUNIT_ASSERT_EQUAL(head + one + two, server.read());
    }

    void wrongNameIsSquidsDomainMismatch()
    {
        Trust trust;
        const auto leaf = TlsTest::MakeLeaf("other.test", &trust.ca);
        const auto serverCtx = Server::ContextFor(leaf);
        Server server(serverCtx.get());
        Connection client(trust.context, server.clientFd(), "origin.test", "k", nullptr);
        CPPUNIT_ASSERT(TlsTest::Handshake(client, server) == Connection::Step::Failed);
        CPPUNIT_ASSERT_EQUAL(std::string("SQUID_X509_V_ERR_DOMAIN_MISMATCH"), client.failure().name);
        CPPUNIT_ASSERT_EQUAL(std::string("Certificate does not match domainname: /CN=other.test"),
                             client.failure().detail);
    }

    void allowedErrorLetsTheHandshakeEnd()
    {
        Trust trust;
        const auto leaf = TlsTest::MakeLeaf("other.test", &trust.ca);
        const auto serverCtx = Server::ContextFor(leaf);
        Server server(serverCtx.get());
        int asked = 0;
        Connection client(trust.context, server.clientFd(), "origin.test", "k", [&asked](int code) {
            ++asked;
            return code == SquidX509VErrDomainMismatch;
        });
        CPPUNIT_ASSERT(TlsTest::Handshake(client, server) == Connection::Step::Done);
        CPPUNIT_ASSERT_EQUAL(1, asked);
    }

    void expiredCertificateIsNamed()
    {
        Trust trust;
        const auto leaf = TlsTest::MakeLeaf("origin.test", &trust.ca, -10, -5);
        const auto serverCtx = Server::ContextFor(leaf);
        Server server(serverCtx.get());
        Connection client(trust.context, server.clientFd(), "origin.test", "k", nullptr);
        CPPUNIT_ASSERT(TlsTest::Handshake(client, server) == Connection::Step::Failed);
        CPPUNIT_ASSERT_EQUAL(std::string("X509_V_ERR_CERT_HAS_EXPIRED"), client.failure().name);
        CPPUNIT_ASSERT_EQUAL(0u, unsigned(client.failure().detail.rfind("SSL Certificate expired on: ", 0)));
    }

    void selfSignedCertificateIsNamed()
    {
        Trust trust;
        const auto leaf = TlsTest::MakeLeaf("origin.test", nullptr);
        const auto serverCtx = Server::ContextFor(leaf);
        Server server(serverCtx.get());
        Connection client(trust.context, server.clientFd(), "origin.test", "k", nullptr);
        CPPUNIT_ASSERT(TlsTest::Handshake(client, server) == Connection::Step::Failed);
        CPPUNIT_ASSERT_EQUAL(std::string("X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT"), client.failure().name);
    }

    void secondConnectionResumes()
    {
        Trust trust;
        const auto leaf = TlsTest::MakeLeaf("origin.test", &trust.ca);
        const auto serverCtx = Server::ContextFor(leaf);
        {
            Server server(serverCtx.get());
            Connection client(trust.context, server.clientFd(), "origin.test", "origin.test:443", nullptr);
            CPPUNIT_ASSERT(TlsTest::Handshake(client, server) == Connection::Step::Done);
            CPPUNIT_ASSERT(!client.isResumed());
            server.write("x");
            char buffer[16];
            CPPUNIT_ASSERT_EQUAL(ssize_t(1), client.read(buffer, sizeof(buffer))); // takes the tickets too
            CPPUNIT_ASSERT_EQUAL(size_t(1), trust.context->sessionCount());
        }
        Server server(serverCtx.get());
        Connection client(trust.context, server.clientFd(), "origin.test", "origin.test:443", nullptr);
        CPPUNIT_ASSERT(TlsTest::Handshake(client, server) == Connection::Step::Done);
        CPPUNIT_ASSERT(client.isResumed());
        CPPUNIT_ASSERT(server.resumed());
    }

    /// the origin ended the first connection (its close_notify and FIN read
    /// with the last bytes): its session still resumes the next one
    void sessionOfAnEndedConnectionResumes()
    {
        Trust trust;
        const auto leaf = TlsTest::MakeLeaf("origin.test", &trust.ca);
        const auto serverCtx = Server::ContextFor(leaf);
        {
            Server server(serverCtx.get());
            Connection client(trust.context, server.clientFd(), "origin.test", "origin.test:443", nullptr);
            CPPUNIT_ASSERT(TlsTest::Handshake(client, server) == Connection::Step::Done);
            server.write("bye");
            server.close();
            char buffer[16];
            CPPUNIT_ASSERT_EQUAL(ssize_t(3), client.read(buffer, sizeof(buffer)));
            CPPUNIT_ASSERT_EQUAL(ssize_t(0), client.read(buffer, sizeof(buffer)));
        }
        Server server(serverCtx.get());
        Connection client(trust.context, server.clientFd(), "origin.test", "origin.test:443", nullptr);
        CPPUNIT_ASSERT(TlsTest::Handshake(client, server) == Connection::Step::Done);
        CPPUNIT_ASSERT(client.isResumed());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestConnection);
