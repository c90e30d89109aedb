/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Store::BodyWriter: writes a message (its head, then an entry's body
/// from a cursor) to a socket with one writev(2) per attempt, re-framing the
/// body on the way (as is, or in chunked coding) without copying it.
///
/// One write attempt gathers
///
///     [rest of the head][chunk-size CRLF][slice][slice]...[slice][CRLF]  (chunked)
///     [rest of the head][slice][slice]...[slice]                         (raw)
///
/// into at most IOV_MAX iovecs, calls writev once, and moves through what
/// the kernel took: the head offset, the framing offsets, then the cursor
/// (possibly into the middle of a slice). A chunk covers exactly the bytes
/// gathered when it was opened, so a partial write resumes inside the same
/// chunk; the last-chunk `0 CRLF CRLF` goes out once the entry is complete.
/// The head is the one per-client header block (doc/design.md "The path of a body byte"); the
/// body is never copied. When the entry's body continues in a pipe
/// (Entry::setPipe(), doc/design.md "Splice"), the raw body's slices go
/// first and then the pipe's bytes with splice(2).
///
/// Ownership: the writer owns the head bytes and its cursor; it does not own
/// the socket or the entry (the caller passes both).
#pragma once

#include "http/ChunkedDecoder.h"
#include "sbuf/Cursor.h"
#include "sbuf/MemBlob.h"
#include "store/forward.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

struct iovec;

namespace Store {

/// Writes a head and a body from an entry to a socket; see the file comment.
class BodyWriter {
public:
    /// how the body is framed on the way out
    enum class Framing {
        None,   ///< no body at all (HEAD, 204, 304): only the head
        Raw,    ///< the body bytes as they are (Content-Length, or close-delimited)
        Chunked ///< chunked transfer coding, ended by the last-chunk
    };
    /// what one write() call ended with
    enum class Result {
        Blocked, ///< the socket is full (EAGAIN): wait for writability
        Caught,  ///< everything held was written; the entry has not completed
        Done,    ///< the head, the whole body and any last-chunk are written
        Error,   ///< the write failed (see error()), or the entry failed
        /// a file body's next bytes are not in the page cache: sendfile()
        /// would wait for the disk. Read coldRange() off the loop
        /// (DiskTier::warm()), say so with noteWarmed(), and write again
        Cold
    };

    /// a writer of nothing yet; set() it before write()
    BodyWriter() = default;
    /// starts a message: its head bytes (may be empty) and body framing;
    /// the cursor starts at the entry's first byte held
    void start(std::string head, Framing framing, const Entry& entry);
    /// One piece of a reply made of ranges of a body (a 206), stored or in flight:
    /// text (a multipart delimiter and part head, or the closing) or
    /// `length` body bytes from absolute offset `offset`.
    struct Segment {
        std::string text;    ///< framing bytes, written as they are
        uint64_t offset = 0; ///< with text empty: where the body bytes start
        uint64_t length = 0; ///< with text empty: how many body bytes
    };
    /// starts a message of head and then segments (Range replies); every
    /// byte the segments name must be held or still to come (an object in
    /// flight: write() returns Caught until they arrive); the cursor follows
    /// the first byte still needed, so the producer is not held back by
    /// bytes before the ranges
    void startSegments(std::string head, std::vector<Segment> segments, const Entry& entry);

    /// Where write() sends its bytes when they do not go straight to a socket
    /// (a TLS connection to an origin): writev(2)'s contract, from the
    /// caller's buffers. A piece it could not take whole is offered again
    /// from the same bytes, at least as long, on the next call.
    class Sink {
    public:
        virtual ~Sink() = default;
        /// bytes taken, or -1 with errno (EAGAIN: nothing now)
        virtual ssize_t writev(const struct iovec* iov, int count) = 0;
    };

    /// write() through sink instead of a socket
    Result write(Sink& sink, Entry& entry);
    /// writes as much as the socket takes (looping while writev takes all it
    /// was offered) and reports why it stopped. Never re-entered: the call
    /// back it makes (Entry::noteConsumed) must not lead into write() again
    /// on this writer (store/Entry.h's rule); that throws.
    Result write(int fd, Entry& entry);
    /// the cursor in the body
    const Sbuf::Cursor& cursor() const { return cursor_; }
    /// bytes written to the socket (head, framing and body)
    uint64_t bytesWritten() const { return written_; }
    /// body bytes written (without head or framing)
    uint64_t bodyBytesWritten() const { return bodyWritten_; }
    /// whether the whole head went out
    bool isHeadWritten() const { return headOffset_ >= head_.size(); }
    /// errno of a failed write, 0 otherwise
    int error() const { return errno_; }
    /// writev calls that took bytes or blocked (a retry after EINTR is not one)
    uint64_t writeCount() const { return writes_; }
    /// The default bound on the body bytes of one writev. Measured (a 512 MiB
    /// memory hit to curl on loopback, medians of 3 x 6 fetches): writes of up
    /// to 1 MiB move 4.8 GB/s at 0.21 CPU-s/GB, unbounded ones (30 MB a call
    /// on average, as far as the receiver's window goes) 4.1 GB/s at 0.24;
    /// 256 KiB and 512 KiB cost more syscalls than they save, 2 MiB is a little
    /// slower. A bounded write leaves the socket's lock and the copy's bytes in
    /// the cache between calls; it is still about 1,000 writes per GB.
    static constexpr size_t DefaultMaxBytesPerWrite = 1024 * 1024;

    /// sends no body byte at or past absolute offset `end` (Raw and Chunked
    /// framing, not segments): write() returns Caught there, even when the
    /// entry is complete, and the caller decides (reply_body_max_size cuts
    /// the connection); start() lifts it
    void setBodyEnd(uint64_t end) { bodyEnd_ = end; }
    /// Sends the body from bytes [offset, offset + length) of the open file
    /// fd (not owned) with sendfile(2) instead of the entry's slices: a disk
    /// hit (doc/design.md "The disk store"); through a Sink (TLS), read
    /// with pread(2) into a FileChunk of the writer's own and written from
    /// there. Call it after start() (Raw or None framing) or
    /// startSegments() (their offsets are body offsets).
    void setFileBody(int fd, uint64_t offset, uint64_t length);
    /// the most file bytes one pread() takes for a Sink: four TLS records
    static constexpr size_t FileChunk = 64 * 1024;
    /// sendfile calls (or pread-and-writes for a Sink) that sent bytes or blocked
    uint64_t sendfileCount() const { return sendfiles_; }
    /// after Result::Cold: the file's bytes (offset in the file, length) to warm
    std::pair<uint64_t, uint64_t> coldRange() const { return cold_; }
    /// coldRange() was read: write() sends it without looking again
    void noteWarmed() { warmEnd_ = cold_.first + cold_.second; }
    /// the most bytes one cold range asks for
    static constexpr uint64_t WarmWindow = 4 * 1024 * 1024;
    /// whether the rest of the body may come from the entry's pipe
    /// (Entry::setPipe()): raw framing, no segments, no file, no body end;
    /// the caller adds what it knows (its socket is a plain one, it writes
    /// with write(int, Entry&))
    bool takesPipe() const
    {
        return framing_ == Framing::Raw && segments_.empty() && fileFd_ < 0 && bodyEnd_ == UINT64_MAX;
    }
    /// splice calls that moved bytes from the entry's pipe or blocked
    uint64_t spliceCount() const { return splices_; }
    /// limits each writev to maxBytes body bytes (0: no limit)
    void setMaxBytesPerWrite(size_t maxBytes) { maxBytes_ = maxBytes; }

private:
    Result writeFramed(int fd, Entry& entry);
    Result writeSegments(int fd, Entry& entry);
    Result writeFile(int fd);
    /// sendfile(2)'s contract for count file bytes at `at` through sink_:
    /// read into fileChunk_ and written from there; after a short write the
    /// next call reads the same bytes again, as the Sink's contract wants
    ssize_t sendFileToSink(off_t at, size_t count);
    /// whether the file's byte at `at` is not in the page cache (and then
    /// cold_ is the window from `at` to warm), checked with one preadv2()
    /// of RWF_NOWAIT; false where the file system cannot tell
    bool isCold(uint64_t at, uint64_t count);
    /// drains the entry's pipe into fd (Raw framing, once the slices are
    /// written): nullopt while bytes moved, else why to stop
    std::optional<Result> writePipe(int fd, Entry& entry);
    /// moves the cursor to the first body byte the pieces left still need
    /// (or to the end of what has arrived), telling the entry
    void followSegments(Entry& entry);
    /// one writev of iov[0, n) (retried on EINTR): the bytes it took and
    /// offered, added to bytesWritten(); or why to stop (Blocked, Error)
    std::optional<Result> writeOnce(int fd, const struct iovec* iov, size_t n, uint64_t& took,
                                    uint64_t& offered);

    std::vector<Segment> segments_; ///< a Range reply's pieces (startSegments())
    size_t segment_ = 0;            ///< the piece being written
    uint64_t segmentDone_ = 0;      ///< bytes of it written
    std::string head_;              ///< the message head (status or request line and fields)
    size_t headOffset_ = 0;         ///< bytes of head_ written
    Framing framing_ = Framing::None;
    Sbuf::Cursor cursor_;                           ///< where the next body byte to write is
    uint64_t chunkLeft_ = 0;                        ///< body bytes of the open chunk not yet written
    char chunkHead_[Http::MaxChunkHeaderSize] = {}; ///< "hex CRLF" of the open chunk (Http::WriteChunkHeader)
    size_t chunkHeadSize_ = 0;
    size_t chunkHeadOffset_ = 0; ///< bytes of chunkHead_ written
    size_t chunkTailOffset_ = 2; ///< bytes of the chunk's closing CRLF written (2: none open)
    size_t lastChunkOffset_ = 0; ///< bytes of the last-chunk written
    uint64_t written_ = 0;
    uint64_t bodyWritten_ = 0;
    uint64_t writes_ = 0;                       ///< see writeCount()
    bool inWrite_ = false;                      ///< inside write(): it is not re-entered
    Sink* sink_ = nullptr;                      ///< during write(Sink&): where the bytes go
    size_t maxBytes_ = DefaultMaxBytesPerWrite; ///< see setMaxBytesPerWrite()
    uint64_t bodyEnd_ = UINT64_MAX;             ///< see setBodyEnd()
    int errno_ = 0;
    int fileFd_ = -1;                      ///< setFileBody()'s file, or -1: the body is the entry's slices
    uint64_t fileOffset_ = 0;              ///< where the body starts in it
    uint64_t fileLength_ = 0;              ///< the body's bytes
    uint64_t fileSent_ = 0;                ///< body bytes sent from it (without segments)
    uint64_t sendfiles_ = 0;               ///< see sendfileCount()
    std::unique_ptr<char[]> fileChunk_;    ///< file bytes on their way to a Sink (sendFileToSink())
    std::pair<uint64_t, uint64_t> cold_{}; ///< see coldRange()
    uint64_t warmEnd_ = 0;                 ///< the file is known warm below this offset (noteWarmed())
    bool checksWarmth_ = true;             ///< preadv2(RWF_NOWAIT) works on the file (see isCold())
    uint64_t splices_ = 0;                 ///< see spliceCount()
};

} // namespace Store
