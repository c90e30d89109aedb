/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "server/Pool.h"
#include "comm/Address.h"
#include "comm/Descriptor.h"
#include "comm/Loop.h"

#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

/// Server::Pool and Server::OriginConnection over real loopback sockets:
/// newest first per key, idle timeout, peer close, maxPerKey, closeAll.
class TestPool : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestPool);
    CPPUNIT_TEST(takeReturnsNewestFirstPerKey);
    CPPUNIT_TEST(takeOfUnknownKeyIsNull);
    CPPUNIT_TEST(idleTimeoutClosesConnection);
    CPPUNIT_TEST(takenConnectionOutlivesIdleTimeout);
    CPPUNIT_TEST(writabilityAloneKeepsIdleConnection);
    CPPUNIT_TEST(peerCloseDropsIdleConnection);
    CPPUNIT_TEST(strayBytesDropIdleConnection);
    CPPUNIT_TEST(peerCloseAfterTakeIsNotThePoolsConcern);
    CPPUNIT_TEST(maxPerKeyClosesOldest);
    CPPUNIT_TEST(zeroTimeoutOrZeroMaxKeepsNothing);
    CPPUNIT_TEST(closeAllClosesEveryKey);
    CPPUNIT_TEST(destroyingPoolClosesIdleConnections);
    CPPUNIT_TEST(originConnectionCountsUsesAndClosesItsSocket);
    CPPUNIT_TEST_SUITE_END();

public:
    void takeReturnsNewestFirstPerKey();
    void takeOfUnknownKeyIsNull();
    void idleTimeoutClosesConnection();
    void takenConnectionOutlivesIdleTimeout();
    void writabilityAloneKeepsIdleConnection();
    void peerCloseDropsIdleConnection();
    void strayBytesDropIdleConnection();
    void peerCloseAfterTakeIsNotThePoolsConcern();
    void maxPerKeyClosesOldest();
    void zeroTimeoutOrZeroMaxKeepsNothing();
    void closeAllClosesEveryKey();
    void destroyingPoolClosesIdleConnections();
    void originConnectionCountsUsesAndClosesItsSocket();
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestPool);

namespace {

using Comm::Milliseconds;

/// whether fd is an open descriptor of this process
bool IsOpenFd(int fd)
{
    return ::fcntl(fd, F_GETFD) != -1;
}

/// whether the other end of the origin's socket fd was closed (EOF waiting)
bool PeerClosed(int fd)
{
    char byte;
    return ::recv(fd, &byte, 1, MSG_DONTWAIT | MSG_PEEK) == 0;
}

/// a connected pair of loopback TCP sockets: {the proxy's end (non-blocking), the origin's end}
std::pair<Comm::Descriptor, Comm::Descriptor> TcpPair()
{
    Comm::Descriptor listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    CPPUNIT_ASSERT(listener.isOpen());
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CPPUNIT_ASSERT_EQUAL(0, ::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)));
    CPPUNIT_ASSERT_EQUAL(0, ::listen(listener.get(), 1));
    socklen_t len = sizeof(addr);
    CPPUNIT_ASSERT_EQUAL(0, ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len));
    Comm::Descriptor proxy(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    CPPUNIT_ASSERT(proxy.isOpen());
    const int rc = ::connect(proxy.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    CPPUNIT_ASSERT(rc == 0 || errno == EINPROGRESS);
    Comm::Descriptor origin(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
    CPPUNIT_ASSERT(origin.isOpen());
    return {std::move(proxy), std::move(origin)};
}

/// a pool on its own loop, and the origin ends of the connections it was given
struct Rig {
    Comm::Loop loop; ///< first: outlives the pool
    Server::Pool pool{loop};
    std::vector<Comm::Descriptor> originEnds; ///< kept open unless a test closes one

    ~Rig()
    {
        pool.closeAll();
        loop.runOnce(Milliseconds(0)); // deferred closes
    }

    /// a new connection whose origin end the rig keeps; stores the proxy's descriptor number in fd
    Server::OriginConnectionPtr connection(int& fd)
    {
        auto [proxy, origin] = TcpPair();
        fd = proxy.get();
        const auto peer = Comm::Address::Parse("127.0.0.1", 80);
        CPPUNIT_ASSERT(peer);
        originEnds.push_back(std::move(origin));
        return std::make_unique<Server::OriginConnection>(loop, std::move(proxy), *peer);
    }

    /// iterates until pred() or the deadline; returns pred()
    template <class Pred>
    bool runUntil(Pred pred, Milliseconds limit = Milliseconds(3000))
    {
        const auto deadline = Comm::Clock::now() + limit;
        while (!pred() && Comm::Clock::now() < deadline)
            loop.runOnce(Milliseconds(5));
        return pred();
    }

    /// iterates for about d
    void runFor(Milliseconds d)
    {
        const auto deadline = Comm::Clock::now() + d;
        while (Comm::Clock::now() < deadline)
            loop.runOnce(Milliseconds(5));
    }
};

} // namespace

void TestPool::takeReturnsNewestFirstPerKey()
{
    Rig rig;
    int a = -1, b = -1, c = -1;
    rig.pool.put("a.example:80", rig.connection(a));
    rig.pool.put("a.example:80", rig.connection(b));
    rig.pool.put("b.example:80", rig.connection(c));
    CPPUNIT_ASSERT_EQUAL(size_t(3), rig.pool.idleCount());

    // keys are separate: the other key's connection is not handed out
    auto first = rig.pool.take("a.example:80");
    CPPUNIT_ASSERT(first);
    CPPUNIT_ASSERT_EQUAL(b, first->fd()); // the newest
    auto second = rig.pool.take("a.example:80");
    CPPUNIT_ASSERT(second);
    CPPUNIT_ASSERT_EQUAL(a, second->fd());
    CPPUNIT_ASSERT(!rig.pool.take("a.example:80"));
    CPPUNIT_ASSERT_EQUAL(size_t(1), rig.pool.idleCount());

    auto third = rig.pool.take("b.example:80");
    CPPUNIT_ASSERT(third);
    CPPUNIT_ASSERT_EQUAL(c, third->fd());
    CPPUNIT_ASSERT_EQUAL(size_t(0), rig.pool.idleCount());
    // taken connections are open and belong to the taker
    CPPUNIT_ASSERT(IsOpenFd(a) && IsOpenFd(b) && IsOpenFd(c));
}

void TestPool::takeOfUnknownKeyIsNull()
{
    Rig rig;
    CPPUNIT_ASSERT(!rig.pool.take("nowhere.example:80"));
    int fd = -1;
    rig.pool.put("a.example:80", rig.connection(fd));
    // the port is part of the key
    CPPUNIT_ASSERT(!rig.pool.take("a.example:8080"));
    CPPUNIT_ASSERT(!rig.pool.take("a.example"));
    CPPUNIT_ASSERT_EQUAL(size_t(1), rig.pool.idleCount());
}

void TestPool::idleTimeoutClosesConnection()
{
    Rig rig;
    rig.pool.setIdleTimeout(Milliseconds(50));
    int fd = -1;
    const auto started = Comm::Clock::now();
    rig.pool.put("a.example:80", rig.connection(fd));
    CPPUNIT_ASSERT_EQUAL(size_t(1), rig.pool.idleCount());
    CPPUNIT_ASSERT(rig.runUntil([&] { return rig.pool.idleCount() == 0; }));
    CPPUNIT_ASSERT(Comm::Clock::now() - started >= Milliseconds(50));
    rig.loop.runOnce(Milliseconds(0)); // the deferred close
    CPPUNIT_ASSERT(!IsOpenFd(fd));
    // the origin sees the close
    CPPUNIT_ASSERT(rig.runUntil([&] { return PeerClosed(rig.originEnds[0].get()); }));
    CPPUNIT_ASSERT(!rig.pool.take("a.example:80"));
}

void TestPool::takenConnectionOutlivesIdleTimeout()
{
    Rig rig;
    rig.pool.setIdleTimeout(Milliseconds(30));
    int fd = -1;
    rig.pool.put("a.example:80", rig.connection(fd));
    auto taken = rig.pool.take("a.example:80");
    CPPUNIT_ASSERT(taken);
    // its idle timer went with it
    rig.runFor(Milliseconds(100));
    CPPUNIT_ASSERT(IsOpenFd(fd));
    CPPUNIT_ASSERT_EQUAL(fd, taken->fd());
    CPPUNIT_ASSERT_EQUAL(size_t(0), rig.loop.pendingTimers());
}

void TestPool::writabilityAloneKeepsIdleConnection()
{
    Rig rig;
    int fd = -1;
    // just connected: the first iteration reports the socket writable, and
    // nothing else happened to it
    rig.pool.put("a.example:80", rig.connection(fd));
    CPPUNIT_ASSERT(rig.loop.runOnce(Milliseconds(20)) > 0);
    rig.runFor(Milliseconds(20));
    CPPUNIT_ASSERT_EQUAL(size_t(1), rig.pool.idleCount());
    CPPUNIT_ASSERT(IsOpenFd(fd));
}

void TestPool::peerCloseDropsIdleConnection()
{
    Rig rig;
    int kept = -1, doomed = -1;
    rig.pool.put("a.example:80", rig.connection(kept));
    rig.pool.put("a.example:80", rig.connection(doomed));
    CPPUNIT_ASSERT_EQUAL(size_t(2), rig.pool.idleCount());
    rig.loop.runOnce(Milliseconds(0)); // nothing to say yet: both stay
    CPPUNIT_ASSERT_EQUAL(size_t(2), rig.pool.idleCount());

    rig.originEnds[1].reset(); // the origin closes the newer one
    CPPUNIT_ASSERT(rig.runUntil([&] { return rig.pool.idleCount() == 1; }));
    rig.loop.runOnce(Milliseconds(0));
    CPPUNIT_ASSERT(!IsOpenFd(doomed));
    CPPUNIT_ASSERT(IsOpenFd(kept));
    // the survivor is the one handed out
    auto taken = rig.pool.take("a.example:80");
    CPPUNIT_ASSERT(taken);
    CPPUNIT_ASSERT_EQUAL(kept, taken->fd());
}

void TestPool::strayBytesDropIdleConnection()
{
    Rig rig;
    int fd = -1;
    rig.pool.put("a.example:80", rig.connection(fd));
    // bytes no request asked for: the connection is out of step
    CPPUNIT_ASSERT_EQUAL(ssize_t(5), ::send(rig.originEnds[0].get(), "stray", 5, MSG_NOSIGNAL));
    CPPUNIT_ASSERT(rig.runUntil([&] { return rig.pool.idleCount() == 0; }));
    rig.loop.runOnce(Milliseconds(0));
    CPPUNIT_ASSERT(!IsOpenFd(fd));
}

void TestPool::peerCloseAfterTakeIsNotThePoolsConcern()
{
    Rig rig;
    int fd = -1;
    rig.pool.put("a.example:80", rig.connection(fd));
    auto taken = rig.pool.take("a.example:80");
    CPPUNIT_ASSERT(taken);
    rig.originEnds[0].reset();
    rig.runFor(Milliseconds(30));
    // the taker (a Forwarder) finds out when it uses it; the pool does not close it
    CPPUNIT_ASSERT(IsOpenFd(fd));
    CPPUNIT_ASSERT_EQUAL(size_t(0), rig.pool.idleCount());
}

void TestPool::maxPerKeyClosesOldest()
{
    Rig rig;
    rig.pool.setMaxPerKey(2);
    int fds[4] = {-1, -1, -1, -1};
    for (auto& fd : fds)
        rig.pool.put("a.example:80", rig.connection(fd));
    int other = -1;
    rig.pool.put("b.example:80", rig.connection(other)); // a limit per key, not in all
    CPPUNIT_ASSERT_EQUAL(size_t(3), rig.pool.idleCount());
    rig.loop.runOnce(Milliseconds(0));
    // the two oldest were closed (their numbers may be reused by now: ask the origin ends)
    CPPUNIT_ASSERT(PeerClosed(rig.originEnds[0].get()));
    CPPUNIT_ASSERT(PeerClosed(rig.originEnds[1].get()));
    CPPUNIT_ASSERT(!PeerClosed(rig.originEnds[2].get()));
    CPPUNIT_ASSERT(!PeerClosed(rig.originEnds[3].get()));
    auto newest = rig.pool.take("a.example:80");
    auto next = rig.pool.take("a.example:80");
    CPPUNIT_ASSERT(newest && next);
    CPPUNIT_ASSERT_EQUAL(fds[3], newest->fd());
    CPPUNIT_ASSERT_EQUAL(fds[2], next->fd());
    CPPUNIT_ASSERT(!rig.pool.take("a.example:80"));
    CPPUNIT_ASSERT(rig.pool.take("b.example:80"));
}

void TestPool::zeroTimeoutOrZeroMaxKeepsNothing()
{
    Rig rig;
    int fd = -1;
    rig.pool.setIdleTimeout(Milliseconds(0));
    // a named connection, moved in as the Forwarder does: the pool closes it
    auto refused = rig.connection(fd);
    rig.pool.put("a.example:80", std::move(refused));
    CPPUNIT_ASSERT_EQUAL(size_t(0), rig.pool.idleCount());
    CPPUNIT_ASSERT(!refused);
    rig.loop.runOnce(Milliseconds(0)); // closed after the caller's callback
    CPPUNIT_ASSERT(!IsOpenFd(fd));

    rig.pool.setIdleTimeout(Milliseconds(60000));
    rig.pool.setMaxPerKey(0);
    auto refusedToo = rig.connection(fd);
    rig.pool.put("a.example:80", std::move(refusedToo));
    CPPUNIT_ASSERT_EQUAL(size_t(0), rig.pool.idleCount());
    CPPUNIT_ASSERT(!refusedToo);
    rig.loop.runOnce(Milliseconds(0));
    CPPUNIT_ASSERT(!IsOpenFd(fd));
    CPPUNIT_ASSERT(!rig.pool.take("a.example:80"));

    rig.pool.put("a.example:80", nullptr); // nothing to keep
    CPPUNIT_ASSERT_EQUAL(size_t(0), rig.pool.idleCount());
}

void TestPool::closeAllClosesEveryKey()
{
    Rig rig;
    std::vector<int> fds(5, -1);
    for (size_t i = 0; i < fds.size(); ++i)
        rig.pool.put("host" + std::to_string(i % 2) + ":80", rig.connection(fds[i]));
    CPPUNIT_ASSERT_EQUAL(size_t(5), rig.pool.idleCount());
    rig.pool.closeAll();
    CPPUNIT_ASSERT_EQUAL(size_t(0), rig.pool.idleCount());
    for (const int fd : fds)
        CPPUNIT_ASSERT(!IsOpenFd(fd));
    CPPUNIT_ASSERT(!rig.pool.take("host0:80"));
    CPPUNIT_ASSERT(!rig.pool.take("host1:80"));
    // no idle timer is left behind to fire on a closed connection
    CPPUNIT_ASSERT_EQUAL(size_t(0), rig.loop.pendingTimers());
    rig.runFor(Milliseconds(10));
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), rig.loop.bugCount());
    // the pool still works afterwards
    int fd = -1;
    rig.pool.put("host0:80", rig.connection(fd));
    CPPUNIT_ASSERT_EQUAL(size_t(1), rig.pool.idleCount());
}

void TestPool::destroyingPoolClosesIdleConnections()
{
    Comm::Loop loop;
    std::vector<Comm::Descriptor> originEnds;
    int fd = -1;
    {
        Server::Pool pool(loop);
        auto [proxy, origin] = TcpPair();
        fd = proxy.get();
        originEnds.push_back(std::move(origin));
        pool.put("a.example:80", std::make_unique<Server::OriginConnection>(
                                     loop, std::move(proxy), *Comm::Address::Parse("127.0.0.1", 80)));
        CPPUNIT_ASSERT(IsOpenFd(fd));
    }
    CPPUNIT_ASSERT(!IsOpenFd(fd));
    CPPUNIT_ASSERT_EQUAL(size_t(0), loop.pendingTimers());
}

void TestPool::originConnectionCountsUsesAndClosesItsSocket()
{
    Rig rig;
    int fd = -1;
    auto connection = rig.connection(fd);
    CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), connection->peer().host());
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), connection->useCount());
    connection->noteUse();
    connection->noteUse();
    CPPUNIT_ASSERT_EQUAL(uint64_t(2), connection->useCount());
    CPPUNIT_ASSERT(IsOpenFd(fd));
    connection.reset();
    CPPUNIT_ASSERT(!IsOpenFd(fd));
}
