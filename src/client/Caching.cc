/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The client side's use of the memory cache (Client::Connection's
/// methods that look up, serve, join, store and invalidate; the rest of the
/// class is in Connection.cc). The decisions are the store's
/// (doc/design.md "The cache transaction"); these methods act on them.
///
///     GET/HEAD allowed by http_access and `cache`
///       lookupCache: Store::LookUp() says
///         Hit, NegativeHit, StaleHit --> serveStored (TCP_MEM_HIT, TCP_NEGATIVE_HIT, TCP_STALE_HIT
///                                        with a DetachedFetch revalidating; a 304 for a matching
///                                        conditional: TCP_INM_HIT / TCP_IMS_HIT)
///         Join                       --> joinMiss (reads the same blocks from offset 0)
///         Validate                   --> forward with If-None-Match / If-Modified-Since, or
///                                        joinMiss of another client's (TCP_CF_REFRESH_*)
///         Reload, Miss               --> forward (TCP_CLIENT_REFRESH_MISS, TCP_MISS)
///         Unavailable                --> 504 ERR_ONLY_IF_CACHED_MISS
///       reply head: decideStore: to a revalidation, Store::Revalidate() (304: the freshened
///                   stored object answers, TCP_REFRESH_UNMODIFIED); storable (Store::Admit())
///                   --> inserted, the forwarder charges cache_mem

#include "cuttle.h"

#include "client/Connection.h"
#include "base/TextException.h"
#include "client/AclFields.h"
#include "client/DetachedFetch.h"
#include "client/Headers.h"
#include "client/Services.h"
#include "comm/Loop.h"
#include "config/Settings.h"
#include "log/AccessLog.h"
#include "server/Forwarder.h"
#include "store/InFlight.h"
#include "store/Index.h"
#include "errors/Page.h"
#include "errors/PageContext.h"
#include "http/CacheControl.h"
#include "http/Date.h"
#include "http/ETag.h"
#include "http/Head.h"
#include "http/Range.h"
#include "http/ReplyParser.h"
#include "log/AccessRecord.h"
#include "log/CacheLog.h"
#include "sbuf/BlockPool.h"
#include "sbuf/MemBlob.h"
#include "client/Icp.h"
#include "store/Key.h"
#include "store/Admission.h"
#include "store/DiskTier.h"
#include "store/Lookup.h"
#include "store/Parts.h"
#include "store/Revalidation.h"

#include <chrono>
#include <ctime>

Store::RefreshRule Client::RuleOf(const Config::RefreshPattern& p)
{
    Store::RefreshRule r;
    r.min = p.min;
    r.percent = p.percent;
    r.max = p.max;
    r.overrideExpire = p.overrideExpire;
    r.overrideLastmod = p.overrideLastmod;
    r.reloadIntoIms = p.reloadIntoIms;
    r.ignoreReload = p.ignoreReload;
    r.ignoreNoStore = p.ignoreNoStore;
    r.ignorePrivate = p.ignorePrivate;
    r.refreshIms = p.refreshIms;
    r.storeStale = p.storeStale;
    // Squid 5.7 applies max_stale through a matching refresh_pattern line;
    // its built-in rule (no line matched) allows no stale answer on errors
    r.maxStale = p.regex ? p.maxStale : 0;
    return r;
}

namespace {

/// The canonical URL a Location or Content-Location value names when it is
/// of the same origin as target (an absolute URL, or an absolute path).
std::optional<std::string> SameOriginUrl(const Http::Url& target, std::string_view value)
{
    Http::Url other;
    if (value.starts_with("/")) {
        if (other.parse(target.scheme() + "://" + target.authorityHost() +
                        (target.hasExplicitPort() ? ":" + std::to_string(target.port()) : "") +
                        std::string(value)))
            return other.canonical();
    } else if (other.parse(value) && other.host() == target.host() && other.port() == target.port() &&
               other.scheme() == target.scheme()) {
        return other.canonical();
    }
    return std::nullopt;
}

/// Whether a client's conditional GET/HEAD is answered 304 by the stored
/// reply (RFC 9110 section 13.2.2: If-None-Match, else If-Modified-Since);
/// sets isInm when If-None-Match decided.
bool IsNotModified(const std::vector<Http::HeaderField>& request, const Store::Reply& reply, bool& isInm)
{
    std::optional<Http::EntityTag> etag;
    const auto etagValue = reply.findField("ETag");
    if (etagValue)
        etag = Http::ParseEntityTag(*etagValue);
    const auto inm = Http::FieldValues(request, "If-None-Match");
    if (!inm.empty()) {
        if (const auto passes = Http::EvaluateIfNoneMatch(inm, etag)) {
            isInm = true;
            return !*passes;
        }
    }
    isInm = false;
    const auto ims = Http::FieldValues(request, "If-Modified-Since");
    const auto lm = reply.findField("Last-Modified");
    if (ims.empty() || !lm)
        return false;
    const auto since = Http::ParseHttpDate(ims.front());
    const auto modified = Http::ParseHttpDate(*lm);
    return since && modified && *modified <= *since;
}

/// whether a request's If-Range, if any, lets its Range apply to the stored
/// reply (RFC 9110 13.1.5); false: the whole body is sent
bool IfRangeAllows(Http::FieldsView requestFields, const Store::Reply& reply)
{
    const auto ifRange = Http::FieldValues(requestFields, "If-Range");
    if (ifRange.empty())
        return true;
    std::optional<Http::EntityTag> etag;
    if (const auto v = reply.findField("ETag"))
        etag = Http::ParseEntityTag(*v);
    std::optional<time_t> lm, date;
    if (const auto v = reply.findField("Last-Modified"))
        lm = Http::ParseHttpDate(*v);
    if (const auto v = reply.findField("Date"))
        date = Http::ParseHttpDate(*v);
    return Http::IfRangeMatches(ifRange.front(), etag, lm, date);
}

} // namespace

std::vector<Http::HeaderField> Client::Connection::requestFieldsCopy(Http::RequestParser& parser) const
{
    // the request head was copied when the request came; its fields are
    // parsed again on that copy (the read block may be gone by now)
    parser.parse(tx_->requestHead);
    return parser.fields();
}

bool Client::Connection::lookupCache(const Http::Url& url, const Acl::Checklist& facts,
                                     Store::EntryRef& joinable)
{
    auto& tx = *tx_;
    const auto& settings = services_.settings();
    const auto method = parser_.method();
    tx.url = url.canonical();
    auto& cache = services_.cache();
    if (method == Http::Method::Post && cache.budget() != 0 && settings.mayCache(facts)) {
        // always forwarded; its reply may be stored for a later GET
        // (RFC 9110 9.3.3: invalidateAfterUnsafe() decides)
        tx.requestFacts = Store::RequestFacts::FromFields(method, parser_.fields());
        tx.mayStore = !tx.requestFacts.cc.noStore;
        tx.requestHead = tx.pageContext ? tx.pageContext->request : std::string();
        return false;
    }
    if ((method != Http::Method::Get && method != Http::Method::Head) ||
        (cache.budget() == 0 && !services_.disk()) || !settings.mayCache(facts))
        return false;

    tx.cacheKey = Store::MakeKey(parser_.methodToken(), tx.storeId.empty() ? tx.url : tx.storeId);
    tx.requestFacts = Store::RequestFacts::FromFields(method, parser_.fields());
    tx.mayStore = !tx.requestFacts.cc.noStore; // RFC 9111 5.2.1.5
    tx.requestHead = tx.pageContext ? tx.pageContext->request : std::string();

    Store::LookupOptions options;
    options.now = ::time(nullptr);
    options.maxStale = std::chrono::duration_cast<std::chrono::seconds>(settings.maxStale).count();
    options.collapsedForwarding = settings.collapsedForwarding;
    options.hasBody = parser_.hasBody();
    options.diskMayWait = diskHeadWarmed_;
    diskHeadWarmed_ = false;
    const auto& rule = refreshRule();
    auto found = Store::LookUp(cache, services_.inFlight(), tx.cacheKey, parser_.fields(), tx.requestFacts,
                               rule, options, services_.disk());
    if (hitIsBlocked(found, facts)) {
        tx.resultCode = "TCP_MISS"; // forwarded as a miss, as Squid's clientReplyContext::blockedHit()
        return false;
    }
    switch (found.kind) {
    case Store::Lookup::Kind::Miss:
        return servePart(facts, options.now);
    case Store::Lookup::Kind::Join:
        joinable = std::move(found.entry);
        return false;
    case Store::Lookup::Kind::Unavailable:
        // RFC 9111 5.2.1.7: nothing stored may answer, and the origin may not; Squid answers 504
        tx.resultCode = "TCP_MISS";
        if (pendingLog_)
            pendingLog_->resultCode = "TCP_MISS";
        reply(Http::StatusCode::GatewayTimeout, "ERR_ONLY_IF_CACHED_MISS", *tx.pageContext);
        return true;
    case Store::Lookup::Kind::Hit: {
        tx.storedKey = std::move(found.fullKey);
        // a disk hit is TCP_HIT, as Squid logs a hit from a cache_dir
        const char* code = found.file ? "TCP_HIT" : "TCP_MEM_HIT";
        if (found.file)
            Store::Promote(cache, AdmissionLimitsOf(settings), *services_.disk(), storeSpec(), *found.entry,
                           found.file);
        serveStored(found.entry, found.age, code, std::move(found.file));
        return true;
    }
    case Store::Lookup::Kind::NegativeHit:
        serveStored(found.entry, found.age, "TCP_NEGATIVE_HIT");
        return true;
    case Store::Lookup::Kind::StaleHit:
        // RFC 5861: the stale object now (from its file, a disk object); a
        // DetachedFetch asks the origin
        revalidateInBackground(url, facts, found.entry, found.fullKey, rule, bool(found.file));
        tx.storedKey = std::move(found.fullKey);
        serveStored(found.entry, found.age, "TCP_STALE_HIT", std::move(found.file));
        return true;
    case Store::Lookup::Kind::Reload:
        tx.resultCode = "TCP_CLIENT_REFRESH_MISS";
        return false;
    case Store::Lookup::Kind::DiskCold:
        warmDiskHead(found.file);
        return true;
    case Store::Lookup::Kind::Validate:
        tx.stale = std::move(found.entry); // forward() asks the origin whether it changed
        tx.stalePin = Store::EntryPin(tx.stale);
        tx.staleKey = std::move(found.fullKey);
        tx.staleFile = std::move(found.file); // a disk object: its body is served from the file
        joinable = std::move(found.revalidation);
        return false;
    }
    return false;
}

void Client::Connection::warmDiskHead(const Store::StoredFileRef& front)
{
    // reading it here would wait for the disk on the loop: an I/O thread
    // reads it into the page cache, and the head is handled again (as after
    // a DNS lookup for a dst acl), this time reading it from the disk if it
    // left the page cache meanwhile (doc/design.md "The disk store")
    debugs(47, 3, "a disk object's head is cold: warming " << front->length() << " bytes");
    state_ = State::Checking;
    pendingLog_.reset(); // made again when the head is handled again
    diskHeadWarming_ = std::make_shared<bool>(true);
    services_.disk()->warm(front, 0, front->length(), [this, token = std::weak_ptr<bool>(diskHeadWarming_)] {
        if (token.expired())
            return; // the connection is gone
        diskHeadWarmed_ = true;
        services_.loop().guard(this, [this] { resumeAfterCheck(); });
    });
}

bool Client::Connection::hitIsBlocked(const Store::Lookup& found, const Acl::Checklist& facts) const
{
    const auto& sendHit = services_.settings().sendHit;
    if (sendHit.size() == 0 || found.kind == Store::Lookup::Kind::Miss ||
        found.kind == Store::Lookup::Kind::Unavailable || found.kind == Store::Lookup::Kind::Reload ||
        found.kind == Store::Lookup::Kind::DiskCold) // decided once the head is read
        return false;
    // a fetch in flight has no reply to check yet: it is fetched alone
    if (found.kind == Store::Lookup::Kind::Join || !found.entry || !found.entry->reply())
        return true;
    // send_hit sees the stored reply (its rep_header, http_status...)
    Acl::Checklist hitFacts = facts;
    const auto& stored = *found.entry->reply();
    const AclFields replyFields(stored.fields());
    hitFacts.reply = &replyFields;
    hitFacts.replyStatus = stored.status;
    hitFacts.hierCode = "HIER_NONE";
    return sendHit.check(hitFacts) != Acl::Answer::Allowed;
}

void Client::Connection::serveStored(const Store::EntryRef& entry, int64_t age, const char* hitCode,
                                     Store::StoredFileRef file)
{
    auto& tx = *tx_;
    tx.file = std::move(file);
    bool isInm = false;
    tx.notModified = IsNotModified(parser_.fields(), *entry->reply(), isInm);
    tx.resultCode = tx.notModified ? (isInm ? "TCP_INM_HIT" : "TCP_IMS_HIT") : hitCode;
    tx.isHit = true;
    tx.age = age;
    tx.reply = entry;
    if (!tx.notModified)
        planRanges(*entry, parser_.fields());
    entry->addReader(*this);
    timer_.cancel();
    startStreaming(); // straight to Streaming: there is nothing to forward
}

void Client::Connection::planRanges(const Store::Entry& entry, Http::FieldsView requestFields)
{
    // RFC 9110 section 14: a Range of a GET is served from the stored body
    // (206, multipart/byteranges for several ranges, 416 when none can be);
    // a malformed Range, another unit or a failed If-Range gets the whole 200.
    // A body still arriving serves it too when its length is known.
    auto& tx = *tx_;
    const auto& reply = *entry.reply();
    if (tx.method != Http::Method::Get || reply.status != 200)
        return;
    if (!entry.isComplete() && (!reply.contentLength || entry.body().startOffset() != 0))
        return;
    const auto values = Http::FieldValues(requestFields, "Range");
    if (values.size() != 1)
        return;
    Http::ByteRangeSet set;
    if (!set.parse(values.front()))
        return;
    if (!IfRangeAllows(requestFields, reply))
        return;
    // the body's length: the whole object's (held parts), the file's, the
    // complete body's, or the whole object's of a body still arriving
    const uint64_t length = tx.partOffset        ? *reply.contentLength
                            : tx.file            ? tx.file->length()
                            : entry.isComplete() ? entry.body().length()
                                                 : *reply.contentLength;
    const auto ranges = set.resolve(length);
    if (ranges.empty()) {
        tx.rangeStatus = 416;
        tx.rangeLength = 0;
        tx.rangeFields.emplace_back("Content-Range", Http::UnsatisfiedRangeValue(length));
        tx.segments.push_back({});
        if (tx.isHit)
            tx.resultCode = tx.file ? "TCP_HIT" : "TCP_MEM_HIT";
        return;
    }
    tx.rangeStatus = 206;
    // held parts: the entry's body starts at the object's partOffset
    const uint64_t start = entry.body().startOffset() - tx.partOffset.value_or(0);
    if (ranges.size() == 1) {
        tx.rangeLength = ranges.front().length;
        tx.rangeFields.emplace_back("Content-Range", Http::ContentRangeValue(ranges.front(), length));
        tx.segments.push_back({"", start + ranges.front().offset, ranges.front().length});
        return;
    }
    const auto type = reply.findField("Content-Type");
    Http::MultipartByteranges multipart(Http::MakeBoundary(), type ? std::string(*type) : std::string(),
                                        length);
    tx.isMultipart = true;
    tx.rangeLength = multipart.bodyLength(ranges);
    tx.rangeFields.emplace_back("Content-Type", multipart.contentTypeValue());
    for (size_t i = 0; i < ranges.size(); ++i) {
        tx.segments.push_back({multipart.partHead(ranges[i], i == 0), 0, 0});
        tx.segments.push_back({"", start + ranges[i].offset, ranges[i].length});
    }
    tx.segments.push_back({multipart.closing(), 0, 0});
}

bool Client::Connection::servePart(const Acl::Checklist& facts, time_t now)
{
    // doc/caching.md "Partial objects": a Range miss whose bytes held parts
    // of the object cover, fresh, is a hit on them (one 206, or
    // multipart/byteranges when every range lies in one held span): in
    // memory (TCP_MEM_HIT) or in a cache_dir's part file (TCP_HIT)
    auto& tx = *tx_;
    if (tx.method != Http::Method::Get || !parser_.findField("Range"))
        return false; // (every miss comes here: the parts are not asked for one without Range)
    auto& parts = services_.parts();
    auto* disk = services_.disk();
    const auto* head = parts.head(tx.cacheKey);
    std::unique_ptr<Store::Reply> diskHead; // (a disk store's head is parsed for each use)
    if (!head && disk)
        head = (diskHead = disk->partHead(tx.cacheKey)).get();
    else
        disk = nullptr; // memory has them
    const auto values = Http::FieldValues(parser_.fields(), "Range");
    Http::ByteRangeSet set;
    if (!head || values.size() != 1 || !set.parse(values.front()) || !IfRangeAllows(parser_.fields(), *head))
        return false;
    const auto reuse = Store::IsFresh(tx.requestFacts, Store::ResponseFacts::Of(*head), refreshRule(), now);
    const auto ranges = set.resolve(*head->contentLength);
    if (!reuse.isServable() || ranges.empty())
        return false;
    uint64_t first = UINT64_MAX, end = 0;
    for (const auto& range : ranges) {
        first = std::min(first, range.offset);
        end = std::max(end, range.offset + range.length);
    }
    Store::DiskPart part;
    if (disk) {
        auto found = disk->findPart(tx.cacheKey, first, end);
        if (!found)
            return false;
        part = std::move(*found);
    } else {
        auto cover = parts.cover(tx.cacheKey, first, end);
        part.entry = std::move(cover.entry);
        part.offset = cover.offset;
    }
    if (!part.entry)
        return false;
    Store::Lookup found;
    found.kind = Store::Lookup::Kind::Hit;
    found.entry = part.entry;
    if (hitIsBlocked(found, facts))
        return false;
    debugs(20, 3,
           "serving bytes " << first << "-" << end - 1 << " of " << tx.url << " from its parts held "
                            << (disk ? "on disk" : "in memory"));
    tx.partOffset = part.offset;
    serveStored(part.entry, reuse.age, disk ? "TCP_HIT" : "TCP_MEM_HIT", std::move(part.file));
    return true;
}

void Client::Connection::collectPart()
{
    // doc/caching.md "Partial objects": a 206 to a GET that the whole
    // object's reply would be stored for is kept as a part of it, where the
    // whole object would be (Store::Admit()'s choice): in memory when memory
    // takes it, else in a cache_dir that does
    auto& tx = *tx_;
    const auto& settings = services_.settings();
    const auto& reply = *tx.reply->reply();
    const auto facts = Store::Parts::FactsOf(reply);
    if (tx.method != Http::Method::Get || tx.stale || !facts || settings.storeMiss.size() != 0 ||
        PeerKeepsIt(tx.forwarder.get()) || facts->length < settings.minimumObjectSize)
        return;
    auto whole = Store::Parts::WholeReplyOf(reply, facts->length);
    auto spec = storeSpec();
    if (!whole || !Store::IsStorable(spec.facts, Store::ResponseFacts::Of(*whole), spec.rule))
        return;
    const auto limits = AdmissionLimitsOf(settings);
    if (limits.memoryTakesMisses && services_.cache().budget() != 0 &&
        facts->length <= limits.maxObjectSize) {
        Http::RequestParser again(tx.requestHead.size() + 1);
        if (services_.cache().holds(tx.cacheKey, requestFieldsCopy(again)))
            return; // the whole object was stored since the lookup that missed it
        services_.parts().collect(
            tx.cacheKey, tx.reply, *facts,
            [&services = services_, spec = std::move(spec)](const Store::EntryRef& entry) {
                if (StoreFetched(services, spec, entry, nullptr, nullptr))
                    debugs(20, 3, "stored " << spec.cacheKey << ", completed from its parts");
            });
    } else if (auto* disk = services_.disk()) {
        (void)disk->storePart(tx.cacheKey, tx.reply, *facts, std::move(whole));
    }
}

int64_t Client::Connection::wholeFetchLimit(const Acl::Checklist& facts) const
{
    // range_offset_limit, as Squid's HttpHdrRange::offsetLimitExceeded()
    // weighs it: a Range miss whose first byte is within the limit fetches
    // the whole object (to store it) and serves the ranges from it; 0 never
    // does, none always does, and a suffix range (its offset unknown) never
    const auto& tx = *tx_;
    if (tx.method != Http::Method::Get || tx.cacheKey.empty() || !tx.mayStore)
        return 0;
    const auto values = Http::FieldValues(parser_.fields(), "Range");
    if (values.size() != 1)
        return 0;
    Http::ByteRangeSet set;
    if (!set.parse(values.front()))
        return 0;
    const int64_t limit = services_.settings().rangeOffsetLimitFor(facts);
    if (limit == 0)
        return 0;
    uint64_t first = UINT64_MAX;
    for (const auto& spec : set.specs()) {
        if (spec.isSuffix)
            return 0;
        first = std::min(first, spec.first);
    }
    return limit < 0 || first <= uint64_t(limit) ? limit : 0;
}

void Client::Connection::revalidateInBackground(const Http::Url& url, const Acl::Checklist& facts,
                                                const Store::EntryRef& entry, const std::string& fullKey,
                                                const Store::RefreshRule& rule, bool onDisk)
{
    auto spec = originSpec(url, "GET"); // the stored object is a GET's, whatever asked for it
    AddValidators(spec, *entry->reply());
    Server::Request request;
    request.method = Http::Method::Get;
    aimAtOrigin(request, url);
    aimOverTls(request, url, facts);
    if (aimAtPeers(request, url, facts, false) != Aim::Go)
        return; // it may go nowhere: the stale object stays as it is
    request.head = BuildOriginRequest(spec);
    editRequestHead(request.head);

    Store::FetchSpec what{entry, fullKey, tx_->cacheKey, tx_->requestHead, tx_->requestFacts, rule};
    what.staleDisk = onDisk ? services_.disk() : nullptr;
    auto fetch = std::make_unique<DetachedFetch>(services_, std::move(what), std::move(request));
    if (tx_->replyFacts)
        fetch->setStoreFacts(*tx_->replyFacts);
    services_.startDetached(std::move(fetch));
}

void Client::Connection::joinMiss(const Store::EntryRef& entry)
{
    auto& tx = *tx_;
    tx.isJoiner = true;
    tx.reply = entry;
    entry->addReader(*this);
    state_ = State::Forwarding;
    timer_.cancel();
    debugs(20, 3, "collapsed onto the " << (tx.stale ? "revalidation" : "fetch") << " of " << tx.url);
    if (entry->reply() || entry->hasFailed())
        noteDataAvailable(); // its head (or its end) is there already
}

bool Client::Connection::joinedReplyIsUsable()
{
    // the shared reply serves this client only when it was stored: a
    // private or uncacheable reply is the first client's alone (RFC 9111 3)
    auto& tx = *tx_;
    if (tx.stale)
        return joinedRevalidationIsUsable();
    if (tx.reply->isKept()) {
        // Squid 5.7 logs a collapsed request TCP_CF_MISS, and answers its
        // conditional from the shared reply (TCP_CF_INM_HIT / TCP_CF_IMS_HIT)
        Http::RequestParser again(tx.requestHead.size() + 1);
        bool isInm = false;
        tx.notModified = tx.reply->reply()->status == 200 &&
                         IsNotModified(requestFieldsCopy(again), *tx.reply->reply(), isInm);
        tx.resultCode = tx.notModified ? (isInm ? "TCP_CF_INM_HIT" : "TCP_CF_IMS_HIT") : "TCP_CF_MISS";
        return true;
    }
    if (tx.requestFacts.cc.onlyIfCached) {
        refuseOnlyIfCached();
        return false;
    }
    debugs(20, 3, "the shared fetch of " << tx.url << " is not storable; fetching it again");
    fetchAlone();
    return false;
}

bool Client::Connection::joinedRevalidationIsUsable()
{
    // Another client's conditional request for the stale object this client
    // found was answered: it answers this client as its own would have,
    // logged with Squid 5.7's TCP_CF_REFRESH_* codes. A reply that was not
    // stored (private, no-store, a HEAD's...) is the other client's alone.
    auto& tx = *tx_;
    const auto& reply = *tx.reply->reply();
    auto& cache = services_.cache();
    Http::RequestParser again(tx.requestHead.size() + 1);
    const auto fields = requestFieldsCopy(again);
    bool isInm = false;
    switch (Store::Revalidate(cache, tx.staleKey, *tx.stale, reply,
                              reply.status >= 500 && mayServeStaleOnError())) {
    case Store::Revalidated::Unmodified:
        switchToStale("TCP_CF_REFRESH_UNMODIFIED");
        tx.storedKey = tx.staleKey;
        tx.notModified = IsNotModified(fields, *tx.reply->reply(), isInm);
        return true;
    case Store::Revalidated::ServeStale:
        switchToStale("TCP_CF_REFRESH_FAIL_OLD");
        return true;
    case Store::Revalidated::Error: {
        // the origin's error, as the client that asked gets it (Squid 5.7 shares it too)
        const auto facts = Store::ResponseFacts::Of(reply);
        if (!facts.cc.hasPrivate() && !facts.cc.noStore) {
            tx.resultCode = "TCP_CF_REFRESH_FAIL_ERR";
            return true;
        }
        break;
    }
    case Store::Revalidated::Modified:
        if (tx.reply->isKept() && cache.selects(tx.cacheKey, fields, *tx.reply)) {
            // the new reply replaced the stored object (and is what this
            // request selects from it): read it as it arrives
            tx.resultCode = "TCP_CF_REFRESH_MODIFIED";
            tx.notModified = reply.status == 200 && IsNotModified(fields, reply, isInm);
            return true;
        }
        break;
    }
    debugs(20, 3, "the shared revalidation of " << tx.url << " cannot answer this request; asking again");
    fetchAlone();
    return false;
}

void Client::Connection::fetchAlone()
{
    // collapsed_forwarding: the shared fetch cannot serve this client; its
    // own request (held since it joined) goes out now
    auto& tx = *tx_;
    tx.reply->removeReader(*this);
    tx.reply = nullptr;
    tx.isJoiner = false;
    startOwnFetch(std::move(*tx.deferred));
    tx.deferred.reset();
}

void Client::Connection::refuseOnlyIfCached()
{
    // RFC 9111 5.2.1.7: the fetch this request joined cannot serve it, and
    // the origin must not be asked: 504, as for a miss
    auto& tx = *tx_;
    if (tx.reply)
        tx.reply->removeReader(*this);
    tx.reply = nullptr;
    tx.isJoiner = false;
    tx.deferred.reset();
    tx.resultCode = "TCP_MISS";
    if (pendingLog_)
        pendingLog_->resultCode = "TCP_MISS";
    reply(Http::StatusCode::GatewayTimeout, "ERR_ONLY_IF_CACHED_MISS", *tx.pageContext);
    // written from the loop, not from inside the entry's notification
    kick_ = services_.loop().defer([this] { drive(); }, this);
}

void Client::Connection::startOwnFetch(Server::Request&& request)
{
    auto& tx = *tx_;
    const auto& settings = services_.settings();
    tx.reply = MakeRef<Store::Entry>(settings.readAheadGap);
    tx.reply->addReader(*this);
    auto limits = services_.forwardLimits();
    if (tx.wholeForRange && tx.wholeLimit < 0)
        limits.quickAbortMin = -1; // range_offset_limit none: fetched to the end whatever the client does
    tx.forwarder =
        std::make_unique<Server::Forwarder>(services_.forwarding(), limits, std::move(request), tx.reply);
    // RFC 9110 section 15.2: interim replies go to HTTP/1.1 clients, never to 1.0 ones
    if (clientIsHttp11_)
        tx.forwarder->setInterimHandler(
            [this](const Http::ReplyParser& interim) { forwardInterim(interim); });
    tx.fetch = tx.reply;
    // collapsed_forwarding: others may wait for this fetch until its head
    // arrives (a revalidation only for a GET: a HEAD's reply has no body to share)
    if (!tx.cacheKey.empty() && settings.collapsedForwarding) {
        if (!tx.stale)
            services_.inFlight().setPendingMiss(tx.cacheKey, tx.reply);
        else if (tx.method == Http::Method::Get)
            services_.inFlight().setPendingRevalidation(tx.staleKey, tx.stale, tx.reply);
    }
    tx.forwarder->start();
}

bool Client::Connection::decideStore()
{
    auto& tx = *tx_;
    auto& cache = services_.cache();
    services_.inFlight().forget(tx.fetch, tx.cacheKey,
                                tx.staleKey); // joiners from now on find the index's answer
    const auto& reply = *tx.reply->reply();

    if (tx.stale) {
        switch (Store::Revalidate(cache, tx.staleKey, *tx.stale, reply,
                                  reply.status >= 500 && mayServeStaleOnError(), staleDisk())) {
        case Store::Revalidated::Unmodified: {
            // RFC 9111 4.3.4: the freshened stored head, with the stored body
            tx.storedKey = tx.staleKey;
            switchToStale("TCP_REFRESH_UNMODIFIED");
            Http::RequestParser again(tx.requestHead.size() + 1);
            bool isInm = false;
            tx.notModified = IsNotModified(requestFieldsCopy(again), *tx.reply->reply(), isInm);
            return true;
        }
        case Store::Revalidated::ServeStale:
            switchToStale("TCP_REFRESH_FAIL_OLD");
            return true;
        case Store::Revalidated::Error:
            tx.resultCode = "TCP_REFRESH_FAIL_ERR"; // forwarded, as Squid 5.7
            break;
        case Store::Revalidated::Modified:
            tx.resultCode = "TCP_REFRESH_MODIFIED";
            break;
        }
    }

    if (!tx.mayStore || tx.cacheKey.empty() || requestIsHead_)
        return false;
    if (reply.status == 206) {
        collectPart();
        return false;
    }
    if (auto fullKey =
            StoreFetched(services_, storeSpec(), tx.reply, tx.forwarder.get(), tx.replyFacts.get()))
        tx.storedKey = std::move(*fullKey);
    return false;
}

const Store::RefreshRule& Client::Connection::refreshRule() const
{
    // the regex walk of refresh_pattern, once per request
    auto& tx = *tx_;
    if (!tx.rule)
        tx.rule = RuleOf(services_.settings().refreshPatternFor(tx.url));
    return *tx.rule;
}

Store::FetchSpec Client::Connection::storeSpec() const
{
    const auto& tx = *tx_;
    Store::FetchSpec spec{tx.stale, tx.staleKey, tx.cacheKey, tx.requestHead, tx.requestFacts, refreshRule()};
    spec.staleDisk = staleDisk();
    return spec;
}

Store::DiskTier* Client::Connection::staleDisk() const
{
    return tx_->staleFile ? services_.disk() : nullptr;
}

bool Client::Connection::serveStaleOnError()
{
    // the origin could not be reached to revalidate: RFC 5861 stale-if-error
    // and Squid's max_stale may let the stored object answer
    auto& tx = *tx_;
    if (!mayServeStaleOnError())
        return false;
    switchToStale(tx.isJoiner ? "TCP_CF_REFRESH_FAIL_OLD" : "TCP_REFRESH_FAIL_OLD");
    tx.isDecided = true;
    startStreaming();
    return true;
}

bool Client::Connection::mayServeStaleOnError() const
{
    const auto& tx = *tx_;
    return tx.stale &&
           StaleMayAnswerErrors(services_.settings(), tx.stale.getRaw(), tx.requestFacts, refreshRule());
}

void Client::Connection::switchToStale(const char* resultCode)
{
    auto& tx = *tx_;
    tx.resultCode = resultCode;
    tx.isHit = true; // the body comes from the store, as Squid's X-Cache says
    tx.reply->removeReader(*this);
    tx.reply = tx.stale;
    tx.file = tx.staleFile; // a disk object's body comes from its file
    tx.reply->addReader(*this);
    tx.age = Store::CurrentAge(Store::ResponseFacts::Of(*tx.reply->reply()), ::time(nullptr));
}

void Client::Connection::invalidateAfterUnsafe()
{
    // RFC 9111 4.4: a non-error reply to an unsafe method invalidates the
    // target URI and the same-origin Location and Content-Location
    auto& tx = *tx_;
    const auto* reply = tx.reply->reply();
    Http::Url target;
    if (!reply || Http::IsSafe(tx.method) || tx.url.empty() || !target.parse(tx.url))
        return;
    if (reply->status >= 200 && reply->status < 400 &&
        (services_.cache().objectCount() != 0 || services_.disk())) {
        services_.eraseStored(Store::MakeKey("GET", tx.url));
        for (const char* name : {"Location", "Content-Location"}) {
            if (const auto value = reply->findField(name))
                if (const auto other = SameOriginUrl(target, *value))
                    services_.eraseStored(Store::MakeKey("GET", *other));
        }
    }
    // RFC 9110 9.3.3: a POST's reply with explicit freshness whose
    // Content-Location is its target may answer a later GET (Store::IsStorable)
    if (tx.method != Http::Method::Post || !tx.mayStore)
        return;
    Store::FetchSpec spec{nullptr,        std::string(),   Store::MakeKey("GET", tx.url),
                          tx.requestHead, tx.requestFacts, refreshRule()};
    const auto location = reply->findField("Content-Location");
    spec.contentLocationIsTarget = location && SameOriginUrl(target, *location) == tx.url;
    if (auto fullKey = StoreFetched(services_, spec, tx.reply, tx.forwarder.get(), tx.replyFacts.get()))
        tx.storedKey = std::move(*fullKey);
}

void Client::Connection::purge(const Http::Url& url)
{
    // Squid's PURGE: 200 when something was removed, 404 otherwise
    const auto erased = services_.eraseStored(Store::MakeKey("GET", url.canonical()));
    const int status = erased ? 200 : 404;
    if (pendingLog_) {
        pendingLog_->resultCode = "TCP_MISS";
        pendingLog_->httpStatus = status;
        pendingLog_->hierarchy = "HIER_NONE";
    }
    out_.clear();
    Http::AppendStatusLine(out_, status);
    Http::AppendField(out_, "Content-Length", "0");
    Http::AppendField(out_, "Connection", closeAfterReply_ ? "close" : "keep-alive");
    Http::EndHead(out_);
    outOffset_ = 0;
    state_ = State::Writing;
    armTimer(services_.settings().readTimeout);
}
