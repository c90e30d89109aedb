/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/Parts.h"
#include "http/Date.h"
#include "http/ETag.h"
#include "http/Head.h"
#include "http/ReplyParser.h"
#include "log/CacheLog.h"
#include "sbuf/BlockPool.h"
#include "sbuf/Cursor.h"
#include "sbuf/MemBlob.h"
#include "store/Key.h"

#include <algorithm>

namespace {

/// appends to `to` the bytes [first, end) of `from` (shared, not copied)
void AppendSpan(Sbuf::SliceSequence& to, const Sbuf::SliceSequence& from, uint64_t first, uint64_t end)
{
    if (first >= end)
        return;
    Sbuf::Cursor cursor;
    cursor.seek(from, first);
    std::vector<Sbuf::Slice> slices;
    cursor.share(from, slices, end - first);
    for (const auto& slice : slices)
        to.append(slice);
}

} // namespace

/// Follows a 206's entry as a disk writer does (a follower that takes the
/// slices as they arrive), then hands them to Parts::finish().
class Store::Parts::Collector final : public Reader {
public:
    Collector(Parts& parts, std::string key, const EntryRef& entry, const PartFacts& facts,
              WholeHandler whole)
        : parts_(parts), key_(std::move(key)), entry_(entry), facts_(facts), whole_(std::move(whole)),
          cursor_(entry->body()), taken_(facts.range.offset)
    {}
    ~Collector() override { detach(); }
    Collector(const Collector&) = delete;
    Collector& operator=(const Collector&) = delete;

    /// starts following (once the collector is in Parts' list: it may finish at once)
    void start()
    {
        following_ = true;
        entry_->addReader(*this);
        take();
    }

    void noteDataAvailable() override { take(); }
    const Sbuf::Cursor& cursor() const override { return cursor_; }
    bool isFollower() const override { return true; }

    const std::string& key() const { return key_; }
    const PartFacts& facts() const { return facts_; }
    /// the entry followed (its head is the part's)
    const Entry& entry() const { return *entry_; }
    /// the bytes taken, at their object offsets
    const Sbuf::SliceSequence& taken() const { return taken_; }
    /// whether every byte the part announced came
    bool isWhole() const { return taken_.length() == facts_.range.length; }
    const WholeHandler& whole() const { return whole_; }

private:
    void take()
    {
        // store/Entry.h's re-entrancy rule: noteConsumed() may resume the
        // producer, whose append calls back here; the loop below takes it
        if (taking_ || !following_)
            return;
        taking_ = true;
        std::vector<Sbuf::Slice> slices;
        for (;;) {
            const auto& body = entry_->body();
            slices.clear();
            const size_t took = cursor_.share(body, slices, SIZE_MAX);
            if (!took)
                break;
            cursor_.advance(body, took);
            for (const auto& slice : slices)
                taken_.append(slice);
            entry_->noteConsumed();
        }
        taking_ = false;
        // more bytes than Content-Range said: not a part of anything; more
        // than the budget could hold: not worth holding while it arrives
        const bool overflowed =
            taken_.length() > facts_.range.length || taken_.blockBytes() > parts_.budget();
        if (overflowed)
            taken_.clear();
        if (overflowed || entry_->isComplete() || entry_->hasFailed()) {
            detach();
            parts_.finish(*this); // destroys this collector
        }
    }

    void detach()
    {
        if (following_) {
            following_ = false;
            entry_->removeReader(*this);
        }
    }

    Parts& parts_;
    std::string key_;
    EntryRef entry_;
    PartFacts facts_;
    WholeHandler whole_;
    Sbuf::Cursor cursor_;
    Sbuf::SliceSequence taken_; ///< see taken()
    bool following_ = false;    ///< a reader of entry_
    bool taking_ = false;       ///< inside take()
};

Store::Parts::Parts(uint64_t budget) : budget_(budget) {}

Store::Parts::~Parts()
{
    collectors_.clear(); // they detach from their entries
}

std::optional<Store::PartFacts> Store::Parts::FactsOf(const Reply& reply)
{
    if (reply.status != 206)
        return std::nullopt;
    const auto fields = reply.fields();
    // one Content-Range: a multipart/byteranges 206 has none in its head
    size_t ranges = 0;
    for (const auto f : fields)
        ranges += Http::EqualsIgnoreCase(f.name, "Content-Range");
    if (ranges != 1 || fields.find("Vary"))
        return std::nullopt;
    const auto range = Http::ParseContentRange(*fields.find("Content-Range"));
    if (!range || !range->completeLength)
        return std::nullopt;
    if (reply.contentLength && *reply.contentLength != range->range.length)
        return std::nullopt;
    PartFacts facts;
    facts.range = range->range;
    facts.length = *range->completeLength;
    const auto validator = ValidatorOf(reply);
    if (!validator)
        return std::nullopt;
    facts.validator = *validator;
    return facts;
}

std::optional<std::string> Store::Parts::ValidatorOf(const Reply& reply)
{
    // RFC 9111 3.4: parts combine only under the same strong validator
    const auto fields = reply.fields();
    if (const auto etag = fields.find("ETag")) {
        const auto tag = Http::ParseEntityTag(*etag);
        if (!tag || tag->isWeak())
            return std::nullopt;
        return "E" + std::string(tag->opaque());
    }
    // RFC 9110 8.8.2.2: a Last-Modified at least 60 s before the Date the
    // origin sent is strong for a cache
    const auto lm = fields.find("Last-Modified");
    const auto date = fields.find("Date");
    if (!lm || !date)
        return std::nullopt;
    const auto modified = Http::ParseHttpDate(*lm);
    const auto sent = Http::ParseHttpDate(*date);
    if (!modified || !sent || *sent - *modified < 60)
        return std::nullopt;
    return "L" + std::to_string(*modified);
}

std::unique_ptr<Store::Reply> Store::Parts::WholeReplyOf(const Reply& part, uint64_t length)
{
    std::string head =
        "HTTP/" + std::to_string(part.versionMajor) + "." + std::to_string(part.versionMinor) + " 200 OK\r\n";
    for (const auto f : part.fields()) {
        if (!Http::EqualsIgnoreCase(f.name, "Content-Range") &&
            !Http::EqualsIgnoreCase(f.name, "Content-Length") &&
            !Http::EqualsIgnoreCase(f.name, "Transfer-Encoding"))
            Http::AppendField(head, f.name, f.value);
    }
    Http::AppendField(head, "Content-Length", std::to_string(length));
    Http::EndHead(head);
    auto block = Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), head);
    Http::ReplyParser parser(block->size() + 1);
    if (parser.parse(block->view()) != Http::ParseResult::Done)
        return nullptr;
    auto whole = std::make_unique<Reply>();
    whole->block = block;
    whole->head = block->view();
    whole->setReason(parser.reason());
    whole->setFields(parser.fields());
    whole->status = 200;
    whole->contentLength = length;
    whole->requestTime = part.requestTime;
    whole->responseTime = part.responseTime;
    whole->versionMajor = part.versionMajor;
    whole->versionMinor = part.versionMinor;
    return whole;
}

void Store::Parts::collect(const std::string& key, const EntryRef& entry, const PartFacts& facts,
                           WholeHandler whole)
{
    if (budget_ == 0 || !entry->reply() || entry->body().startOffset() != 0 ||
        entry->body().firstSequence() != 0)
        return;
    collectors_.push_back(std::make_unique<Collector>(*this, key, entry, facts, std::move(whole)));
    collectors_.back()->start();
}

void Store::Parts::finish(Collector& collector)
{
    const auto it = std::find_if(collectors_.begin(), collectors_.end(),
                                 [&collector](const auto& c) { return c.get() == &collector; });
    if (it == collectors_.end())
        return;
    const auto done = std::move(*it);
    collectors_.erase(it);
    // a part that ended early keeps what came; one that ended complete
    // but short of its range was not what it said
    if (done->taken().isEmpty() || (done->entry().isComplete() && !done->isWhole()))
        return;
    auto whole = add(done->key(), *done->entry().reply(), done->facts(), done->taken());
    if (whole && done->whole())
        done->whole()(whole);
}

Store::EntryRef Store::Parts::add(const std::string& key, const Reply& part, const PartFacts& facts,
                                  const Sbuf::SliceSequence& body)
{
    if (budget_ == 0 || body.isEmpty() || body.startOffset() != facts.range.offset ||
        body.endOffset() > facts.length)
        return nullptr;
    auto head = WholeReplyOf(part, facts.length);
    if (!head)
        return nullptr;
    auto found = objects_.find(key);
    if (found != objects_.end() &&
        (found->second.validator != facts.validator || found->second.length != facts.length)) {
        // RFC 9111 3.4: another representation; the parts held are of the old one
        debugs(20, 3, "the parts of " << key << " belong to another representation: dropped");
        drop(found);
        found = objects_.end();
    }
    if (found == objects_.end()) {
        lru_.push_back(key);
        found = objects_.emplace(key, Object{}).first;
        found->second.validator = facts.validator;
        found->second.length = facts.length;
        found->second.recency = std::prev(lru_.end());
    } else {
        lru_.splice(lru_.end(), lru_, found->second.recency);
    }
    auto& object = found->second;
    object.head = std::move(head); // the newest part's fields (RFC 9111 3.4)

    // merge with every span the new bytes overlap or touch
    uint64_t first = body.startOffset();
    uint64_t end = body.endOffset();
    auto it = object.spans.upper_bound(first);
    if (it != object.spans.begin() && std::prev(it)->second.endOffset() >= first)
        --it;
    std::vector<std::map<uint64_t, Sbuf::SliceSequence>::iterator> merged;
    for (; it != object.spans.end() && it->first <= end; ++it) {
        merged.push_back(it);
        first = std::min(first, it->first);
        end = std::max(end, it->second.endOffset());
    }
    Sbuf::SliceSequence span(first);
    uint64_t at = first;
    size_t next = 0;
    while (at < end) {
        // the held span that starts at or before at, else the new bytes
        if (next < merged.size() && merged[next]->first <= at) {
            const auto& held = merged[next]->second;
            AppendSpan(span, held, at, held.endOffset());
            at = std::max(at, held.endOffset());
            ++next;
        } else {
            const uint64_t stop = next < merged.size() ? merged[next]->first : end;
            AppendSpan(span, body, std::max(at, body.startOffset()), std::min(stop, body.endOffset()));
            at = stop;
        }
    }
    for (const auto& m : merged) {
        object.bytes -= m->second.blockBytes();
        bytes_ -= m->second.blockBytes();
        object.spans.erase(m);
    }
    object.bytes += span.blockBytes();
    bytes_ += span.blockBytes();
    const bool covers = first == 0 && end == object.length;
    debugs(20, 3,
           "parts of " << key << ": bytes " << first << "-" << end - 1 << " of " << object.length << " held"
                       << (covers ? ": the object is complete" : ""));
    if (!covers) {
        object.spans.emplace(first, std::move(span));
        shrink(&object);
        return nullptr;
    }
    auto entry = MakeRef<Entry>(1); // complete before any reader comes
    entry->setReply(std::move(object.head));
    Sbuf::Cursor cursor(span);
    std::vector<Sbuf::Slice> slices;
    cursor.share(span, slices, SIZE_MAX);
    for (const auto& slice : slices)
        entry->append(slice);
    entry->complete();
    drop(found);
    return entry;
}

const Store::Reply* Store::Parts::head(const std::string& key) const
{
    const auto found = objects_.find(key);
    return found == objects_.end() ? nullptr : found->second.head.get();
}

Store::Parts::Cover Store::Parts::cover(const std::string& key, uint64_t first, uint64_t end)
{
    const auto found = objects_.find(key);
    if (found == objects_.end() || first >= end)
        return {};
    auto& object = found->second;
    auto it = object.spans.upper_bound(first);
    if (it == object.spans.begin())
        return {};
    const auto& span = std::prev(it)->second;
    if (span.endOffset() < end)
        return {};
    lru_.splice(lru_.end(), lru_, object.recency);
    Cover answer;
    answer.offset = span.startOffset();
    answer.entry = MakeRef<Entry>(1);
    answer.entry->setReply(std::make_unique<Reply>(*object.head));
    Sbuf::Cursor cursor(span);
    std::vector<Sbuf::Slice> slices;
    cursor.share(span, slices, SIZE_MAX);
    for (const auto& slice : slices)
        answer.entry->append(slice);
    answer.entry->complete();
    return answer;
}

bool Store::Parts::erase(const std::string& key)
{
    // a part still arriving would bring them back (the whole object was
    // stored meanwhile, or it is purged)
    std::erase_if(collectors_, [&key](const auto& collector) { return collector->key() == key; });
    const auto found = objects_.find(key);
    if (found == objects_.end())
        return false;
    drop(found);
    return true;
}

void Store::Parts::setBudget(uint64_t budget)
{
    budget_ = budget;
    shrink();
}

void Store::Parts::shrink(const Object* keep)
{
    for (auto it = lru_.begin(); bytes_ > budget_ && it != lru_.end();) {
        const auto found = objects_.find(*it++);
        if (&found->second == keep && found->second.bytes <= budget_)
            continue;
        drop(found);
    }
}

void Store::Parts::drop(std::unordered_map<std::string, Object>::iterator it)
{
    bytes_ -= it->second.bytes;
    lru_.erase(it->second.recency);
    objects_.erase(it);
}
