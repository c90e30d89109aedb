/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Disk::Cache's parts of objects (the rest of the class is in
/// Cache.cc): Disk/PartWriter.h describes the file and the writers,
/// doc/caching.md "Partial objects" what they are for.

#include "cuttle.h"
#include "disk/Cache.h"
#include "http/ReplyParser.h"
#include "log/CacheLog.h"
#include "sbuf/BlockPool.h"
#include "sbuf/MemBlob.h"
#include "store/Key.h"
#include "store/Parts.h"

#include <algorithm>
#include <cstring>
#include <fcntl.h>

bool Disk::Cache::storePart(const std::string& key, const Store::EntryRef& entry,
                            const Store::PartFacts& facts, std::unique_ptr<Store::Reply> whole)
{
    if (!entry->reply() || !whole || entry->body().startOffset() != 0 || entry->body().firstSequence() != 0 ||
        pool_.stats().pending >= MaxBacklog)
        return false;
    auto found = parts_.find(key);
    if (found != parts_.end() &&
        (found->second->validator != facts.validator || found->second->length != facts.length)) {
        // RFC 9111 3.4: another representation; the parts held are of the old one
        debugs(20, 3, "the parts of " << key << " on disk belong to another representation: dropped");
        dropPart(key);
        found = parts_.end();
    }
    if (found == parts_.end()) {
        auto object = std::make_unique<PartObject>();
        {
            const Shelf::Guard guard(*shelf_);
            // a part file takes the room of the whole object from the start
            object->dir = pick(facts.length);
            if (!object->dir)
                return false;
            object->fileNumber = object->dir->nextFile++;
            object->dir->writingBytes += facts.length;
        }
        object->key = key;
        object->validator = facts.validator;
        object->length = facts.length;
        object->headRoom = HeadRoomFor(whole->head.size());
        found = parts_.emplace(key, std::move(object)).first;
    }
    auto& object = *found->second;
    if (object.committing)
        return false;               // the object is complete: it is about to be stored
    object.head = std::move(whole); // the newest part's fields (RFC 9111 3.4)
    debugs(20, 3,
           "writing bytes " << facts.range.offset << "-" << facts.range.last() << " of " << key << " into "
                            << object.dir->layout.tempPathOf(object.fileNumber));
    partWriters_.push_back(std::make_unique<PartWriter>(*this, pool_, entry, object,
                                                        object.dir->layout.tempPathOf(object.fileNumber),
                                                        facts.range.offset, facts.range.length));
    return true;
}

void Disk::Cache::noteStoppedShort(Writer& writer)
{
    auto& w = writingOf(writer);
    Dir& dir = *w.dir;
    const auto& key = writer.key();
    const auto* reply = writer.entry() ? writer.entry()->reply() : nullptr;
    const auto validator = reply ? Store::Parts::ValidatorOf(*reply) : std::nullopt;
    // a 200 of known length, under a strong validator (RFC 9111 3.4), of a
    // plain key (a variant's parts are not kept), some of it written
    const bool keeps = !stopping_ && validator && reply->status == 200 && reply->contentLength &&
                       writer.bodyLength() > 0 && writer.bodyLength() < *reply->contentLength &&
                       Store::BaseKey(key) == key && !parts_.count(key);
    if (!keeps) {
        removeLater(dir.layout.tempPathOf(writer.fileNumber()));
    } else {
        auto object = std::make_unique<PartObject>();
        object->key = key;
        object->dir = &dir;
        object->fileNumber = writer.fileNumber();
        object->validator = *validator;
        object->length = *reply->contentLength;
        object->head = std::make_unique<Store::Reply>(*reply);
        object->headRoom = writer.slotsLength() / 2;
        object->addSpan(0, writer.bodyLength());
        debugs(20, 3,
               "bytes 0-" << writer.bodyLength() - 1 << " of " << key
                          << " are on disk, kept as a part of it (its fetch stopped short)");
        parts_.emplace(key, std::move(object));
    }
    const Shelf::Guard guard(*shelf_);
    ++shelf_->counters.abandoned;
    if (keeps)
        dir.writingBytes += *reply->contentLength; // the part file's room, until its commit or drop
    release(writer);
}

const Store::Reply* Disk::Cache::partHead(const std::string& key) const
{
    const auto found = parts_.find(key);
    if (found == parts_.end() || found->second->dropped || found->second->spans.empty())
        return nullptr;
    return found->second->head.get();
}

std::optional<Store::DiskPart> Disk::Cache::findPart(const std::string& key, uint64_t first, uint64_t end)
{
    const auto found = parts_.find(key);
    if (found == parts_.end() || found->second->dropped || first >= end)
        return std::nullopt;
    const auto& object = *found->second;
    auto span = object.spans.upper_bound(first);
    if (span == object.spans.begin() || std::prev(span)->second < end)
        return std::nullopt;
    --span;
    // the open of a file the loop wrote a moment ago (its inode is in memory), as open() does for a hit
    const int fd = ::open(object.dir->layout.tempPathOf(object.fileNumber).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    Store::DiskPart part;
    part.entry = MakeRef<Store::Entry>(1);
    part.entry->setReply(std::make_unique<Store::Reply>(*object.head));
    part.entry->complete();
    part.file = MakeRef<Store::StoredFile>(fd, object.bodyOffset() + span->first, span->second - span->first);
    part.offset = span->first;
    return part;
}

void Disk::Cache::notePartWritten(PartWriter& writer)
{
    if (stopping_)
        return;
    auto& object = writer.object();
    --object.writers;
    const int error = writer.error();
    if ((error == ENOSPC || error == EDQUOT) && !object.dir->full) {
        const Shelf::Guard guard(*shelf_);
        object.dir->full = true;
        debugs(47, 0,
               "WARNING: cache_dir "
                   << object.dir->config.path << ": " << std::strerror(error)
                   << "; storing in it stopped until the next start, its objects are still served");
    }
    if (!object.dropped && writer.written()) {
        object.addSpan(writer.offset(), writer.offset() + writer.written());
        debugs(20, 3,
               "bytes " << writer.offset() << "-" << writer.offset() + writer.written() - 1 << " of "
                        << object.key << " are on disk"
                        << (object.isCovered() ? ": the object is complete" : ""));
    }
    if (object.dropped || object.dir->full) {
        if (!object.writers)
            forgetPart(object);
    } else if (!object.writers && object.isCovered()) {
        commitPart(object);
    }
    // the writer is inside its own call: destroy it from the loop
    PartWriter* gone = &writer;
    loop_.callSoon([this, gone] {
        const auto it = std::find_if(partWriters_.begin(), partWriters_.end(),
                                     [gone](const auto& each) { return each.get() == gone; });
        if (it != partWriters_.end())
            partWriters_.erase(it);
    });
}

bool Disk::Cache::dropPart(const std::string& key)
{
    const auto found = parts_.find(key);
    if (found == parts_.end() || found->second->dropped)
        return false;
    auto& object = *found->second;
    object.dropped = true;
    for (auto& writer : partWriters_) {
        if (&writer->object() == &object)
            writer->stop();
    }
    if (!object.writers && !object.committing)
        forgetPart(object);
    return true;
}

void Disk::Cache::forgetPart(PartObject& object)
{
    {
        const Shelf::Guard guard(*shelf_);
        object.dir->writingBytes -= std::min(object.dir->writingBytes, object.length);
    }
    removeLater(object.dir->layout.tempPathOf(object.fileNumber));
    parts_.erase(object.key); // destroys object
}

void Disk::Cache::commitPart(PartObject& object)
{
    const auto& head = object.head->head;
    if (head.size() > object.headRoom) {
        debugs(20, 3,
               "the parts of " << object.key << " cover it, but its newest head is too large: dropped");
        object.dropped = true;
        forgetPart(object);
        return;
    }
    object.committing = true;
    Meta meta;
    meta.bodyLength = object.length;
    meta.requestTime = object.head->requestTime;
    meta.responseTime = object.head->responseTime;
    meta.headRoom = object.headRoom;
    std::string prefix = object.key;
    prefix.append(head);
    prefix.resize(object.key.size() + 2 * size_t(object.headRoom), '\0');
    const auto header = EncodeHeader(object.key, head, meta);
    const auto key = object.key;
    pool_.submit(std::make_unique<PartCommitJob>(
        object.dir->layout.tempPathOf(object.fileNumber), object.dir->layout.pathOf(object.fileNumber),
        std::move(prefix), header, [this, key](int error) { notePartCommitted(key, error); }));
}

void Disk::Cache::notePartCommitted(const std::string& key, int error)
{
    if (stopping_)
        return;
    const auto found = parts_.find(key);
    if (found == parts_.end())
        return;
    auto& object = *found->second;
    Dir& dir = *object.dir;
    const Shelf::Guard guard(*shelf_);
    dir.writingBytes -= std::min(dir.writingBytes, object.length);
    if (error || object.dropped) {
        // (dropped meanwhile: erased or replaced; the file, if renamed, is no object's)
        removeLater(error ? dir.layout.tempPathOf(object.fileNumber) : dir.layout.pathOf(object.fileNumber));
        parts_.erase(found);
        return;
    }
    const Location where{object.fileNumber, static_cast<uint32_t>(key.size()), 2 * object.headRoom,
                         object.length};
    debugs(20, 3, "stored " << key << " in " << dir.layout.pathOf(object.fileNumber) << ", from its parts");
    const auto entry = MakeRef<Store::Entry>(1); // for cache_store_log's SWAPOUT line
    entry->setReply(std::move(object.head));
    parts_.erase(found);
    indexStored(dir, key, where, entry.getRaw());
}
