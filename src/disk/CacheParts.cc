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
#include <fcntl.h>

bool Disk::Cache::storePart(const std::string& key, const Store::EntryRef& entry,
                            const Store::PartFacts& facts, std::unique_ptr<Store::Reply> whole)
{
    if (!entry->reply() || !whole || entry->body().startOffset() != 0 || entry->body().firstSequence() != 0 ||
        pool_.stats().pending >= MaxBacklog)
        return false;
    PartObject* object = nullptr;
    {
        const Shelf::Guard guard(*shelf_);
        auto& parts = shelf_->parts;
        auto found = parts.find(key);
        if (found != parts.end() &&
            (found->second->validator != facts.validator || found->second->length != facts.length)) {
            // RFC 9111 3.4: another representation; the parts held are of the old one
            debugs(20, 3, "the parts of " << key << " on disk belong to another representation: dropped");
            dropPartLocked(key);
            found = parts.find(key); // a dropped object still being written stays until its writers end
        }
        if (found != parts.end() && (found->second->dropped || found->second->committing))
            return false; // complete and about to be stored, or the old representation's, still written
        const auto& dirs = shelf_->dirs;
        if (found == parts.end() && std::any_of(dirs.begin(), dirs.end(),
                                                [&](const auto& dir) { return bool(dir->index.find(key)); }))
            return false; // the whole object was stored since the lookup that missed it
        if (found == parts.end()) {
            // a part file takes the room of the whole object from the start
            Dir* dir = pick(facts.length);
            if (!dir || !makeRoomForPart(*dir, facts.length))
                return false;
            auto made = std::make_unique<PartObject>();
            made->key = key;
            made->dir = dir;
            made->fileNumber = dir->nextFile++;
            made->validator = facts.validator;
            made->length = facts.length;
            made->headRoom = HeadRoomFor(whole->head.size());
            dir->partBytes += facts.length;
            found = parts.emplace(key, std::move(made)).first;
        }
        object = found->second.get();
        // the newest part's fields (RFC 9111 3.4)
        object->head.assign(whole->head);
        object->requestTime = whole->requestTime;
        object->responseTime = whole->responseTime;
        object->lastUse = ++shelf_->partClock;
        ++object->writers;
    }
    const auto path = object->dir->layout.tempPathOf(object->fileNumber);
    debugs(20, 3,
           "writing bytes " << facts.range.offset << "-" << facts.range.last() << " of " << key << " into "
                            << path);
    partWriters_.push_back(std::make_unique<PartWriter>(*this, pool_, entry, *object, path,
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
    const Shelf::Guard guard(*shelf_);
    // a 200 of known length, under a strong validator (RFC 9111 3.4), of a
    // plain key (a variant's parts are not kept), some of it written
    const bool keeps = !stopping_ && validator && reply->status == 200 && reply->contentLength &&
                       writer.bodyLength() > 0 && writer.bodyLength() < *reply->contentLength &&
                       Store::BaseKey(key) == key && !shelf_->parts.count(key) &&
                       makeRoomForPart(dir, *reply->contentLength);
    if (!keeps) {
        removeLater(dir.layout.tempPathOf(writer.fileNumber()));
    } else {
        auto object = std::make_unique<PartObject>();
        object->key = key;
        object->dir = &dir;
        object->fileNumber = writer.fileNumber();
        object->validator = *validator;
        object->length = *reply->contentLength;
        object->head.assign(reply->head);
        object->requestTime = reply->requestTime;
        object->responseTime = reply->responseTime;
        object->headRoom = writer.slotsLength() / 2;
        object->addSpan(0, writer.bodyLength());
        object->lastUse = ++shelf_->partClock;
        debugs(20, 3,
               "bytes 0-" << writer.bodyLength() - 1 << " of " << key
                          << " are on disk, kept as a part of it (its fetch stopped short)");
        shelf_->parts.emplace(key, std::move(object));
        dir.partBytes += *reply->contentLength; // the part file's room, until its commit or drop
    }
    ++shelf_->counters.abandoned;
    release(writer);
}

std::unique_ptr<Store::Reply> Disk::Cache::partHead(const std::string& key)
{
    std::string head;
    int64_t requestTime = 0, responseTime = 0;
    uint64_t length = 0;
    {
        const Shelf::Guard guard(*shelf_);
        const auto found = shelf_->parts.find(key);
        if (found == shelf_->parts.end() || found->second->dropped || found->second->spans.empty())
            return nullptr;
        const auto& object = *found->second;
        head = object.head;
        requestTime = object.requestTime;
        responseTime = object.responseTime;
        length = object.length;
    }
    // parsed here: the shelf keeps bytes, which any worker's thread may read
    const auto entry = EntryOfHead(head, requestTime, responseTime, length);
    return entry ? std::make_unique<Store::Reply>(*entry->reply()) : nullptr;
}

std::optional<Store::DiskPart> Disk::Cache::findPart(const std::string& key, uint64_t first, uint64_t end)
{
    std::string path, head;
    int64_t requestTime = 0, responseTime = 0;
    uint64_t length = 0, fileOffset = 0, spanFirst = 0, spanEnd = 0;
    {
        const Shelf::Guard guard(*shelf_);
        const auto found = shelf_->parts.find(key);
        if (found == shelf_->parts.end() || found->second->dropped || first >= end)
            return std::nullopt;
        const auto& object = *found->second;
        auto span = object.spans.upper_bound(first);
        if (span == object.spans.begin() || std::prev(span)->second < end)
            return std::nullopt;
        --span;
        found->second->lastUse = ++shelf_->partClock;
        spanFirst = span->first;
        spanEnd = span->second;
        path = object.dir->layout.tempPathOf(object.fileNumber);
        fileOffset = object.bodyOffset() + spanFirst;
        head = object.head;
        requestTime = object.requestTime;
        responseTime = object.responseTime;
        length = object.length;
    }
    // the open of a file written a moment ago (its inode is in memory), as
    // open() does for a hit; written spans are never rewritten, and a file
    // removed meanwhile stays readable while open
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    Store::DiskPart part;
    part.entry = EntryOfHead(head, requestTime, responseTime, length);
    part.file = MakeRef<Store::StoredFile>(fd, fileOffset, spanEnd - spanFirst);
    part.offset = spanFirst;
    if (!part.entry)
        return std::nullopt;
    return part;
}

size_t Disk::Cache::partObjectCount() const
{
    const Shelf::Guard guard(*shelf_);
    return shelf_->parts.size();
}

void Disk::Cache::notePartWritten(PartWriter& writer)
{
    if (stopping_)
        return;
    auto& object = writer.object();
    const int error = writer.error();
    {
        const Shelf::Guard guard(*shelf_);
        --object.writers;
        (void)noteFull(*object.dir, error);
        if (!object.dropped && writer.written()) {
            object.addSpan(writer.offset(), writer.offset() + writer.written());
            debugs(20, 3,
                   "bytes " << writer.offset() << "-" << writer.offset() + writer.written() - 1 << " of "
                            << object.key << " are on disk"
                            << (object.isCovered() ? ": the object is complete" : ""));
        }
        if (object.dropped || object.dir->full) {
            if (!object.writers && !object.committing)
                forgetPart(object); // destroys object
        } else if (!object.writers && object.isCovered()) {
            commitPart(object);
        }
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

void Disk::Cache::stopPartWriters()
{
    const Shelf::Guard guard(*shelf_);
    for (auto& writer : partWriters_) {
        if (writer->isDone())
            continue; // uncounted already (it waits to be destroyed)
        writer->stop();
        // uncounted now: this Cache's jobs will not tell (stopping_); another
        // worker's writer may still finish the object
        auto& object = writer->object();
        --object.writers;
        if (!object.writers && object.dropped && !object.committing)
            forgetPart(object);
    }
}

bool Disk::Cache::dropPartLocked(const std::string& key)
{
    const auto found = shelf_->parts.find(key);
    if (found == shelf_->parts.end() || found->second->dropped)
        return false;
    auto& object = *found->second;
    object.dropped = true;
    // this worker's writers stop taking bytes; another worker's finish their
    // part (their entries tell them nothing of this) and find it dropped
    for (auto& writer : partWriters_) {
        if (!writer->isDone() && &writer->object() == &object)
            writer->stop();
    }
    if (!object.writers && !object.committing)
        forgetPart(object);
    return true;
}

bool Disk::Cache::makeRoomForPart(Dir& dir, uint64_t length)
{
    // the objects whose parts a cache_dir holds take at most half of it:
    // past that, those least recently used that no one writes go
    const uint64_t cap = dir.config.maxBytes / 2;
    while (dir.partBytes + length > cap) {
        PartObject* oldest = nullptr;
        for (const auto& [key, object] : shelf_->parts) {
            if (object->dir == &dir && !object->writers && !object->committing &&
                (!oldest || object->lastUse < oldest->lastUse))
                oldest = object.get();
        }
        if (!oldest)
            return false;
        debugs(20, 3, "dropping the parts of " << oldest->key << " to make room for others");
        forgetPart(*oldest);
    }
    return true;
}

void Disk::Cache::forgetPart(PartObject& object)
{
    object.dir->partBytes -= std::min(object.dir->partBytes, object.length);
    removeLater(object.dir->layout.tempPathOf(object.fileNumber));
    shelf_->parts.erase(object.key); // destroys object
}

void Disk::Cache::commitPart(PartObject& object)
{
    const auto& head = object.head;
    if (head.size() > object.headRoom) {
        debugs(20, 3,
               "the parts of " << object.key << " cover it, but its newest head is too large: dropped");
        forgetPart(object);
        return;
    }
    object.committing = true;
    Meta meta;
    meta.bodyLength = object.length;
    meta.requestTime = object.requestTime;
    meta.responseTime = object.responseTime;
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
    const Shelf::Guard guard(*shelf_);
    const auto found = shelf_->parts.find(key);
    if (found == shelf_->parts.end())
        return;
    auto& object = *found->second;
    Dir& dir = *object.dir;
    dir.partBytes -= std::min(dir.partBytes, object.length);
    if (error || object.dropped) {
        // (dropped meanwhile: erased or replaced; the file, if renamed, is no object's)
        removeLater(error ? dir.layout.tempPathOf(object.fileNumber) : dir.layout.pathOf(object.fileNumber));
        shelf_->parts.erase(found);
        return;
    }
    const Location where{object.fileNumber, static_cast<uint32_t>(key.size()), 2 * object.headRoom,
                         object.length};
    debugs(20, 3, "stored " << key << " in " << dir.layout.pathOf(object.fileNumber) << ", from its parts");
    const auto entry = EntryOfHead(object.head, object.requestTime, object.responseTime, object.length);
    shelf_->parts.erase(found);
    indexStored(dir, key, where, entry.getRaw()); // (entry: for cache_store_log's SWAPOUT line)
}
