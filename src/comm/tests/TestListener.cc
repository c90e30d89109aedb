/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "comm/Listener.h"
#include "base/TextException.h"

#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <stdexcept>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

/// Comm::Listener: binding, port 0, accepting until EAGAIN, stop().
class TestListener : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestListener);
    CPPUNIT_TEST(portZeroBindsAFreePort);
    CPPUNIT_TEST(acceptsEveryQueuedConnection);
    CPPUNIT_TEST(acceptsOverIpv6Loopback);
    CPPUNIT_TEST(throwingCallbackDoesNotStallTheQueue);
    CPPUNIT_TEST(stopRefusesNewConnections);
    CPPUNIT_TEST(bindingABusyPortThrows);
    CPPUNIT_TEST(sharedListenersSplitConnections);
    CPPUNIT_TEST(outOfDescriptorsIsOneEpisodeThenRecovers);
    CPPUNIT_TEST_SUITE_END();

public:
    void portZeroBindsAFreePort();
    void acceptsEveryQueuedConnection();
    void acceptsOverIpv6Loopback();
    void throwingCallbackDoesNotStallTheQueue();
    void stopRefusesNewConnections();
    void bindingABusyPortThrows();
    void sharedListenersSplitConnections();
    void outOfDescriptorsIsOneEpisodeThenRecovers();
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestListener);

namespace {

/// a blocking client socket connected to `to`, or an empty descriptor
Comm::Descriptor Connect(const Comm::Address& to)
{
    Comm::Descriptor fd(::socket(to.family(), SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (::connect(fd.get(), to.raw(), to.length()) != 0)
        fd.reset();
    return fd;
}

} // namespace

void TestListener::portZeroBindsAFreePort()
{
    Comm::Loop loop;
    Comm::Listener l(loop, *Comm::Address::Parse("127.0.0.1", 0),
                     [](Comm::Descriptor&&, const Comm::Address&) {});
    CPPUNIT_ASSERT(l.isListening());
    CPPUNIT_ASSERT(l.localAddress().port() != 0);
    CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), l.localAddress().host());
}

void TestListener::acceptsEveryQueuedConnection()
{
    Comm::Loop loop;
    std::vector<Comm::Descriptor> accepted;
    std::vector<std::string> peers;
    Comm::Listener l(loop, *Comm::Address::Parse("127.0.0.1", 0),
                     [&](Comm::Descriptor&& fd, const Comm::Address& peer) {
                         accepted.push_back(std::move(fd));
                         peers.push_back(peer.host());
                     });
    std::vector<Comm::Descriptor> clients;
    for (int i = 0; i < 10; ++i)
        clients.push_back(Connect(l.localAddress()));
    // edge-triggered: one event must be enough to accept all queued connections
    for (int i = 0; i < 50 && accepted.size() < 10; ++i)
        loop.runOnce(Comm::Milliseconds(10));
    CPPUNIT_ASSERT_EQUAL(size_t(10), accepted.size());
    CPPUNIT_ASSERT_EQUAL(uint64_t(10), l.acceptedCount());
    for (const auto& p : peers)
        CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), p);
    for (const auto& fd : accepted)
        CPPUNIT_ASSERT(::fcntl(fd.get(), F_GETFL) & O_NONBLOCK);
}

void TestListener::acceptsOverIpv6Loopback()
{
    Comm::Loop loop;
    const auto where = Comm::Address::Parse("[::1]", 0);
    CPPUNIT_ASSERT(where);
    std::unique_ptr<Comm::Listener> l;
    int accepted = 0;
    try {
        l = std::make_unique<Comm::Listener>(loop, *where,
                                             [&](Comm::Descriptor&&, const Comm::Address&) { ++accepted; });
    } catch (const TextException&) {
        return; // no IPv6 on this host: nothing to test
    }
    CPPUNIT_ASSERT(l->localAddress().toString().starts_with("[::1]:"));
    auto c = Connect(l->localAddress());
    CPPUNIT_ASSERT(c.isOpen());
    for (int i = 0; i < 50 && !accepted; ++i)
        loop.runOnce(Comm::Milliseconds(10));
    CPPUNIT_ASSERT_EQUAL(1, accepted);
}

void TestListener::stopRefusesNewConnections()
{
    Comm::Loop loop;
    Comm::Listener l(loop, *Comm::Address::Parse("127.0.0.1", 0),
                     [](Comm::Descriptor&&, const Comm::Address&) {});
    const auto where = l.localAddress();
    l.stop();
    CPPUNIT_ASSERT(!l.isListening());
    CPPUNIT_ASSERT(!Connect(where).isOpen());
    l.stop(); // idempotent
}

void TestListener::bindingABusyPortThrows()
{
    Comm::Loop loop;
    Comm::Listener first(loop, *Comm::Address::Parse("127.0.0.1", 0),
                         [](Comm::Descriptor&&, const Comm::Address&) {});
    try {
        Comm::Listener second(loop, first.localAddress(), [](Comm::Descriptor&&, const Comm::Address&) {});
        CPPUNIT_FAIL("binding a busy port succeeded");
    } catch (const TextException& e) {
        const std::string what = e.what();
        CPPUNIT_ASSERT(what.find(first.localAddress().toString()) != std::string::npos);
    }
}

void TestListener::sharedListenersSplitConnections()
{
    Comm::Loop loop;
    int firstCount = 0, secondCount = 0;
    std::vector<Comm::Descriptor> accepted;
    Comm::Listener first(
        loop, *Comm::Address::Parse("127.0.0.1", 0),
        [&](Comm::Descriptor&& fd, const Comm::Address&) {
            ++firstCount;
            accepted.push_back(std::move(fd));
        },
        true);
    Comm::Listener second(
        loop, first.localAddress(),
        [&](Comm::Descriptor&& fd, const Comm::Address&) {
            ++secondCount;
            accepted.push_back(std::move(fd));
        },
        true);
    CPPUNIT_ASSERT_EQUAL(first.localAddress().port(), second.localAddress().port());
    // the kernel hashes each connection to one of the two sockets: 64 go to both
    std::vector<Comm::Descriptor> clients;
    for (int i = 0; i < 64; ++i)
        clients.push_back(Connect(first.localAddress()));
    for (int i = 0; i < 50 && firstCount + secondCount < 64; ++i)
        loop.runOnce(Comm::Milliseconds(10));
    CPPUNIT_ASSERT_EQUAL(64, firstCount + secondCount);
    CPPUNIT_ASSERT(firstCount > 0);
    CPPUNIT_ASSERT(secondCount > 0);
}

void TestListener::throwingCallbackDoesNotStallTheQueue()
{
    Comm::Loop loop;
    std::vector<Comm::Descriptor> accepted;
    int calls = 0;
    Comm::Listener l(loop, *Comm::Address::Parse("127.0.0.1", 0),
                     [&](Comm::Descriptor&& fd, const Comm::Address&) {
                         if (++calls == 1)
                             throw std::runtime_error("first connection fails");
                         accepted.push_back(std::move(fd));
                     });
    std::vector<Comm::Descriptor> clients;
    for (int i = 0; i < 5; ++i)
        clients.push_back(Connect(l.localAddress()));
    // edge-triggered: the one event of the burst must still drain the queue
    for (int i = 0; i < 50 && accepted.size() < 4; ++i)
        loop.runOnce(Comm::Milliseconds(10));
    CPPUNIT_ASSERT_EQUAL(5, calls);
    CPPUNIT_ASSERT_EQUAL(size_t(4), accepted.size());
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), loop.bugCount());
    CPPUNIT_ASSERT(l.isListening());
}

void TestListener::outOfDescriptorsIsOneEpisodeThenRecovers()
{
    Comm::Loop loop;
    std::vector<Comm::Descriptor> accepted;
    Comm::Listener l(loop, *Comm::Address::Parse("127.0.0.1", 0),
                     [&](Comm::Descriptor&& fd, const Comm::Address&) { accepted.push_back(std::move(fd)); });
    std::vector<Comm::Descriptor> clients;
    for (int i = 0; i < 3; ++i)
        clients.push_back(Connect(l.localAddress()));
    // every descriptor below the lowest free one is in use: a limit there leaves none to make
    rlimit saved{};
    CPPUNIT_ASSERT_EQUAL(0, ::getrlimit(RLIMIT_NOFILE, &saved));
    const int lowestFree = ::fcntl(0, F_DUPFD_CLOEXEC, 0);
    CPPUNIT_ASSERT(lowestFree >= 0);
    ::close(lowestFree);
    rlimit low = saved;
    low.rlim_cur = rlim_t(lowestFree);
    CPPUNIT_ASSERT_EQUAL(0, ::setrlimit(RLIMIT_NOFILE, &low));
    // several retries while starved: one episode, nothing accepted
    const auto starvedFor = Comm::Listener::RetryDelay * 4;
    for (auto until = Comm::Clock::now() + starvedFor; Comm::Clock::now() < until;)
        loop.runOnce(Comm::Milliseconds(10));
    const bool wasStarved = l.isStarved();
    const auto episodes = l.starvedEpisodes();
    const auto acceptedWhileStarved = accepted.size();
    CPPUNIT_ASSERT_EQUAL(0, ::setrlimit(RLIMIT_NOFILE, &saved));
    CPPUNIT_ASSERT(wasStarved);
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), episodes);
    CPPUNIT_ASSERT_EQUAL(size_t(0), acceptedWhileStarved);
    // descriptors back: the retry accepts every queued connection, no new event needed
    for (int i = 0; i < 50 && accepted.size() < 3; ++i)
        loop.runOnce(Comm::Milliseconds(10));
    CPPUNIT_ASSERT_EQUAL(size_t(3), accepted.size());
    CPPUNIT_ASSERT(!l.isStarved());
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), l.starvedEpisodes());
}
