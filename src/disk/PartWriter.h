/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Disk::PartWriter and its jobs: the parts of an object
/// (206 replies to Range misses) written straight into the store file the
/// object will be, until they cover it (doc/caching.md "Partial objects").
///
///     DIR/L1/L2/N.tmp  [header room][key][head slot][head slot][body .... length bytes]
///                                                               ^ part A ^     ^ part B ^
///     PartWriter (one per 206 arriving): a follower of the 206's entry, as
///       Disk::Writer is of a miss's: it shares the slices as they come and
///       pwritev()s them at the body offset of their object offset (PartJob,
///       on an I/O thread; the file is opened and closed by each job)
///     the 206 ends --> Cache::notePartWritten(): the bytes written join the
///       object's spans; spans covering [0, length) --> PartCommitJob: the key
///       and the newest whole head in slot 0, the header at 0, rename to N:
///       an ordinary store file from then on (Disk::Cache indexes it)
///
/// A Disk::Writer's file whose fetch stopped short becomes the first part
/// of its object the same way (Cache::noteStoppedShort(): its layout is a
/// part file's already). A part file is a .tmp file: a restart removes it
/// (Disk::Rebuild), so parts do not survive one. A span is only served once its bytes are
/// written (its job finished), by offset in the .tmp file.
///
/// The PartObject is the shelf's (Disk::Shelf): with workers, parts of one
/// object arriving at several workers meet in one file. A writer reads
/// only the object's fixed fields (its key, head room); everything else is
/// read and changed by Disk::Cache under the shelf's Guard.
///
/// Threading: the loop; PartJob::run() and PartCommitJob::run() touch only
/// their own fields and the slices' bytes (Disk::IoPool's rule).

#pragma once

#include "disk/Format.h"
#include "disk/IoPool.h"
#include "disk/Shelf.h"
#include "sbuf/Cursor.h"
#include "sbuf/Slice.h"
#include "store/Entry.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace Disk {

using PartObject = Shelf::PartObject;

class PartWriter;

/// What a PartWriter tells its owner.
class PartWriterOwner {
public:
    virtual ~PartWriterOwner() = default;
    /// the writer is done: writer.written() bytes from its offset are in
    /// the file (none when the part was not what it said)
    virtual void notePartWritten(PartWriter& writer) = 0;
};

/// One pwritev of a part's bytes into its object's file.
class PartJob final : public IoJob {
public:
    explicit PartJob(PartWriter& writer) : writer_(writer) {}
    void run() noexcept override;
    void finish() override;

    std::string path;                ///< the object's .tmp file
    std::vector<Sbuf::Slice> slices; ///< the bytes, shared with the entry (held until finish())
    uint64_t offset = 0;             ///< where they go in the file
    int error = 0;                   ///< errno of what failed, 0 when all went well
    uint64_t written = 0;            ///< bytes written

private:
    PartWriter& writer_;
};

/// Writes one 206's body into its object's file; see the file comment.
class PartWriter final : public Store::Reader {
public:
    /// starts writing entry's body, the object's bytes from offset on (at
    /// most declared of them), into object's file (the caller counted it
    /// in object.writers, under the shelf's Guard)
    PartWriter(PartWriterOwner& owner, IoPool& pool, const Store::EntryRef& entry, PartObject& object,
               std::string path, uint64_t offset, uint64_t declared);
    ~PartWriter() override;
    PartWriter(const PartWriter&) = delete;
    PartWriter& operator=(const PartWriter&) = delete;

    void noteDataAvailable() override { take(); }
    const Sbuf::Cursor& cursor() const override { return cursor_; }
    bool isFollower() const override { return true; }

    /// the object written into
    PartObject& object() const { return object_; }
    /// the object offset of the first byte
    uint64_t offset() const { return offset_; }
    /// bytes written from offset() on (0 when the part was not what it said)
    uint64_t written() const { return overflowed_ ? 0 : written_; }
    /// the errno of a write that failed, or 0
    int error() const { return error_; }
    /// whether a job is out (the writer must live until it finished)
    bool isBusy() const { return busy_; }
    /// whether the owner was told (notePartWritten()): the writer no longer
    /// counts in its object, which may be gone
    bool isDone() const { return told_; }
    /// stops taking bytes (the object was dropped, the cache stops)
    void stop() { detach(); }

    /// a job finished (PartJob::finish())
    void jobFinished(PartJob& job);

private:
    void take();
    void submitNext();
    void detach();

    PartWriterOwner& owner_;
    IoPool& pool_;
    Store::EntryRef entry_;
    PartObject& object_;
    std::string path_;
    Sbuf::Cursor cursor_;
    uint64_t offset_;                  ///< the object offset of the first byte
    uint64_t declared_;                ///< the bytes the 206 announced
    std::vector<Sbuf::Slice> pending_; ///< taken, not yet handed to a job
    uint64_t pendingBytes_ = 0;        ///< their bytes
    uint64_t taken_ = 0;               ///< bytes taken so far
    uint64_t handed_ = 0;              ///< bytes handed to jobs
    uint64_t written_ = 0;             ///< bytes the jobs wrote
    int error_ = 0;                    ///< see error()
    bool following_ = false;           ///< a reader of entry_
    bool busy_ = false;                ///< a job is out
    bool overflowed_ = false;          ///< more bytes came than the 206 announced
    bool told_ = false;                ///< the owner was told
    bool taking_ = false;              ///< inside take() (the re-entrancy rule of store/Entry.h)
};

/// Makes an object's .tmp file whose parts cover it a store file: the key
/// and head after the header's room, the header, the rename.
class PartCommitJob final : public IoJob {
public:
    using Done = std::function<void(int error)>;
    PartCommitJob(std::string tempPath, std::string finalPath, std::string prefix,
                  const std::array<char, HeaderSize>& header, Done done)
        : tempPath_(std::move(tempPath)), finalPath_(std::move(finalPath)), prefix_(std::move(prefix)),
          header_(header), done_(std::move(done))
    {}
    void run() noexcept override;
    void finish() override { done_(error_); }

private:
    std::string tempPath_, finalPath_;
    std::string prefix_;                  ///< the key and both head slots
    std::array<char, HeaderSize> header_; ///< the header
    Done done_;
    int error_ = 0;
};

} // namespace Disk
