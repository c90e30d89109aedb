/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "proxy/Instance.h"
#include "client/Icp.h"
#include "client/LogFilter.h"
#include "proxy/ConfigDns.h"
#include "base/TextException.h"
#include "client/DetachedFetch.h"
#include "client/Headers.h"
#include "log/CacheLog.h"
#include "sbuf/BlockPool.h"
#include "store/Key.h"
#include "store/StoreLog.h"
#include "tls/ClientContext.h"

#include <algorithm>
#include <stdexcept>

#include <sys/time.h>
#include <unistd.h>

namespace {

/// whether a reconfigure from old to now changes the cache_dirs (their
/// number, paths or cache_replacement_policy), which only a start applies
bool CacheDirsChanged(const Config::Settings& old, const Config::Settings& now)
{
    return !std::equal(old.cacheDirs.begin(), old.cacheDirs.end(), now.cacheDirs.begin(), now.cacheDirs.end(),
                       [](const Config::CacheDir& a, const Config::CacheDir& b) {
                           return a.path == b.path && a.policy == b.policy;
                       });
}

/// Where the error pages of SETTINGS come from (Errors::Catalog): squid.conf's
/// directives, cuttle's own templates and Squid's language tree, and the
/// deny_info pages to read besides Squid's ERR_* names.
Errors::CatalogSources ErrorPageSources(const Config::Settings& settings)
{
    Errors::CatalogSources sources;
    sources.errorDirectory = settings.errorDirectory;
    sources.defaultLanguage = settings.errorDefaultLanguage;
    sources.logMissingLanguages = settings.errorLogLanguages;
    sources.stylesheet = settings.errPageStylesheet;
    sources.ownTemplates = CUTTLE_DEFAULT_ERROR_DIR;
    sources.languagesRoot = CUTTLE_ERROR_LANGUAGES_DIR;
    for (const auto& info : settings.denyInfos)
        if (info.action == Config::DenyInfo::Action::Page)
            sources.extraNames.push_back(info.target);
    return sources;
}

} // namespace

Proxy::Instance::Instance(Comm::Loop& loop)
    : loop_(loop), pool_(loop), cache_{std::make_shared<Store::Index>(Store::MakePolicy("lru"), 0)},
      startTime_(WallClock()), nextSample_(loop.now() + std::chrono::minutes(1)),
      accessLog_(std::make_unique<Log::AccessLog>()), side_(loop, *this)
{
    // Squid's first sample is the start: 5min and 60min show zeros until a minute passed
    Mgr::Counters start;
    start.sampleTime = startTime_;
    history_.sample(start);
    // cache_store_log: a stored object let go (the index tells before it forgets it)
    observeReleases();
}

void Proxy::Instance::observeReleases()
{
    cache_.index->setReleaseObserver([this](std::string_view fullKey, const Store::Entry& entry) {
        logStored("RELEASE", Store::HashKey(fullKey), fullKey, entry);
    });
}

void Proxy::Instance::logStored(std::string_view action, const Store::KeyHash& hash, std::string_view fullKey,
                                const Store::Entry& entry, int dir, uint32_t fileNumber)
{
    if (!storeLog_)
        return;
    const auto key = Store::BaseKey(fullKey); // method SP url, or ""
    const auto space = std::min(key.find(' '), key.size());
    timeval now{};
    ::gettimeofday(&now, nullptr);
    storeLog_->logLine(Store::StoreLogLine(now, action, Store::KeyDigest(hash), entry, key.substr(0, space),
                                           key.substr(std::min(space + 1, key.size())), dir, fileNumber));
}

void Proxy::Instance::noteReleased(std::string_view method, std::string_view url, const Store::Entry& entry)
{
    if (!storeLog_)
        return;
    // Squid names such an entry by a private key, unique per entry
    const auto key = std::to_string(++releasedPrivate_) + ' ' + std::string(method) + ' ' + std::string(url);
    timeval now{};
    ::gettimeofday(&now, nullptr);
    storeLog_->logLine(Store::StoreLogLine(now, "RELEASE", Store::KeyDigest(key), entry, method, url));
}

// the members go in reverse order (see the header)
Proxy::Instance::~Instance()
{
    // before the connections and fetches, which may still forget pending misses
    inFlight_.setRemote(nullptr);
    collapsing_.reset();
}

void Proxy::Instance::configureForwarding(const Config::Settings& settings, bool isStartup)
{
    const auto dns = DnsOptions(settings);
    try {
        if (!resolver_)
            resolver_ = std::make_unique<Comm::Resolver>(loop_, dns, board_ ? board_->dnsCache() : nullptr);
        else
            resolver_->reconfigure(dns);
    } catch (const std::exception& e) {
        if (isStartup)
            throw;
        debugs(78, 0, "ERROR: cannot apply the new DNS settings: " << e.what() << "; keeping the old ones");
    }
    if (!forwarding_)
        forwarding_ = std::make_unique<Server::Context>(Server::Context{loop_, resolver_.get(), pool_});
    forwarding_->resolver = resolver_.get();
    std::string why;
    if (auto tls = Tls::ClientContext::Make(Server::TlsClientOptions(settings.tlsOutgoing), why)) {
        forwarding_->tls = tls;
    } else {
        if (isStartup)
            throw std::runtime_error("tls_outgoing_options: " + why);
        debugs(83, 0, "ERROR: tls_outgoing_options: " << why << "; keeping the old TLS settings");
    }
    lookups().setResolver(resolver_.get()); // srcdomain and the other acls that need an address's name
    pool_.setIdleTimeout(settings.serverIdlePconnTimeout);

    const auto& rbs = settings.requestBufferSize;
    limits_.readSizer =
        rbs.isAuto ? Sbuf::ReadSizer::Auto(rbs.min, rbs.max) : Sbuf::ReadSizer::Fixed(rbs.fixed);
    limits_.readAheadGap = settings.readAheadGap;
    limits_.spliceMinSize = settings.spliceMinSize;
    limits_.replyHeaderMaxSize = settings.replyHeaderMaxSize;
    limits_.connectTimeout = settings.connectTimeout;
    limits_.readTimeout = settings.readTimeout;
    limits_.quickAbortMin = settings.quickAbortMin;
    limits_.quickAbortMax = settings.quickAbortMax;
    limits_.quickAbortPct = settings.quickAbortPct;
    limits_.forwardMaxTries = settings.forwardMaxTries;
    limits_.retryOnError = settings.retryOnError;
    limits_.connectRetries = settings.connectRetries;
    limits_.spareDelay = Comm::Milliseconds(settings.happyEyeballsConnectTimeout);
    limits_.persistent = settings.serverPersistentConnections;

    // memory_cache_shared: the board's one memory cache, from the start (read at start only)
    if (board_ && isStartup && settings.memoryCacheShared && !cache().isShared()) {
        cache().setReleaseObserver(nullptr);
        cache_.index = board_->cache();
        observeReleases();
    } else if (board_ && !isStartup && settings.memoryCacheShared != cache().isShared() &&
               workerNumber_ == 1) {
        debugs(20, 0, "WARNING: a change of memory_cache_shared takes effect at the next start");
    }
    auto policy = Store::MakePolicy<Store::PolicyNode>(Disk::PolicyKindOf(settings.memoryReplacementPolicy));
    if (cache().policyName() != policy->name())
        cache().setPolicy(std::move(policy));
    cache().setBudget(settings.cacheMem);
    parts_.setBudget(settings.cacheMem); // doc/caching.md "Partial objects"
}

size_t Proxy::Instance::eraseFromDisk(const std::string& key)
{
    return (disk_ && disk_->erase(key)) ? 1 : 0;
}

size_t Proxy::Instance::eraseStored(const std::string& key)
{
    // an object is in memory or on disk (Store::Admit() erases the disk copy
    // of what memory takes), or in parts; all are asked: the memory cache is the
    // process's, a disk store's shelf the workers' of its cache_dir lines
    // (the others are told later, by their loops)
    if (board_) {
        const Disk::Shelf* shelf = disk_ ? &disk_->shelf() : nullptr;
        board_->postToOthers(workerNumber_, [key, shelf](Instance& other) {
            if (other.disk_ && &other.disk_->shelf() != shelf)
                (void)other.eraseFromDisk(key);
            (void)other.parts_.erase(key);
        });
    }
    return cache().erase(key) + eraseFromDisk(key) + parts_.erase(key);
}

void Proxy::Instance::adoptFinishing(Server::ForwarderPtr&& forwarder)
{
    finishing_.push_back(std::move(forwarder));
    finishing_.back()->setDoneHandler([this] { reapSoon(); });
}

void Proxy::Instance::startDetached(std::unique_ptr<Client::DetachedFetch>&& fetch)
{
    detached_.push_back(std::move(fetch));
    const auto& key = detached_.back()->cacheKey();
    inFlight_.addDetached(key);
    detached_.back()->setDoneHandler([this, key] {
        inFlight_.forgetDetached(key);
        reapSoon();
    });
    detached_.back()->start();
}

void Proxy::Instance::reapSoon()
{
    // not from inside the fetch that is done: after the current callback
    if (!reapTimer_.isPending())
        reapTimer_ = loop_.defer([this] { reapFinishing(); });
}

void Proxy::Instance::reapFinishing()
{
    std::erase_if(finishing_, [](const Server::ForwarderPtr& f) { return f->isDone(); });
    std::erase_if(detached_, [](const std::unique_ptr<Client::DetachedFetch>& r) { return r->isDone(); });
}

void Proxy::Instance::configure(std::shared_ptr<const Config::Settings> settings, bool isStartup)
{
    Must(settings);

    std::unique_ptr<Log::AccessLog> logs;
    try {
        logs = openAccessLogs(settings);
    } catch (const std::exception& e) {
        if (isStartup)
            Throw(std::string("cannot open access log: ") + e.what());
        debugs(46, 0, "ERROR: cannot open access log: " << e.what() << "; keeping the old access logs");
    }
    if (logs) {
        accessLog_->flush();
        accessLog_ = std::move(logs);
    }
    if (storeLog_)
        storeLog_->flush();
    storeLog_.reset();
    if (settings->cacheStoreLog.module != "none") {
        try {
            storeLog_ = std::make_unique<Log::AccessLog>();
            storeLog_->setBuffered(settings->bufferedLogs);
            storeLog_->add(settings->cacheStoreLog);
        } catch (const std::exception& e) {
            storeLog_.reset();
            if (isStartup)
                Throw(std::string("cannot open cache_store_log: ") + e.what());
            debugs(46, 0, "ERROR: cannot open cache_store_log: " << e.what() << "; keeping no store log");
        }
    }

    if (isStartup && !settings->cacheDirs.empty()) {
        // workers with the same cache_dir lines share their state (doc/design.md "Workers")
        auto shelf = board_ ? board_->diskShelf(Disk::Shelf::KeyOf(settings->cacheDirs)) : nullptr;
        disk_ = std::make_unique<Disk::Cache>(loop_, *settings, std::move(shelf)); // checks every cache_dir
        // cache_store_log: SWAPOUT and RELEASE of disk objects, as Squid 5.7 (no SWAPIN line)
        disk_->setStoreObserver(
            [this](std::string_view action, const Store::KeyHash& hash, std::string_view fullKey, int dir,
                   uint32_t file,
                   const Store::Entry& entry) { logStored(action, hash, fullKey, entry, dir, file); });
    } else if (!isStartup && settings_ && CacheDirsChanged(*settings_, *settings))
        debugs(47, 0,
               "WARNING: cache_dir and cache_replacement_policy changes take effect at the next start");
    errorPages_.load(ErrorPageSources(*settings));

    visibleHostname_ = settings->visibleHostname;
    if (visibleHostname_.empty()) {
        char name[256] = "";
        if (::gethostname(name, sizeof(name) - 1) == 0 && name[0])
            visibleHostname_ = name;
        else
            visibleHostname_ = "localhost";
    }
    viaName_ = (settings->uniqueHostname.empty() ? visibleHostname_ : settings->uniqueHostname) + " (" +
               Client::SoftwareName(*settings) + ")";

    configureForwarding(*settings, isStartup);
    configureMemory(*settings, isStartup);
    settings_ = std::move(settings);
    if (!peers_)
        peers_ = std::make_unique<Server::Peers>(loop_, resolver_.get());
    try {
        peers_->configure(settings_);
    } catch (const std::exception& e) {
        if (isStartup)
            throw;
        debugs(15, 0, "ERROR: " << e.what() << "; keeping the old cache_peer lines");
    }
    forwarding_->peers = peers_.get();
    if (auto* icp = peers_->icpSocket())
        icp->setAnswerer(
            [this](const Comm::Address& from, const std::string& url) {
                return Client::AnswerIcpQuery(*this, from, url);
            },
            [this](const Comm::Address& from, Server::IcpOpcode reply, size_t size, const std::string& url) {
                Client::LogIcpQuery(*this, from, reply, size, url);
            });
    if (helpersMayRun_)
        configureHelpers();
    if (!side_.isShuttingDown())
        side_.bindPorts(*settings_, isStartup);
    // what the new settings changed (a page reserve, the ports) reaches the
    // other workers' pages now, not at the next second's publication
    if (board_ && !isStartup)
        publish();
}

Client::Lookups& Proxy::Instance::lookups()
{
    if (!lookups_) // its helpers start with the others (configureHelpers())
        lookups_ = std::make_unique<Client::Lookups>(loop_);
    return *lookups_;
}

void Proxy::Instance::startHelpers()
{
    helpersMayRun_ = true;
    configureHelpers();
}

namespace {

/// The pool options of a helper program with these children (squid.conf's
/// one syntax for them, Config::HelperChildren); `name` is Squid's for it.
Helper::Options HelperOptions(const char* name, const std::vector<std::string>& program,
                              const Config::HelperChildren& children)
{
    Helper::Options options;
    options.name = name;
    options.argv = program;
    options.childrenMax = children.children;
    options.startup = children.startup;
    options.idle = children.idle;
    options.concurrency = children.concurrency;
    options.queueSize = children.queueSize;
    return options;
}

/// Starts, reconfigures or (without options) retires one helper service; a
/// retired one is shut down but kept in `retired`: a connection may still
/// hold one of its Helper::Tickets (whose callback then runs with a failure).
template <typename Service, typename Options>
void Apply(Comm::Loop& loop, std::unique_ptr<Service>& service,
           std::vector<std::unique_ptr<Service>>& retired, const Options* options)
{
    if (!options) {
        if (service) {
            service->shutdown();
            retired.push_back(std::move(service));
        }
        return;
    }
    if (service)
        service->reconfigure(*options);
    else
        service = std::make_unique<Service>(loop, *options);
}

} // namespace

void Proxy::Instance::configureHelpers()
{
    lookups().configure(settings_->acls, settings_->authenticateIpTtl);
    configurePool(urlRewriter_, "redirector", settings_->urlRewrite);
    configurePool(storeIdHelper_, "store_id", settings_->storeId);

    const auto& s = settings_->authBasic;
    Auth::BasicOptions basic;
    basic.helper = HelperOptions("basicauthenticator", s.program, s.children);
    basic.realm = s.realm;
    basic.credentialsTtl = std::chrono::duration_cast<std::chrono::seconds>(s.credentialsTtl);
    basic.caseSensitive = s.caseSensitive;
    basic.utf8 = s.utf8;
    Apply(loop_, basicAuth_, retiredAuth_, s.program.empty() ? nullptr : &basic);

    const auto& d = settings_->authDigest;
    const auto seconds = [](Config::Duration t) {
        return std::chrono::duration_cast<std::chrono::seconds>(t);
    };
    Auth::DigestOptions digest;
    digest.helper = HelperOptions("digestauthenticator", d.program, d.children);
    digest.realm = d.realm;
    digest.nonceGarbageInterval = seconds(d.nonceGarbageInterval);
    digest.nonceMaxDuration = seconds(d.nonceMaxDuration);
    digest.nonceMaxCount = d.nonceMaxCount;
    digest.nonceStrictness = d.nonceStrictness;
    digest.checkNonceCount = d.checkNonceCount;
    digest.postWorkaround = d.postWorkaround;
    digest.utf8 = d.utf8;
    Apply(loop_, digestAuth_, retiredDigests_, d.program.empty() ? nullptr : &digest);
}

void Proxy::Instance::configurePool(std::unique_ptr<Helper::Pool>& pool, const char* name,
                                    const Config::HelperProgramSettings& settings)
{
    const auto options = HelperOptions(name, settings.program, settings.children);
    Apply(loop_, pool, retiredPools_, settings.program.empty() ? nullptr : &options);
}

uint64_t Proxy::Instance::PopulateAhead(const Config::Settings& settings)
{
    if (settings.memoryPopulateAhead)
        return *settings.memoryPopulateAhead;
    // auto: room for one object of the largest size kept, in whole chunks
    // (objects under a chunk cost few fresh pages: no thread for them)
    const uint64_t largest = std::min(settings.maximumObjectSizeInMemory, settings.cacheMem);
    return largest / Sbuf::PageReserve::ChunkSize * Sbuf::PageReserve::ChunkSize;
}

void Proxy::Instance::configureMemory(const Config::Settings& settings, bool isStartup)
{
    auto& pool = Sbuf::DefaultPool();
    // the workers' shared memory cache holds cache_mem in all: each worker
    // locks its share, which the objects it stores are carved from (an
    // object past it takes blocks that are not locked)
    const unsigned sharers = board_ && cache().isShared() ? board_->workerCount() : 1;
    const uint64_t arena = settings.cacheMem / sharers;
    if (isStartup) {
        if (settings.sharedMemoryLocking && arena > 0) {
            pool.reserveArena(arena, true);
            debugs(20, 1,
                   "Locked " << pool.arenaBytes() << " bytes of memory for cache_mem"
                             << (sharers > 1 ? ", this worker's share" : "") << " (shared_memory_locking)");
        }
    }
    // a locked arena was populated whole at start: nothing to populate ahead
    pool.setPageReserve(pool.arenaBytes() > 0 ? 0 : PopulateAhead(settings), settings.cacheMem);
    if (isStartup)
        return;
    // the arena is made once: mapping and locking a new one under objects in
    // use would need both at once (Squid's shared memory also waits for a restart)
    const bool wanted = settings.sharedMemoryLocking && arena > 0;
    if (wanted != (pool.arenaBytes() > 0) || (wanted && arena > pool.arenaBytes()))
        debugs(20, 1,
               "WARNING: a change of shared_memory_locking or of the cache_mem it locks takes effect "
               "at the next start");
}

std::unique_ptr<Log::AccessLog>
Proxy::Instance::openAccessLogs(const std::shared_ptr<const Config::Settings>& settings) const
{
    auto logs = std::make_unique<Log::AccessLog>();
    logs->setBuffered(settings->bufferedLogs);
    for (size_t i = 0; i < settings->accessLogs.size(); ++i) {
        Log::OutputSpec spec = settings->accessLogs[i].output;
        if (settings->accessLogs[i].acls.size() > 0)
            spec.filter = std::make_shared<Client::LogFilter>(settings, i);
        logs->add(std::move(spec));
    }
    // Squid 5.7's Format::Token::parse() turns log_mime_hdrs on for a whole-header code
    bool mimeHeaders = settings->logMimeHdrs;
    for (const auto& f : settings->logformats)
        mimeHeaders = mimeHeaders || f.format->printsAllHeaders();
    logs->setMimeHeaders(mimeHeaders);
    return logs;
}

void Proxy::Instance::rotateLogs(std::set<std::string>& done)
{
    // logfile_rotate N keeps N old files (access.log.0 ...); 0 just reopens, for logrotate
    accessLog_->rotate(static_cast<int>(settings_->logfileRotate), &done);
    if (storeLog_)
        storeLog_->rotate(static_cast<int>(settings_->logfileRotate), &done);
}

void Proxy::Instance::flushLogs()
{
    accessLog_->flush();
    if (storeLog_)
        storeLog_->flush();
    // a buffered line, or a log writer thread's outcome, must not wait for
    // the next event of an idle proxy: flush again in a second
    const bool settled = accessLog_->isSettled() && (!storeLog_ || storeLog_->isSettled());
    if (!settled && !logTimer_.isPending())
        logTimer_ = loop_.schedule(std::chrono::seconds(1), [this] { flushLogs(); });
}
