/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "comm/Resolver.h"
#include "comm/Descriptor.h"
#include "base/TextException.h"

#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

/// Comm::Resolver against a fake DNS server on loopback: answers, errors,
/// timeouts, cancellation, hosts_file, edge-triggered draining of TCP.
class TestResolver : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestResolver);
    CPPUNIT_TEST(nameResolvesToIpv4AndIpv6);
    CPPUNIT_TEST(unknownNameIsNotFound);
    CPPUNIT_TEST(nameWithoutAddressesIsNotFound);
    CPPUNIT_TEST(silentServerTimesOut);
    CPPUNIT_TEST(unreachableServerFails);
    CPPUNIT_TEST(callbackNeverRunsInsideResolve);
    CPPUNIT_TEST(destroyedLookupGetsNoCallback);
    CPPUNIT_TEST(destroyingResolverCancelsEverything);
    CPPUNIT_TEST(hostsFileAnsweredWithoutDns);
    CPPUNIT_TEST(hostsFileParsing);
    CPPUNIT_TEST(unreadableHostsFileIsIgnored);
    CPPUNIT_TEST(ipLiteralsAnsweredWithoutDns);
    CPPUNIT_TEST(manyLookupsAtOnce);
    CPPUNIT_TEST(onlyTheAskedNameIsQueried);
    CPPUNIT_TEST(tcpAnswersArrivingTogetherAreAllRead);
    CPPUNIT_TEST(queryQueuedOnIdleTcpConnectionIsSent);
    CPPUNIT_TEST(manyTcpAnswersArrivingTogetherAreAllRead);
    CPPUNIT_TEST(ipv6NameserverWithPort);
    CPPUNIT_TEST(reconfigureAsksTheNewServers);
    CPPUNIT_TEST(badNameserversAreRefused);
    CPPUNIT_TEST(addressNamesFromDns);
    CPPUNIT_TEST(addressNamesFromHostsFile);
    CPPUNIT_TEST(addressWithoutNameIsCachedBriefly);
    CPPUNIT_TEST(nameCacheIsBounded);
    CPPUNIT_TEST(addressesAreKeptTheirTtlCapped);
    CPPUNIT_TEST(nameNotFoundIsKeptNegativeTtl);
    CPPUNIT_TEST(addressCacheIsBounded);
    CPPUNIT_TEST(resolversSharingACacheShareAnswers);
    CPPUNIT_TEST_SUITE_END();

public:
    void nameResolvesToIpv4AndIpv6();
    void unknownNameIsNotFound();
    void nameWithoutAddressesIsNotFound();
    void silentServerTimesOut();
    void unreachableServerFails();
    void callbackNeverRunsInsideResolve();
    void destroyedLookupGetsNoCallback();
    void destroyingResolverCancelsEverything();
    void hostsFileAnsweredWithoutDns();
    void hostsFileParsing();
    void unreadableHostsFileIsIgnored();
    void ipLiteralsAnsweredWithoutDns();
    void manyLookupsAtOnce();
    void onlyTheAskedNameIsQueried();
    void tcpAnswersArrivingTogetherAreAllRead();
    void queryQueuedOnIdleTcpConnectionIsSent();
    void manyTcpAnswersArrivingTogetherAreAllRead();
    void ipv6NameserverWithPort();
    void reconfigureAsksTheNewServers();
    void badNameserversAreRefused();
    void addressNamesFromDns();
    void addressNamesFromHostsFile();
    void addressWithoutNameIsCachedBriefly();
    void nameCacheIsBounded();
    void addressesAreKeptTheirTtlCapped();
    void resolversSharingACacheShareAnswers();
    void nameNotFoundIsKeptNegativeTtl();
    void addressCacheIsBounded();
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestResolver);

namespace {

using Comm::Milliseconds;
using Clock = std::chrono::steady_clock;

std::string Lower(std::string s)
{
    for (char& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

/// A DNS server for the tests, on one loopback port for UDP and TCP, run by
/// its own thread (so that it never shares the loop under test). Known names
/// get their A/AAAA records, unknown names NXDOMAIN; a name can be made
/// silent, truncated over UDP (the client must ask again over TCP) or slow.
class FakeDns {
public:
    /// binds 127.0.0.1 (or host) port 0; check isListening()
    explicit FakeDns(const char* host = "127.0.0.1")
    {
        // the port the kernel picks for UDP may be taken for TCP: try again
        for (int attempt = 0; attempt < 50 && !tcp_.isOpen(); ++attempt)
            bindBoth(*Comm::Address::Parse(host, 0));
        int fds[2];
        if (!tcp_.isOpen() || ::pipe2(fds, O_CLOEXEC) != 0)
            return;
        stopRead_.reset(fds[0]);
        stopWrite_.reset(fds[1]);
        thread_ = std::thread([this] { run(); });
    }

    ~FakeDns()
    {
        if (thread_.joinable()) {
            const char c = 'x';
            (void)!::write(stopWrite_.get(), &c, 1);
            thread_.join();
        }
    }

    /// whether the server runs
    bool isListening() const { return thread_.joinable(); }
    /// the dns_nameservers entry: "127.0.0.1:PORT" or "[::1]:PORT"
    std::string nameserver() const { return local_.toString(); }
    /// the port
    uint16_t port() const { return local_.port(); }

    /// name gets an A (IPv4 literal) or AAAA (IPv6 literal) record
    void add(const std::string& name, const std::string& ip)
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto& record = records_[Lower(name)];
        if (!ip.empty())
            record.addresses.push_back(*Comm::Address::Parse(ip, 0));
    }
    /// PTR queries for name (e.g. "7.2.0.192.in-addr.arpa") get target
    void addPtr(const std::string& name, const std::string& target)
    {
        std::lock_guard<std::mutex> lock(mutex_);
        records_[Lower(name)].ptr = target;
    }
    /// queries for name get no answer at all
    void silence(const std::string& name)
    {
        std::lock_guard<std::mutex> lock(mutex_);
        records_[Lower(name)].isSilent = true;
    }
    /// UDP answers for name are empty and truncated (TC), so the client uses TCP
    void truncate(const std::string& name)
    {
        std::lock_guard<std::mutex> lock(mutex_);
        records_[Lower(name)].isTruncated = true;
    }
    /// answers for name (over UDP and TCP) are sent after delay
    void delay(const std::string& name, Milliseconds delay)
    {
        std::lock_guard<std::mutex> lock(mutex_);
        records_[Lower(name)].delay = delay;
    }
    /// TCP answers are held until this many are ready on one connection and
    /// then sent with one send(): they reach the client as one segment
    void holdTcpAnswers(size_t count) { tcpHold_ = count; }

    /// queries received (UDP and TCP)
    size_t queries() const { return queries_; }
    /// queries received over TCP
    size_t tcpQueries() const { return tcpQueries_; }
    /// the lowercase names asked so far, in order
    std::vector<std::string> askedNames() const
    {
        std::lock_guard<std::mutex> lock(mutex_);
        return asked_;
    }

private:
    /// UDP on a free port of address, then TCP on the same one; on failure
    /// nothing is open
    void bindBoth(const Comm::Address& address)
    {
        udp_.reset(::socket(address.family(), SOCK_DGRAM | SOCK_CLOEXEC, 0));
        if (::bind(udp_.get(), address.raw(), address.length()) != 0) {
            udp_.reset();
            return;
        }
        sockaddr_storage ss;
        socklen_t len = sizeof(ss);
        ::getsockname(udp_.get(), reinterpret_cast<sockaddr*>(&ss), &len);
        local_ = Comm::Address::FromSockaddr(reinterpret_cast<sockaddr*>(&ss), len);
        tcp_.reset(::socket(address.family(), SOCK_STREAM | SOCK_CLOEXEC, 0));
        const int on = 1;
        ::setsockopt(tcp_.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
        if (::bind(tcp_.get(), local_.raw(), local_.length()) != 0 || ::listen(tcp_.get(), 16) != 0) {
            tcp_.reset();
            udp_.reset();
        }
    }

    struct Record {
        std::vector<Comm::Address> addresses;
        std::string ptr; ///< the PTR record's name; empty: none
        bool isSilent = false;
        bool isTruncated = false;
        Milliseconds delay{0};
    };
    struct Connection {
        Comm::Descriptor fd;
        std::string in;       ///< bytes of incomplete queries
        std::string held;     ///< answers held for holdTcpAnswers()
        size_t heldCount = 0; ///< answers in held
    };
    struct Delayed {
        Clock::time_point due;
        int connection; ///< the TCP connection's fd, or -1 for UDP
        sockaddr_storage peer;
        socklen_t peerLength;
        std::string bytes;
    };

    /// the answer to one query, with its delay, or nothing (ignore it)
    std::optional<std::pair<std::string, Milliseconds>> answer(const std::string& q, bool overTcp)
    {
        if (q.size() < 12)
            return std::nullopt;
        size_t pos = 12;
        std::string name;
        while (pos < q.size() && q[pos] != 0) {
            const size_t n = static_cast<unsigned char>(q[pos]);
            if (n > 63 || pos + 1 + n > q.size())
                return std::nullopt;
            if (!name.empty())
                name += '.';
            name.append(q, pos + 1, n);
            pos += 1 + n;
        }
        if (pos + 5 > q.size())
            return std::nullopt;
        const unsigned qtype =
            (static_cast<unsigned char>(q[pos + 1]) << 8) | static_cast<unsigned char>(q[pos + 2]);
        const size_t questionEnd = pos + 5;
        name = Lower(name);

        std::lock_guard<std::mutex> lock(mutex_);
        ++queries_;
        if (overTcp)
            ++tcpQueries_;
        asked_.push_back(name);
        const auto found = records_.find(name);
        if (found != records_.end() && found->second.isSilent)
            return std::nullopt;

        unsigned flags =
            0x8000 | (((static_cast<unsigned char>(q[2]) << 8) | static_cast<unsigned char>(q[3])) & 0x7900);
        flags |= 0x0400 | 0x0080; // AA, RA
        std::string answers;
        unsigned count = 0;
        Milliseconds wait{0};
        if (found == records_.end()) {
            flags |= 3; // NXDOMAIN
        } else if (found->second.isTruncated && !overTcp) {
            flags |= 0x0200; // TC
        } else {
            wait = found->second.delay;
            if (qtype == 12 && !found->second.ptr.empty()) {
                std::string target; // RFC 1035 labels
                size_t start = 0;
                const std::string& ptr = found->second.ptr;
                while (start < ptr.size()) {
                    const size_t dot = std::min(ptr.find('.', start), ptr.size());
                    target += static_cast<char>(dot - start);
                    target.append(ptr, start, dot - start);
                    start = dot + 1;
                }
                target += '\0';
                answers += std::string("\xc0\x0c\x00\x0c\x00\x01\x00\x00\x00\x3c", 10); // PTR IN, TTL 60
                answers += static_cast<char>(target.size() >> 8);
                answers += static_cast<char>(target.size() & 0xff);
                answers += target;
                ++count;
            }
            for (const auto& a : found->second.addresses) {
                const bool v4 = a.family() == AF_INET;
                if ((qtype == 1 && !v4) || (qtype == 28 && v4))
                    continue;
                answers += std::string("\xc0\x0c", 2);
                answers += v4 ? std::string("\x00\x01", 2) : std::string("\x00\x1c", 2);
                answers += std::string("\x00\x01\x00\x00\x00\x3c", 6); // IN, TTL 60
                if (v4) {
                    answers += std::string("\x00\x04", 2);
                    answers.append(reinterpret_cast<const char*>(
                                       &reinterpret_cast<const sockaddr_in*>(a.raw())->sin_addr),
                                   4);
                } else {
                    answers += std::string("\x00\x10", 2);
                    answers.append(reinterpret_cast<const char*>(
                                       &reinterpret_cast<const sockaddr_in6*>(a.raw())->sin6_addr),
                                   16);
                }
                ++count;
            }
        }
        std::string reply = q.substr(0, 2);
        reply += static_cast<char>(flags >> 8);
        reply += static_cast<char>(flags & 0xff);
        reply += std::string("\x00\x01", 2);
        reply += static_cast<char>(count >> 8);
        reply += static_cast<char>(count & 0xff);
        reply += std::string(4, '\0');
        reply.append(q, 12, questionEnd - 12);
        reply += answers;
        return std::make_pair(reply, wait);
    }

    void sendTcp(Connection& c, const std::string& reply)
    {
        std::string framed;
        framed += static_cast<char>(reply.size() >> 8);
        framed += static_cast<char>(reply.size() & 0xff);
        framed += reply;
        c.held += framed;
        if (++c.heldCount >= tcpHold_) {
            (void)!::send(c.fd.get(), c.held.data(), c.held.size(), MSG_NOSIGNAL);
            c.held.clear();
            c.heldCount = 0;
        }
    }

    void run()
    {
        std::map<int, Connection> connections;
        std::vector<Delayed> delayed;
        for (;;) {
            std::vector<pollfd> fds = {
                {stopRead_.get(), POLLIN, 0}, {udp_.get(), POLLIN, 0}, {tcp_.get(), POLLIN, 0}};
            for (const auto& [fd, c] : connections)
                fds.push_back({fd, POLLIN, 0});
            int wait = 50;
            const auto now = Clock::now();
            for (const auto& d : delayed)
                wait = std::min<int>(wait,
                                     std::max<int>(0, std::chrono::ceil<Milliseconds>(d.due - now).count()));
            ::poll(fds.data(), fds.size(), wait);
            if (fds[0].revents)
                return;

            const auto later = Clock::now();
            for (auto d = delayed.begin(); d != delayed.end();) {
                if (d->due > later) {
                    ++d;
                    continue;
                }
                if (d->connection < 0)
                    ::sendto(udp_.get(), d->bytes.data(), d->bytes.size(), 0,
                             reinterpret_cast<sockaddr*>(&d->peer), d->peerLength);
                else if (const auto c = connections.find(d->connection); c != connections.end())
                    sendTcp(c->second, d->bytes);
                d = delayed.erase(d);
            }

            if (fds[1].revents & POLLIN) {
                char buf[4096];
                sockaddr_storage peer;
                socklen_t len = sizeof(peer);
                const ssize_t n = ::recvfrom(udp_.get(), buf, sizeof(buf), MSG_DONTWAIT,
                                             reinterpret_cast<sockaddr*>(&peer), &len);
                if (n > 0) {
                    if (const auto reply = answer(std::string(buf, n), false)) {
                        Delayed d{Clock::now() + reply->second, -1, peer, len, reply->first};
                        if (reply->second.count() == 0)
                            ::sendto(udp_.get(), d.bytes.data(), d.bytes.size(), 0,
                                     reinterpret_cast<sockaddr*>(&peer), len);
                        else
                            delayed.push_back(d);
                    }
                }
            }
            if (fds[2].revents & POLLIN) {
                const int fd = ::accept4(tcp_.get(), nullptr, nullptr, SOCK_CLOEXEC);
                if (fd >= 0)
                    connections[fd].fd.reset(fd);
            }
            for (size_t i = 3; i < fds.size(); ++i) {
                if (!fds[i].revents)
                    continue;
                Connection& c = connections[fds[i].fd];
                char buf[4096];
                const ssize_t n = ::recv(c.fd.get(), buf, sizeof(buf), MSG_DONTWAIT);
                if (n <= 0) {
                    connections.erase(fds[i].fd);
                    continue;
                }
                c.in.append(buf, n);
                while (c.in.size() >= 2) {
                    const size_t length =
                        (static_cast<unsigned char>(c.in[0]) << 8) | static_cast<unsigned char>(c.in[1]);
                    if (c.in.size() < 2 + length)
                        break;
                    const std::string q = c.in.substr(2, length);
                    c.in.erase(0, 2 + length);
                    if (const auto reply = answer(q, true)) {
                        if (reply->second.count() == 0)
                            sendTcp(c, reply->first);
                        else
                            delayed.push_back(
                                Delayed{Clock::now() + reply->second, fds[i].fd, {}, 0, reply->first});
                    }
                }
            }
        }
    }

    Comm::Address local_;
    Comm::Descriptor udp_;
    Comm::Descriptor tcp_;
    Comm::Descriptor stopRead_;
    Comm::Descriptor stopWrite_;
    mutable std::mutex mutex_;
    std::map<std::string, Record> records_;
    std::vector<std::string> asked_;
    std::atomic<size_t> queries_{0};
    std::atomic<size_t> tcpQueries_{0};
    std::atomic<size_t> tcpHold_{1};
    std::thread thread_; ///< last: started when everything else is ready
};

/// runs the loop until done() or the limit; returns done()
template <class Done>
bool RunUntil(Comm::Loop& loop, Done done, Milliseconds limit = Milliseconds(5000))
{
    const auto deadline = Clock::now() + limit;
    while (!done()) {
        if (Clock::now() >= deadline)
            return false;
        loop.runOnce(Milliseconds(10));
    }
    return true;
}

/// runs the loop for that long
void RunFor(Comm::Loop& loop, Milliseconds span)
{
    const auto deadline = Clock::now() + span;
    while (Clock::now() < deadline)
        loop.runOnce(Milliseconds(5));
}

/// options that ask only dns (never /etc/resolv.conf) and ignore /etc/hosts;
/// no address cache, so that each lookup of a name asks dns (the cache's
/// own tests turn it on)
Comm::Resolver::Options OptionsFor(const FakeDns& dns, Milliseconds timeout = Milliseconds(5000))
{
    Comm::Resolver::Options o;
    o.nameservers = {dns.nameserver()};
    o.hostsFile = "none";
    o.timeout = timeout;
    o.addressCacheSize = 0;
    return o;
}

/// the answer's addresses as "host" strings, sorted
std::vector<std::string> Hosts(const Comm::Resolver::Answer& a)
{
    std::vector<std::string> out;
    for (const auto& address : a.addresses)
        out.push_back(address.host());
    std::sort(out.begin(), out.end());
    return out;
}

/// collects one lookup's answer
struct Result {
    int calls = 0;
    Comm::Resolver::Answer answer;
    Clock::time_point when;
    Comm::Resolver::Callback callback()
    {
        return [this](const Comm::Resolver::Answer& a) {
            ++calls;
            answer = a;
            when = Clock::now();
        };
    }
};

/// a temporary file with the given text, removed when it goes
class TempFile {
public:
    explicit TempFile(const std::string& text)
    {
        char name[] = "/tmp/cuttle-test-hosts-XXXXXX";
        const int fd = ::mkstemp(name);
        CPPUNIT_ASSERT(fd >= 0);
        CPPUNIT_ASSERT_EQUAL(static_cast<ssize_t>(text.size()), ::write(fd, text.data(), text.size()));
        ::close(fd);
        path_ = name;
    }
    ~TempFile() { ::unlink(path_.c_str()); }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

} // namespace

void TestResolver::nameResolvesToIpv4AndIpv6()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    dns.add("www.example.test", "192.0.2.10");
    dns.add("www.example.test", "2001:db8::10");
    Comm::Loop loop;
    Comm::Resolver resolver(loop, OptionsFor(dns));
    Result r;
    auto lookup = resolver.resolve("WWW.Example.Test", 8080, r.callback());
    CPPUNIT_ASSERT(lookup.isPending());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return r.calls > 0; }));
    CPPUNIT_ASSERT_EQUAL(1, r.calls);
    CPPUNIT_ASSERT_EQUAL(std::string(), r.answer.error);
    CPPUNIT_ASSERT(!r.answer.isNotFound);
    CPPUNIT_ASSERT((std::vector<std::string>{"192.0.2.10", "2001:db8::10"}) == Hosts(r.answer));
    for (const auto& a : r.answer.addresses)
        CPPUNIT_ASSERT_EQUAL(uint16_t(8080), a.port());
    CPPUNIT_ASSERT(!lookup.isPending());
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), resolver.stats().fromDns);
    CPPUNIT_ASSERT_EQUAL(size_t(0), resolver.pendingLookups());
    // one A and one AAAA query, nothing else
    CPPUNIT_ASSERT_EQUAL(size_t(2), dns.queries());
}

void TestResolver::unknownNameIsNotFound()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    Comm::Loop loop;
    Comm::Resolver resolver(loop, OptionsFor(dns));
    Result r;
    auto lookup = resolver.resolve("nowhere.test", 80, r.callback());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return r.calls > 0; }));
    CPPUNIT_ASSERT(r.answer.isNotFound);
    CPPUNIT_ASSERT(r.answer.addresses.empty());
    CPPUNIT_ASSERT_EQUAL(std::string("Name not found"), r.answer.error);
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), resolver.stats().notFound);
}

void TestResolver::nameWithoutAddressesIsNotFound()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    dns.add("empty.test", ""); // exists, no A and no AAAA (NODATA)
    dns.add("v4only.test", "192.0.2.4");
    Comm::Loop loop;
    Comm::Resolver resolver(loop, OptionsFor(dns));
    Result empty, v4only;
    auto l1 = resolver.resolve("empty.test", 80, empty.callback());
    auto l2 = resolver.resolve("v4only.test", 80, v4only.callback());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return empty.calls && v4only.calls; }));
    CPPUNIT_ASSERT(empty.answer.isNotFound);
    CPPUNIT_ASSERT(!empty.answer.error.empty());
    // an AAAA query answered NOERROR with no record does not spoil the A record
    CPPUNIT_ASSERT((std::vector<std::string>{"192.0.2.4"}) == Hosts(v4only.answer));
}

void TestResolver::silentServerTimesOut()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    dns.silence("quiet.test");
    Comm::Loop loop;
    Comm::Resolver resolver(loop, OptionsFor(dns, Milliseconds(300)));
    Result r;
    const auto start = Clock::now();
    auto lookup = resolver.resolve("quiet.test", 80, r.callback());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return r.calls > 0; }));
    const auto took = std::chrono::duration_cast<Milliseconds>(r.when - start).count();
    CPPUNIT_ASSERT_MESSAGE(std::to_string(took) + " ms", took >= 250 && took < 3000);
    CPPUNIT_ASSERT_EQUAL(std::string("DNS server timed out"), r.answer.error);
    CPPUNIT_ASSERT(!r.answer.isNotFound);
    CPPUNIT_ASSERT(r.answer.addresses.empty());
    CPPUNIT_ASSERT(dns.queries() >= 2); // it was asked (and retried)
    // c-ares gives up too, and closes its socket
    CPPUNIT_ASSERT(
        RunUntil(loop, [&] { return resolver.queriesInFlight() == 0 && resolver.watchedSockets() == 0; }));
}

void TestResolver::unreachableServerFails()
{
    // a port nobody listens on: the kernel answers with ICMP port unreachable,
    // which c-ares may see on a recv() or on its next send(); either way the
    // lookup fails, at the latest when its own deadline comes
    uint16_t port = 0;
    {
        FakeDns gone;
        CPPUNIT_ASSERT(gone.isListening());
        port = gone.port();
    }
    Comm::Loop loop;
    Comm::Resolver::Options o;
    o.nameservers = {"127.0.0.1:" + std::to_string(port)};
    o.hostsFile = "none";
    o.timeout = Milliseconds(2000);
    Comm::Resolver resolver(loop, o);
    Result r;
    const auto start = Clock::now();
    auto lookup = resolver.resolve("refused.test", 80, r.callback());
    CPPUNIT_ASSERT(RunUntil(
        loop, [&] { return r.calls > 0; }, Milliseconds(10000)));
    const auto took = std::chrono::duration_cast<Milliseconds>(r.when - start).count();
    CPPUNIT_ASSERT_MESSAGE(std::to_string(took) + " ms", took < 3000);
    CPPUNIT_ASSERT(!r.answer.isNotFound);
    CPPUNIT_ASSERT(!r.answer.error.empty());
    CPPUNIT_ASSERT(r.answer.addresses.empty());
}

void TestResolver::callbackNeverRunsInsideResolve()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    dns.add("www.example.test", "192.0.2.10");
    TempFile hosts("192.0.2.7 alpha\n");
    Comm::Loop loop;
    auto o = OptionsFor(dns);
    o.hostsFile = hosts.path();
    Comm::Resolver resolver(loop, o);
    // every kind of answer: literal, hosts_file, DNS, a failure known at once
    // (an empty name), and one that c-ares itself answers synchronously (.onion)
    const std::vector<std::string> names = {"127.0.0.1",        "[::1]", "alpha",
                                            "www.example.test", "",      "hidden.onion"};
    std::vector<Result> results(names.size());
    std::vector<Comm::Lookup> lookups;
    for (size_t i = 0; i < names.size(); ++i) {
        lookups.push_back(resolver.resolve(names[i], 80, results[i].callback()));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(names[i], 0, results[i].calls);
    }
    CPPUNIT_ASSERT(RunUntil(loop, [&] {
        return std::all_of(results.begin(), results.end(), [](const Result& r) { return r.calls > 0; });
    }));
    for (size_t i = 0; i < names.size(); ++i)
        CPPUNIT_ASSERT_EQUAL_MESSAGE(names[i], 1, results[i].calls);
    CPPUNIT_ASSERT_EQUAL(std::string("Empty host name"), results[4].answer.error);
    CPPUNIT_ASSERT(results[5].answer.addresses.empty());

    // a callback may start another lookup; that one is not answered inside it either
    Result inner;
    Comm::Lookup innerLookup;
    bool innerCalledInside = false;
    auto outer = resolver.resolve("alpha", 80, [&](const Comm::Resolver::Answer&) {
        innerLookup = resolver.resolve("alpha", 81, inner.callback());
        innerCalledInside = inner.calls != 0;
    });
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return inner.calls > 0; }));
    CPPUNIT_ASSERT(!innerCalledInside);
    CPPUNIT_ASSERT_EQUAL(uint16_t(81), inner.answer.addresses.at(0).port());
}

void TestResolver::destroyedLookupGetsNoCallback()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    dns.add("slow.test", "192.0.2.1");
    dns.delay("slow.test", Milliseconds(200));
    Comm::Loop loop;
    Comm::Resolver resolver(loop, OptionsFor(dns));
    int calls = 0;
    auto count = [&](const Comm::Resolver::Answer&) { ++calls; };
    {
        auto gone = resolver.resolve("slow.test", 80, count);    // DNS in flight
        auto literal = resolver.resolve("192.0.2.2", 80, count); // answer already known
    }
    auto cancelled = resolver.resolve("slow.test", 80, count);
    cancelled.cancel();
    CPPUNIT_ASSERT(!cancelled.isPending());
    auto moved = resolver.resolve("slow.test", 80, count);
    Comm::Lookup target = std::move(moved);
    target = Comm::Lookup(); // move-assigning over a handle cancels it
    CPPUNIT_ASSERT_EQUAL(size_t(0), resolver.pendingLookups());
    CPPUNIT_ASSERT_EQUAL(size_t(1), resolver.queriesInFlight()); // all shared one query

    // the answer comes and goes; c-ares closes its socket; nothing is called
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return resolver.queriesInFlight() == 0; }));
    RunFor(loop, Milliseconds(50));
    CPPUNIT_ASSERT_EQUAL(0, calls);
    CPPUNIT_ASSERT_EQUAL(size_t(0), resolver.watchedSockets());
    CPPUNIT_ASSERT_EQUAL(size_t(0), loop.pendingTimers());
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), loop.bugCount());
}

void TestResolver::destroyingResolverCancelsEverything()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    dns.add("slow.test", "192.0.2.1");
    dns.delay("slow.test", Milliseconds(100));
    Comm::Loop loop;
    int calls = 0;
    {
        Comm::Resolver resolver(loop, OptionsFor(dns));
        // handles cancelled first (a Lookup must not outlive its Resolver),
        // but c-ares still has the query in flight and a socket open
        resolver.resolve("slow.test", 80, [&](const Comm::Resolver::Answer&) { ++calls; });
        CPPUNIT_ASSERT(RunUntil(loop, [&] { return dns.queries() >= 2; }));
        CPPUNIT_ASSERT_EQUAL(size_t(1), resolver.queriesInFlight());
        CPPUNIT_ASSERT(resolver.watchedSockets() > 0);
        CPPUNIT_ASSERT(loop.pendingTimers() > 0);
    }
    // the socket was unwatched before c-ares closed it, the timers are gone,
    // and (under ASan) nothing leaked
    CPPUNIT_ASSERT_EQUAL(size_t(0), loop.pendingTimers());
    RunFor(loop, Milliseconds(200));
    CPPUNIT_ASSERT_EQUAL(0, calls);
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), loop.bugCount());
}

void TestResolver::hostsFileAnsweredWithoutDns()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    TempFile hosts("# a comment line\n"
                   "192.0.2.7\tAlpha.Example alpha   # trailing comment\n"
                   "::1 alpha.example\n"
                   "192.0.2.7 alpha.example\n" // repeated: listed once
                   "not-an-address beta\n"
                   "\n"
                   "   192.0.2.8 gamma\n");
    Comm::Loop loop;
    auto o = OptionsFor(dns);
    o.hostsFile = hosts.path();
    Comm::Resolver resolver(loop, o);
    CPPUNIT_ASSERT_EQUAL(size_t(3), resolver.hostsFileNames()); // alpha.example, alpha, gamma
    Result r, g, b;
    auto l1 = resolver.resolve("ALPHA.example.", 3128, r.callback());
    auto l2 = resolver.resolve("gamma", 80, g.callback());
    auto l3 = resolver.resolve("beta", 80, b.callback()); // the bad line gave nothing: DNS says NXDOMAIN
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return r.calls && g.calls && b.calls; }));
    CPPUNIT_ASSERT_EQUAL(size_t(2), r.answer.addresses.size());
    CPPUNIT_ASSERT_EQUAL(std::string("192.0.2.7"), r.answer.addresses[0].host()); // file order
    CPPUNIT_ASSERT_EQUAL(std::string("::1"), r.answer.addresses[1].host());
    CPPUNIT_ASSERT_EQUAL(uint16_t(3128), r.answer.addresses[1].port());
    CPPUNIT_ASSERT((std::vector<std::string>{"192.0.2.8"}) == Hosts(g.answer));
    CPPUNIT_ASSERT(b.answer.isNotFound);
    CPPUNIT_ASSERT_EQUAL(uint64_t(2), resolver.stats().fromHostsFile);
    // only "beta" was asked of DNS
    for (const auto& name : dns.askedNames())
        CPPUNIT_ASSERT_EQUAL(std::string("beta"), name);
}

void TestResolver::hostsFileParsing()
{
    const auto t = Comm::Resolver::ParseHosts("127.0.0.1 localhost\n"
                                              "::1 localhost ip6-localhost\n"
                                              "#10.0.0.1 commented\n"
                                              "10.0.0.2 # nothing after the address\n"
                                              "10.0.0.3\n"
                                              "[::2] bracketed\n"
                                              "fe80::1%eth0 scoped\n"
                                              "10.0.0.4 LastLine"); // no final newline
    CPPUNIT_ASSERT_EQUAL(size_t(3), t.byName.size());
    CPPUNIT_ASSERT_EQUAL(size_t(2), t.byName.at("localhost").size());
    CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), t.byName.at("localhost")[0].host());
    CPPUNIT_ASSERT_EQUAL(std::string("::1"), t.byName.at("localhost")[1].host());
    CPPUNIT_ASSERT_EQUAL(size_t(1), t.byName.at("ip6-localhost").size());
    CPPUNIT_ASSERT_EQUAL(std::string("10.0.0.4"), t.byName.at("lastline").at(0).host());
}

void TestResolver::unreadableHostsFileIsIgnored()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    Comm::Loop loop;
    for (const char* path : {"/nonexistent/hosts", "/tmp", "/dev/null", "none", ""}) {
        auto o = OptionsFor(dns);
        o.hostsFile = path;
        Comm::Resolver resolver(loop, o); // logs a warning, does not throw or block
        CPPUNIT_ASSERT_EQUAL_MESSAGE(path, size_t(0), resolver.hostsFileNames());
    }
}

void TestResolver::ipLiteralsAnsweredWithoutDns()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    Comm::Loop loop;
    Comm::Resolver resolver(loop, OptionsFor(dns));
    Result v4, v6, bracketed;
    auto l1 = resolver.resolve("127.0.0.1", 1, v4.callback());
    auto l2 = resolver.resolve("::1", 2, v6.callback());
    auto l3 = resolver.resolve("[2001:db8::1]", 3, bracketed.callback());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return v4.calls && v6.calls && bracketed.calls; }));
    CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1:1"), v4.answer.addresses.at(0).toString());
    CPPUNIT_ASSERT_EQUAL(std::string("[::1]:2"), v6.answer.addresses.at(0).toString());
    CPPUNIT_ASSERT_EQUAL(std::string("[2001:db8::1]:3"), bracketed.answer.addresses.at(0).toString());
    CPPUNIT_ASSERT_EQUAL(size_t(1), bracketed.answer.addresses.size());
    CPPUNIT_ASSERT_EQUAL(uint64_t(3), resolver.stats().literals);
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), resolver.stats().dnsQueries);
    RunFor(loop, Milliseconds(20));
    CPPUNIT_ASSERT_EQUAL(size_t(0), dns.queries());
}

void TestResolver::manyLookupsAtOnce()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    constexpr int Names = 60;
    constexpr int PerName = 4;
    for (int i = 0; i < Names; ++i) {
        dns.add("h" + std::to_string(i) + ".test", "192.0.2." + std::to_string(i));
        dns.add("h" + std::to_string(i) + ".test", "2001:db8::" + std::to_string(i + 1));
    }
    Comm::Loop loop;
    Comm::Resolver resolver(loop, OptionsFor(dns));
    std::vector<Result> results(Names * PerName);
    std::vector<Comm::Lookup> lookups;
    for (int k = 0; k < PerName; ++k) {
        for (int i = 0; i < Names; ++i)
            lookups.push_back(
                resolver.resolve("h" + std::to_string(i) + ".test", 80, results[k * Names + i].callback()));
    }
    CPPUNIT_ASSERT(RunUntil(loop, [&] {
        return std::all_of(results.begin(), results.end(), [](const Result& r) { return r.calls > 0; });
    }));
    for (int k = 0; k < PerName; ++k) {
        for (int i = 0; i < Names; ++i) {
            const auto& r = results[k * Names + i];
            CPPUNIT_ASSERT_EQUAL(1, r.calls);
            CPPUNIT_ASSERT_EQUAL(r.answer.error, std::string());
            CPPUNIT_ASSERT((std::vector<std::string>{"192.0.2." + std::to_string(i),
                                                     "2001:db8::" + std::to_string(i + 1)}) ==
                           Hosts(r.answer));
        }
    }
    // lookups of a name in flight share its query
    CPPUNIT_ASSERT_EQUAL(uint64_t(Names), resolver.stats().dnsQueries);
    CPPUNIT_ASSERT_EQUAL(uint64_t(Names * PerName), resolver.stats().fromDns);
    CPPUNIT_ASSERT_EQUAL(size_t(2 * Names), dns.queries());
}

void TestResolver::onlyTheAskedNameIsQueried()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    Comm::Loop loop;
    Comm::Resolver resolver(loop, OptionsFor(dns));
    Result r;
    // no dots: a resolver with search domains from /etc/resolv.conf would try
    // bare.<domain> first; Squid (dns_defnames off) and cuttle do not
    auto lookup = resolver.resolve("bare", 80, r.callback());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return r.calls > 0; }));
    CPPUNIT_ASSERT(r.answer.isNotFound);
    const auto asked = dns.askedNames();
    CPPUNIT_ASSERT_EQUAL(size_t(2), asked.size());
    for (const auto& name : asked)
        CPPUNIT_ASSERT_EQUAL(std::string("bare"), name);
}

void TestResolver::tcpAnswersArrivingTogetherAreAllRead()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    dns.add("big.test", "192.0.2.20");
    dns.add("big.test", "2001:db8::20");
    dns.truncate("big.test");
    dns.holdTcpAnswers(2);
    Comm::Loop loop;
    // c-ares's first try waits 60 s / 7: a stalled TCP answer would show
    Comm::Resolver resolver(loop, OptionsFor(dns, Milliseconds(60000)));
    Result r;
    const auto start = Clock::now();
    auto lookup = resolver.resolve("big.test", 80, r.callback());
    const auto answered = [&] { return r.calls > 0; };
    CPPUNIT_ASSERT(RunUntil(loop, answered, Milliseconds(30000)));
    const auto took = std::chrono::duration_cast<Milliseconds>(r.when - start).count();
    // both answers (two length-prefixed messages) came in one segment
    CPPUNIT_ASSERT_EQUAL(size_t(2), dns.tcpQueries());
    CPPUNIT_ASSERT_MESSAGE(std::to_string(took) + " ms", took < 4000);
    CPPUNIT_ASSERT((std::vector<std::string>{"192.0.2.20", "2001:db8::20"}) == Hosts(r.answer));
}

void TestResolver::queryQueuedOnIdleTcpConnectionIsSent()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    dns.add("first.test", "192.0.2.31");
    dns.truncate("first.test");
    dns.delay("first.test", Milliseconds(6000));
    dns.add("second.test", "192.0.2.32");
    dns.truncate("second.test");
    Comm::Loop loop;
    Comm::Resolver resolver(loop, OptionsFor(dns, Milliseconds(60000)));
    Result first, second;
    auto l1 = resolver.resolve("first.test", 80, first.callback());
    // the TCP connection is up and its queue written: c-ares wants only to read
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return dns.tcpQueries() >= 2; }));
    RunFor(loop, Milliseconds(50));
    // c-ares queues second.test's TCP queries on that idle, writable socket:
    // no new writable edge comes, so the resolver must try the write itself
    const auto start = Clock::now();
    auto l2 = resolver.resolve("second.test", 80, second.callback());
    const auto answered = [&] { return second.calls > 0; };
    CPPUNIT_ASSERT(RunUntil(loop, answered, Milliseconds(30000)));
    const auto took = std::chrono::duration_cast<Milliseconds>(second.when - start).count();
    // without that attempt the query would wait for first.test's answer
    // (whose arrival brings an event) or for c-ares's retry (60 s / 7)
    CPPUNIT_ASSERT_MESSAGE(std::to_string(took) + " ms", took < 4000);
    CPPUNIT_ASSERT_EQUAL(0, first.calls);
    CPPUNIT_ASSERT((std::vector<std::string>{"192.0.2.32"}) == Hosts(second.answer));
}

void TestResolver::manyTcpAnswersArrivingTogetherAreAllRead()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    // 50 names, 100 TCP answers sent with one send(): more pieces than one
    // readable event may process at once, so the rest must follow by itself
    constexpr int Names = 50;
    for (int i = 0; i < Names; ++i) {
        const std::string name = "t" + std::to_string(i) + ".test";
        dns.add(name, "192.0.2." + std::to_string(i));
        dns.truncate(name);
    }
    dns.holdTcpAnswers(2 * Names);
    Comm::Loop loop;
    Comm::Resolver resolver(loop, OptionsFor(dns, Milliseconds(60000)));
    std::vector<Result> results(Names);
    std::vector<Comm::Lookup> lookups;
    for (int i = 0; i < Names; ++i)
        lookups.push_back(resolver.resolve("t" + std::to_string(i) + ".test", 80, results[i].callback()));
    const auto start = Clock::now();
    const auto answered = [&] {
        return std::all_of(results.begin(), results.end(), [](const Result& r) { return r.calls > 0; });
    };
    CPPUNIT_ASSERT(RunUntil(loop, answered, Milliseconds(30000)));
    const auto took = std::chrono::duration_cast<Milliseconds>(Clock::now() - start).count();
    CPPUNIT_ASSERT_MESSAGE(std::to_string(took) + " ms", took < 4000);
    CPPUNIT_ASSERT_EQUAL(size_t(2 * Names), dns.tcpQueries());
    for (int i = 0; i < Names; ++i)
        CPPUNIT_ASSERT((std::vector<std::string>{"192.0.2." + std::to_string(i)}) ==
                       Hosts(results[i].answer));
}

void TestResolver::ipv6NameserverWithPort()
{
    FakeDns dns("::1");
    if (!dns.isListening())
        return; // no IPv6 loopback here
    CPPUNIT_ASSERT_EQUAL(std::string("[::1]:") + std::to_string(dns.port()), dns.nameserver());
    dns.add("six.test", "2001:db8::6");
    Comm::Loop loop;
    Comm::Resolver resolver(loop, OptionsFor(dns));
    Result r;
    auto lookup = resolver.resolve("six.test", 443, r.callback());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return r.calls > 0; }));
    CPPUNIT_ASSERT_EQUAL(std::string("[2001:db8::6]:443"), r.answer.addresses.at(0).toString());
}

void TestResolver::reconfigureAsksTheNewServers()
{
    FakeDns oldDns, newDns;
    CPPUNIT_ASSERT(oldDns.isListening() && newDns.isListening());
    oldDns.silence("moving.test");
    newDns.add("moving.test", "192.0.2.55");
    Comm::Loop loop;
    Comm::Resolver resolver(loop, OptionsFor(oldDns));
    Result moving;
    auto l1 = resolver.resolve("moving.test", 80, moving.callback());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return oldDns.queries() >= 2; }));

    TempFile hosts("192.0.2.66 added\n");
    auto o = OptionsFor(newDns);
    o.hostsFile = hosts.path();
    resolver.reconfigure(o);
    CPPUNIT_ASSERT_EQUAL(0, moving.calls); // never inside reconfigure() either
    Result added;
    auto l2 = resolver.resolve("added", 80, added.callback());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return moving.calls && added.calls; }));
    CPPUNIT_ASSERT((std::vector<std::string>{"192.0.2.55"}) == Hosts(moving.answer));
    CPPUNIT_ASSERT((std::vector<std::string>{"192.0.2.66"}) == Hosts(added.answer));
    CPPUNIT_ASSERT(
        RunUntil(loop, [&] { return resolver.queriesInFlight() == 0 && resolver.watchedSockets() == 0; }));

    // a bad reconfigure keeps the old options
    o.nameservers = {"dns.example"};
    CPPUNIT_ASSERT_THROW(resolver.reconfigure(o), TextException);
    Result still;
    auto l3 = resolver.resolve("added", 80, still.callback());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return still.calls > 0; }));
    CPPUNIT_ASSERT((std::vector<std::string>{"192.0.2.66"}) == Hosts(still.answer));
}

void TestResolver::badNameserversAreRefused()
{
    Comm::Loop loop;
    for (const char* bad : {"dns.example", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:5x",
                            "[::1", "[::1]5353", "[::1]:", "", "[]:53"}) {
        Comm::Resolver::Options o;
        o.nameservers = {bad};
        o.hostsFile = "none";
        CPPUNIT_ASSERT_THROW_MESSAGE(bad, Comm::Resolver(loop, o), TextException);
    }
    // good ones start (nothing is sent until a name is asked)
    for (const char* good : {"127.0.0.1", "127.0.0.1:5353", "::1", "[::1]", "[::1]:5353"}) {
        Comm::Resolver::Options o;
        o.nameservers = {good};
        o.hostsFile = "none";
        Comm::Resolver resolver(loop, o);
        CPPUNIT_ASSERT_EQUAL(size_t(0), resolver.watchedSockets());
    }
}

void TestResolver::addressNamesFromDns()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    dns.addPtr("7.2.0.192.in-addr.arpa", "Host.Example.Test");
    dns.addPtr("1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa",
               "six.example.test");
    Comm::Loop loop;
    Comm::Resolver resolver(loop, OptionsFor(dns));
    Result r, again, six;
    // a peek that finds nothing (the acl lookups' first look) is not a request
    CPPUNIT_ASSERT(!resolver.knownNames(*Comm::Address::Parse("192.0.2.7", 0)));
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), resolver.stats().addressLookups);
    auto l1 = resolver.resolveAddress(*Comm::Address::Parse("192.0.2.7", 3128), r.callback());
    auto l2 = resolver.resolveAddress(*Comm::Address::Parse("2001:db8::1", 0), six.callback());
    CPPUNIT_ASSERT(l1.isPending());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return r.calls && six.calls; }));
    CPPUNIT_ASSERT_EQUAL(std::string(), r.answer.error);
    CPPUNIT_ASSERT((std::vector<std::string>{"Host.Example.Test"}) == r.answer.names);
    CPPUNIT_ASSERT((std::vector<std::string>{"192.0.2.7"}) == Hosts(r.answer));
    CPPUNIT_ASSERT((std::vector<std::string>{"six.example.test"}) == six.answer.names);
    CPPUNIT_ASSERT_EQUAL(size_t(2), dns.queries());
    // asked again: the name cache answers, DNS is not asked
    auto l3 = resolver.resolveAddress(*Comm::Address::Parse("192.0.2.7", 0), again.callback());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return again.calls > 0; }));
    CPPUNIT_ASSERT((std::vector<std::string>{"Host.Example.Test"}) == again.answer.names);
    CPPUNIT_ASSERT_EQUAL(size_t(2), dns.queries());
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), resolver.stats().nameCacheHits);
    CPPUNIT_ASSERT_EQUAL(uint64_t(3), resolver.stats().addressLookups);
}

void TestResolver::addressNamesFromHostsFile()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    TempFile hosts("192.0.2.8 First.Example alias\n"
                   "192.0.2.8 second.example\n" // not the first line of 192.0.2.8: not its names
                   "::1 localhost6\n");
    Comm::Loop loop;
    auto o = OptionsFor(dns);
    o.hostsFile = hosts.path();
    Comm::Resolver resolver(loop, o);
    Result r, six;
    auto l1 = resolver.resolveAddress(*Comm::Address::Parse("192.0.2.8", 0), r.callback());
    auto l2 = resolver.resolveAddress(*Comm::Address::Parse("::1", 0), six.callback());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return r.calls && six.calls; }));
    CPPUNIT_ASSERT((std::vector<std::string>{"First.Example", "alias"}) == r.answer.names);
    CPPUNIT_ASSERT((std::vector<std::string>{"localhost6"}) == six.answer.names);
    CPPUNIT_ASSERT_EQUAL(size_t(0), dns.queries());
}

void TestResolver::addressWithoutNameIsCachedBriefly()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    Comm::Loop loop;
    auto o = OptionsFor(dns);
    o.negativeTtl = Milliseconds(200);
    Comm::Resolver resolver(loop, o);
    const auto address = *Comm::Address::Parse("192.0.2.9", 0);
    Result first, cached, later;
    auto l1 = resolver.resolveAddress(address, first.callback());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return first.calls > 0; }));
    CPPUNIT_ASSERT(first.answer.isNotFound);
    CPPUNIT_ASSERT(first.answer.names.empty());
    CPPUNIT_ASSERT_EQUAL(size_t(1), dns.queries());
    auto l2 = resolver.resolveAddress(address, cached.callback());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return cached.calls > 0; }));
    CPPUNIT_ASSERT(cached.answer.isNotFound);
    CPPUNIT_ASSERT_EQUAL(size_t(1), dns.queries()); // negative_dns_ttl keeps the failure
    RunFor(loop, Milliseconds(300));
    auto l3 = resolver.resolveAddress(address, later.callback());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return later.calls > 0; }));
    CPPUNIT_ASSERT_EQUAL(size_t(2), dns.queries()); // expired: asked again
}

void TestResolver::nameCacheIsBounded()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    Comm::Loop loop;
    auto o = OptionsFor(dns);
    o.nameCacheSize = 2;
    Comm::Resolver resolver(loop, o);
    for (const char* ip : {"192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4"}) {
        Result r;
        auto l = resolver.resolveAddress(*Comm::Address::Parse(ip, 0), r.callback());
        CPPUNIT_ASSERT(RunUntil(loop, [&] { return r.calls > 0; }));
        CPPUNIT_ASSERT(resolver.cachedNames() <= 2);
    }
    CPPUNIT_ASSERT_EQUAL(size_t(2), resolver.cachedNames());
    o.nameCacheSize = 0; // fqdncache_size 0: nothing is kept
    resolver.reconfigure(o);
    Result r;
    auto l = resolver.resolveAddress(*Comm::Address::Parse("192.0.2.5", 0), r.callback());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return r.calls > 0; }));
    CPPUNIT_ASSERT_EQUAL(size_t(0), resolver.cachedNames());
}

void TestResolver::addressesAreKeptTheirTtlCapped()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    dns.add("kept.test", "192.0.2.1");
    dns.add("kept.test", "2001:db8::1");
    Comm::Loop loop;
    auto o = OptionsFor(dns);
    o.addressCacheSize = 16;
    o.positiveTtl = Milliseconds(300); // below the records' TTL of 60 s: it decides
    o.negativeTtl = Milliseconds(100);
    Comm::Resolver resolver(loop, o);
    Result first, cached, later;
    auto l1 = resolver.resolve("kept.test", 80, first.callback());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return first.calls > 0; }));
    const size_t asked = dns.queries(); // A and AAAA
    CPPUNIT_ASSERT(asked >= 1);
    auto l2 = resolver.resolve("KEPT.test", 8080, cached.callback());
    CPPUNIT_ASSERT_EQUAL(0, cached.calls); // never inside resolve(), even from the cache
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return cached.calls > 0; }));
    CPPUNIT_ASSERT_EQUAL(asked, dns.queries()); // a hit costs no query
    CPPUNIT_ASSERT(Hosts(first.answer) == Hosts(cached.answer));
    CPPUNIT_ASSERT_EQUAL(size_t(2), cached.answer.addresses.size());
    for (const auto& a : cached.answer.addresses)
        CPPUNIT_ASSERT_EQUAL(uint16_t(8080), a.port()); // the port of this lookup
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), resolver.stats().addressCacheHits);
    size_t listed = 0;
    resolver.forEachCachedAddress([&](const std::string& name, const std::vector<Comm::Address>& addresses,
                                      const std::string&, Milliseconds left) {
        ++listed;
        CPPUNIT_ASSERT_EQUAL(std::string("kept.test"), name);
        CPPUNIT_ASSERT_EQUAL(size_t(2), addresses.size());
        CPPUNIT_ASSERT(left <= Milliseconds(300));
    });
    CPPUNIT_ASSERT_EQUAL(size_t(1), listed);
    RunFor(loop, Milliseconds(400));
    auto l3 = resolver.resolve("kept.test", 80, later.callback());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return later.calls > 0; }));
    CPPUNIT_ASSERT(dns.queries() > asked); // positive_dns_ttl passed: asked again
}

/// workers N: two loops' resolvers on one DnsCache; what one asked DNS
/// (addresses, and an address's names) the other answers from the cache,
/// and a reconfigure of either empties it for both
void TestResolver::resolversSharingACacheShareAnswers()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    dns.add("shared.test", "192.0.2.7");
    dns.addPtr("9.2.0.192.in-addr.arpa", "nine.test");
    auto o = OptionsFor(dns);
    o.addressCacheSize = 16; // OptionsFor() keeps no addresses
    const auto cache = std::make_shared<Comm::DnsCache>();
    Comm::Loop loop1, loop2;
    Comm::Resolver one(loop1, o, cache), two(loop2, o, cache);
    Result first, second, names1, names2;
    auto l1 = one.resolve("shared.test", 80, first.callback());
    CPPUNIT_ASSERT(RunUntil(loop1, [&] { return first.calls > 0; }));
    auto n1 = one.resolveAddress(*Comm::Address::Parse("192.0.2.9", 0), names1.callback());
    CPPUNIT_ASSERT(RunUntil(loop1, [&] { return names1.calls > 0; }));
    const size_t asked = dns.queries();
    auto l2 = two.resolve("shared.test", 443, second.callback());
    CPPUNIT_ASSERT(RunUntil(loop2, [&] { return second.calls > 0; }));
    auto n2 = two.resolveAddress(*Comm::Address::Parse("192.0.2.9", 0), names2.callback());
    CPPUNIT_ASSERT(RunUntil(loop2, [&] { return names2.calls > 0; }));
    CPPUNIT_ASSERT_EQUAL(asked, dns.queries());
    CPPUNIT_ASSERT(Hosts(first.answer) == Hosts(second.answer));
    CPPUNIT_ASSERT_EQUAL(uint16_t(443), second.answer.addresses.at(0).port());
    CPPUNIT_ASSERT(names2.answer.names == std::vector<std::string>{"nine.test"});
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), two.stats().addressCacheHits);
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), two.stats().nameCacheHits);
    CPPUNIT_ASSERT_EQUAL(size_t(1), one.cachedAddresses());
    CPPUNIT_ASSERT_EQUAL(size_t(1), one.cachedNames());
    two.reconfigure(o);
    CPPUNIT_ASSERT_EQUAL(size_t(0), one.cachedAddresses());
    CPPUNIT_ASSERT_EQUAL(size_t(0), one.cachedNames());
}

void TestResolver::nameNotFoundIsKeptNegativeTtl()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    Comm::Loop loop;
    auto o = OptionsFor(dns);
    o.addressCacheSize = 16;
    o.negativeTtl = Milliseconds(200);
    Comm::Resolver resolver(loop, o);
    Result first, cached, later;
    auto l1 = resolver.resolve("missing.test", 80, first.callback());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return first.calls > 0; }));
    CPPUNIT_ASSERT(first.answer.isNotFound);
    const size_t asked = dns.queries();
    CPPUNIT_ASSERT(asked >= 1);
    auto l2 = resolver.resolve("missing.test", 80, cached.callback());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return cached.calls > 0; }));
    CPPUNIT_ASSERT(cached.answer.isNotFound);
    CPPUNIT_ASSERT_EQUAL(first.answer.error, cached.answer.error);
    CPPUNIT_ASSERT_EQUAL(asked, dns.queries());
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), resolver.stats().negativeAddressHits);
    RunFor(loop, Milliseconds(300));
    auto l3 = resolver.resolve("missing.test", 80, later.callback());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return later.calls > 0; }));
    CPPUNIT_ASSERT(dns.queries() > asked); // negative_dns_ttl passed
}

void TestResolver::addressCacheIsBounded()
{
    FakeDns dns;
    CPPUNIT_ASSERT(dns.isListening());
    Comm::Loop loop;
    auto o = OptionsFor(dns);
    o.addressCacheSize = 2;
    Comm::Resolver resolver(loop, o);
    for (const char* name : {"a.test", "b.test", "c.test", "d.test"}) {
        dns.add(name, "192.0.2.7");
        Result r;
        auto l = resolver.resolve(name, 80, r.callback());
        CPPUNIT_ASSERT(RunUntil(loop, [&] { return r.calls > 0; }));
        CPPUNIT_ASSERT(resolver.cachedAddresses() <= 2);
    }
    CPPUNIT_ASSERT_EQUAL(size_t(2), resolver.cachedAddresses());
    o.addressCacheSize = 0; // ipcache_size 0: nothing is kept
    resolver.reconfigure(o);
    CPPUNIT_ASSERT_EQUAL(size_t(0), resolver.cachedAddresses());
    Result r;
    auto l = resolver.resolve("a.test", 80, r.callback());
    CPPUNIT_ASSERT(RunUntil(loop, [&] { return r.calls > 0; }));
    CPPUNIT_ASSERT_EQUAL(size_t(0), resolver.cachedAddresses());
}
