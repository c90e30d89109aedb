/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Server::Peer and Server::Peers: the configured parents and siblings, the state
/// Squid 5.7 keeps about each (up or dead, round-robin counts, hash
/// weights), and peer selection as Squid's peer_select.cc orders it
/// (doc/design.md "Peers").
///
///     ping():   ICP queries to the peers with an ICP port (not no-query),
///               for a hierarchical miss (or a never_direct one)
///     select(): always_direct allows -> direct only
///               the ping's ICP_HIT peer (SIBLING_HIT, PARENT_HIT), else its
///                   first parent miss (FIRST_PARENT_MISS)
///               never_direct allows  -> some parent, then every live parent
///               otherwise            -> [direct if prefer_direct]
///                                       some parent, every live parent (hierarchical
///                                           requests, or nonhierarchical_direct off)
///                                       [direct unless prefer_direct]
///     some parent: sourcehash, userhash, carp, round-robin,
///                  weighted-round-robin, first up, default (the first that answers)
///
/// A parent is usable (Squid's peerHTTPOkay) when its cache_peer_access
/// allows the request, it is up, and it has fewer than max-conn connections.
/// A parent whose connects fail connect-fail-limit times in a row is dead;
/// while dead, each selection that meets it starts a probe connect (at most
/// once per its connect timeout), and a probe that connects revives it.
///
/// Ownership: Proxy::Instance owns the table; forwarders hold the peers they
/// use (PeerRef), so a reconfigure may drop the table under them. A peer
/// keeps the settings snapshot its configuration lives in.
#pragma once

#include "acl/AccessList.h"
#include "base/RefCount.h"
#include "comm/Connector.h"
#include "comm/Loop.h"
#include "config/Settings.h"
#include "server/Icp.h"
#include "tls/ClientContext.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Server {

class Peers;

/// Squid's hier_code of a destination, as access.log's %Sh prints it.
enum class Hierarchy {
    Direct,
    SourceHashParent,
    UserHashParent,
    Carp,
    RoundRobinParent,
    FirstUpParent,
    DefaultParent,
    AnyOldParent,
    SiblingHit,
    ParentHit,
    FirstParentMiss
};

/// "HIER_DIRECT", "CARP", "FIRSTUP_PARENT"...; with Squid's "TIMEOUT_"
/// before it when the ICP wait before the choice timed out
const char* HierarchyName(Hierarchy code, bool pingTimedOut = false);

/// the TLS client options of tls_outgoing_options or of a cache_peer's tls-KEY= options
Tls::ClientOptions TlsClientOptions(const Config::TlsOutgoingOptions& in);

/// One configured parent and what is known of it; see the file comment.
class Peer : public RefCountable {
public:
    /// the peer of `config`, which lives in `settings`
    Peer(std::shared_ptr<const Config::Settings> settings, const Config::CachePeer& config);
    ~Peer() override;

    /// its cache_peer line
    const Config::CachePeer& config() const { return config_; }
    /// the TLS context of connections to it (cache_peer ... tls), else null
    const Tls::ClientContextRef& tls() const { return tls_; }
    /// the name its certificate must have: tls-domain=, else its host
    const std::string& tlsName() const
    {
        return config_.tlsDomain.empty() ? config_.host : config_.tlsDomain;
    }
    /// name=, else its host
    const std::string& name() const { return config_.name; }
    /// whether it is a sibling (it only gets requests it said ICP_HIT to)
    bool isSibling() const { return config_.type == Config::CachePeer::Type::Sibling; }
    /// whether it is not dead (Squid's neighborUp(): tcp_up > 0, and a peer
    /// that is queried has answered one since dead_peer_timeout after the
    /// first query it left unanswered)
    bool isUp() const;
    /// its mean ICP round trip (ms, Squid's integer running average; 0: none measured)
    unsigned icpRtt() const { return rtt_; }
    /// its connect timeout: connect-timeout=, else peer_connect_timeout
    Comm::Milliseconds connectTimeout() const;
    /// a connect to it failed (Squid's peerConnectFailed: the last allowed failure kills it)
    void noteConnectFailed();
    /// a connect to it succeeded (a dead one revives)
    void noteConnectSucceeded();
    /// a request's dial to it ended: noteConnectFailed() with Squid's cache.log line, or
    /// noteConnectSucceeded()
    void noteDialed(bool connected);
    /// connections to it open (max-conn counts them, idle ones included)
    unsigned openConnections() const { return open_; }
    /// a connection to it opened
    void noteOpened() { ++open_; }
    /// a connection to it closed
    void noteClosed() { --open_; }

private:
    friend class Peers;
    std::shared_ptr<const Config::Settings> settings_; ///< keeps config_ alive
    const Config::CachePeer& config_;
    Tls::ClientContextRef tls_;              ///< see tls()
    unsigned tcpUp_;                         ///< connects that may still fail before it is dead
    uint64_t rrCount_ = 0;                   ///< round-robin and weighted-round-robin count
    uint32_t nameHash_ = 0;                  ///< CARP/sourcehash/userhash hash of its name
    double carpFactor_ = 0;                  ///< CARP load multiplier
    double hashFactor_ = 0;                  ///< sourcehash and userhash load multiplier
    unsigned open_ = 0;                      ///< open connections
    Comm::Clock::time_point lastProbe_{};    ///< the last probe connect started
    std::unique_ptr<Comm::Connector> probe_; ///< the probe connect in flight
    Peers* table_ = nullptr; ///< the table it is in (its round-robin counts restart when it revives)
    // ICP (Squid's peer stats)
    std::optional<Comm::Address> icpAddress_; ///< where queries go (an address literal's; none: not queried)
    unsigned rtt_ = 0;                        ///< mean ICP round trip, ms
    unsigned pingsAcked_ = 0;                 ///< replies it sent
    Comm::Clock::time_point lastQuery_{};     ///< the last query sent to it
    Comm::Clock::time_point probeStart_{};    ///< the first query it has not answered; zero: answered
    bool loggedDead_ = false;                 ///< "Detected DEAD" was logged (once per death)
};

/// a shared peer (a forwarder holds the one it uses)
using PeerRef = RefCount<Peer>;

/// One place a request may go: a parent, or its origin (peer null).
struct Destination {
    PeerRef peer;                       ///< the parent; null: direct
    Hierarchy code = Hierarchy::Direct; ///< why it was chosen
    bool pingTimedOut = false;          ///< the ICP wait before the choice timed out
};

/// One miss's ICP queries and what their replies chose (Squid's ps->ping):
/// the first ICP_HIT ends it at once; otherwise every expected reply, or the
/// timeout, does. Its owner (a client connection) destroys it to cancel.
class IcpPing {
public:
    /// what the replies chose
    struct Result {
        PeerRef hit;             ///< the first peer that said ICP_HIT
        PeerRef firstParentMiss; ///< the parent whose ICP_MISS came first per weight
        bool timedOut = false;   ///< some expected reply had not come at the timeout
    };
    ~IcpPing();
    IcpPing(const IcpPing&) = delete;
    IcpPing& operator=(const IcpPing&) = delete;

    /// whether the wait is over
    bool isDone() const { return done_; }
    /// what the replies chose (isDone())
    const Result& result() const { return result_; }
    /// the URL queried
    const std::string& url() const { return url_; }
    /// the wait's length, as decided when the queries left
    Comm::Milliseconds timeout() const { return timeout_; }

private:
    friend class Peers;
    IcpPing() = default;
    void finish();

    Peers* table_ = nullptr; ///< the table that waits for its replies (null once done)
    Comm::Loop* loop_ = nullptr;
    uint32_t reqnum_ = 0;
    std::string url_;
    Comm::Clock::time_point start_{};
    Comm::Milliseconds timeout_{0};
    unsigned expected_ = 0;
    unsigned received_ = 0;
    unsigned bestRtt_ = 0; ///< the first parent miss's weighted round trip
    std::vector<PeerRef> queried_;
    Result result_;
    bool done_ = false;
    std::function<void()> onDone_;
    Comm::Timer timer_;
};

/// Squid's hash of a peer name or a key, as carp.cc computes it (its
/// ROTATE_LEFT by 19 per byte, bytes taken as signed chars); `seed` goes on
/// from an earlier key (CARP's running hash).
uint32_t CarpKeyHash(std::string_view key, uint32_t seed = 0);
/// a peer's hash of its name (carp.cc carpInit)
uint32_t CarpPeerHash(std::string_view name);
/// the score-before-weighting of a key hash against a peer hash
uint32_t CarpCombine(uint32_t keyHash, uint32_t peerHash);
/// Squid's load multipliers X_k for peers of these weights, in their order
/// (carpInit: peers sorted by weight, each its share of the total, a share
/// under 0.1% counting as 0).
std::vector<double> CarpLoadMultipliers(const std::vector<unsigned>& weights);

/// The parents of one configuration; see the file comment.
class Peers {
public:
    /// no parents; probes run on loop, names resolved through resolver (null: literals only)
    Peers(Comm::Loop& loop, Comm::Resolver* resolver) : loop_(loop), resolver_(resolver) {}
    ~Peers();
    Peers(const Peers&) = delete;
    Peers& operator=(const Peers&) = delete;

    /// takes the peers and direct rules of a new configuration (all state
    /// restarts, as in Squid), and opens, keeps or closes the icp_port
    /// socket; throws, changing nothing, when the TLS context of a
    /// `cache_peer ... tls` cannot be made (a CA file that cannot be read...)
    void configure(const std::shared_ptr<const Config::Settings>& settings);
    /// whether selection can say something other than "direct"
    bool isActive() const { return !peers_.empty() || (settings_ && settings_->neverDirect.size() != 0); }

    /// What a selection looks at.
    struct Query {
        const Acl::Checklist& facts; ///< the request (url, urlScheme, dstHost, dstPort, urlPath, user)
        std::string clientAddress;   ///< the client's address, for sourcehash
        bool hierarchical = true;    ///< a GET or TRACE without Authorization
        /// siblings may take it (Squid's peerAllowedToUse(): not a no-cache
        /// request, nor a revalidation)
        bool siblingsMayTake = true;
        const IcpPing::Result* icp = nullptr; ///< what an ICP ping chose, if one ran
    };
    /// Starts the ICP queries for a miss (Squid's peerGetSomeNeighbor), when
    /// icp_port is open and some peer would be queried; null otherwise, or
    /// when no reply is expected. `done` is called from the loop once the
    /// wait is over, unless the ping was destroyed first.
    std::unique_ptr<IcpPing> ping(const Query& query, std::function<void()> done);
    /// the icp_port socket (null without icp_port)
    IcpSocket* icpSocket() { return icp_.get(); }
    /// the ICP traffic since start (kept across reconfigurations, as Squid's counters)
    const IcpCounters& icpCounters() const { return icpCounters_; }
    /// where the request may go, in order; empty: nowhere (never_direct and no usable parent)
    std::vector<Destination> select(const Query& query);
    /// whether never_direct (and not always_direct) forbids this request to go direct
    bool forbidsDirect(const Acl::Checklist& facts) const;

    /// Squid's peerClearRR(): every round-robin count back to 1, every 5
    /// minutes and when a dead parent revives (so it is not flooded)
    void clearRoundRobin();
    /// the configured parents, in squid.conf order
    const std::vector<PeerRef>& peers() const { return peers_; }

private:
    bool isUsable(Peer& peer, const Acl::Checklist& facts);
    Peer* bySourceHash(const Query& query);
    Peer* byUserHash(const Query& query);
    Peer* byCarp(const Query& query);
    Peer* byRoundRobin(const Query& query);
    Peer* byWeightedRoundRobin(const Query& query);
    Peer* firstUp(const Query& query);
    Peer* defaultParent(const Query& query);
    Peer* byHash(const std::vector<Peer*>& set, uint32_t keyHash, const Query& query);
    void probe(Peer& peer);
    /// lets the peers go: cancels their probes in flight (each holds its peer)
    void release();
    /// clearRoundRobin() in 5 minutes, and every 5 minutes after
    void scheduleClearing();
    void configureIcp();
    /// a reply on the ICP socket: the ping that asked, the peer that answered
    void noteIcpReply(const Comm::Address& from, const IcpMessage& reply);
    /// whether a ping about query may go to peer (Squid's peerWouldBePinged)
    bool wouldPing(Peer& peer, const Query& query, Comm::Clock::time_point now) const;
    friend class IcpPing;

    Comm::Loop& loop_;
    Comm::Resolver* resolver_;
    std::shared_ptr<const Config::Settings> settings_;
    std::vector<PeerRef> peers_;
    std::vector<Peer*> carp_;            ///< carp parents, by weight (carpInit's order)
    std::vector<Peer*> sourceHash_;      ///< sourcehash parents, by weight
    std::vector<Peer*> userHash_;        ///< userhash parents, by weight
    Comm::Timer clearing_;               ///< see scheduleClearing()
    bool clearingStarted_ = false;       ///< the first parent was configured (see configure())
    IcpCounters icpCounters_;            ///< before icp_, which counts into it
    std::unique_ptr<IcpSocket> icp_;     ///< the icp_port socket, or null
    std::string icpBinding_;             ///< the address and port icp_ is bound to
    std::map<uint32_t, IcpPing*> pings_; ///< the pings waiting, by request number
    uint32_t nextReqnum_ = 1;            ///< Squid counts its queries from 1
};

} // namespace Server
