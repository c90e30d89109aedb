/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "tunnel/ParentConnect.h"

#include <cppunit/extensions/HelperMacros.h>

#include <chrono>
#include <optional>
#include <string>

#include <sys/socket.h>
#include <unistd.h>

namespace {

using Comm::Milliseconds;
using Outcome = Tunnel::ParentConnect::Outcome;

/// a connected socket pair: ours (non-blocking, given to ParentConnect) and the parent's
struct Pair {
    Pair()
    {
        int fds[2];
        CPPUNIT_ASSERT_EQUAL(0, ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds));
        ours.reset(fds[0]);
        parent.reset(fds[1]);
    }
    /// what the parent got so far
    std::string received()
    {
        std::string out;
        char buf[4096];
        ssize_t n;
        while ((n = ::recv(parent.get(), buf, sizeof(buf), MSG_DONTWAIT)) > 0)
            out.append(buf, size_t(n));
        return out;
    }
    void say(const std::string& bytes)
    {
        CPPUNIT_ASSERT_EQUAL(ssize_t(bytes.size()), ::send(parent.get(), bytes.data(), bytes.size(), 0));
    }
    Comm::Descriptor ours;
    Comm::Descriptor parent;
};

/// runs one exchange until its callback (bounded)
struct Exchange {
    Exchange(Pair& pair, Milliseconds timeout = Milliseconds(3000))
        : connect(loop, std::move(pair.ours), "CONNECT o.test:443 HTTP/1.1\r\nHost: o.test:443\r\n\r\n",
                  timeout, 8192, [this](Tunnel::ParentConnect::Result&& r) { result = std::move(r); })
    {}
    bool run()
    {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (!result && std::chrono::steady_clock::now() < until)
            loop.runOnce(Milliseconds(10));
        return result.has_value();
    }
    Comm::Loop loop;
    std::optional<Tunnel::ParentConnect::Result> result;
    Tunnel::ParentConnect connect;
};

} // namespace

/// Tests of Tunnel::ParentConnect: the CONNECT request goes out as given, a
/// 200 opens the tunnel with what followed it, another reply is relayed
/// whole, and a parent that closes or stays silent is a failure.
class TestParentConnect : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestParentConnect);
    CPPUNIT_TEST(okOpensTheTunnelWithTheBytesAfterIt);
    CPPUNIT_TEST(refusalIsRelayedWholeWithConnectionClose);
    CPPUNIT_TEST(chunkedRefusalEndsWithItsLastChunk);
    CPPUNIT_TEST(closeBeforeTheHeadFails);
    CPPUNIT_TEST(silenceTimesOut);
    CPPUNIT_TEST_SUITE_END();

public:
    void okOpensTheTunnelWithTheBytesAfterIt()
    {
        // the whole reply and the origin's first bytes are in the socket
        // before the first read (comm/Loop.h's rule)
        Pair pair;
        pair.say("HTTP/1.1 200 Connection established\r\n\r\nbanner");
        const int parentFd = pair.parent.get();
        Exchange x(pair);
        x.connect.start();
        CPPUNIT_ASSERT(!x.result); // never from inside start()
        CPPUNIT_ASSERT(x.run());
        CPPUNIT_ASSERT(x.result->outcome == Outcome::Established);
        CPPUNIT_ASSERT_EQUAL(200, x.result->status);
        CPPUNIT_ASSERT_EQUAL(std::string("banner"), x.result->leftover);
        CPPUNIT_ASSERT(x.result->fd.isOpen());
        CPPUNIT_ASSERT_EQUAL(std::string("CONNECT o.test:443 HTTP/1.1\r\nHost: o.test:443\r\n\r\n"),
                             pair.received());
        // the handed-over socket is the tunnel to the parent
        CPPUNIT_ASSERT_EQUAL(ssize_t(2), ::send(x.result->fd.get(), "hi", 2, MSG_NOSIGNAL));
        char buf[2];
        CPPUNIT_ASSERT_EQUAL(ssize_t(2), ::recv(parentFd, buf, 2, 0));
    }

    void refusalIsRelayedWholeWithConnectionClose()
    {
        Pair pair;
        Exchange x(pair);
        x.connect.start();
        for (int i = 0; i < 5; ++i)
            x.loop.runOnce(Milliseconds(10));
        CPPUNIT_ASSERT(!x.result);
        // the head first, the body later: the body is waited for
        pair.say(
            "HTTP/1.1 403 Forbidden\r\nContent-Length: 6\r\nConnection: keep-alive, X-Hop\r\nX-Hop: 1\r\n"
            "Keep-Alive: timeout=5\r\nX-Squid-Error: ERR_ACCESS_DENIED 0\r\n\r\nden");
        for (int i = 0; i < 5; ++i)
            x.loop.runOnce(Milliseconds(10));
        CPPUNIT_ASSERT(!x.result);
        pair.say("ied");
        CPPUNIT_ASSERT(x.run());
        CPPUNIT_ASSERT(x.result->outcome == Outcome::Refused);
        CPPUNIT_ASSERT_EQUAL(403, x.result->status);
        CPPUNIT_ASSERT_EQUAL(
            std::string("HTTP/1.1 403 Forbidden\r\nContent-Length: 6\r\n"
                        "X-Squid-Error: ERR_ACCESS_DENIED 0\r\nConnection: close\r\n\r\ndenied"),
            x.result->reply);
        CPPUNIT_ASSERT(!x.result->fd.isOpen());
    }

    void chunkedRefusalEndsWithItsLastChunk()
    {
        // the parent keeps its connection open: the last chunk ends the reply
        Pair pair;
        Exchange x(pair);
        x.connect.start();
        pair.say("HTTP/1.1 407 Proxy Authentication Required\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nde");
        for (int i = 0; i < 5; ++i)
            x.loop.runOnce(Milliseconds(10));
        CPPUNIT_ASSERT(!x.result);
        pair.say("ny\r\n0\r\n\r\n");
        CPPUNIT_ASSERT(x.run());
        CPPUNIT_ASSERT(x.result->outcome == Outcome::Refused);
        CPPUNIT_ASSERT_EQUAL(407, x.result->status);
        CPPUNIT_ASSERT_EQUAL(
            std::string("HTTP/1.1 407 Proxy Authentication Required\r\nTransfer-Encoding: chunked\r\n"
                        "Connection: close\r\n\r\n4\r\ndeny\r\n0\r\n\r\n"),
            x.result->reply);
    }

    void closeBeforeTheHeadFails()
    {
        Pair pair;
        pair.say("HTTP/1.1 200 Conn");
        pair.parent.reset();
        Exchange x(pair);
        x.connect.start();
        CPPUNIT_ASSERT(x.run());
        CPPUNIT_ASSERT(x.result->outcome == Outcome::Failed);
        CPPUNIT_ASSERT(!x.result->error.empty());
    }

    void silenceTimesOut()
    {
        Pair pair;
        Exchange x(pair, Milliseconds(100));
        x.connect.start();
        CPPUNIT_ASSERT(x.run());
        CPPUNIT_ASSERT(x.result->outcome == Outcome::Failed);
        CPPUNIT_ASSERT_EQUAL(std::string("no reply from the parent in time"), x.result->error);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestParentConnect);
