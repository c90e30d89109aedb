/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/BodyWriter.h"
#include "base/TextException.h"
#include "http/ChunkedDecoder.h"
#include "sbuf/BlockPool.h"
#include "sbuf/Pipe.h"
#include "store/DiskTier.h"
#include "store/Entry.h"

#include <algorithm>
#include <cerrno>
#include <climits>

#include <sys/sendfile.h>
#include <sys/uio.h>
#include <unistd.h>

namespace {

constexpr size_t LastChunkSize = Http::LastChunk.size();

/// adds bytes to iov unless there are none
void push(iovec* iov, size_t& n, const char* data, size_t size)
{
    if (size == 0)
        return;
    iov[n].iov_base = const_cast<char*>(data);
    iov[n].iov_len = size;
    ++n;
}

/// takes up to *w bytes of a piece of `size` bytes of which `offset` were written
/// counts, of the body bytes a writev took, those that some code had copied
/// into their block in user space (at most `copied`, what was gathered from
/// below MemBlob::copiedEnd()): on the HTTP paths that count must stay 0
void countCopied(size_t copied, uint64_t taken)
{
    if (const auto n = std::min<uint64_t>(copied, taken))
        Sbuf::DefaultPool().copyStats().countBodyCopy(n);
}

void take(uint64_t& w, size_t& offset, size_t size)
{
    const size_t n = std::min<uint64_t>(w, size - offset);
    offset += n;
    w -= n;
}

} // namespace

std::optional<Store::BodyWriter::Result> Store::BodyWriter::writeOnce(int fd, const iovec* iov, size_t n,
                                                                      uint64_t& took, uint64_t& offered)
{
    offered = 0;
    for (size_t i = 0; i < n; ++i)
        offered += iov[i].iov_len;
    for (;;) {
        const ssize_t r = sink_ ? sink_->writev(iov, int(n)) : ::writev(fd, iov, int(n));
        if (r >= 0 || errno != EINTR)
            ++writes_;
        if (r >= 0) {
            took = uint64_t(r);
            written_ += took;
            return std::nullopt;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return Result::Blocked;
        errno_ = errno;
        return Result::Error;
    }
}

void Store::BodyWriter::startSegments(std::string head, std::vector<Segment> segments, const Entry& entry)
{
    start(std::move(head), Framing::Raw, entry);
    segments_ = std::move(segments);
    segment_ = 0;
    segmentDone_ = 0;
}

Store::BodyWriter::Result Store::BodyWriter::writeSegments(int fd, Entry& entry)
{
    const auto& body = entry.body();
    for (;;) {
        followSegments(entry);
        iovec iov[IOV_MAX];
        size_t n = 0;
        push(iov, n, head_.data() + headOffset_, head_.size() - headOffset_);
        // the pieces from the current one on, as far as one writev carries
        // them and as far as the body has arrived (an object in flight)
        size_t s = segment_;
        uint64_t done = segmentDone_;
        uint64_t budget = maxBytes_ ? maxBytes_ : UINT64_MAX; // body bytes this writev may still carry
        size_t copied = 0;
        while (s < segments_.size() && n + 1 < IOV_MAX && budget > 0) {
            const auto& seg = segments_[s];
            if (!seg.text.empty()) {
                push(iov, n, seg.text.data() + done, seg.text.size() - done);
            } else if (seg.length > done) {
                const uint64_t from = seg.offset + done;
                const uint64_t want = seg.length - done;
                const uint64_t held = body.endOffset() > from ? body.endOffset() - from : 0;
                size_t got = 0;
                if (held) {
                    Sbuf::Cursor at;
                    at.seek(body, from);
                    n += at.gather(body, iov + n, IOV_MAX - n - 1, std::min({want, held, budget}), &got,
                                   &copied);
                }
                budget -= got;
                if (got < want)
                    break; // the rest of this piece goes in the next writev, or when it arrives
            }
            ++s;
            done = 0;
        }
        if (n == 0) {
            if (segment_ >= segments_.size())
                return Result::Done;
            // a piece waits for bytes that have not arrived
            if (entry.hasFailed() || entry.isComplete())
                return Result::Error; // ... and never will (the body ended short)
            return Result::Caught;
        }
        uint64_t w = 0;
        uint64_t offered = 0;
        if (const auto stop = writeOnce(fd, iov, n, w, offered))
            return *stop;
        const uint64_t took = w;
        const uint64_t bodyBefore = bodyWritten_;
        take(w, headOffset_, head_.size());
        while (w > 0 && segment_ < segments_.size()) {
            const auto& seg = segments_[segment_];
            const uint64_t size = seg.text.empty() ? seg.length : seg.text.size();
            const uint64_t step = std::min<uint64_t>(w, size - segmentDone_);
            if (seg.text.empty())
                bodyWritten_ += step;
            segmentDone_ += step;
            w -= step;
            if (segmentDone_ == size) {
                ++segment_;
                segmentDone_ = 0;
            }
        }
        countCopied(copied, bodyWritten_ - bodyBefore);
        // empty pieces after the last byte written are done too
        while (segment_ < segments_.size() && segments_[segment_].text.empty() &&
               segments_[segment_].length == 0)
            ++segment_;
        if (took < offered)
            return Result::Blocked;
    }
}

void Store::BodyWriter::followSegments(Entry& entry)
{
    // the cursor (what the entry's flow control and release go by) stays at
    // the first body byte a piece still needs, or at what has arrived
    const auto& body = entry.body();
    uint64_t needed = UINT64_MAX;
    for (size_t s = segment_; s < segments_.size(); ++s) {
        const auto& seg = segments_[s];
        if (seg.text.empty() && seg.length > (s == segment_ ? segmentDone_ : 0))
            needed = std::min(needed, seg.offset + (s == segment_ ? segmentDone_ : 0));
    }
    const uint64_t target = std::min(needed, body.endOffset());
    if (target > cursor_.offset()) {
        cursor_.seek(body, target);
        entry.noteConsumed(); // may release bytes behind it and resume the producer
    }
}

void Store::BodyWriter::start(std::string head, Framing framing, const Entry& entry)
{
    segments_.clear();
    segment_ = 0;
    segmentDone_ = 0;
    head_ = std::move(head);
    headOffset_ = 0;
    framing_ = framing;
    cursor_ = Sbuf::Cursor(entry.body());
    chunkLeft_ = 0;
    chunkHeadSize_ = chunkHeadOffset_ = 0;
    chunkTailOffset_ = 2;
    lastChunkOffset_ = 0;
    written_ = bodyWritten_ = writes_ = 0;
    bodyEnd_ = UINT64_MAX;
    errno_ = 0;
    fileFd_ = -1;
    fileSent_ = 0;
    splices_ = 0;
}

void Store::BodyWriter::setFileBody(int fd, uint64_t offset, uint64_t length)
{
    Must(framing_ != Framing::Chunked);
    fileFd_ = fd;
    fileOffset_ = offset;
    fileLength_ = length;
    fileSent_ = 0;
    warmEnd_ = 0;
    checksWarmth_ = true;
}

bool Store::BodyWriter::isCold(uint64_t at, uint64_t count)
{
    // the last byte this sendfile() would send: a range read in order is
    // cached from its start, so a cached end means a cached range
    const uint64_t last = at + count - 1;
    if (!checksWarmth_ || last < warmEnd_)
        return false;
    char byte;
    const auto read = ReadCachedAt(fileFd_, &byte, 1, last);
    if (read != CachedRead::Cold) {
        checksWarmth_ = read != CachedRead::Unknown; // sendfile() reports real errors
        return false;
    }
    const uint64_t end = fileOffset_ + fileLength_;
    cold_ = {at, std::min(end - at, WarmWindow)};
    return true;
}

Store::BodyWriter::Result Store::BodyWriter::writeFile(int fd)
{
    // the head with write(), then each piece: a segment's text with write(),
    // body bytes with sendfile(2) from the file; each call is retried until
    // EAGAIN or the end (the edge-triggered rule), so Blocked means the
    // socket is full
    for (;;) {
        std::string_view text;
        uint64_t from = 0;
        uint64_t left = 0;
        if (headOffset_ < head_.size()) {
            text = std::string_view(head_).substr(headOffset_);
        } else if (segments_.empty()) {
            const uint64_t end = framing_ == Framing::None ? 0 : std::min(fileLength_, bodyEnd_);
            if (fileSent_ >= end)
                return fileSent_ >= fileLength_ || framing_ == Framing::None ? Result::Done : Result::Caught;
            from = fileSent_;
            left = end - fileSent_;
        } else {
            if (segment_ >= segments_.size())
                return Result::Done;
            const auto& piece = segments_[segment_];
            if (!piece.text.empty())
                text = std::string_view(piece.text).substr(segmentDone_);
            from = piece.offset + segmentDone_;
            left = piece.text.empty() ? piece.length - segmentDone_ : 0;
            if (text.empty() && !left) {
                ++segment_;
                segmentDone_ = 0;
                continue;
            }
        }
        uint64_t took = 0;
        if (!text.empty()) {
            iovec iov{const_cast<char*>(text.data()), text.size()};
            uint64_t offered = 0;
            if (const auto stop = writeOnce(fd, &iov, 1, took, offered))
                return *stop;
            if (headOffset_ < head_.size())
                headOffset_ += took;
            else
                segmentDone_ += took;
            continue;
        }
        // at most a WarmWindow a call: a cold range warmed whole is all it sends
        const size_t count = size_t(std::min<uint64_t>({left, maxBytes_ ? maxBytes_ : left, WarmWindow}));
        if (isCold(fileOffset_ + from, count))
            return Result::Cold;
        off_t at = off_t(fileOffset_ + from);
        const ssize_t r = sink_ ? sendFileToSink(at, count) : ::sendfile(fd, fileFd_, &at, count);
        if (r < 0 && errno == EINTR)
            continue;
        ++writes_;
        ++sendfiles_;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return Result::Blocked;
        if (r <= 0) {
            errno_ = r < 0 ? errno : EIO; // 0: the file is shorter than its header said
            return Result::Error;
        }
        took = uint64_t(r);
        written_ += took;
        bodyWritten_ += took;
        if (segments_.empty())
            fileSent_ += took;
        else
            segmentDone_ += took;
    }
}

ssize_t Store::BodyWriter::sendFileToSink(off_t at, size_t count)
{
    if (!fileChunk_)
        fileChunk_ = std::make_unique<char[]>(FileChunk);
    const ssize_t got = ::pread(fileFd_, fileChunk_.get(), std::min(count, FileChunk), at);
    if (got <= 0)
        return got; // -1 with errno, or 0: the file is shorter than its header said
    iovec iov{fileChunk_.get(), size_t(got)};
    return sink_->writev(&iov, 1);
}

std::optional<Store::BodyWriter::Result> Store::BodyWriter::writePipe(int fd, Entry& entry)
{
    Must(!sink_ && bodyEnd_ == UINT64_MAX);
    auto& pipe = *entry.pipe();
    const size_t offered = std::min(pipe.size(), maxBytes_ ? maxBytes_ : SIZE_MAX);
    const ssize_t r = pipe.drainTo(fd, offered);
    if (r < 0 && errno == EINTR)
        return std::nullopt;
    ++writes_;
    ++splices_;
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return Result::Blocked;
    if (r <= 0) {
        errno_ = r < 0 ? errno : EIO; // 0: the pipe was empty, which its count says it is not
        return Result::Error;
    }
    written_ += uint64_t(r);
    bodyWritten_ += uint64_t(r);
    entry.noteConsumed(); // room in the pipe: the producer may splice more in
    // a short move is not taken to mean a full socket (a pipe holds pages,
    // not bytes): the next call sees EAGAIN if it is
    return std::nullopt;
}

Store::BodyWriter::Result Store::BodyWriter::write(int fd, Entry& entry)
{
    // store/Entry.h's rule: a writer is never called back into from inside its own write
    Must2(!inWrite_, "BodyWriter::write() re-entered from inside itself");
    inWrite_ = true;
    struct Leave {
        bool& inWrite;
        ~Leave() { inWrite = false; }
    } leave{inWrite_};
    if (fileFd_ >= 0)
        return writeFile(fd);
    return segments_.empty() ? writeFramed(fd, entry) : writeSegments(fd, entry);
}

Store::BodyWriter::Result Store::BodyWriter::write(Sink& sink, Entry& entry)
{
    sink_ = &sink;
    struct Leave {
        Sink*& sink;
        ~Leave() { sink = nullptr; }
    } leave{sink_};
    return write(-1, entry);
}

Store::BodyWriter::Result Store::BodyWriter::writeFramed(int fd, Entry& entry)
{
    const auto& body = entry.body();
    for (;;) {
        // body bytes one writev may carry: maxBytes_, and not past bodyEnd_
        const uint64_t room = cursor_.offset() < bodyEnd_ ? bodyEnd_ - cursor_.offset() : 0;
        const size_t maxBytes = size_t(std::min<uint64_t>(maxBytes_ ? maxBytes_ : SIZE_MAX, room));
        iovec iov[IOV_MAX];
        size_t n = 0;
        push(iov, n, head_.data() + headOffset_, head_.size() - headOffset_);
        size_t bodyBytes = 0;
        size_t copied = 0;
        bool lastChunkOffered = false;

        switch (framing_) {
        case Framing::None:
            break;
        case Framing::Raw:
            n += cursor_.gather(body, iov + n, IOV_MAX - n, maxBytes, &bodyBytes, &copied);
            break;
        case Framing::Chunked:
            if (chunkTailOffset_ >= 2 && cursor_.available(body) > 0 && maxBytes > 0) {
                // open a chunk over what one writev can carry (2 iovecs kept
                // for its size line and closing CRLF)
                iovec probe[IOV_MAX];
                size_t size = 0;
                (void)cursor_.gather(body, probe, IOV_MAX - n - 2, maxBytes, &size);
                chunkLeft_ = size;
                chunkHeadSize_ = Http::WriteChunkHeader(size, chunkHead_);
                chunkHeadOffset_ = 0;
                chunkTailOffset_ = 0;
            }
            if (chunkTailOffset_ < 2) {
                push(iov, n, chunkHead_ + chunkHeadOffset_, chunkHeadSize_ - chunkHeadOffset_);
                if (chunkLeft_ > 0)
                    n += cursor_.gather(body, iov + n, IOV_MAX - n - 1, chunkLeft_, &bodyBytes, &copied);
                if (bodyBytes == chunkLeft_)
                    push(iov, n, Http::ChunkEnd.data() + chunkTailOffset_,
                         Http::ChunkEnd.size() - chunkTailOffset_);
            } else if (entry.isComplete() && cursor_.available(body) == 0 &&
                       lastChunkOffset_ < LastChunkSize) {
                // (not while bodyEnd_ holds bytes back: the body is not whole)
                push(iov, n, Http::LastChunk.data() + lastChunkOffset_, LastChunkSize - lastChunkOffset_);
                lastChunkOffered = true;
            }
            break;
        }

        if (n == 0) {
            if (framing_ == Framing::None)
                return Result::Done;
            if (framing_ == Framing::Raw && entry.pipe() && !entry.pipe()->isEmpty()) {
                // what the producer spliced in goes out before its end or its failure
                if (const auto stop = writePipe(fd, entry))
                    return *stop;
                continue;
            }
            if (entry.hasFailed())
                return Result::Error;
            if (!entry.isComplete() || cursor_.available(body) > 0)
                return Result::Caught; // (bytes held back at bodyEnd_: the caller decides)
            if (framing_ == Framing::Chunked && lastChunkOffset_ < LastChunkSize)
                continue; // the last-chunk is offered on the next pass
            return Result::Done;
        }

        uint64_t w = 0;
        uint64_t offered = 0;
        if (const auto stop = writeOnce(fd, iov, n, w, offered))
            return *stop;
        const uint64_t took = w;
        take(w, headOffset_, head_.size());
        if (framing_ == Framing::Chunked && chunkTailOffset_ < 2)
            take(w, chunkHeadOffset_, chunkHeadSize_);
        const uint64_t bodyTaken = std::min<uint64_t>(w, bodyBytes);
        if (bodyTaken > 0) {
            countCopied(copied, bodyTaken);
            cursor_.advance(body, bodyTaken);
            bodyWritten_ += bodyTaken;
            w -= bodyTaken;
            if (framing_ == Framing::Chunked)
                chunkLeft_ -= bodyTaken;
        }
        if (framing_ == Framing::Chunked && chunkTailOffset_ < 2 && chunkLeft_ == 0 &&
            chunkHeadOffset_ == chunkHeadSize_)
            take(w, chunkTailOffset_, 2);
        if (lastChunkOffered)
            take(w, lastChunkOffset_, LastChunkSize);
        if (bodyTaken > 0)
            entry.noteConsumed(); // may release slices and resume the producer

        // a short write means the socket buffer is full: its next
        // writability edge resumes us (as nginx does), no EAGAIN probe needed
        if (took < offered)
            return Result::Blocked;
    }
}
