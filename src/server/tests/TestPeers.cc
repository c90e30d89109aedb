/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "server/Peers.h"
#include "server/Forwarder.h"
#include "comm/Descriptor.h"
#include "comm/Loop.h"
#include "config/Parser.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

/// Server::Peers: the order of peer selection (Squid 5.7's peer_select.cc),
/// dead and full parents skipped, and CARP's hash and load factors.
class TestPeers : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestPeers);
    CPPUNIT_TEST(alwaysDirectGoesDirectOnly);
    CPPUNIT_TEST(neverDirectGoesToParentsOnly);
    CPPUNIT_TEST(parentsComeBeforeDirect);
    CPPUNIT_TEST(preferDirectPutsDirectFirst);
    CPPUNIT_TEST(nonHierarchicalGoesDirect);
    CPPUNIT_TEST(defaultParentIsTheLastResort);
    CPPUNIT_TEST(cachePeerAccessExcludesAParent);
    CPPUNIT_TEST(deadParentIsSkippedAndRevives);
    CPPUNIT_TEST(fullParentIsSkipped);
    CPPUNIT_TEST(roundRobinAlternates);
    CPPUNIT_TEST(roundRobinFollowsWeights);
    CPPUNIT_TEST(revivalRestartsRoundRobin);
    CPPUNIT_TEST(noUsableParentUnderNeverDirectIsNowhere);
    CPPUNIT_TEST(hashSchemesComeFirst);
    CPPUNIT_TEST(carpMultipliersOfEqualWeightsAreOne);
    CPPUNIT_TEST(carpMultipliersFollowCarpInit);
    CPPUNIT_TEST(carpSpreadsEvenlyAndSticks);
    CPPUNIT_TEST(carpFollowsWeights);
    CPPUNIT_TEST(carpKeyHashesTheNamedParts);
    CPPUNIT_TEST(parentGetsAbsoluteFormWithoutCredentials);
    CPPUNIT_TEST(loginSendsBasicCredentials);
    CPPUNIT_TEST(loginPassForwardsTheClients);
    CPPUNIT_TEST(originServerGetsOriginFormAndAuthorization);
    CPPUNIT_TEST(siblingIsNeverAParent);
    CPPUNIT_TEST(siblingGetsOnlyIfCached);
    CPPUNIT_TEST(icpHitSendsToTheSiblingFirst);
    CPPUNIT_TEST(parentMissComesFirstWithoutAHit);
    CPPUNIT_TEST(silentPeerTimesOut);
    CPPUNIT_TEST(noPingWithoutIcpPortOrForNonHierarchical);
    CPPUNIT_TEST_SUITE_END();

    /// a UDP socket on 127.0.0.1 that plays an ICP peer
    struct FakeIcpPeer {
        Comm::Descriptor fd{::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)};
        uint16_t port = 0;
        FakeIcpPeer()
        {
            sockaddr_in a{};
            a.sin_family = AF_INET;
            a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            CPPUNIT_ASSERT(::bind(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0);
            socklen_t len = sizeof(a);
            ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&a), &len);
            port = ntohs(a.sin_port);
            timeval t{2, 0};
            ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &t, sizeof(t));
        }
        /// reads one query and answers it with `opcode`
        void answer(Server::IcpOpcode opcode)
        {
            char buffer[Server::IcpMessage::MaxSize];
            sockaddr_storage from{};
            socklen_t len = sizeof(from);
            const ssize_t n =
                ::recvfrom(fd.get(), buffer, sizeof(buffer), 0, reinterpret_cast<sockaddr*>(&from), &len);
            CPPUNIT_ASSERT(n > 0);
            const auto query = Server::ParseIcp(std::string_view(buffer, size_t(n)));
            CPPUNIT_ASSERT(query && query->opcode == Server::IcpOpcode::Query);
            Server::IcpMessage reply;
            reply.opcode = opcode;
            reply.reqnum = query->reqnum;
            reply.url = query->url;
            const auto bytes = Server::BuildIcp(reply);
            ::sendto(fd.get(), bytes.data(), bytes.size(), 0, reinterpret_cast<sockaddr*>(&from), len);
        }
    };

    /// a free UDP port on 127.0.0.1 for cuttle's icp_port
    static uint16_t FreeUdpPort()
    {
        FakeIcpPeer probe;
        return probe.port;
    }

    /// pings with the query of Facts(), runs the loop until the wait is
    /// over, and returns select()'s answer with the ping's result
    std::string pingThenSelect(const std::function<void()>& peersAnswer)
    {
        const auto facts = Facts();
        Server::Peers::Query query{facts, "127.0.0.1", true};
        bool done = false;
        auto ping = peers->ping(query, [&done] { done = true; });
        CPPUNIT_ASSERT(ping);
        peersAnswer();
        for (int i = 0; i < 300 && !done; ++i)
            loop.runOnce(Comm::Milliseconds(10));
        CPPUNIT_ASSERT(done && ping->isDone());
        query.icp = &ping->result();
        std::string out;
        for (const auto& d : peers->select(query)) {
            if (!out.empty())
                out += " ";
            out += (d.peer ? d.peer->name() : std::string("direct")) + ":" +
                   Server::HierarchyName(d.code, d.pingTimedOut);
        }
        return out;
    }

    /// a request for http://h.example/a?b whose client sent these credentials
    static Server::Request PeerRequest(const std::string& proxyAuthorization = std::string(),
                                       const std::string& extraField = std::string())
    {
        Server::Request r;
        r.head = "GET /a?b HTTP/1.1\r\nHost: h.example\r\n" + extraField + "Via: 1.1 c\r\n\r\n";
        r.url = "http://h.example/a?b";
        r.proxyAuthorization = proxyAuthorization;
        return r;
    }

    static Config::CachePeer WithLogin(Config::CachePeer::Login login,
                                       const std::string& text = std::string())
    {
        Config::CachePeer peer;
        peer.login = login;
        peer.loginText = text;
        return peer;
    }

    Comm::Loop loop;
    std::unique_ptr<Server::Peers> peers;

    /// peers from squid.conf lines (with the acls below)
    void configure(const std::string& lines)
    {
        Config::Parser parser;
        const std::string text = "acl all2 src all\nacl special dstdomain .special.example\n" + lines;
        auto settings = parser.parseText(text, "t.conf");
        std::string said;
        for (const auto& d : parser.diagnostics())
            said += d.format() + "\n";
        CPPUNIT_ASSERT_MESSAGE(said, settings);
        peers = std::make_unique<Server::Peers>(loop, nullptr);
        peers->configure(std::shared_ptr<const Config::Settings>(std::move(settings)));
    }

    /// the request http://HOST/PATH from 127.0.0.1
    static Acl::Checklist Facts(const std::string& host = "www.example", const std::string& path = "/")
    {
        Acl::Checklist facts;
        facts.srcAddr = *Acl::Address::Parse("127.0.0.1");
        facts.dstHost = host;
        facts.dstPort = 80;
        facts.method = "GET";
        facts.urlScheme = "http";
        facts.urlPath = path;
        facts.url = "http://" + host + path;
        return facts;
    }

    /// the selection, as "NAME:CODE" words ("direct:HIER_DIRECT")
    std::string select(const Acl::Checklist& facts, bool hierarchical = true)
    {
        std::string out;
        for (const auto& d : peers->select(Server::Peers::Query{facts, "127.0.0.1", hierarchical})) {
            if (!out.empty())
                out += " ";
            out += (d.peer ? d.peer->name() : std::string("direct")) + ":" + Server::HierarchyName(d.code);
        }
        return out;
    }
    std::string select() { return select(Facts()); }

    /// the parent a URL's first choice is
    std::string firstFor(const std::string& path)
    {
        const auto all = peers->select(Server::Peers::Query{Facts("www.example", path), "127.0.0.1", true});
        CPPUNIT_ASSERT(!all.empty() && all[0].peer);
        return all[0].peer->name();
    }

    static const char* TwoParents()
    {
        return "cache_peer 127.0.0.1 parent 1 0 no-query name=a\n"
               "cache_peer 127.0.0.1 parent 2 0 no-query name=b\n";
    }

    static std::string ThreeCarp(const std::string& extra = std::string())
    {
        std::string out;
        for (const char* n : {"p1", "p2", "p3"})
            out += std::string("cache_peer 127.0.0.1 parent 1 0 no-query carp name=") + n + extra + "\n";
        return out;
    }

public:
    /// the parent schemes never pick a sibling
    void siblingIsNeverAParent();
    /// a request to a sibling asks for a hit only, unless allow-miss
    void siblingGetsOnlyIfCached();
    /// a sibling's ICP_HIT ends the wait and comes first (SIBLING_HIT)
    void icpHitSendsToTheSiblingFirst();
    /// without a hit, the parent that said ICP_MISS comes first; ICP_DENIED is no answer
    void parentMissComesFirstWithoutAHit();
    /// a peer that never answers: the wait is icp_query_timeout, then TIMEOUT_HIER_DIRECT
    void silentPeerTimesOut();
    /// no query without icp_port, for a request that is not hierarchical, or a sibling-only no-cache one
    void noPingWithoutIcpPortOrForNonHierarchical();
    void alwaysDirectGoesDirectOnly()
    {
        configure(std::string(TwoParents()) + "always_direct allow all\nnever_direct allow all\n");
        CPPUNIT_ASSERT_EQUAL(std::string("direct:HIER_DIRECT"), select());
    }

    void neverDirectGoesToParentsOnly()
    {
        configure(std::string(TwoParents()) + "never_direct allow all\n");
        CPPUNIT_ASSERT_EQUAL(std::string("a:FIRSTUP_PARENT b:ANY_OLD_PARENT"), select());
    }

    void parentsComeBeforeDirect()
    {
        configure(TwoParents());
        CPPUNIT_ASSERT_EQUAL(std::string("a:FIRSTUP_PARENT b:ANY_OLD_PARENT direct:HIER_DIRECT"), select());
    }

    void preferDirectPutsDirectFirst()
    {
        configure(std::string(TwoParents()) + "prefer_direct on\n");
        CPPUNIT_ASSERT_EQUAL(std::string("direct:HIER_DIRECT a:FIRSTUP_PARENT b:ANY_OLD_PARENT"), select());
    }

    void nonHierarchicalGoesDirect()
    {
        configure(TwoParents());
        CPPUNIT_ASSERT_EQUAL(std::string("direct:HIER_DIRECT"), select(Facts(), false));
        configure(std::string(TwoParents()) + "nonhierarchical_direct off\n");
        CPPUNIT_ASSERT_EQUAL(std::string("a:FIRSTUP_PARENT b:ANY_OLD_PARENT direct:HIER_DIRECT"),
                             select(Facts(), false));
        configure(std::string(TwoParents()) + "never_direct allow all\n");
        CPPUNIT_ASSERT_EQUAL(std::string("a:FIRSTUP_PARENT b:ANY_OLD_PARENT"), select(Facts(), false));
    }

    void defaultParentIsTheLastResort()
    {
        configure("cache_peer 127.0.0.1 parent 1 0 no-query name=a\n"
                  "cache_peer 127.0.0.1 parent 2 0 no-query name=d default\n"
                  "cache_peer_access a deny all\nnever_direct allow all\n");
        CPPUNIT_ASSERT_EQUAL(std::string("d:FIRSTUP_PARENT"), select());
        configure("cache_peer 127.0.0.1 parent 2 0 no-query name=d default round-robin\n"
                  "cache_peer 127.0.0.1 parent 3 0 no-query name=r round-robin\nnever_direct allow all\n");
        // getRoundRobinParent(): the fewest uses, a tie to the later parent
        CPPUNIT_ASSERT_EQUAL(std::string("r:ROUNDROBIN_PARENT d:ANY_OLD_PARENT"), select());
    }

    void cachePeerAccessExcludesAParent()
    {
        configure(std::string(TwoParents()) + "cache_peer_access a deny special\nnever_direct allow all\n");
        CPPUNIT_ASSERT_EQUAL(std::string("b:FIRSTUP_PARENT"), select(Facts("www.special.example")));
        CPPUNIT_ASSERT_EQUAL(std::string("a:FIRSTUP_PARENT b:ANY_OLD_PARENT"), select());
    }

    void deadParentIsSkippedAndRevives()
    {
        configure("cache_peer 127.0.0.1 parent 1 0 no-query name=a connect-fail-limit=2\n"
                  "cache_peer 127.0.0.1 parent 2 0 no-query name=b\nnever_direct allow all\n");
        auto& a = *peers->peers()[0];
        a.noteConnectFailed();
        CPPUNIT_ASSERT(a.isUp()); // one failure of two allowed
        CPPUNIT_ASSERT_EQUAL(std::string("a:FIRSTUP_PARENT b:ANY_OLD_PARENT"), select());
        a.noteConnectFailed();
        CPPUNIT_ASSERT(!a.isUp());
        CPPUNIT_ASSERT_EQUAL(std::string("b:FIRSTUP_PARENT"), select());
        a.noteConnectSucceeded(); // a probe connected
        CPPUNIT_ASSERT_EQUAL(std::string("a:FIRSTUP_PARENT b:ANY_OLD_PARENT"), select());
    }

    void fullParentIsSkipped()
    {
        configure("cache_peer 127.0.0.1 parent 1 0 no-query name=a max-conn=1\n"
                  "cache_peer 127.0.0.1 parent 2 0 no-query name=b\nnever_direct allow all\n");
        auto& a = *peers->peers()[0];
        a.noteOpened();
        CPPUNIT_ASSERT_EQUAL(std::string("b:FIRSTUP_PARENT"), select());
        a.noteClosed();
        CPPUNIT_ASSERT_EQUAL(std::string("a:FIRSTUP_PARENT b:ANY_OLD_PARENT"), select());
    }

    void roundRobinAlternates()
    {
        configure("cache_peer 127.0.0.1 parent 1 0 no-query name=a round-robin\n"
                  "cache_peer 127.0.0.1 parent 2 0 no-query name=b round-robin\n");
        // getRoundRobinParent(): the fewest uses, a tie to the later parent;
        // the first parent starts at 1 use (Squid 5.7's first peerClearRR())
        std::string order;
        for (int i = 0; i < 6; ++i)
            order += firstFor("/");
        CPPUNIT_ASSERT_EQUAL(std::string("bbabab"), order);
        CPPUNIT_ASSERT_EQUAL(std::string("a:ROUNDROBIN_PARENT b:ANY_OLD_PARENT direct:HIER_DIRECT"),
                             select());
    }

    void roundRobinFollowsWeights()
    {
        configure("cache_peer 127.0.0.1 parent 1 0 no-query name=a round-robin weight=3\n"
                  "cache_peer 127.0.0.1 parent 2 0 no-query name=b round-robin weight=1\n");
        std::map<std::string, int> count;
        for (int i = 0; i < 400; ++i)
            ++count[firstFor("/")];
        // three to one, give or take the first parent's head start
        CPPUNIT_ASSERT_MESSAGE(std::to_string(count["a"]), std::abs(count["a"] - 300) <= 1);
        CPPUNIT_ASSERT_EQUAL(400 - count["a"], count["b"]);
    }

    void revivalRestartsRoundRobin()
    {
        configure("cache_peer 127.0.0.1 parent 1 0 no-query name=a round-robin connect-fail-limit=1\n"
                  "cache_peer 127.0.0.1 parent 2 0 no-query name=b round-robin\n");
        auto& a = *peers->peers()[0];
        a.noteConnectFailed();
        for (int i = 0; i < 20; ++i)
            CPPUNIT_ASSERT_EQUAL(std::string("b"), firstFor("/"));
        // Squid's peerClearRR(): a revived parent does not take every request
        // until its count catches up with the others'
        a.noteConnectSucceeded();
        std::map<std::string, int> count;
        for (int i = 0; i < 4; ++i)
            ++count[firstFor("/")];
        CPPUNIT_ASSERT_EQUAL(2, count["a"]);
    }

    void noUsableParentUnderNeverDirectIsNowhere()
    {
        configure(std::string(TwoParents()) + "cache_peer_access a deny all\ncache_peer_access b deny all\n"
                                              "never_direct allow all\n");
        CPPUNIT_ASSERT_EQUAL(std::string(), select());
        CPPUNIT_ASSERT(peers->forbidsDirect(Facts()));
    }

    void hashSchemesComeFirst()
    {
        configure("cache_peer 127.0.0.1 parent 1 0 no-query name=f\n"
                  "cache_peer 127.0.0.1 parent 2 0 no-query name=c carp\n"
                  "cache_peer 127.0.0.1 parent 3 0 no-query name=s sourcehash\n");
        CPPUNIT_ASSERT_EQUAL(
            std::string("s:SOURCEHASH_PARENT f:ANY_OLD_PARENT c:ANY_OLD_PARENT direct:HIER_DIRECT"),
            select());
        configure("cache_peer 127.0.0.1 parent 1 0 no-query name=f\n"
                  "cache_peer 127.0.0.1 parent 2 0 no-query name=c carp\n"
                  "cache_peer 127.0.0.1 parent 3 0 no-query name=u userhash\n");
        // userhash needs a user: without one, CARP decides
        CPPUNIT_ASSERT_EQUAL(std::string("c:CARP f:ANY_OLD_PARENT u:ANY_OLD_PARENT direct:HIER_DIRECT"),
                             select());
        auto facts = Facts();
        facts.auth = Acl::AuthState::Valid;
        facts.user = "alice";
        CPPUNIT_ASSERT_EQUAL(
            std::string("u:USERHASH_PARENT f:ANY_OLD_PARENT c:ANY_OLD_PARENT direct:HIER_DIRECT"),
            select(facts));
    }

    void carpMultipliersOfEqualWeightsAreOne()
    {
        for (const auto x : Server::CarpLoadMultipliers({1, 1, 1}))
            CPPUNIT_ASSERT_DOUBLES_EQUAL(1.0, x, 1e-12);
    }

    void carpMultipliersFollowCarpInit()
    {
        // weights 1 and 2: shares 1/3 and 2/3; X1 = (2 * 1/3)^(1/2),
        // X2 = (1 * (2/3 - 1/3)) / X1 + X1
        const auto x = Server::CarpLoadMultipliers({1, 2});
        const double x1 = std::sqrt(2.0 / 3.0);
        CPPUNIT_ASSERT_EQUAL(size_t(2), x.size());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(x1, x[0], 1e-12);
        CPPUNIT_ASSERT_DOUBLES_EQUAL((1.0 / 3.0) / x1 + x1, x[1], 1e-12);
        // a share under 0.1% counts as none
        CPPUNIT_ASSERT_DOUBLES_EQUAL(0.0, Server::CarpLoadMultipliers({1, 2000})[0], 1e-12);
    }

    void carpSpreadsEvenlyAndSticks()
    {
        configure(ThreeCarp());
        std::map<std::string, std::string> first;
        std::map<std::string, int> count;
        for (int i = 0; i < 3000; ++i) {
            const auto path = "/object/" + std::to_string(i);
            first[path] = firstFor(path);
            ++count[first[path]];
        }
        for (const auto& [name, n] : count)
            CPPUNIT_ASSERT_MESSAGE(name + ": " + std::to_string(n), n > 900 && n < 1100);
        for (int i = 0; i < 3000; i += 7) {
            const auto path = "/object/" + std::to_string(i);
            CPPUNIT_ASSERT_EQUAL(first[path], firstFor(path));
        }
        // a dead parent's URLs go elsewhere; the others stay where they were
        auto& p1 = *peers->peers()[0];
        for (unsigned i = 0; i < p1.config().connectFailLimit; ++i)
            p1.noteConnectFailed();
        for (int i = 0; i < 3000; i += 7) {
            const auto path = "/object/" + std::to_string(i);
            const auto now = firstFor(path);
            CPPUNIT_ASSERT(now != "p1");
            if (first[path] != "p1")
                CPPUNIT_ASSERT_EQUAL(first[path], now);
        }
    }

    void carpFollowsWeights()
    {
        configure("cache_peer 127.0.0.1 parent 1 0 no-query carp name=light weight=1\n"
                  "cache_peer 127.0.0.1 parent 1 0 no-query carp name=heavy weight=3\n");
        std::map<std::string, int> count;
        for (int i = 0; i < 4000; ++i)
            ++count[firstFor("/w/" + std::to_string(i))];
        CPPUNIT_ASSERT_MESSAGE(std::to_string(count["heavy"]),
                               count["heavy"] > 2700 && count["heavy"] < 3300);
    }

    void carpKeyHashesTheNamedParts()
    {
        configure(ThreeCarp(" carp-key=host"));
        const auto one = firstFor("/a");
        for (int i = 0; i < 50; ++i)
            CPPUNIT_ASSERT_EQUAL(one, firstFor("/other/" + std::to_string(i))); // one host: one parent
        configure(ThreeCarp(" carp-key=path"));
        std::map<std::string, int> count;
        for (int i = 0; i < 300; ++i)
            ++count[firstFor("/p/" + std::to_string(i) + "?q=1")];
        CPPUNIT_ASSERT_EQUAL(size_t(3), count.size());
        // the query is not part of the key
        for (int i = 0; i < 30; ++i)
            CPPUNIT_ASSERT_EQUAL(firstFor("/p/" + std::to_string(i)),
                                 firstFor("/p/" + std::to_string(i) + "?x"));
    }

    void parentGetsAbsoluteFormWithoutCredentials()
    {
        // without login=, the client's credentials are for this proxy only
        CPPUNIT_ASSERT_EQUAL(
            std::string("GET http://h.example/a?b HTTP/1.1\r\nHost: h.example\r\nVia: 1.1 c\r\n\r\n"),
            Server::HeadForPeer(PeerRequest("Basic eDp5"), Config::CachePeer()));
    }

    void loginSendsBasicCredentials()
    {
        using Login = Config::CachePeer::Login;
        CPPUNIT_ASSERT_EQUAL(std::string("GET http://h.example/a?b HTTP/1.1\r\nProxy-Authorization: Basic "
                                         "YWxpY2U6c2VjcmV0\r\nHost: h.example\r\nVia: 1.1 c\r\n\r\n"),
                             Server::HeadForPeer(PeerRequest(), WithLogin(Login::Fixed, "alice:secret")));
        auto r = PeerRequest();
        r.user = "bob";
        const auto head = Server::HeadForPeer(r, WithLogin(Login::UserSuffix, ":pw"));
        CPPUNIT_ASSERT_MESSAGE(head,
                               head.find("\r\nProxy-Authorization: Basic Ym9iOnB3\r\n") != std::string::npos);
        const auto anonymous = Server::HeadForPeer(PeerRequest(), WithLogin(Login::UserSuffix, ":pw"));
        CPPUNIT_ASSERT_MESSAGE(anonymous, anonymous.find("Basic LTpwdw==\r\n") != std::string::npos);
    }

    void loginPassForwardsTheClients()
    {
        using Login = Config::CachePeer::Login;
        for (const auto login : {Login::Pass, Login::PassThru, Login::ProxyPass}) {
            const auto head = Server::HeadForPeer(PeerRequest("Digest username=\"u\""), WithLogin(login));
            CPPUNIT_ASSERT_MESSAGE(head, head.find("\r\nProxy-Authorization: Digest username=\"u\"\r\n") !=
                                             std::string::npos);
        }
        // nothing to pass: nothing sent
        const auto head = Server::HeadForPeer(PeerRequest(), WithLogin(Login::Pass));
        CPPUNIT_ASSERT_MESSAGE(head, head.find("Authorization") == std::string::npos);
    }

    void originServerGetsOriginFormAndAuthorization()
    {
        using Login = Config::CachePeer::Login;
        auto peer = WithLogin(Login::Fixed, "alice:secret");
        peer.originServer = true;
        CPPUNIT_ASSERT_EQUAL(
            std::string("GET /a?b HTTP/1.1\r\nAuthorization: Basic YWxpY2U6c2VjcmV0\r\nHost: "
                        "h.example\r\nVia: 1.1 c\r\n\r\n"),
            Server::HeadForPeer(PeerRequest(), peer));
        // never over the client's own Authorization
        const auto head =
            Server::HeadForPeer(PeerRequest(std::string(), "Authorization: Basic b3du\r\n"), peer);
        CPPUNIT_ASSERT_MESSAGE(head, head.find("YWxp") == std::string::npos);
        // PROXYPASS: the client's Basic proxy credentials become Authorization; Digest ones do not
        auto proxyPass = WithLogin(Login::ProxyPass);
        proxyPass.originServer = true;
        CPPUNIT_ASSERT(Server::HeadForPeer(PeerRequest("Basic eDp5"), proxyPass)
                           .find("\r\nAuthorization: Basic eDp5\r\n") != std::string::npos);
        CPPUNIT_ASSERT(Server::HeadForPeer(PeerRequest("Digest x"), proxyPass).find("Authorization") ==
                       std::string::npos);
    }
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestPeers);

void TestPeers::siblingIsNeverAParent()
{
    configure("cache_peer 127.0.0.1 sibling 1 0 name=s\ncache_peer 127.0.0.1 parent 2 0 no-query name=p\n");
    CPPUNIT_ASSERT_EQUAL(std::string("p:FIRSTUP_PARENT direct:HIER_DIRECT"), select());
    configure("cache_peer 127.0.0.1 sibling 1 0 name=s\nnever_direct allow all\n");
    CPPUNIT_ASSERT_EQUAL(std::string(""), select());
}

void TestPeers::siblingGetsOnlyIfCached()
{
    Config::CachePeer sibling;
    sibling.type = Config::CachePeer::Type::Sibling;
    const auto head = Server::HeadForPeer(PeerRequest(), sibling);
    CPPUNIT_ASSERT(head.find("\r\nCache-Control: only-if-cached\r\n") != std::string::npos);
    sibling.allowMiss = true;
    CPPUNIT_ASSERT(Server::HeadForPeer(PeerRequest(), sibling).find("only-if-cached") == std::string::npos);
    CPPUNIT_ASSERT(Server::HeadForPeer(PeerRequest(), Config::CachePeer()).find("only-if-cached") ==
                   std::string::npos);
}

void TestPeers::icpHitSendsToTheSiblingFirst()
{
    FakeIcpPeer sibling, parent;
    configure("icp_port " + std::to_string(FreeUdpPort()) + "\nicp_query_timeout 2000\n" +
              "cache_peer 127.0.0.1 parent 1 " + std::to_string(parent.port) + " name=p\n" +
              "cache_peer 127.0.0.1 sibling 2 " + std::to_string(sibling.port) + " name=s\n");
    // the hit ends the wait at once, without the parent's reply
    const auto chosen = pingThenSelect([&] { sibling.answer(Server::IcpOpcode::Hit); });
    CPPUNIT_ASSERT_EQUAL(std::string("s:SIBLING_HIT p:FIRSTUP_PARENT direct:HIER_DIRECT"), chosen);
}

void TestPeers::parentMissComesFirstWithoutAHit()
{
    FakeIcpPeer sibling, p1, p2;
    configure("icp_port " + std::to_string(FreeUdpPort()) + "\nicp_query_timeout 200\n" +
              "cache_peer 127.0.0.1 parent 1 " + std::to_string(p1.port) + " name=p1\n" +
              "cache_peer 127.0.0.1 parent 2 " + std::to_string(p2.port) + " name=p2\n" +
              "cache_peer 127.0.0.1 sibling 3 " + std::to_string(sibling.port) + " name=s\n");
    const auto chosen = pingThenSelect([&] {
        p2.answer(Server::IcpOpcode::Miss);
        sibling.answer(Server::IcpOpcode::Miss);
        p1.answer(Server::IcpOpcode::Denied); // no answer: the wait lasts to the timeout
    });
    CPPUNIT_ASSERT_EQUAL(std::string("p2:TIMEOUT_FIRST_PARENT_MISS p1:TIMEOUT_FIRSTUP_PARENT "
                                     "direct:TIMEOUT_HIER_DIRECT"),
                         chosen);
}

void TestPeers::silentPeerTimesOut()
{
    FakeIcpPeer silent;
    configure("icp_port " + std::to_string(FreeUdpPort()) + "\nicp_query_timeout 50\n" +
              "cache_peer 127.0.0.1 sibling 1 " + std::to_string(silent.port) + " name=s\n");
    const auto start = Comm::Clock::now();
    CPPUNIT_ASSERT_EQUAL(std::string("direct:TIMEOUT_HIER_DIRECT"), pingThenSelect([] {}));
    CPPUNIT_ASSERT(Comm::Clock::now() - start >= Comm::Milliseconds(50));
}

void TestPeers::noPingWithoutIcpPortOrForNonHierarchical()
{
    FakeIcpPeer sibling;
    configure("cache_peer 127.0.0.1 sibling 1 " + std::to_string(sibling.port) + " name=s\n");
    const auto facts = Facts();
    CPPUNIT_ASSERT(!peers->ping(Server::Peers::Query{facts, "127.0.0.1", true}, [] {}));
    configure("icp_port " + std::to_string(FreeUdpPort()) + "\ncache_peer 127.0.0.1 sibling 1 " +
              std::to_string(sibling.port) + " name=s\n");
    CPPUNIT_ASSERT(!peers->ping(Server::Peers::Query{facts, "127.0.0.1", false}, [] {}));
    Server::Peers::Query noCache{facts, "127.0.0.1", true};
    noCache.siblingsMayTake = false;
    CPPUNIT_ASSERT(!peers->ping(noCache, [] {}));
    CPPUNIT_ASSERT(peers->ping(Server::Peers::Query{facts, "127.0.0.1", true}, [] {}));
}
