/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/Entry.h"
#include "base/TextException.h"
#include "sbuf/BlockPool.h"

#include <algorithm>

Store::Entry::Entry(uint64_t readAheadGap) : flow_(std::make_unique<Flow>())
{
    flow_->readAheadGap = readAheadGap ? readAheadGap : 1;
}

Store::Entry::~Entry() = default;

void Store::Reply::setReason(std::string_view phrase)
{
    if (phrase.empty()) {
        reasonOffset = reasonLength = 0;
        return;
    }
    Must(phrase.data() >= head.data() && phrase.data() + phrase.size() <= head.data() + head.size());
    reasonOffset = static_cast<uint32_t>(phrase.data() - head.data());
    reasonLength = static_cast<uint32_t>(phrase.size());
}

const std::string& Store::Entry::failure() const
{
    static const std::string none;
    return flow_ ? flow_->failure : none;
}

void Store::Entry::setNegativeUntil(time_t until)
{
    Must(hasReply_);
    reply_.negativeUntil = until;
}

void Store::Entry::replaceReply(std::unique_ptr<Reply>&& reply)
{
    Must(hasReply_ && reply);
    reply_ = std::move(*reply);
}

void Store::Entry::setReply(std::unique_ptr<Reply>&& reply)
{
    Must(!hasReply_ && reply);
    reply_ = std::move(*reply);
    hasReply_ = true;
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
    state_.store(State::Complete, std::memory_order_release);
    notifyReaders();
    dropIdleFlow();
}

void Store::Entry::fail(const std::string& why)
{
    if (state_ != State::Streaming)
        return;
    state_.store(State::Failed, std::memory_order_release);
    flow().failure = why;
    notifyReaders();
    dropIdleFlow();
}

uint64_t Store::Entry::slowestOffset() const
{
    uint64_t slowest = body_.endOffset();
    if (!flow_)
        return slowest;
    for (const auto* reader : flow_->readers) {
        if (reader)
            slowest = std::min(slowest, reader->cursor().offset());
    }
    return slowest;
}

uint64_t Store::Entry::produceRoom() const
{
    // a kept object that every reader left is being finished into the cache
    // (quick_abort): nothing is waiting for anyone
    if (!flow_)
        return 0; // at rest: complete or failed
    if (flow_->pipe)
        return flow_->pipe->room(); // the pipe is the buffer
    const auto& readers = flow_->readers;
    if (kept_ && readers.empty() && flow_->producer)
        return UINT64_MAX;
    // without readers, what is held counts from the first byte held
    const uint64_t behind = readers.empty() ? body_.startOffset() : slowestOffset();
    const uint64_t ahead = body_.endOffset() - behind;
    const uint64_t gap = flow_->readAheadGap;
    return ahead >= gap ? 0 : gap - ahead;
}

void Store::Entry::setPipe(std::unique_ptr<Sbuf::Pipe>&& pipe)
{
    Must(state_ == State::Streaming && !kept_ && pipe);
    flow().pipe = std::move(pipe);
}

bool Store::Entry::soleReaderTakesPipe() const
{
    return readerCount() == 1 && std::any_of(flow_->readers.begin(), flow_->readers.end(),
                                             [](const Reader* r) { return r && r->takesPipe(); });
}

bool Store::Entry::canProduce() const
{
    return produceRoom() > 0;
}

void Store::Entry::addReader(Reader& reader)
{
    auto& readers = flow().readers;
    Must(std::find(readers.begin(), readers.end(), &reader) == readers.end());
    readers.push_back(&reader);
}

void Store::Entry::removeReader(Reader& reader)
{
    if (!flow_)
        return;
    auto& readers = flow_->readers;
    const auto it = std::find(readers.begin(), readers.end(), &reader);
    if (it == readers.end())
        return;
    if (notifying_)
        *it = nullptr; // notifyReaders() compacts the list when it is done
    else
        readers.erase(it);
    if (!hasReaders() && flow_->producer)
        flow_->producer->noteReadersGone();
    else
        noteConsumed(); // the slowest reader may have gone
    dropIdleFlow();
}

void Store::Entry::replaceReader(Reader& reader, Reader& successor)
{
    Must(flow_);
    auto& readers = flow_->readers;
    Must(std::find(readers.begin(), readers.end(), &successor) == readers.end());
    const auto it = std::find(readers.begin(), readers.end(), &reader);
    Must(it != readers.end());
    *it = &successor;
    noteConsumed(); // the successor's cursor may be ahead of the reader's
}

size_t Store::Entry::readerCount() const
{
    return flow_ ? size_t(std::count_if(flow_->readers.begin(), flow_->readers.end(),
                                        [](const Reader* r) { return r; }))
                 : 0;
}

bool Store::Entry::hasReaders() const
{
    return flow_ && std::any_of(flow_->readers.begin(), flow_->readers.end(),
                                [](const Reader* r) { return r && !r->isFollower(); });
}

void Store::Entry::setProducer(Producer* producer)
{
    if (!producer && !flow_)
        return;
    flow().producer = producer;
    if (!producer)
        dropIdleFlow();
}

Store::Entry::Flow& Store::Entry::flow()
{
    if (!flow_)
        flow_ = std::make_unique<Flow>();
    return *flow_;
}

void Store::Entry::dropIdleFlow()
{
    if (flow_ && state_ == State::Complete && !notifying_ && !flow_->producer && flow_->readers.empty() &&
        !flow_->pins)
        flow_.reset();
}

void Store::Entry::unpin()
{
    if (flow_ && flow_->pins)
        --flow_->pins;
    dropIdleFlow();
}

bool Store::Entry::isCompactable(size_t maxBytes) const
{
    if (state_ != State::Complete || !kept_ || !hasReply_ || !reply_.block || body_.startOffset() != 0)
        return false;
    if (hasReaders())
        return false;
    const auto& oldBlock = reply_.block;
    const size_t total = reply_.head.size() + body_.length();
    if (total > maxBytes || total == 0)
        return false;
    if (!oldBlock->isPooled())
        return false; // already compacted
    const uint64_t held =
        body_.blockBytes() +
        (body_.isEmpty() || body_.slice(body_.firstSequence()).blob() != oldBlock ? oldBlock->capacity() : 0);
    return total < held; // else already as small as it gets
}

bool Store::Entry::compactIfSmall(size_t maxBytes)
{
    if (!isCompactable(maxBytes))
        return false;
    const auto oldBlock = reply_.block; // keeps the old head alive until the end
    const std::string_view oldHead = reply_.head;
    const size_t headSize = oldHead.size();
    const uint64_t bodySize = body_.length();
    const size_t total = headSize + bodySize;
    // head, body and the field index in one allocation
    auto blob = Sbuf::MemBlob::MakeExact(total, reply_.fieldIndex.memoryBytes());
    blob->append(oldHead);
    if (bodySize) {
        const size_t copied = body_.copyOut(0, blob->reserveSpace().first(bodySize));
        Must(copied == bodySize);
        blob->commit(copied);
        oldBlock->pool().copyStats().countCompaction(copied);
    }
    // the same head on the new block (the reason and the field index hold offsets into it)
    reply_.head = blob->view().substr(0, headSize);
    if (reply_.fieldIndex.memoryBytes())
        reply_.fieldIndex.moveTo(blob->trailer());
    reply_.block = blob;
    body_ = Sbuf::SliceSequence(0);
    if (bodySize)
        body_.append(Sbuf::Slice(blob, headSize, bodySize));
    return true;
}

std::unique_ptr<Store::Reply> Store::Reply::copyOnto(Sbuf::MemBlobRef bytesBlock,
                                                     std::string_view bytes) const
{
    auto reply = std::make_unique<Reply>();
    reply->block = std::move(bytesBlock);
    reply->head = bytes;
    reply->fieldIndex = fieldIndex; // offsets into the head: the same in the copy
    reply->contentLength = contentLength;
    reply->requestTime = requestTime;
    reply->responseTime = responseTime;
    reply->negativeUntil = negativeUntil;
    reply->status = status;
    reply->reasonOffset = reasonOffset;
    reply->reasonLength = reasonLength;
    reply->versionMajor = versionMajor;
    reply->versionMinor = versionMinor;
    reply->hasBody = hasBody;
    return reply;
}

Store::EntryRef Store::Entry::CopyOf(const Entry& stored)
{
    Must(IsCopyable(stored) && stored.hasReply_);
    const Reply& from = stored.reply_;
    auto& pool = Sbuf::DefaultPool(); // this thread's
    const auto head = Sbuf::MemBlob::MakeCopy(pool, from.head);
    auto copy = MakeRef<Entry>(1);
    copy->copy_ = true;
    copy->setReply(from.copyOnto(head, head->view()));
    const uint64_t bodySize = stored.body_.length();
    for (uint64_t offset = 0; offset < bodySize;) {
        const size_t want = size_t(std::min<uint64_t>(bodySize - offset, Sbuf::BlockPool::MaxBlockSize));
        auto block = Sbuf::MemBlob::Make(pool, want);
        const size_t copied = stored.body_.copyOut(offset, block->reserveSpace().first(want));
        Must(copied == want);
        block->commit(copied);
        copy->append(Sbuf::Slice(block, 0, copied));
        offset += copied;
    }
    pool.copyStats().countWorkerCopy(from.head.size() + bodySize);
    copy->complete();
    return copy;
}

void Store::Entry::noteConsumed()
{
    if (!flow_)
        return;
    if (!kept_ && !flow_->pins && !flow_->readers.empty())
        body_.releaseBefore(slowestOffset());
    if (flow_ && flow_->producer && state_ == State::Streaming && canProduce())
        flow_->producer->resumeProducing();
}

Store::Entry::NotificationHold::NotificationHold(Entry& entry) : entry_(&entry), outer_(!entry.held_)
{
    entry.held_ = true;
}

Store::Entry::NotificationHold::~NotificationHold()
{
    if (entry_ && outer_)
        entry_->held_ = entry_->toldWhileHeld_ = false;
}

void Store::Entry::NotificationHold::release()
{
    if (!entry_)
        return;
    const auto entry = std::move(entry_);
    if (!outer_)
        return;
    entry->held_ = false;
    if (entry->toldWhileHeld_) {
        entry->toldWhileHeld_ = false;
        entry->notifyReaders();
    }
}

void Store::Entry::notifyReaders()
{
    if (held_) {
        toldWhileHeld_ = true;
        return;
    }
    if (notifying_ || !flow_)
        return; // a reader's callback appended: the outer loop's readers see it
    notifying_ = true;
    // a reader may remove itself (or another) while being told: the slot
    // becomes null and is skipped, and the list is compacted afterwards;
    // flow_ stays while notifying_ is set
    auto& readers = flow_->readers;
    for (size_t i = 0; i < readers.size(); ++i) {
        if (readers[i])
            readers[i]->noteDataAvailable();
    }
    notifying_ = false;
    readers.erase(std::remove(readers.begin(), readers.end(), nullptr), readers.end());
    dropIdleFlow();
}
