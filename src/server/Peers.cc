/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "server/Peers.h"
#include "log/CacheLog.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace {

uint32_t RotateLeft(uint32_t x, unsigned n)
{
    return (x << n) | (x >> (32 - n));
}

/// the peers of `set` in Squid's order for the hash schemes: by weight
/// (carpInit's qsort on weight; stable here, so ties keep squid.conf order)
void SortByWeight(std::vector<Server::Peer*>& set)
{
    std::stable_sort(set.begin(), set.end(), [](const Server::Peer* a, const Server::Peer* b) {
        return a->config().weight < b->config().weight;
    });
}

/// whether the request may use the peer by its cache_peer_access rules (a
/// fast check: an acl that needs a lookup does not match, as in Squid)
bool AccessAllows(const Config::CachePeer& config, const Acl::Checklist& facts)
{
    return config.access.size() == 0 || config.access.check(facts) == Acl::Answer::Allowed;
}

} // namespace

const char* Server::HierarchyName(Hierarchy code, bool pingTimedOut)
{
    if (pingTimedOut) {
        static const auto prefixed = [] {
            std::vector<std::string> names;
            for (int c = 0; c <= int(Hierarchy::FirstParentMiss); ++c)
                names.push_back(std::string("TIMEOUT_") + HierarchyName(Hierarchy(c)));
            return names;
        }();
        return prefixed.at(size_t(code)).c_str();
    }
    switch (code) {
    case Hierarchy::Direct:
        return "HIER_DIRECT";
    case Hierarchy::SourceHashParent:
        return "SOURCEHASH_PARENT";
    case Hierarchy::UserHashParent:
        return "USERHASH_PARENT";
    case Hierarchy::Carp:
        return "CARP";
    case Hierarchy::RoundRobinParent:
        return "ROUNDROBIN_PARENT";
    case Hierarchy::FirstUpParent:
        return "FIRSTUP_PARENT";
    case Hierarchy::DefaultParent:
        return "DEFAULT_PARENT";
    case Hierarchy::AnyOldParent:
        return "ANY_OLD_PARENT";
    case Hierarchy::SiblingHit:
        return "SIBLING_HIT";
    case Hierarchy::ParentHit:
        return "PARENT_HIT";
    case Hierarchy::FirstParentMiss:
        return "FIRST_PARENT_MISS";
    }
    return "HIER_NONE";
}

Tls::ClientOptions Server::TlsClientOptions(const Config::TlsOutgoingOptions& in)
{
    Tls::ClientOptions out;
    out.caFile = in.caFile;
    out.caPath = in.caPath;
    out.certFile = in.certFile;
    out.keyFile = in.keyFile;
    out.cipher = in.cipher;
    out.minVersion = in.minVersion;
    out.setOptions = in.setOptions;
    out.clearOptions = in.clearOptions;
    out.verifyPeer = in.verifyPeer;
    out.verifyDomain = in.verifyDomain;
    out.defaultCa = in.defaultCa;
    out.sessionReuse = in.sessionReuse;
    return out;
}

uint32_t Server::CarpKeyHash(std::string_view key, uint32_t seed)
{
    uint32_t hash = seed;
    for (const char c : key)
        hash += RotateLeft(hash, 19) + static_cast<uint32_t>(static_cast<int>(static_cast<signed char>(c)));
    return hash;
}

uint32_t Server::CarpPeerHash(std::string_view name)
{
    uint32_t hash = CarpKeyHash(name);
    hash += hash * 0x62531965u;
    return RotateLeft(hash, 21);
}

uint32_t Server::CarpCombine(uint32_t keyHash, uint32_t peerHash)
{
    uint32_t combined = keyHash ^ peerHash;
    combined += combined * 0x62531965u;
    return RotateLeft(combined, 21);
}

std::vector<double> Server::CarpLoadMultipliers(const std::vector<unsigned>& weights)
{
    double total = 0;
    for (const auto w : weights)
        total += w;
    std::vector<double> out;
    if (total == 0)
        return out;
    // carpInit: X_1 = (K*p_1)^(1/K); X_k = ((K-k+1)(p_k - p_{k-1}) / (X_1...X_{k-1}) +
    // X_{k-1}^(K-k+1))^(1/(K-k+1))
    const double k = double(weights.size());
    double lastShare = 0;
    double product = 1;
    double last = 0;
    for (size_t i = 0; i < weights.size(); ++i) {
        double share = weights[i] / total;
        if (std::floor(share * 1000.0) == 0)
            share = 0;
        const double kk1 = k - double(i);
        double x = (kk1 * (share - lastShare)) / product;
        x += std::pow(last, kk1);
        x = std::pow(x, 1.0 / kk1);
        product *= x;
        last = x;
        lastShare = share;
        out.push_back(x);
    }
    return out;
}

Server::Peer::Peer(std::shared_ptr<const Config::Settings> settings, const Config::CachePeer& config)
    : settings_(std::move(settings)), config_(config), tcpUp_(config.connectFailLimit),
      nameHash_(CarpPeerHash(config.name))
{}

Server::Peer::~Peer() = default;

Comm::Milliseconds Server::Peer::connectTimeout() const
{
    const auto t =
        config_.connectTimeout.count() > 0 ? config_.connectTimeout : settings_->peerConnectTimeout;
    return std::chrono::duration_cast<Comm::Milliseconds>(t);
}

void Server::Peer::noteDialed(bool connected)
{
    if (connected) {
        noteConnectSucceeded();
        return;
    }
    debugs(15, 1, "TCP connection to " << config_.host << "/" << config_.httpPort << " failed");
    noteConnectFailed();
}

void Server::Peer::noteConnectFailed()
{
    if (tcpUp_ == 0)
        return;
    if (--tcpUp_ == 0)
        debugs(15, 1, "Detected DEAD " << (isSibling() ? "Sibling" : "Parent") << ": " << name());
}

void Server::Peer::noteConnectSucceeded()
{
    const bool revived = tcpUp_ == 0;
    tcpUp_ = config_.connectFailLimit;
    if (!revived)
        return;
    debugs(15, 1, "Detected REVIVED " << (isSibling() ? "Sibling" : "Parent") << ": " << name());
    if (table_)
        table_->clearRoundRobin();
}

bool Server::Peer::isUp() const
{
    if (tcpUp_ == 0)
        return false;
    if (config_.noQuery || probeStart_ == Comm::Clock::time_point{})
        return true;
    return Comm::Clock::now() - probeStart_ <= settings_->deadPeerTimeout;
}

Server::Peers::~Peers()
{
    for (auto& [reqnum, ping] : pings_)
        ping->table_ = nullptr;
    release();
}

void Server::Peers::release()
{
    for (const auto& p : peers_) {
        p->probe_.reset();
        p->table_ = nullptr; // a forwarder may still hold it
    }
    peers_.clear();
}

void Server::Peers::clearRoundRobin()
{
    for (const auto& p : peers_)
        p->rrCount_ = 1;
}

void Server::Peers::scheduleClearing()
{
    clearing_ = loop_.schedule(std::chrono::minutes(5), [this] {
        clearRoundRobin();
        scheduleClearing();
    });
}

void Server::Peers::configure(const std::shared_ptr<const Config::Settings>& settings)
{
    // the TLS contexts first: a failure changes nothing
    std::vector<Tls::ClientContextRef> contexts;
    for (const auto& c : settings->cachePeers) {
        std::string why;
        contexts.push_back(c.tls ? Tls::ClientContext::Make(TlsClientOptions(c.tlsOptions), why) : nullptr);
        if (c.tls && !contexts.back())
            throw std::runtime_error("cache_peer " + c.name + ": " + why);
    }
    settings_ = settings;
    release();
    carp_.clear();
    sourceHash_.clear();
    userHash_.clear();
    for (size_t i = 0; i < settings->cachePeers.size(); ++i) {
        const auto& c = settings->cachePeers[i];
        peers_.push_back(MakeRef<Peer>(settings, c));
        Peer* p = peers_.back().getRaw();
        p->table_ = this;
        p->tls_ = std::move(contexts[i]);
        if (c.icpPort != 0)
            p->icpAddress_ = Comm::Address::Parse(c.host, c.icpPort);
        if (c.carp)
            carp_.push_back(p);
        if (c.sourceHash)
            sourceHash_.push_back(p);
        if (c.userHash)
            userHash_.push_back(p);
    }
    const auto weigh = [](std::vector<Peer*>& set, double Peer::*factor) {
        SortByWeight(set);
        std::vector<unsigned> weights;
        for (const auto* p : set)
            weights.push_back(p->config().weight);
        const auto x = CarpLoadMultipliers(weights);
        for (size_t i = 0; i < set.size() && i < x.size(); ++i)
            set[i]->*factor = x[i];
    };
    weigh(carp_, &Peer::carpFactor_);
    weigh(sourceHash_, &Peer::hashFactor_);
    weigh(userHash_, &Peer::hashFactor_);
    configureIcp();
    if (!clearingStarted_ && !peers_.empty()) {
        // Squid 5.7 starts its 5-minute peerClearRR() loop while parsing its
        // first cache_peer line, once per process: that first parent's count
        // is 1 and the later ones' 0, so a tie at the first requests goes
        // the same way as in Squid (test-suite/hierarchy/squid-compare.sh)
        clearingStarted_ = true;
        peers_.front()->rrCount_ = 1;
        scheduleClearing();
    }
}

bool Server::Peers::forbidsDirect(const Acl::Checklist& facts) const
{
    if (!settings_)
        return false;
    if (settings_->alwaysDirect.size() != 0 && settings_->alwaysDirect.check(facts) == Acl::Answer::Allowed)
        return false;
    return settings_->neverDirect.size() != 0 && settings_->neverDirect.check(facts) == Acl::Answer::Allowed;
}

std::vector<Server::Destination> Server::Peers::select(const Query& query)
{
    std::vector<Destination> out;
    const auto add = [&out, &query](Peer* peer, Hierarchy code) {
        // PeerSelector::addSelection: each peer (and direct) once, at its first place
        for (const auto& d : out)
            if (d.peer.getRaw() == peer)
                return;
        out.push_back(Destination{PeerRef(peer), code, query.icp && query.icp->timedOut});
    };
    const auto someParent = [&] {
        if (auto* p = bySourceHash(query))
            add(p, Hierarchy::SourceHashParent);
        else if ((p = byUserHash(query)))
            add(p, Hierarchy::UserHashParent);
        else if ((p = byCarp(query)))
            add(p, Hierarchy::Carp);
        else if ((p = byRoundRobin(query)) || (p = byWeightedRoundRobin(query)))
            add(p, Hierarchy::RoundRobinParent);
        else if ((p = firstUp(query)))
            add(p, Hierarchy::FirstUpParent);
        else if ((p = defaultParent(query)))
            add(p, Hierarchy::DefaultParent);
    };
    const auto allParents = [&] {
        for (const auto& p : peers_)
            if (isUsable(*p, query.facts))
                add(p.getRaw(), Hierarchy::AnyOldParent);
        if (auto* p = defaultParent(query))
            add(p, Hierarchy::DefaultParent);
    };
    const auto& facts = query.facts;
    const auto& s = *settings_;
    if (s.alwaysDirect.size() != 0 && s.alwaysDirect.check(facts) == Acl::Answer::Allowed) {
        add(nullptr, Hierarchy::Direct);
        return out;
    }
    // peerGetSomeNeighborReplies(): what the ICP replies chose comes first
    if (query.icp && query.icp->hit) {
        add(query.icp->hit.getRaw(),
            query.icp->hit->isSibling() ? Hierarchy::SiblingHit : Hierarchy::ParentHit);
        ++icpCounters_.timesUsed;
    } else if (query.icp && query.icp->firstParentMiss) {
        add(query.icp->firstParentMiss.getRaw(), Hierarchy::FirstParentMiss);
        ++icpCounters_.timesUsed;
    }
    if (s.neverDirect.size() != 0 && s.neverDirect.check(facts) == Acl::Answer::Allowed) {
        someParent();
        allParents();
        return out;
    }
    if (s.preferDirect)
        add(nullptr, Hierarchy::Direct);
    if (query.hierarchical || !s.nonhierarchicalDirect) {
        someParent();
        allParents();
    }
    add(nullptr, Hierarchy::Direct);
    return out;
}

bool Server::Peers::isUsable(Peer& peer, const Acl::Checklist& facts)
{
    // Squid's peerHTTPOkay(): room under max-conn, cache_peer_access, up;
    // the schemes that use it pick parents only (a sibling comes from ICP)
    if (peer.isSibling())
        return false;
    if (peer.config().maxConn != 0 && peer.openConnections() >= peer.config().maxConn)
        return false;
    if (!AccessAllows(peer.config(), facts))
        return false;
    if (!peer.isUp()) {
        probe(peer);
        return false;
    }
    return true;
}

void Server::Peers::probe(Peer& peer)
{
    // Squid's peerProbeConnect(): one probe at a time, at most one per connect timeout
    const auto now = loop_.now();
    if (peer.probe_ ||
        (peer.lastProbe_ != Comm::Clock::time_point{} && now - peer.lastProbe_ < peer.connectTimeout()))
        return;
    peer.lastProbe_ = now;
    Comm::Connector::Target target{
        peer.config().host, peer.config().httpPort, peer.connectTimeout(), nullptr, {}};
    PeerRef held(&peer);
    peer.probe_ = std::make_unique<Comm::Connector>(
        loop_, resolver_, std::move(target), [held](Comm::Connector::Result&& result) {
            const PeerRef probed = held; // the connector, and this callback with it, goes below
            if (result.error == Comm::Connector::Error::None)
                probed->noteConnectSucceeded();
            else
                debugs(15, 2, "probe connect to " << probed->name() << " failed: " << result.text);
            probed->probe_.reset(); // the probe's socket closes with result
        });
    peer.probe_->start();
}

Server::Peer* Server::Peers::byHash(const std::vector<Peer*>& set, uint32_t keyHash, const Query& query)
{
    Peer* best = nullptr;
    double high = 0;
    for (auto* p : set) {
        const double score = double(CarpCombine(keyHash, p->nameHash_)) * p->hashFactor_;
        if (score > high && isUsable(*p, query.facts)) {
            best = p;
            high = score;
        }
    }
    return best;
}

Server::Peer* Server::Peers::bySourceHash(const Query& query)
{
    if (sourceHash_.empty())
        return nullptr;
    return byHash(sourceHash_, CarpKeyHash(query.clientAddress), query);
}

Server::Peer* Server::Peers::byUserHash(const Query& query)
{
    if (userHash_.empty() || query.facts.auth != Acl::AuthState::Valid || query.facts.user.empty())
        return nullptr;
    return byHash(userHash_, CarpKeyHash(query.facts.user), query);
}

Server::Peer* Server::Peers::byCarp(const Query& query)
{
    const auto& f = query.facts;
    Peer* best = nullptr;
    double high = 0;
    // carpSelectParent() keeps hashing into one running key hash from peer to
    // peer (its user_hash is set to 0 once, before the loop); so does cuttle,
    // so that a URL goes to the parent Squid would send it to
    uint32_t keyHash = 0;
    for (auto* p : carp_) {
        std::string key;
        const auto& k = p->config().carpKey;
        if (k.isSet()) {
            if (k.scheme && !f.urlScheme.empty())
                key += f.urlScheme + "://";
            if (k.host)
                key += f.dstHost;
            if (k.port)
                key += ":" + std::to_string(f.dstPort);
            const auto question = f.urlPath.find('?');
            if (k.path)
                key += f.urlPath.substr(0, question);
            if (k.params && question != std::string::npos)
                key += f.urlPath.substr(question);
        }
        if (key.empty())
            key = f.url;
        keyHash = CarpKeyHash(key, keyHash);
        const double score = double(CarpCombine(keyHash, p->nameHash_)) * p->carpFactor_;
        if (score > high && isUsable(*p, f)) {
            best = p;
            high = score;
        }
    }
    return best;
}

Server::Peer* Server::Peers::byRoundRobin(const Query& query)
{
    // getRoundRobinParent(): the usable one with the fewest uses per weight
    Peer* q = nullptr;
    for (const auto& ref : peers_) {
        auto* p = ref.getRaw();
        if (!p->config().roundRobin || !isUsable(*p, query.facts))
            continue;
        if (q) {
            if (p->config().weight == q->config().weight) {
                if (q->rrCount_ < p->rrCount_)
                    continue;
            } else if (double(q->rrCount_) / q->config().weight < double(p->rrCount_) / p->config().weight) {
                continue;
            }
        }
        q = p;
    }
    if (q)
        ++q->rrCount_;
    return q;
}

Server::Peer* Server::Peers::byWeightedRoundRobin(const Query& query)
{
    // getWeightedRoundRobinParent(): the fewest uses; each use counts the
    // peer's ICP round trip, less basetime=, over its weight, at least 1
    Peer* q = nullptr;
    for (const auto& ref : peers_) {
        auto* p = ref.getRaw();
        if (!p->config().weightedRoundRobin || !isUsable(*p, query.facts))
            continue;
        if (q && q->rrCount_ < p->rrCount_)
            continue;
        q = p;
    }
    if (q && q->rrCount_ > 1000000)
        for (const auto& p : peers_)
            if (p->config().weightedRoundRobin)
                p->rrCount_ = 0;
    if (q) {
        const int64_t weighted =
            (int64_t(q->rtt_) - int64_t(q->config().basetime)) / int64_t(std::max(1u, q->config().weight));
        q->rrCount_ += uint64_t(std::max<int64_t>(1, weighted));
    }
    return q;
}

Server::Peer* Server::Peers::firstUp(const Query& query)
{
    for (const auto& p : peers_)
        if (isUsable(*p, query.facts))
            return p.getRaw();
    return nullptr;
}

Server::Peer* Server::Peers::defaultParent(const Query& query)
{
    for (const auto& p : peers_)
        if (p->config().defaultParent && isUsable(*p, query.facts))
            return p.getRaw();
    return nullptr;
}

Server::IcpPing::~IcpPing()
{
    if (table_)
        table_->pings_.erase(reqnum_);
}

void Server::IcpPing::finish()
{
    if (done_)
        return;
    done_ = true;
    timer_.cancel();
    if (table_)
        table_->pings_.erase(reqnum_);
    table_ = nullptr;
    // from the loop: the owner may destroy this ping from inside its callback
    auto& loop = *loop_;
    timer_ = loop.defer([this] {
        auto done = std::move(onDone_);
        done();
    });
}

void Server::Peers::configureIcp()
{
    const auto& s = *settings_;
    // icp_port is worker 1's: the others query from a port of their own, to
    // which the replies come back (doc/design.md "Workers")
    const unsigned port = s.processNumber == 1 ? s.icpPort : 0;
    const std::string binding = s.icpPort ? s.udpIncomingAddress + "/" + std::to_string(port) : "";
    if (binding == icpBinding_)
        return;
    icp_.reset();
    icpBinding_ = binding;
    if (binding.empty())
        return;
    auto socket = std::make_unique<IcpSocket>(
        loop_, [this](const Comm::Address& from, const IcpMessage& reply) { noteIcpReply(from, reply); },
        icpCounters_);
    std::string error;
    if (!socket->open(s.udpIncomingAddress, uint16_t(port), error)) {
        debugs(12, 0, "ERROR: " << error << ": ICP is off");
        return;
    }
    icp_ = std::move(socket);
}

bool Server::Peers::wouldPing(Peer& peer, const Query& query, Comm::Clock::time_point now) const
{
    const auto& c = peer.config();
    if (c.icpPort == 0 || c.noQuery || !peer.icpAddress_)
        return false;
    if (peer.isSibling() && !query.siblingsMayTake)
        return false;
    if (!AccessAllows(c, query.facts))
        return false;
    // a dead peer is still queried once per dead_peer_timeout
    if (now - peer.lastQuery_ > settings_->deadPeerTimeout)
        return true;
    return peer.isUp();
}

std::unique_ptr<Server::IcpPing> Server::Peers::ping(const Query& query, std::function<void()> done)
{
    if (!icp_ || !settings_)
        return nullptr;
    const auto& s = *settings_;
    const auto& facts = query.facts;
    // peerGetSomeNeighbor() and peerSelectIcpPing()
    if (s.alwaysDirect.size() != 0 && s.alwaysDirect.check(facts) == Acl::Answer::Allowed)
        return nullptr;
    const bool directNo = s.neverDirect.size() != 0 && s.neverDirect.check(facts) == Acl::Answer::Allowed;
    if (!query.hierarchical && !directNo)
        return nullptr;
    const auto now = loop_.now();
    std::unique_ptr<IcpPing> ping(new IcpPing);
    ping->reqnum_ = nextReqnum_++;
    if (nextReqnum_ == 0)
        nextReqnum_ = 1;
    ping->url_ = facts.url;
    ping->start_ = now;
    IcpMessage query2;
    query2.opcode = IcpOpcode::Query;
    query2.reqnum = ping->reqnum_;
    query2.url = facts.url;
    const auto datagram = BuildIcp(query2);
    if (datagram.empty())
        return nullptr;
    // neighborsUdpPing(): every peer that would be pinged is queried; a
    // reply is expected only from those that are up
    unsigned parents = 0, siblings = 0;
    uint64_t parentRtt = 0, siblingRtt = 0;
    for (const auto& p : peers_) {
        if (!wouldPing(*p, query, now))
            continue;
        icp_->send(*p->icpAddress_, datagram);
        ping->queried_.push_back(p);
        if (p->isUp()) {
            ++ping->expected_;
            if (p->isSibling()) {
                ++siblings;
                siblingRtt += p->rtt_;
            } else {
                ++parents;
                parentRtt += p->rtt_;
            }
        } else if (!p->loggedDead_) {
            p->loggedDead_ = true;
            debugs(15, 1, "Detected DEAD " << (p->isSibling() ? "Sibling" : "Parent") << ": " << p->name());
        }
        p->lastQuery_ = now;
        if (p->probeStart_ == Comm::Clock::time_point{})
            p->probeStart_ = now;
    }
    if (ping->expected_ == 0)
        return nullptr;
    uint64_t ms = s.icpQueryTimeout;
    if (ms == 0) {
        ms = parents ? 2 * parentRtt / parents : 2 * siblingRtt / siblings;
        if (s.maximumIcpQueryTimeout && ms > s.maximumIcpQueryTimeout)
            ms = s.maximumIcpQueryTimeout;
        if (ms < s.minimumIcpQueryTimeout)
            ms = s.minimumIcpQueryTimeout;
    }
    ping->timeout_ = Comm::Milliseconds(ms);
    ping->table_ = this;
    ping->loop_ = &loop_;
    ping->onDone_ = std::move(done);
    auto* raw = ping.get();
    ping->timer_ = loop_.schedule(ping->timeout_, [raw] {
        debugs(15, 3,
               "ICP query timeout for " << raw->url_ << ": " << raw->received_ << " of " << raw->expected_
                                        << " replies");
        raw->result_.timedOut = true;
        ++raw->table_->icpCounters_.queryTimeouts;
        raw->finish();
    });
    pings_[ping->reqnum_] = raw;
    return ping;
}

void Server::Peers::noteIcpReply(const Comm::Address& from, const IcpMessage& reply)
{
    // Squid's whichPeer(): the peer is known by the address and port replying
    Peer* peer = nullptr;
    for (const auto& p : peers_)
        if (p->icpAddress_ && p->icpAddress_->host() == from.host() && p->icpAddress_->port() == from.port())
            peer = p.getRaw();
    if (!peer) {
        debugs(15, 1, "WARNING: Ignored an ICP reply from non-peer " << from.toString());
        return;
    }
    const auto it = pings_.find(reply.reqnum);
    const auto now = loop_.now();
    // neighborAlive() and neighborUpdateRtt()
    ++peer->pingsAcked_;
    peer->probeStart_ = {};
    if (peer->loggedDead_) {
        peer->loggedDead_ = false;
        debugs(15, 1,
               "Detected REVIVED " << (peer->isSibling() ? "Sibling" : "Parent") << ": " << peer->name());
    }
    if (it == pings_.end() || it->second->url_ != reply.url) {
        debugs(15, 3, "late or unknown ICP reply " << reply.reqnum << " from " << peer->name());
        return;
    }
    auto& ping = *it->second;
    const auto elapsed = std::chrono::duration_cast<Comm::Milliseconds>(now - ping.start_).count();
    if (elapsed >= 1 && elapsed <= 10000) {
        // Math::intAverage over at most RTT_AV_FACTOR (50) replies
        const unsigned n = std::min(peer->pingsAcked_, 50u);
        peer->rtt_ = unsigned((uint64_t(peer->rtt_) * (n - 1) + uint64_t(elapsed)) / n);
    }
    // peerHandleIcpReply() sees these only: ICP_DENIED and ICP_ERR are ignored
    if (reply.opcode != IcpOpcode::Hit && reply.opcode != IcpOpcode::Miss &&
        reply.opcode != IcpOpcode::MissNoFetch && reply.opcode != IcpOpcode::DecoyEcho &&
        reply.opcode != IcpOpcode::SourceEcho)
        return;
    ++ping.received_;
    debugs(15, 3,
           IcpOpcodeName(reply.opcode)
               << " from " << peer->name() << " for " << reply.url << " after " << elapsed << " ms");
    // peerHandleIcpReply()
    if (reply.opcode == IcpOpcode::Hit) {
        ping.result_.hit = PeerRef(peer);
        ping.finish();
        return;
    }
    if ((reply.opcode == IcpOpcode::Miss || reply.opcode == IcpOpcode::DecoyEcho) && !peer->isSibling() &&
        !peer->config().closestOnly) {
        // peerIcpParentMiss(): the first miss, per weight, after basetime
        int64_t rtt = (int64_t(elapsed) - int64_t(peer->config().basetime)) / int64_t(peer->config().weight);
        if (rtt < 1)
            rtt = 1;
        if (!ping.result_.firstParentMiss || unsigned(rtt) < ping.bestRtt_) {
            ping.result_.firstParentMiss = PeerRef(peer);
            ping.bestRtt_ = unsigned(rtt);
        }
    }
    if (ping.received_ >= ping.expected_)
        ping.finish();
}
