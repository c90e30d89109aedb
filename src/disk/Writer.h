/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Disk::Writer: writes one object being fetched into its store file
/// from the very blocks its clients are served from.
///
///     Store::Entry body  [slice][slice][slice]...     (the forwarder appends)
///        readers: client A, client B, ..., Disk::Writer
///     Writer::noteDataAvailable(): Cursor::share() the new bytes (a reference
///        per slice, no copy), advance at once, noteConsumed()
///     one WriteJob at a time on an I/O thread: pwritev(the slices' bytes)
///        first job: open DIR/L1/L2/N.tmp, key and head slots after the header's room
///        last job: the header at offset 0, close, rename to DIR/L1/L2/N
///
/// The writer takes the bytes the moment they are appended and lets the
/// entry go on, so it does not hold the producer back nor make a client
/// wait (its cursor is not the slowest for long): what it holds are the
/// slices' references until their job finished. Only a disk slower than
/// the origin, with MaxPendingBytes already waiting for it, makes the
/// writer stop taking until a job finished: its cursor then holds the
/// entry, and the producer pauses under read_ahead_gap (the memory held
/// stays bounded; the alternatives, dropping the object or holding any
/// amount, were judged worse). When the object grows past its cache_dir's
/// limit, the object is abandoned (its temporary file removed); when the
/// entry fails, what was taken is written and the owner decides whether the
/// file stays (noteStoppedShort()); the clients go on unaffected.
///
/// Threading: every member runs on the loop; WriteJob::run() on an I/O
/// thread touches only the job's own fields and the slices' bytes
/// (Disk::IoPool's rule).

#pragma once

#include "disk/Format.h"
#include "disk/IoPool.h"
#include "sbuf/Cursor.h"
#include "sbuf/Slice.h"
#include "store/Entry.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace Disk {

class Writer;

/// Writes prefix then the slices' bytes at offset in fd (pwritev, IOV_MAX
/// at a time, resuming after short writes and EINTR), adding the bytes
/// written to written; returns 0 or the errno of the write that failed. On
/// an I/O thread.
int WriteAt(int fd, std::string_view prefix, const std::vector<Sbuf::Slice>& slices, uint64_t offset,
            uint64_t& written);

/// Commits a store file written whole: header at offset 0, then fd closed
/// (set to -1) and tempPath renamed to finalPath; returns 0 or an errno. On
/// an I/O thread.
int CommitFile(int& fd, const std::array<char, HeaderSize>& header, const std::string& tempPath,
               const std::string& finalPath, uint64_t& written);

/// One pwritev of an object's bytes (and, first and last, its opening and its commit).
class WriteJob final : public IoJob {
public:
    explicit WriteJob(Writer& writer) : writer_(writer) {}
    void run() noexcept override;
    void finish() override;

    int fd = -1;                     ///< the open temporary file; -1: open tempPath first
    std::string tempPath;            ///< the file while being written
    std::string finalPath;           ///< its name once complete
    std::string prefix;              ///< bytes before the slices (the key and head slots, in the first job)
    std::vector<Sbuf::Slice> slices; ///< body bytes, shared with the entry (held until finish())
    uint64_t offset = 0;             ///< where prefix (or the first slice) goes in the file
    bool commit = false;             ///< then write header at 0, close and rename
    bool abort = false;              ///< only close (when open) and remove tempPath
    bool keep = false; ///< with abort: close, but keep tempPath (WriterOwner::noteStoppedShort())
    std::array<char, HeaderSize> header{}; ///< the header, for commit
    int error = 0;                         ///< errno of what failed, 0 when all went well
    uint64_t written = 0;                  ///< bytes written by this job

private:
    Writer& writer_; ///< outlives the job: the cache keeps a writer while a job is out
};

/// What a Writer tells its owner.
class WriterOwner {
public:
    virtual ~WriterOwner() = default;
    /// the object is committed under writer.fileNumber()
    virtual void noteCommitted(Writer& writer) = 0;
    /// the object was abandoned; error is the errno of a failed write (0: none)
    virtual void noteAbandoned(Writer& writer, int error) = 0;
    /// the entry failed before its end: the body bytes taken
    /// (writer.bodyLength()) are written in writer's temporary file, closed
    /// and kept, for the owner to keep or remove
    virtual void noteStoppedShort(Writer& writer) = 0;
};

/// Stores one entry; see the file comment.
class Writer final : public Store::Reader {
public:
    /// most bytes a writer holds for the disk before it stops taking more
    static constexpr uint64_t MaxPendingBytes = 2 << 20;

    /// starts storing entry, whose reply head has arrived, under key in
    /// tempPath then finalPath; bodies larger than maxBytes are abandoned
    Writer(WriterOwner& owner, IoPool& pool, const Store::EntryRef& entry, std::string key,
           uint32_t fileNumber, std::string tempPath, std::string finalPath, uint64_t maxBytes);
    ~Writer() override;
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;

    void noteDataAvailable() override;
    const Sbuf::Cursor& cursor() const override { return cursor_; }
    /// the writer follows the clients: when they all left, the fetch is
    /// stopped (the entry fails) and the object abandoned
    bool isFollower() const override { return true; }

    /// the object's key
    const std::string& key() const { return key_; }
    /// its file number in its cache_dir
    uint32_t fileNumber() const { return fileNumber_; }
    /// bytes between the key and the body: the two head slots (Meta::slotsLength())
    uint32_t slotsLength() const { return 2 * headRoom_; }
    /// body bytes taken so far (all of them once committed)
    uint64_t bodyLength() const { return bodyLength_; }
    /// bytes the I/O threads wrote for it
    uint64_t written() const { return written_; }
    /// the entry stored, once every byte was taken or it failed (for its reply), else null
    const Store::Entry* entry() const { return stored_.getRaw(); }
    /// whether a job is out (the writer must live until it finished)
    bool isBusy() const { return busy_; }
    /// whether the writer is done (committed or abandoned)
    bool isDone() const { return done_; }
    /// gives the object up now (the cache stops); its file is removed
    void abandon(int error = 0);

    /// a job of this writer finished (WriteJob::finish())
    void jobFinished(WriteJob& job);

private:
    void take();
    void submitNext();
    void detach();

    WriterOwner& owner_;
    IoPool& pool_;
    Store::EntryRef entry_;                 ///< null once every byte was taken
    Store::EntryRef stored_;                ///< the entry once every byte was taken (not read any more)
    Sbuf::Cursor cursor_;                   ///< what was taken so far
    std::string key_;                       ///< the object's key
    std::string head_;                      ///< the reply head, as received
    uint32_t headRoom_ = 0;                 ///< each head slot's bytes (HeadRoomFor())
    uint32_t fileNumber_;                   ///< in the cache_dir
    std::string tempPath_;                  ///< the file while being written
    std::string finalPath_;                 ///< its final name
    std::array<char, HeaderSize> header_{}; ///< made when the entry completes
    uint64_t maxBytes_;                     ///< the largest body stored
    std::vector<Sbuf::Slice> pending_;      ///< taken, not yet handed to a job
    uint64_t pendingBytes_ = 0;             ///< their bytes
    uint64_t fileOffset_ = 0;               ///< where the next job writes
    uint64_t bodyLength_ = 0;               ///< body bytes taken so far
    uint64_t written_ = 0;                  ///< bytes the jobs wrote
    int fd_ = -1;                           ///< the open temporary file (opened by the first job)
    int abandonError_ = 0;                  ///< errno of the write that made it abandon, if any
    bool opened_ = false;                   ///< the first job (which opens the file) was submitted
    bool busy_ = false;                     ///< a job is out
    bool complete_ = false;                 ///< every body byte was taken
    bool abandoned_ = false;                ///< given up: abort when the job in flight finished
    bool stoppedShort_ = false;             ///< the entry failed: write what was taken, then close
    bool done_ = false;                     ///< committed or abandoned, owner told
    bool taking_ = false;                   ///< inside take() (the re-entrancy rule of store/Entry.h)
};

} // namespace Disk
