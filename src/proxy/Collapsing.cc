/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "proxy/Collapsing.h"
#include "log/CacheLog.h"
#include "proxy/Board.h"
#include "proxy/Instance.h"
#include "sbuf/BlockPool.h"
#include "sbuf/MemBlob.h"
#include "store/Entry.h"

#include <algorithm>
#include <optional>

struct Proxy::Collapsing::Pipe {
    Pipe(std::string k, bool r, unsigned m) : key(std::move(k)), revalidation(r), mirrorWorker(m) {}

    const std::string key;       ///< the remote key of the fetch (Store::InFlight)
    const bool revalidation;     ///< a revalidation's (any reply is shared), else a miss's
    const unsigned mirrorWorker; ///< the mirror's worker

    std::mutex mutex;                    ///< guards what follows, to relay and feed
    unsigned ownerWorker = 0;            ///< the owner's worker, once relay() ran there
    std::string headBytes;               ///< the reply head, once sent
    std::unique_ptr<Store::Reply> reply; ///< its fields (head in headBytes); taken by drain()
    bool kept = false;                   ///< the owner stores the reply
    std::vector<std::string> chunks;     ///< body bytes sent, not drained
    size_t queued = 0;                   ///< their bytes
    std::optional<std::string> failure;  ///< the fetch failed (or cannot be shared): why
    bool ended = false;                  ///< the whole body was sent
    bool drainPosted = false;            ///< a drain() is on its way to the mirror
    bool stalled = false;                ///< the relay stopped: PipeBytes queued
    bool cancelled = false;              ///< the mirror's clients left (or it is gone)

    Relay* relay = nullptr; ///< the owner's side (its thread only)
    Feed* feed = nullptr;   ///< the mirror's side (its thread only)
};

/// The owner's side: a reader of the fetch's entry that copies what
/// arrives into the pipe.
class Proxy::Collapsing::Relay final : public Store::Reader {
public:
    Relay(Collapsing& owner, const Store::EntryRef& entry, std::shared_ptr<Pipe> pipe)
        : owner_(owner), entry_(entry), cursor_(entry->body()), pipe_(std::move(pipe))
    {
        pipe_->relay = this;
        entry_->addReader(*this);
    }
    ~Relay() override
    {
        detach();
        pipe_->relay = nullptr;
    }
    Relay(const Relay&) = delete;
    Relay& operator=(const Relay&) = delete;

    void noteDataAvailable() override { take(); }
    const Sbuf::Cursor& cursor() const override { return cursor_; }
    /// whether it let go of the entry (sent everything, or the mirror left)
    bool isDone() const { return !entry_; }

    /// sends what the entry has that was not sent, as far as the pipe takes
    void take()
    {
        // store/Entry.h's re-entrancy rule: noteConsumed() may resume the
        // producer, whose append calls back here; the loop below takes it
        if (taking_ || !entry_)
            return;
        taking_ = true;
        size_t room = 0;
        bool cancelled = false;
        {
            const std::lock_guard<std::mutex> lock(pipe_->mutex);
            cancelled = pipe_->cancelled;
            room = PipeBytes - std::min(PipeBytes, pipe_->queued);
        }
        const Store::Reply* head = nullptr;
        std::optional<std::string> failure;
        if (cancelled) {
            taking_ = false;
            finish();
            return;
        }
        if (!headSent_ && entry_->reply()) {
            // a miss is shared as within a worker: only a reply that is
            // stored (Client::Connection::joinedReplyIsUsable())
            if (!entry_->isKept() && !pipe_->revalidation)
                failure = "the reply is not stored";
            else
                head = entry_->reply();
            headSent_ = true;
        }
        std::vector<std::string> chunks;
        size_t took = 0;
        while (!failure && headSent_ && room) {
            std::vector<Sbuf::Slice> slices;
            const auto& body = entry_->body();
            const size_t n = cursor_.share(body, slices, room);
            if (!n)
                break;
            std::string chunk;
            chunk.reserve(n);
            for (const auto& slice : slices)
                chunk.append(slice.view());
            cursor_.advance(body, n);
            chunks.push_back(std::move(chunk));
            room -= n;
            took += n;
            entry_->noteConsumed();
        }
        taking_ = false;
        if (!failure && entry_->hasFailed())
            failure = "the shared fetch failed";
        const bool ended = !failure && entry_->isComplete() && cursor_.isAtEnd(entry_->body());
        bool post = false;
        {
            const std::lock_guard<std::mutex> lock(pipe_->mutex);
            if (head) {
                pipe_->headBytes = std::string(head->head);
                pipe_->reply = head->copyOnto(nullptr, pipe_->headBytes);
                pipe_->kept = entry_->isKept();
            }
            for (auto& chunk : chunks)
                pipe_->chunks.push_back(std::move(chunk));
            pipe_->queued += took;
            pipe_->failure = failure;
            pipe_->ended = ended;
            pipe_->stalled = !room && !ended && !failure;
            post = (head || took || failure || ended) && !pipe_->drainPosted;
            pipe_->drainPosted = pipe_->drainPosted || post;
        }
        if (post)
            owner_.postDrain(pipe_);
        if (failure || ended)
            finish();
    }

private:
    void detach()
    {
        if (entry_) {
            auto entry = std::move(entry_);
            entry->removeReader(*this);
        }
    }
    void finish()
    {
        detach();
        owner_.sweepSoon();
    }

    Collapsing& owner_;
    Store::EntryRef entry_; ///< the fetch's entry; null once done
    Sbuf::Cursor cursor_;   ///< what was sent of its body
    std::shared_ptr<Pipe> pipe_;
    bool headSent_ = false; ///< the head (or why it is not shared) went into the pipe
    bool taking_ = false;   ///< inside take()
};

/// The mirror's side: the producer of the mirror entry, which appends what
/// the owner sent.
class Proxy::Collapsing::Feed final : public Store::Producer {
public:
    Feed(Collapsing& owner, const Store::EntryRef& mirror, std::shared_ptr<Pipe> pipe, std::string cacheKey,
         std::string staleKey)
        : owner_(owner), mirror_(mirror), pipe_(std::move(pipe)), cacheKey_(std::move(cacheKey)),
          staleKey_(std::move(staleKey))
    {
        pipe_->feed = this;
        mirror_->setProducer(this);
    }
    ~Feed() override
    {
        if (mirror_) { // the worker stops: its connections let go of the mirror
            cancel();
            mirror_->setProducer(nullptr);
        }
        pipe_->feed = nullptr;
    }
    Feed(const Feed&) = delete;
    Feed& operator=(const Feed&) = delete;

    /// the mirror's readers made room under read_ahead_gap: the owner may send again
    void resumeProducing() override
    {
        if (resumeOwed_ && mirror_ && mirror_->canProduce()) {
            resumeOwed_ = false;
            postResume(ownerWorker_);
        }
    }
    void noteReadersGone() override
    {
        cancel();
        end("its clients left");
    }
    /// whether it let go of the mirror (complete or failed)
    bool isDone() const { return !mirror_; }

    /// appends what the owner sent to the mirror, in this thread's blocks
    void drain()
    {
        if (!mirror_)
            return;
        std::unique_ptr<Store::Reply> reply;
        std::vector<std::string> chunks;
        std::optional<std::string> failure;
        bool kept = false;
        bool ended = false;
        bool resume = false;
        {
            const std::lock_guard<std::mutex> lock(pipe_->mutex);
            reply = std::move(pipe_->reply);
            kept = pipe_->kept;
            chunks.swap(pipe_->chunks);
            pipe_->queued = 0;
            failure = pipe_->failure;
            ended = pipe_->ended;
            pipe_->drainPosted = false;
            resume = pipe_->stalled;
            pipe_->stalled = false;
            ownerWorker_ = pipe_->ownerWorker;
        }
        auto& pool = Sbuf::DefaultPool();       // this thread's
        const Store::EntryRef mirror = mirror_; // the appends below may end the feed
        if (reply) {
            // kept first: a joiner that sees the head asks whether it is stored
            mirror->setKept(kept);
            owner_.instance_.inFlight().forget(mirror, cacheKey_, staleKey_);
            const auto block = Sbuf::MemBlob::MakeCopy(pool, reply->head);
            mirror->setReply(reply->copyOnto(block, block->view()));
        }
        for (const auto& chunk : chunks) {
            if (!mirror_)
                return;
            const auto block = Sbuf::MemBlob::MakeCopy(pool, chunk);
            mirror->append(Sbuf::Slice(block, 0, chunk.size()));
        }
        if (!mirror_)
            return;
        if (failure) {
            end(*failure);
            return;
        }
        if (ended) {
            mirror_->setProducer(nullptr);
            mirror_ = nullptr;
            mirror->complete();
            owner_.sweepSoon();
            return;
        }
        // the owner waits while the mirror's readers are read_ahead_gap
        // behind (a kept mirror holds its whole body anyway, as the owner's entry does)
        if (resume && !mirror_->isKept() && !mirror_->canProduce())
            resumeOwed_ = true;
        else if (resume)
            postResume(ownerWorker_);
    }

private:
    /// tells the owner to stop (its relay lets go)
    void cancel()
    {
        unsigned ownerWorker = 0;
        {
            const std::lock_guard<std::mutex> lock(pipe_->mutex);
            pipe_->cancelled = true;
            ownerWorker = pipe_->ownerWorker;
        }
        postResume(ownerWorker);
    }
    void postResume(unsigned ownerWorker)
    {
        if (!ownerWorker)
            return; // the owner has not taken the pipe yet: it will see the flags
        owner_.board_.postTo(ownerWorker, [pipe = pipe_](Instance& owner) {
            if (auto* collapsing = owner.collapsing())
                collapsing->resume(pipe);
        });
    }
    /// fails the mirror (before its head: its joiners fetch on their own)
    void end(const std::string& why)
    {
        const Store::EntryRef mirror = std::move(mirror_);
        mirror->setProducer(nullptr);
        owner_.instance_.inFlight().forget(mirror, cacheKey_, staleKey_);
        if (!mirror->hasFailed() && !mirror->isComplete())
            mirror->fail(why);
        owner_.sweepSoon();
    }

    Collapsing& owner_;
    Store::EntryRef mirror_; ///< the mirror; null once done
    std::shared_ptr<Pipe> pipe_;
    const std::string cacheKey_; ///< where Store::InFlight has the mirror: a miss's cache key
    const std::string staleKey_; ///< or a revalidation's stale object's full key
    unsigned ownerWorker_ = 0;   ///< the owner's worker, as the last drain() saw it
    bool resumeOwed_ = false;    ///< the owner stopped, and waits for room in the mirror
};

Proxy::Collapsing::Collapsing(Instance& instance, Board& board, unsigned number)
    : instance_(instance), board_(board), number_(number)
{}

Proxy::Collapsing::~Collapsing()
{
    feeding_.clear();
    relaying_.clear();
}

void Proxy::Collapsing::notePending(const std::string& remoteKey)
{
    board_.offerFetch(remoteKey, number_);
}

void Proxy::Collapsing::noteForgotten(const std::string& remoteKey)
{
    board_.withdrawFetch(remoteKey, number_);
}

Store::EntryRef Proxy::Collapsing::mirror(const std::string& remoteKey, const std::string& cacheKey,
                                          const std::string& staleKey)
{
    // most misses find no offer: one look at the board, nothing made
    const unsigned owner = board_.offerer(remoteKey, number_);
    if (!owner)
        return nullptr;
    auto pipe = std::make_shared<Pipe>(remoteKey, !staleKey.empty(), number_);
    const bool posted = board_.postTo(owner, [pipe](Instance& offerer) {
        if (auto* collapsing = offerer.collapsing())
            collapsing->relay(pipe);
    });
    if (!posted)
        return nullptr;
    auto entry = MakeRef<Store::Entry>(instance_.settings().readAheadGap);
    feeding_.push_back(std::make_unique<Feed>(*this, entry, pipe, cacheKey, staleKey));
    debugs(20, 3,
           "collapsed onto another worker's "
               << (staleKey.empty() ? "fetch of " + cacheKey : "revalidation of " + staleKey));
    return entry;
}

void Proxy::Collapsing::relay(const std::shared_ptr<Pipe>& pipe)
{
    bool cancelled = false;
    {
        const std::lock_guard<std::mutex> lock(pipe->mutex);
        pipe->ownerWorker = number_;
        cancelled = pipe->cancelled;
    }
    if (cancelled)
        return;
    const auto entry = instance_.inFlight().offered(pipe->key);
    if (!entry || entry->body().startOffset() != 0) {
        // its head arrived (or it ended) since the mirror asked: the
        // mirror's clients fetch on their own
        {
            const std::lock_guard<std::mutex> lock(pipe->mutex);
            pipe->failure = "the fetch to join is gone";
            pipe->drainPosted = true;
        }
        postDrain(pipe);
        return;
    }
    relaying_.push_back(std::make_unique<Relay>(*this, entry, pipe));
    relaying_.back()->take();
}

void Proxy::Collapsing::postDrain(const std::shared_ptr<Pipe>& pipe)
{
    board_.postTo(pipe->mirrorWorker, [pipe](Instance& mirror) {
        if (auto* collapsing = mirror.collapsing())
            collapsing->drain(pipe);
    });
}

void Proxy::Collapsing::drain(const std::shared_ptr<Pipe>& pipe)
{
    if (pipe->feed)
        pipe->feed->drain();
}

void Proxy::Collapsing::resume(const std::shared_ptr<Pipe>& pipe)
{
    if (pipe->relay)
        pipe->relay->take();
}

void Proxy::Collapsing::sweepSoon()
{
    if (sweep_.isPending())
        return;
    sweep_ = instance_.loop().defer([this] {
        std::erase_if(relaying_, [](const auto& relay) { return relay->isDone(); });
        std::erase_if(feeding_, [](const auto& feed) { return feed->isDone(); });
    });
}
