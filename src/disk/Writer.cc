/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "disk/Writer.h"
#include "base/TextException.h"
#include "log/CacheLog.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

int Disk::WriteAt(int fd, std::string_view prefix, const std::vector<Sbuf::Slice>& slices, uint64_t offset,
                  uint64_t& written)
{
    // pwritev of the prefix and the slices, IOV_MAX at a time, resuming after short writes
    std::vector<iovec> iov;
    iov.reserve(slices.size() + 1);
    if (!prefix.empty())
        iov.push_back(iovec{const_cast<char*>(prefix.data()), prefix.size()});
    for (const auto& s : slices)
        iov.push_back(iovec{const_cast<char*>(s.data()), s.length()});
    size_t first = 0;
    uint64_t at = offset;
    while (first < iov.size()) {
        const int count = static_cast<int>(std::min<size_t>(iov.size() - first, IOV_MAX));
        const ssize_t n = ::pwritev(fd, &iov[first], count, static_cast<off_t>(at));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        at += n;
        written += n;
        size_t left = n;
        while (left && first < iov.size()) {
            if (left >= iov[first].iov_len) {
                left -= iov[first].iov_len;
                ++first;
            } else {
                iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + left;
                iov[first].iov_len -= left;
                left = 0;
            }
        }
    }
    return 0;
}

int Disk::CommitFile(int& fd, const std::array<char, HeaderSize>& header, const std::string& tempPath,
                     const std::string& finalPath, uint64_t& written)
{
    if (::pwrite(fd, header.data(), header.size(), 0) != ssize_t(header.size()))
        return errno ? errno : EIO;
    written += header.size();
    // close before the rename: the file under its final name is whole
    const int closing = fd;
    fd = -1;
    if (::close(closing) != 0 || ::rename(tempPath.c_str(), finalPath.c_str()) != 0)
        return errno;
    return 0;
}

void Disk::WriteJob::run() noexcept
{
    if (fd < 0 && !abort) {
        fd = ::open(tempPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
        if (fd < 0) {
            error = errno;
            return;
        }
    }
    if (abort) {
        if (fd >= 0)
            ::close(fd);
        fd = -1;
        if (!keep)
            ::unlink(tempPath.c_str());
        return;
    }
    error = WriteAt(fd, prefix, slices, offset, written);
    if (!error && commit)
        error = CommitFile(fd, header, tempPath, finalPath, written);
}

void Disk::WriteJob::finish()
{
    writer_.jobFinished(*this);
}

Disk::Writer::Writer(WriterOwner& owner, IoPool& pool, const Store::EntryRef& entry, std::string key,
                     uint32_t fileNumber, std::string tempPath, std::string finalPath, uint64_t maxBytes)
    : owner_(owner), pool_(pool), entry_(entry), cursor_(entry->body()), key_(std::move(key)),
      fileNumber_(fileNumber), tempPath_(std::move(tempPath)), finalPath_(std::move(finalPath)),
      maxBytes_(maxBytes)
{
    Must(entry_->reply());
    Must(entry_->body().startOffset() == 0 && entry_->body().firstSequence() == 0);
    // the head is copied once (it is not body; it is written before the body)
    head_ = entry_->reply()->head;
    headRoom_ = HeadRoomFor(head_.size());
    fileOffset_ = HeaderSize;
    entry_->addReader(*this);
    take();
}

Disk::Writer::~Writer()
{
    detach();
}

void Disk::Writer::detach()
{
    if (entry_) {
        auto entry = std::move(entry_);
        entry->removeReader(*this);
    }
}

void Disk::Writer::noteDataAvailable()
{
    take();
}

void Disk::Writer::take()
{
    // store/Entry.h's re-entrancy rule: noteConsumed() may resume the
    // producer, whose append calls back here; the loop below takes it
    if (taking_ || !entry_ || abandoned_)
        return;
    taking_ = true;
    // past MaxPendingBytes waiting for the disk, the writer stops taking:
    // its cursor holds the entry's bytes and the producer pauses under
    // read_ahead_gap until a job finished (jobFinished() takes again)
    while (pendingBytes_ < MaxPendingBytes) {
        const auto& body = entry_->body();
        const size_t took = cursor_.share(body, pending_, MaxPendingBytes - pendingBytes_);
        if (!took)
            break;
        cursor_.advance(body, took);
        pendingBytes_ += took;
        bodyLength_ += took;
        entry_->noteConsumed();
    }
    taking_ = false;
    if (bodyLength_ > maxBytes_) {
        debugs(20, 3, "not storing " << key_ << " on disk: it outgrew its cache_dir's limit");
        abandon();
        return;
    }
    if (entry_->hasFailed()) {
        // what was taken is written, then the owner decides whether the file
        // is kept (as the first part of its object) or removed
        debugs(20, 3, "not storing " << key_ << " on disk whole: its fetch failed");
        stoppedShort_ = true;
        stored_ = entry_;
        detach();
        submitNext();
        return;
    }
    if (entry_->isComplete() && cursor_.isAtEnd(entry_->body())) {
        complete_ = true;
        Meta meta;
        meta.bodyLength = bodyLength_;
        meta.requestTime = entry_->reply()->requestTime;
        meta.responseTime = entry_->reply()->responseTime;
        meta.headRoom = headRoom_;
        header_ = EncodeHeader(key_, head_, meta);
        stored_ = entry_;
        detach(); // every byte is in pending_ or written
    }
    submitNext();
}

void Disk::Writer::submitNext()
{
    if (busy_ || done_)
        return;
    const bool aborting = abandoned_;
    // stopped short with every byte taken written: close, keeping the file
    const bool closing = stoppedShort_ && pending_.empty() && !aborting;
    if (!aborting && !closing && pending_.empty() && opened_ && !complete_)
        return; // nothing to write yet
    auto job = std::make_unique<WriteJob>(*this);
    job->fd = fd_;
    job->tempPath = tempPath_;
    job->finalPath = finalPath_;
    job->abort = aborting || closing;
    job->keep = closing;
    if (!job->abort) {
        job->offset = fileOffset_;
        if (!opened_) {
            // the first job opens the file and writes the key and head
            // (in slot 0, the other slot empty) after the header's room
            job->prefix.reserve(key_.size() + 2 * headRoom_);
            job->prefix.append(key_).append(head_);
            job->prefix.resize(key_.size() + 2 * headRoom_, '\0');
            opened_ = true;
        }
        job->slices.swap(pending_);
        fileOffset_ += job->prefix.size() + pendingBytes_;
        pendingBytes_ = 0;
        job->commit = complete_;
        job->header = header_;
    }
    busy_ = true;
    pool_.submit(std::move(job));
}

void Disk::Writer::jobFinished(WriteJob& job)
{
    busy_ = false;
    fd_ = job.fd;
    written_ += job.written;
    if (job.abort) {
        done_ = true;
        if (job.keep)
            owner_.noteStoppedShort(*this);
        else
            owner_.noteAbandoned(*this, abandonError_);
        return;
    }
    if (job.error) {
        abandon(job.error);
        return;
    }
    if (job.commit) {
        done_ = true;
        owner_.noteCommitted(*this);
        return;
    }
    if (!abandoned_)
        take(); // what arrived while the job was out
    submitNext();
}

void Disk::Writer::abandon(int error)
{
    if (done_)
        return;
    if (!abandonError_)
        abandonError_ = error;
    if (abandoned_)
        return;
    abandoned_ = true;
    detach();
    pending_.clear();
    pendingBytes_ = 0;
    submitNext();
}
