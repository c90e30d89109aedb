/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/Entry.h"
#include "base/TextException.h"
#include "sbuf/BlockPool.h"

#include <algorithm>

Store::Entry::Entry(uint64_t readAheadGap) : readAheadGap_(readAheadGap ? readAheadGap : 1) {}

Store::Entry::~Entry() = default;

const std::string& Store::Entry::failure() const
{
    static const std::string none;
    return failure_ ? *failure_ : none;
}

void Store::Entry::replaceReply(std::unique_ptr<Reply>&& reply)
{
    Must(reply_ && reply);
    reply_ = std::move(reply);
}

void Store::Entry::setReply(std::unique_ptr<Reply>&& reply)
{
    Must(!reply_ && reply);
    reply_ = std::move(reply);
    notifyReaders();
}

void Store::Entry::append(const Sbuf::Slice& slice)
{
    Must(state_ == State::Streaming);
    if (slice.isEmpty())
        return;
    body_.append(slice);
    notifyReaders();
}

void Store::Entry::complete()
{
    if (state_ != State::Streaming)
        return;
    state_ = State::Complete;
    notifyReaders();
}

void Store::Entry::fail(const std::string& why)
{
    if (state_ != State::Streaming)
        return;
    state_ = State::Failed;
    failure_ = std::make_unique<std::string>(why);
    notifyReaders();
}

uint64_t Store::Entry::slowestOffset() const
{
    uint64_t slowest = body_.endOffset();
    for (const auto* reader : readers_) {
        if (reader)
            slowest = std::min(slowest, reader->cursor().offset());
    }
    return slowest;
}

uint64_t Store::Entry::produceRoom() const
{
    // a kept object that every reader left is being finished into the cache
    // (quick_abort): nothing is waiting for anyone
    if (kept_ && readers_.empty() && producer_)
        return UINT64_MAX;
    // without readers, what is held counts from the first byte held
    const uint64_t behind = readers_.empty() ? body_.startOffset() : slowestOffset();
    const uint64_t ahead = body_.endOffset() - behind;
    return ahead >= readAheadGap_ ? 0 : readAheadGap_ - ahead;
}

bool Store::Entry::canProduce() const
{
    return produceRoom() > 0;
}

void Store::Entry::addReader(Reader& reader)
{
    Must(std::find(readers_.begin(), readers_.end(), &reader) == readers_.end());
    readers_.push_back(&reader);
}

void Store::Entry::removeReader(Reader& reader)
{
    const auto it = std::find(readers_.begin(), readers_.end(), &reader);
    if (it == readers_.end())
        return;
    if (notifying_)
        *it = nullptr; // notifyReaders() compacts the list when it is done
    else
        readers_.erase(it);
    const bool anyLeft = std::any_of(readers_.begin(), readers_.end(), [](const Reader* r) { return r; });
    if (!anyLeft && producer_)
        producer_->noteReadersGone();
    else
        noteConsumed(); // the slowest reader may have gone
}

bool Store::Entry::hasReaders() const
{
    return std::any_of(readers_.begin(), readers_.end(), [](const Reader* r) { return r; });
}

bool Store::Entry::compactIfSmall(size_t maxBytes)
{
    if (state_ != State::Complete || !kept_ || !reply_ || !reply_->block || body_.startOffset() != 0)
        return false;
    if (hasReaders())
        return false;
    const auto& old = *reply_;
    const size_t headSize = old.head.size();
    const uint64_t bodySize = body_.length();
    const size_t total = headSize + bodySize;
    if (total > maxBytes || total == 0)
        return false;
    if (!old.block->isPooled())
        return false; // already compacted
    const uint64_t held =
        body_.blockBytes() + (body_.isEmpty() || body_.slice(body_.firstSequence()).blob() != old.block
                                  ? old.block->capacity()
                                  : 0);
    if (total >= held)
        return false;               // already as small as it gets
    auto& pool = old.block->pool(); // counts the copy
    auto blob = Sbuf::MemBlob::MakeExact(total);
    blob->append(old.head);
    if (bodySize) {
        const size_t copied = body_.copyOut(0, blob->reserveSpace().first(bodySize));
        Must(copied == bodySize);
        blob->commit(copied);
        pool.copyStats().countCompaction(copied);
    }
    // the same head, its views moved onto the new block
    const char* from = old.head.data();
    const char* to = blob->data();
    auto rebase = [&](std::string_view v) {
        if (v.empty() || v.data() < from || v.data() + v.size() > from + headSize)
            return v; // not in the head (cannot happen for a parsed head): left as is
        return std::string_view(to + (v.data() - from), v.size());
    };
    auto fresh = std::make_unique<Reply>(old);
    fresh->block = blob;
    fresh->head = blob->view().substr(0, headSize);
    fresh->reason = rebase(old.reason);
    reply_ = std::move(fresh);
    body_ = Sbuf::SliceSequence(0);
    if (bodySize)
        body_.append(Sbuf::Slice(blob, headSize, bodySize));
    return true;
}

void Store::Entry::noteConsumed()
{
    if (!kept_ && !readers_.empty())
        body_.releaseBefore(slowestOffset());
    if (producer_ && state_ == State::Streaming && canProduce())
        producer_->resumeProducing();
}

void Store::Entry::notifyReaders()
{
    if (notifying_)
        return; // a reader's callback appended: the outer loop's readers see it
    notifying_ = true;
    // a reader may remove itself (or another) while being told: the slot
    // becomes null and is skipped, and the list is compacted afterwards
    for (size_t i = 0; i < readers_.size(); ++i) {
        if (readers_[i])
            readers_[i]->noteDataAvailable();
    }
    notifying_ = false;
    readers_.erase(std::remove(readers_.begin(), readers_.end(), nullptr), readers_.end());
}
