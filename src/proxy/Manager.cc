/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Proxy::Instance's part in the cache manager: it owns every part
/// whose figures the pages show, so it copies them into Mgr::Figures, keeps
/// the minute samples, and runs the commands (doc/design.md "The cache manager").

#include "cuttle.h"
#include "proxy/Instance.h"
#include "base/TextException.h"
#include "mgr/Pages.h"
#include "sbuf/BlockPool.h"
#include "server/Peers.h"
#include "disk/Cache.h"
#include "store/StoreLog.h"
#include "tls/Context.h"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <unistd.h>

double Proxy::Instance::WallClock()
{
    timeval now;
    ::gettimeofday(&now, nullptr);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_usec) / 1e6;
}

void Proxy::Instance::joinBoard(Board& board, unsigned number)
{
    board_ = &board;
    workerNumber_ = number;
    collapsing_ = std::make_unique<Collapsing>(*this, board, number);
    inFlight_.setRemote(collapsing_.get());
    publish();
}

void Proxy::Instance::publish()
{
    published_ = activity();
    board_->publish(workerNumber_, ownShare());
    cache_.index->reap(); // what other workers evicted of this one's, even when it is idle
    inFlight_.sweepOffered();
    // what changes with nothing counted (evictions, a closed idle connection) goes out too
    publishDue_ = loop_.now() + std::chrono::seconds(1);
    publishTimer_ = loop_.schedule(std::chrono::seconds(1), [this] { publish(); });
}

void Proxy::Instance::notePublishable()
{
    // a publication costs about as much as a small request: at most one
    // every PublishDelay, PublishDelay after the first count it carries
    if (activity() == published_)
        return;
    const auto soon = loop_.now() + PublishDelay;
    if (publishTimer_.isPending() && publishDue_ <= soon)
        return;
    publishDue_ = soon;
    publishTimer_ = loop_.schedule(PublishDelay, [this] { publish(); });
}

uint64_t Proxy::Instance::activity() const
{
    // grows (or changes) whenever a figure of the board does, in practice: a
    // cheap test for the end of every loop iteration
    const auto& client = side_.counters();
    uint64_t sum = client.requests + client.bytesIn + client.bytesOut + side_.acceptCount() +
                   side_.connectionCount() + pool_.idleCount();
    if (!cache_.index->isShared()) // a shared cache's figures are not published (and its count takes a mutex)
        sum += cache_.index->objectCount();
    if (forwarding_)
        sum += forwarding_->requests + forwarding_->bytesIn + forwarding_->retries +
               forwarding_->connectionsOpened + forwarding_->splicedReplies;
    if (peers_)
        sum += peers_->icpCounters().packetsSent + peers_->icpCounters().packetsReceived;
    return sum;
}

Proxy::Board::Share Proxy::Instance::processShare() const
{
    auto share = ownShare();
    if (board_)
        share.add(board_->others(workerNumber_));
    // the process's own figures, the same in every worker
    share.counters.sampleTime = WallClock();
    rusage usage{};
    if (::getrusage(RUSAGE_SELF, &usage) == 0) {
        share.counters.pageFaults = static_cast<uint64_t>(usage.ru_majflt);
        share.counters.cpuTime = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                                 static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    }
    return share;
}

Proxy::Board::Share Proxy::Instance::ownShare() const
{
    Board::Share share;
    share.counters = ownCounters();
    share.clientConnections = side_.connectionCount();
    if (!cache_.index->isShared())
        share.cache = cache_.index->stats();
    if (resolver_)
        share.dns = resolver_->stats();
    const auto pool = Sbuf::DefaultPool().stats();
    const auto& copies = Sbuf::DefaultPool().copyStats();
    const auto& kernelTls = Tls::ThreadKernelTls(); // this worker's thread
    share.own = {
        {"client_connections", side_.connectionCount(), false},
        {"blocks_in_use", pool.total.blocksInUse, false},
        {"bytes_in_use", pool.total.bytesInUse, false},
        {"blocks_free", pool.total.blocksFree, false},
        {"bytes_free", pool.total.bytesFree, false},
        {"arena_bytes", pool.arenaBytes, false},
        {"arena_carved_bytes", pool.arenaCarvedBytes, false},
        {"arena_free_bytes", pool.arenaFreeBytes, false},
        {"page_reserve_bytes", pool.reserveBytes, false},
        {"page_reserve_ready_bytes", pool.reserveReadyBytes, false},
        {"page_reserve_chunks_made", pool.reserve.chunksMade, true},
        {"page_reserve_chunks_taken", pool.reserve.chunksTaken, true},
        {"page_reserve_takes_missed", pool.reserve.takesMissed, true},
        {"page_reserve_chunks_dropped", pool.reserve.chunksDropped, true},
        {"body_copies", copies.bodyCopies, true},
        {"body_bytes_copied", copies.bodyBytesCopied, true},
        {"worker_copies", copies.workerCopies, true},
        {"worker_bytes_copied", copies.workerBytesCopied, true},
        {"origin_connections_idle", pool_.idleCount(), false},
        {"origin_connections_opened", forwarding_ ? forwarding_->connectionsOpened : 0, true},
        {"forward_retries", forwarding_ ? forwarding_->retries : 0, true},
        {"spliced_replies", forwarding_ ? forwarding_->splicedReplies : 0, true},
        {"bytes_spliced", forwarding_ ? forwarding_->bytesSpliced : 0, true},
        {"tls_kernel_asked", kernelTls.asked, true},
        {"tls_kernel_send", kernelTls.send, true},
        {"tls_kernel_receive", kernelTls.receive, true},
        {"partial_objects", parts_.objectCount(), false},
        {"partial_object_bytes", parts_.bytes(), false},
    };
    return share;
}

Mgr::Counters Proxy::Instance::ownCounters() const
{
    Mgr::Counters c;
    const auto& client = side_.counters();
    c.clientRequests = client.requests;
    c.clientHits = client.hits;
    c.clientMemHits = client.memHits;
    c.clientDiskHits = client.diskHits;
    c.clientErrors = client.errors;
    c.clientBytesIn = client.bytesIn;
    c.clientBytesOut = client.bytesOut;
    c.clientHitBytesOut = client.hitBytesOut;
    c.abortedRequests = client.aborted;
    if (forwarding_) {
        c.serverRequests = forwarding_->requests;
        c.serverErrors = forwarding_->errors;
        c.serverBytesIn = forwarding_->bytesIn;
        c.serverBytesOut = forwarding_->bytesOut;
    }
    if (resolver_)
        c.dnsQueries = resolver_->stats().dnsQueries;
    if (peers_) {
        const auto& icp = peers_->icpCounters();
        c.icpPacketsSent = icp.packetsSent;
        c.icpPacketsReceived = icp.packetsReceived;
        c.icpQueriesSent = icp.queriesSent;
        c.icpRepliesSent = icp.repliesSent;
        c.icpQueriesReceived = icp.queriesReceived;
        c.icpRepliesReceived = icp.repliesReceived;
        c.icpQueryTimeouts = icp.queryTimeouts;
        c.icpBytesSent = icp.bytesSent;
        c.icpBytesReceived = icp.bytesReceived;
        c.icpQueryBytesSent = icp.queryBytesSent;
        c.icpReplyBytesSent = icp.replyBytesSent;
        c.icpQueryBytesReceived = icp.queryBytesReceived;
        c.icpReplyBytesReceived = icp.replyBytesReceived;
        c.icpTimesUsed = icp.timesUsed;
    }
    c.selectLoops = loop_.iterations();
    c.acceptedConnections = side_.acceptCount();
    return c;
}

void Proxy::Instance::sampleCounters()
{
    if (board_)
        notePublishable();
    const auto now = loop_.now();
    if (now < nextSample_)
        return;
    // a loop that slept through minutes counted nothing meanwhile: those
    // samples are the counters as they are (the last hour of them matters)
    const auto missed = std::min<int64_t>((now - nextSample_) / std::chrono::minutes(1), 60);
    const auto c = processShare().counters;
    for (auto k = missed; k >= 0; --k) {
        auto sample = c;
        sample.sampleTime = c.sampleTime - 60.0 * static_cast<double>(k);
        history_.sample(sample);
    }
    nextSample_ = now + std::chrono::minutes(1);
}

Mgr::Figures Proxy::Instance::managerFigures() const
{
    Mgr::Figures f;
    f.version = PACKAGE_VERSION;
    f.serviceName = settings_ ? settings_->serviceName : std::string();
    f.startTime = startTime_;
    const auto all = processShare();
    f.counters = all.counters;
    f.now = f.counters.sampleTime;
    f.clientConnections = all.clientConnections;

    rusage usage{};
    if (::getrusage(RUSAGE_SELF, &usage) == 0)
        f.maxRssKb = static_cast<uint64_t>(usage.ru_maxrss);
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0)
        f.fdMax = static_cast<size_t>(limit.rlim_cur);
    if (DIR* fds = ::opendir("/proc/self/fd")) {
        while (const dirent* d = ::readdir(fds)) {
            if (d->d_name[0] == '.')
                continue;
            ++f.fdInUse;
            f.fdLargest = std::max(f.fdLargest, std::atoi(d->d_name));
        }
        ::closedir(fds);
        f.fdInUse = f.fdInUse ? f.fdInUse - 1 : 0; // the directory's own descriptor
    }

    // a shared memory cache is the process's; else each worker's are summed
    const auto& cache = *cache_.index;
    const auto index = cache.isShared() ? cache.stats() : all.cache;
    f.cacheBudget = index.budget;
    f.cacheBytes = index.bytesHeld;
    f.cacheObjects = index.objects;
    f.cacheInFlight = index.inFlight;
    f.cacheHits = index.hits;
    f.cacheEvictions = index.evictions;
    f.cachePolicy = std::string(cache.policyName());
    cache.forEachObject([&f](std::string_view key, const Store::Entry& entry, bool own) {
        Mgr::StoredObject o;
        o.key = std::string(key);
        o.keyDigest = Store::KeyDigest(key);
        o.complete = entry.isComplete();
        o.bytes = entry.body().endOffset();
        o.readers = own ? entry.readerCount() : 0; // another worker's readers are its own to count
        f.objects.push_back(std::move(o));
    });
    if (disk_) {
        for (const auto& dir : disk_->stats().dirs) {
            Mgr::StoreDir d;
            d.type = dir.type;
            d.path = dir.path;
            d.maxBytes = dir.maxBytes;
            d.usedBytes = dir.usedBytes;
            d.objects = dir.objects;
            d.full = dir.full;
            d.rebuilding = dir.rebuilding;
            d.policy = dir.policy;
            d.partialObjects = dir.partialObjects;
            for (const auto& line : settings_->cacheDirs) {
                if (line.path == dir.path) {
                    d.l1 = line.l1;
                    d.l2 = line.l2;
                    d.noStore = line.noStore;
                }
            }
            struct statvfs fs {};
            if (::statvfs(dir.path.c_str(), &fs) == 0) {
                d.fsBlockSize = fs.f_bsize;
                d.fsTotalKb = uint64_t(fs.f_blocks) * fs.f_frsize / 1024;
                d.fsUsedKb = uint64_t(fs.f_blocks - fs.f_bfree) * fs.f_frsize / 1024;
                d.fsInodesTotal = fs.f_files;
                d.fsInodesUsed = fs.f_files - fs.f_ffree;
            }
            f.diskObjects += dir.objects;
            f.storeDirs.push_back(std::move(d));
        }
    }

    if (resolver_) {
        // the counts of every worker (processShare()); the caches are one (Board::dnsCache())
        const auto& dns = all.dns;
        f.dnsLookups = dns.lookups;
        f.dnsLiterals = dns.literals;
        f.dnsHostsFile = dns.fromHostsFile;
        f.dnsAnswered = dns.fromDns;
        f.dnsNotFound = dns.notFound;
        f.dnsFailures = dns.failures;
        f.addressLookups = dns.addressLookups;
        f.nameCacheHits = dns.nameCacheHits;
        f.negativeNameHits = dns.negativeNameHits;
        resolver_->forEachCachedName([&f](const std::string& address, const std::vector<std::string>& names,
                                          const std::string&, Comm::Milliseconds left) {
            f.cachedNames.push_back(Mgr::Figures::CachedName{
                address, names, std::chrono::duration_cast<std::chrono::seconds>(left).count()});
        });
        for (const auto& [name, addresses] : resolver_->hostsFile()) {
            Mgr::HostEntry h;
            h.name = name;
            for (const auto& a : addresses)
                h.addresses.push_back(a.host());
            f.hosts.push_back(std::move(h));
        }
        f.addressCacheHits = dns.addressCacheHits;
        f.negativeAddressHits = dns.negativeAddressHits;
        resolver_->forEachCachedAddress([&f](const std::string& name,
                                             const std::vector<Comm::Address>& addresses, const std::string&,
                                             Comm::Milliseconds left) {
            Mgr::HostEntry h;
            h.name = name;
            for (const auto& a : addresses)
                h.addresses.push_back(a.host());
            h.fromHostsFile = false;
            h.ttl = std::chrono::duration_cast<std::chrono::seconds>(left).count();
            f.hosts.push_back(std::move(h));
        });
    }

    std::unordered_map<std::string, size_t> open;
    side_.describe(f.active, open);
    for (const auto& [address, tally] : side_.counters().perClient) {
        Mgr::ClientTally t;
        t.address = address;
        const auto o = open.find(address);
        t.connections = o == open.end() ? 0 : o->second;
        t.requests = tally.requests;
        t.hits = tally.hits;
        t.codes.assign(tally.codes.begin(), tally.codes.end());
        f.clients.push_back(std::move(t));
    }

    const auto pool = Sbuf::DefaultPool().stats();
    for (size_t i = 0; i < Sbuf::BlockPool::ClassCount; ++i) {
        const auto& c = pool.perClass[i];
        if (c.blocksInUse || c.blocksFree || c.arenaBlocksFree)
            f.blockClasses.push_back({Sbuf::BlockPool::ClassSize(i), static_cast<size_t>(c.blocksInUse),
                                      static_cast<size_t>(c.blocksFree),
                                      static_cast<size_t>(c.arenaBlocksFree)});
    }
    f.blockBytesInUse = pool.total.bytesInUse;
    f.blockBytesFree = pool.total.bytesFree;
    f.own = all.own;
    if (forwarding_) {
        for (size_t k = 0; k < forwarding_->readsBySize.size(); ++k)
            if (forwarding_->readsBySize[k])
                f.readSizes.emplace_back(size_t(1) << k, forwarding_->readsBySize[k]);
    }
    return f;
}

std::shared_ptr<void> Proxy::Instance::managerPage(const std::string& action, ManagerPageDone done)
{
    auto own = Mgr::RenderPage(action, managerFigures(), history_, *settings_);
    const unsigned workers = board_ ? board_->workerCount() : 1;
    if (!own || workers < 2 || !Mgr::IsPerWorkerList(action)) {
        done(std::move(own));
        return nullptr;
    }
    // each other worker renders its own page on its loop and posts it back
    // to this one (doc/design.md "Workers"); the page is put together, in
    // worker order, once the last part came. A worker that takes no call
    // any more (shutting down) has no part.
    struct Gathering {
        std::vector<std::optional<std::string>> parts; ///< by worker number - 1
        unsigned awaited = 0;
        ManagerPageDone done;

        void arrived()
        {
            if (--awaited > 0)
                return;
            std::string page;
            for (size_t i = 0; i < parts.size(); ++i)
                if (parts[i])
                    page += Mgr::WorkerPart(unsigned(i + 1), *parts[i]);
            done(std::move(page));
        }
    };
    auto gathering = std::make_shared<Gathering>();
    gathering->parts.resize(workers);
    gathering->parts[workerNumber_ - 1] = std::move(own);
    gathering->done = std::move(done);
    gathering->awaited = 1; // held until every call is posted
    Board* const board = board_;
    const unsigned self = workerNumber_;
    for (unsigned other = 1; other <= workers; ++other) {
        if (other == self)
            continue;
        const std::weak_ptr<Gathering> weak = gathering;
        ++gathering->awaited;
        const bool posted = board->postTo(other, [weak, board, self, other, action](Instance& proxy) {
            auto part = Mgr::RenderPage(action, proxy.managerFigures(), proxy.history_, *proxy.settings_);
            // runs on the asking worker's loop: only it touches the gathering
            (void)board->postTo(self, [weak, other, part = std::move(part)](Instance&) mutable {
                if (const auto g = weak.lock()) {
                    g->parts[other - 1] = std::move(part);
                    g->arrived();
                }
            });
        });
        if (!posted)
            --gathering->awaited;
    }
    gathering->arrived(); // the hold
    return gathering->awaited > 0 ? gathering : nullptr;
}

void Proxy::Instance::managerCommand(const std::string& action)
{
    // the signal `cuttle -k` sends: main.cc's signal source handles it from
    // the loop, after the reply that asked for it is written
    int signo = 0;
    if (action == "shutdown")
        signo = SIGTERM;
    else if (action == "reconfigure")
        signo = SIGHUP;
    else if (action == "rotate")
        signo = SIGUSR1;
    Must(signo != 0);
    ::kill(::getpid(), signo);
}
