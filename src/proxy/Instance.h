/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Proxy::Instance: the composition root. One running proxy on one
/// event loop: it owns every loop-wide service, applies configurations to
/// them, and hands the client side only Client::Services. With `workers N`
/// each worker (Proxy::Worker) has one, on its own thread, sharing with the
/// others only what the Proxy::Board holds (doc/design.md "Workers").
///
/// What it owns, and what each is to become once the workers share the
/// cache (doc/design.md "Not built yet"):
///
/// - per loop: side_ (http_port listeners and client connections), pool_,
///   forwarding_ and limits_ (idle origin connections, the forwarders'
///   context and knobs), resolver_ (a c-ares channel; its caches are the
///   board's Comm::DnsCache with several workers), finishing_ and
///   detached_ (fetches no client owns), accessLog_ (each worker writes the
///   files with O_APPEND);
/// - shared: cache_ (the memory cache: the board's Store::Index with
///   several workers) and disk_'s shelf (the cache_dirs' state, the board's
///   Disk::Shelf for the workers with the same cache_dir lines); inFlight_
///   (the joinable fetches) is each worker's, its pending fetches offered
///   on the board and joined by the other workers through collapsing_;
///   immutable between reconfigures: settings_, errorPages_ and
///   visibleHostname_.
///
/// The block pool (Sbuf::DefaultPool()) is the thread's own already; the
/// Instance only sizes its arena and page reserve (configureMemory()).
///
/// Destruction is in reverse member order: the side (its connections) first,
/// while all they use is there, then the fetches no client owns, the
/// in-flight registry and the cache, the forwarders' context, the resolver
/// and the origin pool.

#pragma once

#include "client/Services.h"
#include "auth/Basic.h"
#include "auth/Digest.h"
#include "client/Lookups.h"
#include "client/Side.h"
#include "comm/Loop.h"
#include "comm/Resolver.h"
#include "config/Settings.h"
#include "disk/Cache.h"
#include "errors/Catalog.h"
#include "log/AccessLog.h"
#include "mgr/Figures.h"
#include "proxy/Board.h"
#include "proxy/Collapsing.h"
#include "server/Forwarder.h"
#include "server/Peers.h"
#include "server/Pool.h"
#include "store/InFlight.h"
#include "store/Index.h"
#include "store/Parts.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace Proxy {

/// One running proxy: the services and the client side (see the file comment).
class Instance final : public Client::Services {
public:
    /// an instance with no configuration yet: call configure() before use
    explicit Instance(Comm::Loop& loop);
    ~Instance() override;
    Instance(const Instance&) = delete;
    Instance& operator=(const Instance&) = delete;

    /// Applies a configuration snapshot: opens its access logs, loads its
    /// error templates, sets up DNS, forwarding, the cache and memory, and
    /// binds each http_port that is not bound yet (closing listeners for
    /// ports no longer configured). At start-up (isStartup) any failure
    /// throws (the daemon exits with the message); on reconfigure a log or
    /// port that cannot be opened is logged and the rest applies (old access
    /// logs are kept when the new ones fail).
    void configure(std::shared_ptr<const Config::Settings> settings, bool isStartup);

    /// `-k rotate`: rotates every access log and the store log keeping
    /// logfile_rotate old files (0: just reopens the path, after logrotate
    /// renamed the file). A file whose path is in `done` was rotated by
    /// another worker and is only reopened; the paths rotated here are added
    /// (doc/design.md "Workers").
    void rotateLogs(std::set<std::string>& done);
    /// Writes buffered access.log and store.log lines (the loop calls it every iteration).
    void flushLogs();

    /// the client side: listeners and connections (shutdown, tests)
    Client::Side& side() { return side_; }
    const Client::Side& side() const { return side_; }
    /// the open client connections (shutdown waits for them)
    size_t connectionCount() const { return side_.connectionCount(); }

    /* Client::Services API */
    const Config::Settings& settings() const override { return *settings_; }
    Comm::Loop& loop() override { return loop_; }
    Log::AccessLog& accessLog() override { return *accessLog_; }
    void noteReleased(std::string_view method, std::string_view url, const Store::Entry& entry) override;
    /// sets this thread's release observer of the memory cache (store.log)
    void observeReleases();
    /// writes the cache_store_log line of action on the stored object whose
    /// key has that hash, fullKey (or "" when only the hash is known: its
    /// line names no method and URL; entry then has no reply); a disk
    /// object's in cache_dir dir, file fileNumber
    void logStored(std::string_view action, const Store::KeyHash& hash, std::string_view fullKey,
                   const Store::Entry& entry, int dir = -1, uint32_t fileNumber = 0xFFFFFFFFu);
    const Errors::Catalog& errorPages() const override { return errorPages_; }
    const std::string& visibleHostname() const override { return visibleHostname_; }
    const std::string& viaName() const override { return viaName_; }
    Server::Context& forwarding() override { return *forwarding_; }
    const Server::Limits& forwardLimits() const override { return limits_; }
    Store::Index& cache() override { return *cache_.index; }
    Store::DiskTier* disk() override { return disk_.get(); }
    /// the disk store, or null without cache_dir (the cache manager's storedir page)
    const Disk::Cache* diskCache() const { return disk_.get(); }
    Store::InFlight& inFlight() override { return inFlight_; }
    Store::Parts& parts() override { return parts_; }
    /// collapsed forwarding across workers, or null with one worker
    Collapsing* collapsing() { return collapsing_.get(); }
    size_t eraseStored(const std::string& key) override;
    /// erases the object stored under `key` from this worker's disk store;
    /// returns how many copies were there (0 or 1)
    size_t eraseFromDisk(const std::string& key);
    void adoptFinishing(Server::ForwarderPtr&& forwarder) override;
    void startDetached(std::unique_ptr<Client::DetachedFetch>&& fetch) override;
    void release(Client::Connection& connection) override { side_.release(connection); }
    void adoptBumped(Comm::Descriptor&& fd, const Comm::Address& peer, const Comm::Address& local,
                     const std::string& portName, SSL_CTX* context,
                     std::unique_ptr<Client::BumpState>&& bumped, const Comm::Address* interceptedAt) override
    {
        side_.adoptBumped(std::move(fd), peer, local, portName, context, std::move(bumped), interceptedAt);
    }
    void relayTls(Comm::Descriptor&& fd, Tls::AcceptedPtr&& tls, Comm::Descriptor&& plainEnd) override
    {
        side_.relayTls(std::move(fd), std::move(tls), std::move(plainEnd));
    }
    bool isShuttingDown() const override { return side_.isShuttingDown(); }
    size_t connectionsFrom(const std::string& host) const override { return side_.connectionsFrom(host); }
    Auth::Basic* basicAuth() override { return basicAuth_.get(); }
    Auth::Digest* digestAuth() override { return digestAuth_.get(); }
    Helper::Pool* urlRewriter() override { return urlRewriter_.get(); }
    Helper::Pool* storeIdHelper() override { return storeIdHelper_.get(); }
    Client::Lookups& lookups() override;
    Client::Counters& counters() override { return side_.counters(); }
    std::shared_ptr<void> managerPage(const std::string& action, ManagerPageDone done) override;
    void managerCommand(const std::string& action) override;

    /// Once a minute, adds the counters to the manager's History (the
    /// 5min and 60min pages); the loop calls it every iteration, and it
    /// compares the loop's time until the minute is up. Minutes the loop
    /// slept through get the counters as they are (nothing moved meanwhile).
    /// With several workers, it also has this worker's counts published on
    /// the board soon when something was counted since the last time.
    void sampleCounters();

    /// With several workers: this one is worker `number`; it publishes its
    /// counts on `board` once a second from now on, and its manager pages
    /// add the other workers' (doc/design.md "Workers").
    void joinBoard(Board& board, unsigned number);

    /// Starts the helper processes (auth_param, url_rewrite_program,
    /// store_id_program) once cuttle has left root:
    /// a helper never runs as root. Reconfigures apply to them from then on.
    void startHelpers();

private:
    std::unique_ptr<Log::AccessLog>
    openAccessLogs(const std::shared_ptr<const Config::Settings>& settings) const;
    void configureForwarding(const Config::Settings& settings, bool isStartup);
    /// shared_memory_locking: the block pool's arena, made at start-up only;
    /// memory_populate_ahead: its page reserve
    void configureMemory(const Config::Settings& settings, bool isStartup);
    void configureHelpers();
    /// Starts, reconfigures or retires one helper pool as `settings` say.
    void configurePool(std::unique_ptr<Helper::Pool>& pool, const char* name,
                       const Config::HelperProgramSettings& settings);
    /// the bytes memory_populate_ahead asks for (auto worked out)
    static uint64_t PopulateAhead(const Config::Settings& settings);
    /// seconds since the epoch, with microseconds (Manager.cc)
    static double WallClock();
    /// the manager's figures now (Manager.cc)
    Mgr::Figures managerFigures() const;
    /// this worker's counters now, as the manager names them (Manager.cc)
    Mgr::Counters ownCounters() const;
    /// this worker's share of the board (Manager.cc)
    Board::Share ownShare() const;
    /// publishes ownShare() on the board, and again in a second (Manager.cc)
    void publish();
    /// publishes within PublishDelay when something was counted since the
    /// last publish() (Manager.cc)
    void notePublishable();
    /// how late another worker's manager page may see this worker's counts
    static constexpr Comm::Milliseconds PublishDelay{10};
    /// a sum of this worker's counts that changes whenever the board's
    /// figures do, in practice (Manager.cc)
    uint64_t activity() const;
    /// the whole process's counts: ownShare() and the other workers' last ones (Manager.cc)
    Board::Share processShare() const;
    /// destroys the finished fetches no client owns
    void reapFinishing();
    /// reapFinishing() after the current callback (a fetch said it is done)
    void reapSoon();

    Comm::Loop& loop_;
    Server::Pool pool_;                           ///< idle origin connections
    std::unique_ptr<Comm::Resolver> resolver_;    ///< DNS (c-ares)
    std::unique_ptr<Server::Context> forwarding_; ///< shared by every forwarder
    std::unique_ptr<Server::Peers> peers_;        ///< cache_peer parents and their state
    Server::Limits limits_;                       ///< from the configuration in force
    /// the memory cache (cache_mem): the worker's own, or with several
    /// workers the board's, which it leaves when it goes (after what is
    /// declared below, which may still store)
    struct CacheHandle {
        std::shared_ptr<Store::Index> index;
        ~CacheHandle()
        {
            if (index && index->isShared())
                index->leave();
        }
    } cache_;
    std::unique_ptr<Disk::Cache> disk_; ///< the cache_dirs, made at start-up
    Store::InFlight inFlight_;          ///< joinable fetches
    Store::Parts parts_;                ///< the parts of objects that Range requests fetched
    std::unique_ptr<Collapsing>
        collapsing_; ///< with several workers (joinBoard()); let go of first (~Instance())
    std::vector<Server::ForwarderPtr> finishing_;                  ///< see adoptFinishing()
    std::vector<std::unique_ptr<Client::DetachedFetch>> detached_; ///< see startDetached()
    Comm::Timer reapTimer_;                                        ///< see reapSoon()
    Comm::Timer logTimer_;                                         ///< see flushLogs()
    std::shared_ptr<const Config::Settings> settings_;             ///< the snapshot in force
    std::unique_ptr<Auth::Basic> basicAuth_;                       ///< auth_param basic, once helpers may run
    std::unique_ptr<Auth::Digest> digestAuth_;                     ///< auth_param digest, likewise
    std::unique_ptr<Helper::Pool> urlRewriter_;                    ///< url_rewrite_program, likewise
    std::unique_ptr<Helper::Pool> storeIdHelper_;                  ///< store_id_program, likewise
    std::unique_ptr<Client::Lookups> lookups_;                     ///< external_acl_type helpers, likewise
    double startTime_;                   ///< seconds since the epoch, for the manager
    Comm::Clock::time_point nextSample_; ///< when sampleCounters() samples next (the loop's time)
    Mgr::History history_;               ///< the counters, once a minute
    Board* board_ = nullptr;             ///< the workers' counts; null with one worker
    unsigned workerNumber_ = 1;          ///< this worker's number (joinBoard())
    Comm::Timer publishTimer_;           ///< see publish()
    uint64_t published_ = 0;             ///< activity() at the last publish()
    Comm::Clock::time_point publishDue_; ///< when publishTimer_ fires
    /// helpers a reconfigure removed, shut down but kept: a connection may
    /// still hold a Helper::Ticket of theirs (its callback runs with a failure)
    std::vector<std::unique_ptr<Auth::Basic>> retiredAuth_;
    std::vector<std::unique_ptr<Auth::Digest>> retiredDigests_;
    std::vector<std::unique_ptr<Helper::Pool>> retiredPools_;
    bool helpersMayRun_ = false;                ///< root was left (startHelpers())
    std::unique_ptr<Log::AccessLog> accessLog_; ///< see accessLog()
    std::unique_ptr<Log::AccessLog> storeLog_;  ///< cache_store_log, or null (none)
    uint64_t releasedPrivate_ = 0;              ///< unstored replies let go (their store.log keys)
    Errors::Catalog errorPages_;                ///< see errorPages()
    std::string visibleHostname_;               ///< see visibleHostname()
    std::string viaName_;                       ///< see viaName(); set with visibleHostname_
    Client::Side side_;                         ///< last member: destroyed first
};

} // namespace Proxy
