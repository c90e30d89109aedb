/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "disk/PartWriter.h"
#include "disk/Writer.h"

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

void Disk::PartJob::run() noexcept
{
    // each job opens the file: several parts of one object may be written at once
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0640);
    if (fd < 0) {
        error = errno;
        return;
    }
    error = WriteAt(fd, {}, slices, offset, written);
    if (::close(fd) != 0 && !error)
        error = errno;
}

void Disk::PartJob::finish()
{
    writer_.jobFinished(*this);
}

Disk::PartWriter::PartWriter(PartWriterOwner& owner, IoPool& pool, const Store::EntryRef& entry,
                             PartObject& object, std::string path, uint64_t offset, uint64_t declared)
    : owner_(owner), pool_(pool), entry_(entry), object_(object), path_(std::move(path)),
      cursor_(entry->body()), offset_(offset), declared_(declared)
{
    following_ = true;
    entry_->addReader(*this);
    take();
}

Disk::PartWriter::~PartWriter()
{
    detach();
}

void Disk::PartWriter::detach()
{
    if (following_) {
        following_ = false;
        entry_->removeReader(*this);
    }
}

void Disk::PartWriter::take()
{
    // store/Entry.h's re-entrancy rule: noteConsumed() may resume the
    // producer, whose append calls back here; the loop below takes it.
    // Past MaxPendingBytes waiting for the disk it stops taking, and the
    // producer pauses under read_ahead_gap (as Disk::Writer does)
    if (taking_ || !following_)
        return;
    taking_ = true;
    while (pendingBytes_ < Writer::MaxPendingBytes) {
        const auto& body = entry_->body();
        const size_t took = cursor_.share(body, pending_, Writer::MaxPendingBytes - pendingBytes_);
        if (!took)
            break;
        cursor_.advance(body, took);
        pendingBytes_ += took;
        taken_ += took;
        entry_->noteConsumed();
    }
    taking_ = false;
    if (taken_ > declared_) {
        // more bytes than Content-Range said: not a part of anything
        overflowed_ = true;
        pending_.clear();
        pendingBytes_ = 0;
        detach();
    } else if ((entry_->isComplete() || entry_->hasFailed()) && cursor_.isAtEnd(entry_->body())) {
        detach(); // every byte is pending or written
    }
    submitNext();
}

void Disk::PartWriter::submitNext()
{
    if (busy_ || told_)
        return;
    if (pending_.empty()) {
        if (!following_) {
            told_ = true;
            owner_.notePartWritten(*this);
        }
        return;
    }
    auto job = std::make_unique<PartJob>(*this);
    job->path = path_;
    job->slices.swap(pending_);
    job->offset = object_.bodyOffset() + offset_ + handed_;
    handed_ += pendingBytes_;
    pendingBytes_ = 0;
    busy_ = true;
    pool_.submit(std::move(job));
}

void Disk::PartWriter::jobFinished(PartJob& job)
{
    busy_ = false;
    written_ += job.written;
    if (job.error) {
        // what was written before stays a part; nothing more is taken
        error_ = job.error;
        pending_.clear();
        pendingBytes_ = 0;
        detach();
    }
    take();
    submitNext();
}

void Disk::PartCommitJob::run() noexcept
{
    int fd = ::open(tempPath_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        error_ = errno;
        return;
    }
    uint64_t written = 0;
    error_ = WriteAt(fd, prefix_, {}, HeaderSize, written);
    if (!error_)
        error_ = CommitFile(fd, header_, tempPath_, finalPath_, written);
    if (fd >= 0)
        ::close(fd);
}
