/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Http::ChunkedDecoder: an incremental decoder of the chunked
/// transfer coding (RFC 9112 section 7.1) that never copies, and the
/// framing pieces for encoding in the other direction.
///
/// Layout and ownership: the decoder holds no bytes, only a small state
/// (a state enum, the chunk size being read, the payload bytes left in the
/// current chunk and a few counters: a fixed size, whatever the input). The
/// caller keeps its read blocks; the decoder looks at the start of one
/// buffer at a time and says what its first bytes are:
///
///     read 1: [1a;ext=1\r\n][payload 0..20]            -> Framing(10), Payload(20)
///     read 2: [payload 20..26][\r\n0\r\nT: v\r\n\r\n][next...] -> Payload(6), Done(13)
///
/// so the server side appends exactly the Payload ranges of its blocks to
/// the store as slices, and chunk framing never enters the stored body
/// (doc/design.md "The path of a body byte"). Buffers are independent: a
/// chunk-size line, a CRLF or a trailer may be split anywhere between two
/// calls, down to one byte per call, and the result is the same payload
/// bytes and the same end. Every byte is looked at once, so the cost is
/// O(framing bytes) plus O(1) per Payload piece.
///
/// Limits, checked before a value is used: a chunk size has at most 16 hex
/// digits and at most maxChunkSize (a size that overflows uint64 is an
/// error, never wraps), the running payload total may not overflow, a
/// chunk-size line with its extensions is at most MaxSizeLine bytes, and
/// the trailer section at most maxTrailerSize bytes. Chunk extensions are
/// checked for control bytes and otherwise ignored; trailer fields are
/// checked as field lines and discarded. CRLF ends a framing line and a
/// bare CR is an error. A bare LF (ending a chunk-size line, after chunk
/// data, or ending a trailer line) depends on the LineEnds given at
/// construction: replies tolerate it (LineEnds::TolerateBareLf, the
/// default, as the reply head parser does: old origins send them, and the
/// forwarder re-frames what it passes on), request bodies refuse it
/// (LineEnds::CrlfOnly, ChunkError::BareLf): a hop in front of cuttle may
/// not read a bare LF as a line end, and a body that two hops frame
/// differently is a request smuggling vector, as a bare LF in a request
/// head is (doc/differences.md, "Bare LF").
///
/// The encoding direction: ChunkHeader() makes the `1a2b\r\n` that goes
/// before a payload slice, ChunkEnd the CRLF after it and LastChunk the
/// end, so a client writer can interleave small framing blocks with the
/// stored payload slices in one iovec (Store::BodyWriter frames with them).
///
/// One decoder per body; reset() before the next.

#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace Http {

/// Why a chunked body was rejected.
enum class ChunkError {
    None,
    BadSize,          ///< a chunk-size line without hex digits, or with junk after them
    SizeTooLong,      ///< more than 16 hex digits
    ChunkTooLarge,    ///< a chunk larger than maxChunkSize (or than uint64 holds)
    TotalTooLarge,    ///< the payload total would overflow uint64
    BadExtension,     ///< a control byte in a chunk extension
    SizeLineTooLarge, ///< a chunk-size line (with extensions) over MaxSizeLine
    MissingDataEnd,   ///< no CRLF right after a chunk's data
    BareCr,           ///< a CR not followed by LF
    BareLf,           ///< an LF not preceded by CR, with LineEnds::CrlfOnly
    BadTrailer,       ///< a trailer line that is not a field line
    TrailerTooLarge   ///< the trailer section exceeds maxTrailerSize
};

/// Decodes one chunked body across any number of buffers; see the file comment.
class ChunkedDecoder {
public:
    /// the longest chunk-size line, extensions and CRLF included
    static constexpr size_t MaxSizeLine = 4096;
    /// the default maxChunkSize: a chunk always fits in off_t
    static constexpr uint64_t DefaultMaxChunkSize = uint64_t(std::numeric_limits<int64_t>::max());

    /// What the first bytes of a buffer are.
    struct Piece {
        /// the kinds of piece; see next()
        enum class Kind { Payload, Framing, NeedMore, Done, Error };
        Kind kind;     ///< what the bytes are
        size_t length; ///< how many bytes from the start of the buffer
    };

    /// Which line ends a framing line may have; see the file comment.
    enum class LineEnds : uint8_t {
        TolerateBareLf, ///< CRLF or a bare LF (replies)
        CrlfOnly        ///< CRLF only: a bare LF is ChunkError::BareLf (request bodies)
    };

    /// maxChunkSize: the largest chunk accepted; maxTrailerSize: the largest
    /// trailer section (the fields after the last chunk, final CRLF
    /// included); lineEnds: whether a bare LF ends a framing line
    explicit ChunkedDecoder(uint64_t maxChunkSize = DefaultMaxChunkSize, size_t maxTrailerSize = 64 * 1024,
                            LineEnds lineEnds = LineEnds::TolerateBareLf);

    /// a decoder for a request body: CRLF only, default limits
    static ChunkedDecoder ForRequestBody()
    {
        return ChunkedDecoder(DefaultMaxChunkSize, 64 * 1024, LineEnds::CrlfOnly);
    }

    /// Looks at the start of `in`; the caller drops the first `length` bytes
    /// of `in` after every kind and calls again with the rest:
    /// - Payload(n): the first n (> 0) bytes are body data;
    /// - Framing(n): the first n (> 0) bytes are framing (size lines,
    ///   extensions, CRLF after data) and were consumed; payload follows;
    /// - NeedMore(n): all n bytes of `in` were framing consumed into the
    ///   state (n is 0 when `in` was empty); read more and call again;
    /// - Done(n): the last chunk and the trailer section ended after n
    ///   bytes; the bytes after them belong to the next message; further
    ///   calls return Done(0);
    /// - Error(0): bad framing, see error(); further calls return Error.
    Piece next(std::string_view in);

    /// Forgets the current body, to decode the next one.
    void reset();

    /// payload bytes returned so far (the body's decoded length once Done)
    uint64_t payloadBytes() const { return payloadBytes_; }
    /// whether the last chunk and the trailers have been consumed
    bool isDone() const { return state_ == State::Done; }
    /// why next() returned Error
    ChunkError error() const { return error_; }
    /// a short text for cache.log, e.g. "chunk size overflows"
    const char* errorText() const;

private:
    enum class State : uint8_t {
        Size,         ///< hex digits of a chunk size
        AfterSize,    ///< whitespace after the digits (BWS)
        Extension,    ///< after the ';' of a chunk extension
        SizeLf,       ///< after the CR of a chunk-size line
        Data,         ///< remaining_ payload bytes to go
        DataEnd,      ///< the CRLF after a chunk's data
        DataEndLf,    ///< after that CR
        TrailerStart, ///< at the start of a trailer line (or the final empty line)
        TrailerName,  ///< in a trailer field name
        TrailerValue, ///< after the colon of a trailer field
        TrailerLf,    ///< after the CR of a trailer field line
        TrailerEndLf, ///< after the CR of the final empty line
        Done,
        Error
    };

    Piece fail(ChunkError e);
    bool endSizeLine();
    bool refusesBareLf() const { return lineEnds_ == LineEnds::CrlfOnly; }

    uint64_t maxChunkSize_;
    size_t maxTrailerSize_;
    LineEnds lineEnds_;
    State state_ = State::Size;
    ChunkError error_ = ChunkError::None;
    uint8_t digits_ = 0;     ///< hex digits of the size so far
    uint16_t lineBytes_ = 0; ///< bytes of the chunk-size line so far (<= MaxSizeLine)
    uint64_t size_ = 0;      ///< the chunk size being read
    uint64_t remaining_ = 0; ///< payload bytes left in the current chunk
    uint64_t payloadBytes_ = 0;
    size_t trailerBytes_ = 0; ///< bytes of the trailer section so far
};

/// the longest chunk header ChunkHeader() makes: 16 hex digits and CRLF
constexpr size_t MaxChunkHeaderSize = 18;

/// Writes the chunk-size line for a chunk of `size` bytes (lowercase hex,
/// no extension, CRLF) into out; returns its length (3..18). size 0 gives
/// "0\r\n", the start of the last chunk.
size_t WriteChunkHeader(uint64_t size, char (&out)[MaxChunkHeaderSize]);

/// the chunk-size line for a chunk of `size` bytes, e.g. "1a2b\r\n"
std::string ChunkHeader(uint64_t size);

/// what follows the payload of every chunk
inline constexpr std::string_view ChunkEnd = "\r\n";

/// the last chunk and an empty trailer section: the end of a chunked body
inline constexpr std::string_view LastChunk = "0\r\n\r\n";

} // namespace Http
