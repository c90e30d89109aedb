/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "client/Server.h"
#include "base/TextException.h"
#include "client/Connection.h"
#include "client/DetachedFetch.h"
#include "log/CacheLog.h"
#include "sbuf/BlockPool.h"

#include <algorithm>
#include <stdexcept>

#include <malloc.h>
#include <sys/socket.h>
#include <unistd.h>

Client::Server::Server(Comm::Loop& loop)
    : loop_(loop), pool_(loop), cache_(Store::MakePolicy("lru"), 0),
      accessLog_(std::make_unique<Log::AccessLog>())
{}

Client::Server::~Server()
{
    connections_.clear(); // before the logs they write to, the pool and the resolver
    detached_.clear();
    finishing_.clear();
    pool_.closeAll();
    pendingMisses_.clear();
    pendingRevalidations_.clear();
    cache_.clear();
}

void Client::Server::configureForwarding(const Config::Settings& settings, bool isStartup)
{
    Comm::Resolver::Options dns;
    dns.nameservers = settings.dnsNameservers;
    dns.hostsFile = settings.hostsFile;
    dns.timeout = settings.dnsTimeout;
    try {
        if (!resolver_)
            resolver_ = std::make_unique<Comm::Resolver>(loop_, dns);
        else
            resolver_->reconfigure(dns);
    } catch (const std::exception& e) {
        if (isStartup)
            throw;
        debugs(78, 0, "ERROR: cannot apply the new DNS settings: " << e.what() << "; keeping the old ones");
    }
    if (!forwarding_)
        forwarding_ = std::make_unique<::Server::Context>(::Server::Context{loop_, resolver_.get(), pool_});
    forwarding_->resolver = resolver_.get();
    pool_.setIdleTimeout(settings.serverIdlePconnTimeout);

    const auto& rbs = settings.requestBufferSize;
    limits_.readSizer =
        rbs.isAuto ? Sbuf::ReadSizer::Auto(rbs.min, rbs.max) : Sbuf::ReadSizer::Fixed(rbs.fixed);
    limits_.readAheadGap = settings.readAheadGap;
    limits_.replyHeaderMaxSize = settings.replyHeaderMaxSize;
    limits_.connectTimeout = settings.connectTimeout;
    limits_.readTimeout = settings.readTimeout;
    limits_.quickAbortMin = settings.quickAbortMin;
    limits_.quickAbortMax = settings.quickAbortMax;
    limits_.quickAbortPct = settings.quickAbortPct;

    static constexpr const char* PolicyNames[] = {"lru", "heap GDSF", "heap LFUDA", "heap LRU"};
    const std::string_view policy = PolicyNames[static_cast<int>(settings.memoryReplacementPolicy)];
    if (cache_.policyName() != policy)
        cache_.setPolicy(Store::MakePolicy(policy));
    cache_.setBudget(settings.cacheMem);
}

Store::EntryRef Client::Server::pendingMiss(const std::string& key) const
{
    // a fetch that failed has nothing more to tell a new joiner (it would wait forever)
    const auto it = pendingMisses_.find(key);
    return it == pendingMisses_.end() || it->second->hasFailed() ? Store::EntryRef() : it->second;
}

Store::EntryRef Client::Server::pendingRevalidation(const std::string& fullKey,
                                                    const Store::EntryRef& stale) const
{
    const auto it = pendingRevalidations_.find(fullKey);
    if (it == pendingRevalidations_.end() || it->second.stale != stale)
        return Store::EntryRef(); // another object is stored there now
    const auto& reply = it->second.reply;
    return reply->hasFailed() || reply->reply() ? Store::EntryRef() : reply;
}

void Client::Server::setPendingRevalidation(const std::string& fullKey, const Store::EntryRef& stale,
                                            const Store::EntryRef& reply)
{
    pendingRevalidations_[fullKey] = PendingRevalidation{stale, reply};
}

void Client::Server::forgetPending(const Store::EntryRef& fetch, const std::string& cacheKey,
                                   const std::string& staleKey)
{
    if (!fetch)
        return;
    if (const auto it = pendingMisses_.find(cacheKey); it != pendingMisses_.end() && it->second == fetch)
        pendingMisses_.erase(it);
    if (const auto it = pendingRevalidations_.find(staleKey);
        it != pendingRevalidations_.end() && it->second.reply == fetch)
        pendingRevalidations_.erase(it);
}

void Client::Server::adoptFinishing(::Server::ForwarderPtr&& forwarder)
{
    finishing_.push_back(std::move(forwarder));
    if (!reapTimer_.isPending())
        reapTimer_ = loop_.schedule(Comm::Milliseconds(200), [this] { reapFinishing(); });
}

void Client::Server::startDetached(std::unique_ptr<DetachedFetch>&& fetch)
{
    detached_.push_back(std::move(fetch));
    detached_.back()->start();
    if (!reapTimer_.isPending())
        reapTimer_ = loop_.schedule(Comm::Milliseconds(200), [this] { reapFinishing(); });
}

bool Client::Server::isFetchingDetached(const std::string& cacheKey) const
{
    return std::any_of(detached_.begin(), detached_.end(),
                       [&](const auto& r) { return !r->isDone() && r->cacheKey() == cacheKey; });
}

void Client::Server::reapFinishing()
{
    std::erase_if(finishing_, [](const ::Server::ForwarderPtr& f) { return f->isDone(); });
    std::erase_if(detached_, [](const std::unique_ptr<DetachedFetch>& r) { return r->isDone(); });
    if (!finishing_.empty() || !detached_.empty())
        reapTimer_ = loop_.schedule(Comm::Milliseconds(200), [this] { reapFinishing(); });
}

void Client::Server::setPendingMiss(const std::string& key, const Store::EntryRef& entry)
{
    pendingMisses_[key] = entry;
}

void Client::Server::configure(std::shared_ptr<const Config::Settings> settings, bool isStartup)
{
    Must(settings);

    std::unique_ptr<Log::AccessLog> logs;
    try {
        logs = openAccessLogs(*settings);
    } catch (const std::exception& e) {
        if (isStartup)
            Throw(std::string("cannot open access log: ") + e.what());
        debugs(46, 0, "ERROR: cannot open access log: " << e.what() << "; keeping the old access logs");
    }
    if (logs) {
        accessLog_->flush();
        accessLog_ = std::move(logs);
    }

    templates_.load(settings->errorDirectory.empty() ? std::string(CUTTLE_DEFAULT_ERROR_DIR)
                                                     : settings->errorDirectory);

    visibleHostname_ = settings->visibleHostname;
    if (visibleHostname_.empty()) {
        char name[256] = "";
        if (::gethostname(name, sizeof(name) - 1) == 0 && name[0])
            visibleHostname_ = name;
        else
            visibleHostname_ = "localhost";
    }

    configureForwarding(*settings, isStartup);
    configureMemory(*settings, isStartup);
    settings_ = std::move(settings);
    if (!shuttingDown_)
        bindPorts(*settings_, isStartup);
}

uint64_t Client::Server::PopulateAhead(const Config::Settings& settings)
{
    if (settings.memoryPopulateAhead)
        return *settings.memoryPopulateAhead;
    // auto: room for one object of the largest size kept, in whole chunks
    // (objects under a chunk cost few fresh pages: no thread for them)
    const uint64_t largest = std::min(settings.maximumObjectSizeInMemory, settings.cacheMem);
    return largest / Sbuf::PageReserve::ChunkSize * Sbuf::PageReserve::ChunkSize;
}

void Client::Server::configureMemory(const Config::Settings& settings, bool isStartup)
{
    auto& pool = Sbuf::DefaultPool();
    if (isStartup) {
        if (settings.sharedMemoryLocking && settings.cacheMem > 0) {
            pool.reserveArena(settings.cacheMem, true);
            debugs(20, 1,
                   "Locked " << pool.arenaBytes()
                             << " bytes of memory for cache_mem "
                                "(shared_memory_locking)");
        }
    }
    // a locked arena was populated whole at start: nothing to populate ahead
    pool.setPageReserve(pool.arenaBytes() > 0 ? 0 : PopulateAhead(settings), settings.cacheMem);
    if (isStartup)
        return;
    // the arena is made once: mapping and locking a new one under objects in
    // use would need both at once (Squid's shared memory also waits for a restart)
    const bool wanted = settings.sharedMemoryLocking && settings.cacheMem > 0;
    if (wanted != (pool.arenaBytes() > 0) || (wanted && settings.cacheMem > pool.arenaBytes()))
        debugs(20, 1,
               "WARNING: a change of shared_memory_locking or of the cache_mem it locks takes effect "
               "at the next start");
}

std::unique_ptr<Log::AccessLog> Client::Server::openAccessLogs(const Config::Settings& settings) const
{
    auto logs = std::make_unique<Log::AccessLog>();
    for (const auto& spec : settings.accessLogs) {
        Log::AccessFormat format = Log::AccessFormat::Squid;
        try {
            format = Log::ParseFormatName(spec.format);
        } catch (const std::invalid_argument&) {
            debugs(46, 1, "WARNING: logformat " << spec.format << " is not supported; using squid");
        }
        switch (spec.kind) {
        case Config::AccessLogSpec::Kind::None:
            break;
        case Config::AccessLogSpec::Kind::Stdio:
            logs->add("stdio:" + spec.path, format);
            break;
        case Config::AccessLogSpec::Kind::Daemon:
            logs->add("daemon:" + spec.path, format);
            break;
        }
    }
    return logs;
}

void Client::Server::bindPorts(const Config::Settings& settings, bool isStartup)
{
    std::vector<Port> bound;
    for (const auto& wanted : settings.httpPorts) {
        // a port configured before keeps its socket (and its real port when it was 0)
        auto old = std::find_if(ports_.begin(), ports_.end(), [&](const Port& p) {
            return p.listener && p.host == wanted.host && p.port == wanted.port;
        });
        if (old != ports_.end()) {
            bound.push_back(std::move(*old));
            ports_.erase(old);
            continue;
        }
        const auto address = Comm::Address::Parse(wanted.host, wanted.port);
        std::string problem;
        std::unique_ptr<Comm::Listener> listener;
        if (!address) {
            problem = "http_port " + wanted.host + ":" + std::to_string(wanted.port) +
                      ": the address is not an IP address literal";
        } else {
            try {
                const auto local = *address;
                listener = std::make_unique<Comm::Listener>(
                    loop_, local, [this](Comm::Descriptor&& fd, const Comm::Address& peer) {
                        // the listener's own address is looked up by the connection
                        (void)adopt(std::move(fd), peer, Comm::Address());
                    });
            } catch (const TextException& e) {
                problem = e.message();
            }
        }
        if (!listener) {
            if (isStartup)
                Throw(problem + (wanted.origin.empty() ? "" : " (" + wanted.origin + ")"));
            debugs(5, 0, "ERROR: " << problem);
            continue;
        }
        ++connectionsSeen_;
        // Squid 5's wording, which tests and admins grep for
        debugs(5, 1,
               "Accepting HTTP Socket connections at conn"
                   << connectionsSeen_ << " local=" << listener->localAddress().toString()
                   << " remote=[::] FD " << listener->fd() << " flags=9");
        bound.push_back(Port{wanted.host, wanted.port, std::move(listener)});
    }
    for (const auto& gone : ports_) {
        if (gone.listener)
            debugs(5, 1, "Closing HTTP(S) port " << gone.listener->localAddress().toString());
    }
    ports_ = std::move(bound); // listeners no longer configured close here
}

Client::Connection& Client::Server::adopt(Comm::Descriptor&& fd, const Comm::Address& peer,
                                          const Comm::Address& local)
{
    Comm::Address where = local;
    if (where.port() == 0) {
        sockaddr_storage ss{};
        socklen_t len = sizeof(ss);
        if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&ss), &len) == 0)
            where = Comm::Address::FromSockaddr(reinterpret_cast<sockaddr*>(&ss), len);
    }
    auto connection = std::make_unique<Connection>(*this, std::move(fd), peer, where);
    Connection& c = *connection;
    connections_.emplace(&c, std::move(connection));
    connectionPeak_ = std::max(connectionPeak_, connections_.size());
    // a throw here is this connection's bug: it closes (and is released)
    // while the listener goes on draining its accept queue
    loop_.guard(&c, [&c] { c.start(); });
    return c;
}

void Client::Server::release(Connection& connection)
{
    Connection* key = &connection;
    // destroyed after the current callback: the connection may still be on the stack
    loop_.callSoon([this, key] {
        connections_.erase(key);
        giveBackMemory();
    });
}

void Client::Server::giveBackMemory()
{
    // After a burst of connections, glibc keeps the freed connection objects
    // and small blocks in its heap (free() only trims the top of the heap),
    // so RSS stayed at its peak. Once the open connections have halved since
    // the last peak, hand the free pages back: malloc_trim() walks the heap
    // (milliseconds for tens of MB) and happens at most log2(peak) times per
    // burst, never for a small server.
    constexpr size_t MinPeak = 1024;
    if (connectionPeak_ < MinPeak || connections_.size() > connectionPeak_ / 2)
        return;
    connectionPeak_ = connections_.size();
    Sbuf::DefaultPool().trim();
#if defined(__GLIBC__)
    (void)::malloc_trim(0);
#endif
}

void Client::Server::stopAccepting()
{
    for (auto& p : ports_) {
        if (p.listener && p.listener->isListening()) {
            debugs(5, 1, "Closing HTTP(S) port " << p.listener->localAddress().toString());
            p.listener->stop();
        }
    }
}

void Client::Server::startShutdown()
{
    shuttingDown_ = true;
    stopAccepting();
    for (auto& [raw, connection] : connections_) {
        if (connection->isIdle())
            connection->close();
    }
}

void Client::Server::closeAll()
{
    for (auto& [raw, connection] : connections_)
        connection->close();
}

void Client::Server::rotateLogs()
{
    // logfile_rotate N keeps N old files (access.log.0 ...); 0 just reopens, for logrotate
    accessLog_->rotate(static_cast<int>(settings_->logfileRotate));
}

void Client::Server::flushLogs()
{
    accessLog_->flush();
}

std::vector<Comm::Address> Client::Server::listeningAddresses() const
{
    std::vector<Comm::Address> result;
    for (const auto& p : ports_) {
        if (p.listener && p.listener->isListening())
            result.push_back(p.listener->localAddress());
    }
    return result;
}
