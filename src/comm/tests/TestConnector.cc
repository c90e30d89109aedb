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

/// A dual-stack name's two loopback listeners on one port: 127.0.0.1
/// accepts; ::1 listens with a full accept queue (backlog 0 and one
/// connection queued), so the kernel drops the SYNs of further connects.
struct DualStack {
    DualStack()
    {
        for (int tries = 0; tries < 20 && !v4.isOpen(); ++tries) {
            v6 = Listen(AF_INET6, 0, 0);
            port = LocalPort(v6.get());
            v4 = Listen(AF_INET, port, 16);
        }
        CPPUNIT_ASSERT(v4.isOpen());
        filler.reset(::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
        sockaddr_in6 a{};
        a.sin6_family = AF_INET6;
        a.sin6_addr = in6addr_loopback;
        a.sin6_port = htons(port);
        CPPUNIT_ASSERT_EQUAL(0, ::connect(filler.get(), reinterpret_cast<sockaddr*>(&a), sizeof(a)));
    }
    /// a listening socket of the family on the loopback port (0: any); closed when the port is taken
    static Comm::Descriptor Listen(int family, uint16_t port, int backlog)
    {
        Comm::Descriptor fd(::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0));
        sockaddr_storage s{};
        socklen_t len = 0;
        if (family == AF_INET6) {
            const int one = 1;
            (void)::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
            auto* a = reinterpret_cast<sockaddr_in6*>(&s);
            a->sin6_family = AF_INET6;
            a->sin6_addr = in6addr_loopback;
            a->sin6_port = htons(port);
            len = sizeof(*a);
        } else {
            auto* a = reinterpret_cast<sockaddr_in*>(&s);
            a->sin_family = AF_INET;
            a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            a->sin_port = htons(port);
            len = sizeof(*a);
        }
        if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&s), len) != 0 || ::listen(fd.get(), backlog) != 0)
            fd.reset();
        return fd;
    }
    static uint16_t LocalPort(int fd)
    {
        sockaddr_in6 a{};
        socklen_t len = sizeof(a);
        CPPUNIT_ASSERT_EQUAL(0, ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len));
        return ntohs(a.sin6_port);
    }
    Comm::Descriptor v6;
    Comm::Descriptor v4;
    Comm::Descriptor filler; ///< the connection that fills v6's accept queue
    uint16_t port = 0;
};

/// a hosts file naming `dual.test` ::1 first, then 127.0.0.1; removed when it goes
struct DualHosts {
    DualHosts()
    {
        const int fd = ::mkstemp(path);
        CPPUNIT_ASSERT(fd >= 0);
        ::close(fd);
        std::ofstream(path) << "::1 dual.test\n127.0.0.1 dual.test\n";
    }
    ~DualHosts() { ::unlink(path); }
    Comm::Resolver::Options options() const
    {
        Comm::Resolver::Options o;
        o.nameservers = {"127.0.0.1:1"}; // never asked: the name is in hosts_file
        o.hostsFile = path;
        o.timeout = Milliseconds(2000);
        return o;
    }
    char path[40] = "/tmp/cuttle-connector-hosts.XXXXXX";
};

/// milliseconds since `start`
long long ElapsedMs(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start)
        .count();
}

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
    CPPUNIT_TEST(spareFamilyStartsAfterTheHappyEyeballsDelay);
    CPPUNIT_TEST(primeFailureStartsTheSpareAtOnce);
    CPPUNIT_TEST(failedConnectIsRetriedConnectRetriesTimes);
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
    void spareFamilyStartsAfterTheHappyEyeballsDelay();
    void primeFailureStartsTheSpareAtOnce();
    void failedConnectIsRetriedConnectRetriesTimes();

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
    // tcp_outgoing_address, _tos and _mark: the IPv4 destination gets the
    // IPv4 source (the IPv6 one is for IPv6 destinations), the TOS byte and the mark
    Listening origin;
    Comm::Loop loop;
    Outcome out;
    Comm::Connector::Target target{"127.0.0.1", origin.port, Milliseconds(2000), nullptr, {}};
    target.outgoing.local4 = Comm::Address::Parse("127.0.0.2", 0);
    target.outgoing.local6 = Comm::Address::Parse("::1", 0);
    target.outgoing.tos = 0x20;
    target.outgoing.mark = 0x2a;
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
    if (::geteuid() == 0) { // SO_MARK needs CAP_NET_ADMIN; without it the mark is only a warning
        unsigned mark = 0;
        socklen_t markLen = sizeof(mark);
        CPPUNIT_ASSERT_EQUAL(0, ::getsockopt(out.result->fd.get(), SOL_SOCKET, SO_MARK, &mark, &markLen));
        CPPUNIT_ASSERT_EQUAL(0x2au, mark);
    }
    // the pool key part: each choice named, nothing without one
    Comm::Connector::Outgoing all;
    all.local4 = Comm::Address::Parse("127.0.0.2", 0);
    all.local6 = Comm::Address::Parse("::1", 0);
    all.tos = 0x20;
    all.mark = 42;
    CPPUNIT_ASSERT_EQUAL(std::string(" from 127.0.0.2 from ::1 tos 32 mark 42"), all.key());
    CPPUNIT_ASSERT_EQUAL(std::string(), Comm::Connector::Outgoing{}.key());
}

void TestConnector::spareFamilyStartsAfterTheHappyEyeballsDelay()
{
    // ::1 (the prime family: the first address) drops the SYNs; 127.0.0.1
    // is dialed happy_eyeballs_connect_timeout later and wins, long before
    // connect_timeout
    DualStack origin;
    DualHosts hosts;
    Comm::Loop loop;
    Comm::Resolver resolver(loop, hosts.options());
    Outcome out;
    uint64_t connects = 0;
    Comm::Connector::Target target{"dual.test", origin.port, Milliseconds(10000), &connects, {}};
    target.spareDelay = Milliseconds(200);
    Comm::Connector c(loop, &resolver, std::move(target), out.callback());
    const auto start = std::chrono::steady_clock::now();
    c.start();
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return out.calls > 0; }));
    const auto ms = ElapsedMs(start);
    CPPUNIT_ASSERT(out.result->error == Comm::Connector::Error::None);
    CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), out.result->peer.host());
    CPPUNIT_ASSERT_EQUAL(uint64_t(2), connects); // both families were dialed
    CPPUNIT_ASSERT(ms >= 190);
    CPPUNIT_ASSERT(ms < 2000);
}

void TestConnector::primeFailureStartsTheSpareAtOnce()
{
    // nothing listens on ::1: its refusal starts 127.0.0.1 without waiting
    // for happy_eyeballs_connect_timeout
    DualStack origin;
    origin.filler.reset();
    origin.v6.reset();
    DualHosts hosts;
    Comm::Loop loop;
    Comm::Resolver resolver(loop, hosts.options());
    Outcome out;
    Comm::Connector::Target target{"dual.test", origin.port, Milliseconds(10000), nullptr, {}};
    target.spareDelay = Milliseconds(5000);
    Comm::Connector c(loop, &resolver, std::move(target), out.callback());
    const auto start = std::chrono::steady_clock::now();
    c.start();
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return out.calls > 0; }));
    CPPUNIT_ASSERT(out.result->error == Comm::Connector::Error::None);
    CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), out.result->peer.host());
    CPPUNIT_ASSERT(ElapsedMs(start) < 1000);
}

void TestConnector::failedConnectIsRetriedConnectRetriesTimes()
{
    // connect_retries: a refused address is dialed again that many times,
    // then the dial fails as without retries
    const auto port = RefusingPort();
    for (const unsigned retries : {0u, 2u}) {
        Comm::Loop loop;
        Outcome out;
        uint64_t connects = 0;
        Comm::Connector::Target target{"127.0.0.1", port, Milliseconds(2000), &connects, {}};
        target.retries = retries;
        Comm::Connector c(loop, nullptr, std::move(target), out.callback());
        c.start();
        CPPUNIT_ASSERT(RunUntil(loop, [&] { return out.calls > 0; }));
        CPPUNIT_ASSERT(out.result->error == Comm::Connector::Error::Connect);
        CPPUNIT_ASSERT_EQUAL(ECONNREFUSED, out.result->xerrno);
        CPPUNIT_ASSERT_EQUAL(uint64_t(retries + 1), connects);
    }
}

CPPUNIT_TEST_SUITE_REGISTRATION(TestConnector);
