/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "comm/Connector.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

using Comm::Milliseconds;

/// a listening loopback socket on a free port
struct Listening {
    Listening()
    {
        fd.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        CPPUNIT_ASSERT_EQUAL(0, ::bind(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof(a)));
        CPPUNIT_ASSERT_EQUAL(0, ::listen(fd.get(), 16));
        socklen_t len = sizeof(a);
        CPPUNIT_ASSERT_EQUAL(0, ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&a), &len));
        port = ntohs(a.sin_port);
    }
    Comm::Descriptor fd;
    uint16_t port = 0;
};

/// a loopback port that nothing listens on (bound, then closed)
uint16_t RefusingPort()
{
    Listening gone;
    return gone.port;
}

/// runs loop until done() or the bound passes
template <class Done>
bool RunUntil(Comm::Loop& loop, Done done, Milliseconds bound = Milliseconds(5000))
{
    const auto until = std::chrono::steady_clock::now() + bound;
    while (!done()) {
        if (std::chrono::steady_clock::now() > until)
            return false;
        loop.runOnce(Milliseconds(10));
    }
    return true;
}

/// the result of one dial, as its callback got it
struct Outcome {
    std::optional<Comm::Connector::Result> result;
    int calls = 0;
    Comm::Connector::Callback callback()
    {
        return [this](Comm::Connector::Result&& r) {
            ++calls;
            result = std::move(r);
        };
    }
};

} // namespace

/// Tests of Comm::Connector: dialing an IP literal or a name, refusals,
/// and the callback rules (never inside start(), never after destruction).
class TestConnector : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestConnector);
    CPPUNIT_TEST(literalIsConnectedFromTheLoop);
    CPPUNIT_TEST(nameIsResolvedThenConnected);
    CPPUNIT_TEST(refusedPortIsAConnectError);
    CPPUNIT_TEST(nameWithoutResolverIsADnsError);
    CPPUNIT_TEST(destroyingCancelsTheCallback);
    CPPUNIT_TEST(outgoingSourceAndTosOfTheFamily);
    CPPUNIT_TEST_SUITE_END();

public:
    void literalIsConnectedFromTheLoop()
    {
        Listening origin;
        Comm::Loop loop;
        Outcome out;
        uint64_t connects = 0;
        Comm::Connector c(loop, nullptr, {"127.0.0.1", origin.port, Milliseconds(2000), &connects, {}},
                          out.callback());
        c.start();
        CPPUNIT_ASSERT_EQUAL(0, out.calls); // never from inside start()
        CPPUNIT_ASSERT(RunUntil(loop, [&] { return out.calls > 0; }));
        CPPUNIT_ASSERT_EQUAL(1, out.calls);
        CPPUNIT_ASSERT(out.result->error == Comm::Connector::Error::None);
        CPPUNIT_ASSERT(out.result->fd.isOpen());
        CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), out.result->peer.host());
        CPPUNIT_ASSERT_EQUAL(origin.port, out.result->peer.port());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), connects);
        // it is really connected: the origin accepts it and sees our bytes
        const int accepted = ::accept(origin.fd.get(), nullptr, nullptr);
        CPPUNIT_ASSERT(accepted >= 0);
        CPPUNIT_ASSERT_EQUAL(ssize_t(2), ::send(out.result->fd.get(), "hi", 2, MSG_NOSIGNAL));
        char buf[2];
        CPPUNIT_ASSERT_EQUAL(ssize_t(2), ::recv(accepted, buf, 2, 0));
        ::close(accepted);
    }

    void nameIsResolvedThenConnected()
    {
        Listening origin;
        char path[] = "/tmp/cuttle-connector-hosts.XXXXXX";
        const int fd = ::mkstemp(path);
        CPPUNIT_ASSERT(fd >= 0);
        ::close(fd);
        std::ofstream(path) << "127.0.0.1 origin.test\n";
        Comm::Loop loop;
        Comm::Resolver::Options o;
        o.nameservers = {"127.0.0.1:1"}; // never asked: the name is in hosts_file
        o.hostsFile = path;
        o.timeout = Milliseconds(2000);
        Comm::Resolver resolver(loop, o);
        Outcome out;
        Comm::Connector c(loop, &resolver, {"origin.test", origin.port, Milliseconds(2000), nullptr, {}},
                          out.callback());
        c.start();
        CPPUNIT_ASSERT(RunUntil(loop, [&] { return out.calls > 0; }));
        ::unlink(path);
        CPPUNIT_ASSERT(out.result->error == Comm::Connector::Error::None);
        CPPUNIT_ASSERT_EQUAL(origin.port, out.result->peer.port());
    }

    void refusedPortIsAConnectError()
    {
        const auto port = RefusingPort();
        Comm::Loop loop;
        Outcome out;
        Comm::Connector c(loop, nullptr, {"127.0.0.1", port, Milliseconds(2000), nullptr, {}},
                          out.callback());
        c.start();
        CPPUNIT_ASSERT(RunUntil(loop, [&] { return out.calls > 0; }));
        CPPUNIT_ASSERT(out.result->error == Comm::Connector::Error::Connect);
        CPPUNIT_ASSERT(!out.result->fd.isOpen());
        CPPUNIT_ASSERT_EQUAL(ECONNREFUSED, out.result->xerrno);
        CPPUNIT_ASSERT_EQUAL(std::string("Connection refused"), out.result->text);
        CPPUNIT_ASSERT_EQUAL(port, out.result->peer.port());
    }

    void nameWithoutResolverIsADnsError()
    {
        Comm::Loop loop;
        Outcome out;
        Comm::Connector c(loop, nullptr, {"origin.test", 80, Milliseconds(2000), nullptr, {}},
                          out.callback());
        c.start();
        CPPUNIT_ASSERT_EQUAL(0, out.calls);
        CPPUNIT_ASSERT(RunUntil(loop, [&] { return out.calls > 0; }));
        CPPUNIT_ASSERT(out.result->error == Comm::Connector::Error::Dns);
        CPPUNIT_ASSERT_EQUAL(0, out.result->xerrno);
    }

    void outgoingSourceAndTosOfTheFamily();

    void destroyingCancelsTheCallback()
    {
        Listening origin;
        Comm::Loop loop;
        Outcome out;
        auto c = std::make_unique<Comm::Connector>(
            loop, nullptr, Comm::Connector::Target{"127.0.0.1", origin.port, Milliseconds(2000), nullptr, {}},
            out.callback());
        c->start();
        c.reset();
        for (int i = 0; i < 20; ++i)
            loop.runOnce(Milliseconds(10));
        CPPUNIT_ASSERT_EQUAL(0, out.calls);
    }
};

void TestConnector::outgoingSourceAndTosOfTheFamily()
{
    // tcp_outgoing_address and tcp_outgoing_tos: the IPv4 destination gets
    // the IPv4 source (the IPv6 one is for IPv6 destinations) and the TOS byte
    Listening origin;
    Comm::Loop loop;
    Outcome out;
    Comm::Connector::Target target{"127.0.0.1", origin.port, Milliseconds(2000), nullptr, {}};
    target.outgoing.local4 = Comm::Address::Parse("127.0.0.2", 0);
    target.outgoing.local6 = Comm::Address::Parse("::1", 0);
    target.outgoing.tos = 0x20;
    Comm::Connector c(loop, nullptr, std::move(target), out.callback());
    c.start();
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return out.calls > 0; }));
    CPPUNIT_ASSERT(out.result->error == Comm::Connector::Error::None);
    sockaddr_storage local{};
    socklen_t len = sizeof(local);
    CPPUNIT_ASSERT_EQUAL(0, ::getsockname(out.result->fd.get(), reinterpret_cast<sockaddr*>(&local), &len));
    CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.2"),
                         Comm::Address::FromSockaddr(reinterpret_cast<sockaddr*>(&local), len).host());
    int tos = 0;
    socklen_t tosLen = sizeof(tos);
    CPPUNIT_ASSERT_EQUAL(0, ::getsockopt(out.result->fd.get(), IPPROTO_IP, IP_TOS, &tos, &tosLen));
    CPPUNIT_ASSERT_EQUAL(0x20, tos);
    // the pool key part: each choice named, nothing without one
    Comm::Connector::Outgoing all;
    all.local4 = Comm::Address::Parse("127.0.0.2", 0);
    all.local6 = Comm::Address::Parse("::1", 0);
    all.tos = 0x20;
    CPPUNIT_ASSERT_EQUAL(std::string(" from 127.0.0.2 from ::1 tos 32"), all.key());
    CPPUNIT_ASSERT_EQUAL(std::string(), Comm::Connector::Outgoing{}.key());
}

CPPUNIT_TEST_SUITE_REGISTRATION(TestConnector);
