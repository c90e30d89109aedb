/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/ChunkedDecoder.h"
#include "http/FieldSyntax.h"

namespace {

int HexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/// a control byte other than HTAB (RFC 9110 section 5.5 forbids them in
/// field values; chunk-ext-val is a token or a quoted-string, which hold none)
bool IsControl(char c)
{
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && u != '\t') || u == 0x7f;
}

/// 16 hex digits hold any uint64
constexpr uint8_t MaxSizeDigits = 16;

} // namespace

static_assert(Http::ChunkedDecoder::MaxSizeLine <= UINT16_MAX, "lineBytes_ holds a size line length");

Http::ChunkedDecoder::ChunkedDecoder(uint64_t maxChunkSize, size_t maxTrailerSize, LineEnds lineEnds)
    : maxChunkSize_(maxChunkSize), maxTrailerSize_(maxTrailerSize), lineEnds_(lineEnds)
{}

void Http::ChunkedDecoder::reset()
{
    state_ = State::Size;
    error_ = ChunkError::None;
    digits_ = 0;
    lineBytes_ = 0;
    size_ = remaining_ = payloadBytes_ = 0;
    trailerBytes_ = 0;
}

Http::ChunkedDecoder::Piece Http::ChunkedDecoder::fail(ChunkError e)
{
    error_ = e;
    state_ = State::Error;
    return Piece{Piece::Kind::Error, 0};
}

const char* Http::ChunkedDecoder::errorText() const
{
    switch (error_) {
    case ChunkError::None:
        return "no error";
    case ChunkError::BadSize:
        return "malformed chunk size";
    case ChunkError::SizeTooLong:
        return "chunk size of more than 16 hex digits";
    case ChunkError::ChunkTooLarge:
        return "chunk size too large";
    case ChunkError::TotalTooLarge:
        return "chunked body length overflows";
    case ChunkError::BadExtension:
        return "control character in a chunk extension";
    case ChunkError::SizeLineTooLarge:
        return "chunk-size line too long";
    case ChunkError::MissingDataEnd:
        return "no CRLF after chunk data";
    case ChunkError::BareCr:
        return "bare CR in chunk framing";
    case ChunkError::BareLf:
        return "bare LF in chunk framing";
    case ChunkError::BadTrailer:
        return "malformed trailer field";
    case ChunkError::TrailerTooLarge:
        return "trailer section too large";
    }
    return "unknown error";
}

/// The chunk-size line ended: start the data, or the trailer section after
/// the last chunk. False (and Error) when the total would overflow.
bool Http::ChunkedDecoder::endSizeLine()
{
    if (size_ > UINT64_MAX - payloadBytes_) {
        fail(ChunkError::TotalTooLarge);
        return false;
    }
    if (size_ == 0) {
        state_ = State::TrailerStart;
        trailerBytes_ = 0;
    } else {
        remaining_ = size_;
        state_ = State::Data;
    }
    return true;
}

Http::ChunkedDecoder::Piece Http::ChunkedDecoder::next(std::string_view in)
{
    using Kind = Piece::Kind;

    switch (state_) {
    case State::Done:
        return Piece{Kind::Done, 0};
    case State::Error:
        return Piece{Kind::Error, 0};
    case State::Data: {
        if (in.empty())
            return Piece{Kind::NeedMore, 0};
        const size_t n = remaining_ < in.size() ? size_t(remaining_) : in.size();
        remaining_ -= n;
        payloadBytes_ += n;
        if (remaining_ == 0)
            state_ = State::DataEnd;
        return Piece{Kind::Payload, n};
    }
    default:
        break;
    }

    // Framing: one byte at a time, through as many framing elements as
    // follow each other (CRLF after data, the next size line, trailers).
    for (size_t i = 0; i < in.size();) {
        const char c = in[i++];
        // a CRLF's LF is taken in the states after its CR (SizeLf,
        // DataEndLf, TrailerLf, TrailerEndLf); any other LF is a bare one
        if (c == '\n' && refusesBareLf() && state_ != State::SizeLf && state_ != State::DataEndLf &&
            state_ != State::TrailerLf && state_ != State::TrailerEndLf)
            return fail(ChunkError::BareLf);

        switch (state_) {
        case State::Size:
        case State::AfterSize:
        case State::Extension:
        case State::SizeLf:
            if (++lineBytes_ > MaxSizeLine)
                return fail(ChunkError::SizeLineTooLarge);
            break;
        case State::TrailerStart:
        case State::TrailerName:
        case State::TrailerValue:
        case State::TrailerLf:
        case State::TrailerEndLf:
            if (++trailerBytes_ > maxTrailerSize_)
                return fail(ChunkError::TrailerTooLarge);
            break;
        default:
            break;
        }

        bool sizeLineEnded = false;
        switch (state_) {
        case State::Size: {
            const int v = HexValue(c);
            if (v >= 0) {
                if (digits_ == MaxSizeDigits)
                    return fail(ChunkError::SizeTooLong);
                // size_ * 16 + v <= maxChunkSize_, checked without overflowing
                if (uint64_t(v) > maxChunkSize_ || size_ > (maxChunkSize_ - uint64_t(v)) / 16)
                    return fail(ChunkError::ChunkTooLarge);
                size_ = size_ * 16 + uint64_t(v);
                ++digits_;
            } else if (digits_ == 0) {
                return fail(ChunkError::BadSize);
            } else if (c == ' ' || c == '\t') {
                state_ = State::AfterSize; // BWS before an extension; tolerated before CRLF too
            } else if (c == ';') {
                state_ = State::Extension;
            } else if (c == '\r') {
                state_ = State::SizeLf;
            } else if (c == '\n') {
                sizeLineEnded = true;
            } else {
                return fail(ChunkError::BadSize);
            }
            break;
        }
        case State::AfterSize:
            if (c == ';')
                state_ = State::Extension;
            else if (c == '\r')
                state_ = State::SizeLf;
            else if (c == '\n')
                sizeLineEnded = true;
            else if (c != ' ' && c != '\t')
                return fail(ChunkError::BadSize);
            break;
        case State::Extension:
            if (c == '\r')
                state_ = State::SizeLf;
            else if (c == '\n')
                sizeLineEnded = true;
            else if (IsControl(c))
                return fail(ChunkError::BadExtension);
            break;
        case State::SizeLf:
            if (c != '\n')
                return fail(ChunkError::BareCr);
            sizeLineEnded = true;
            break;
        case State::DataEnd:
        case State::DataEndLf:
            if (c == '\n') {
                state_ = State::Size;
                digits_ = 0;
                lineBytes_ = 0;
                size_ = 0;
            } else if (state_ == State::DataEndLf) {
                return fail(ChunkError::BareCr);
            } else if (c == '\r') {
                state_ = State::DataEndLf;
            } else {
                return fail(ChunkError::MissingDataEnd);
            }
            break;
        case State::TrailerStart:
            if (c == '\r')
                state_ = State::TrailerEndLf;
            else if (c == '\n')
                state_ = State::Done;
            else if (Http::IsTokenChar(c))
                state_ = State::TrailerName;
            else
                return fail(ChunkError::BadTrailer); // includes obs-fold and a missing name
            break;
        case State::TrailerName:
            if (c == ':')
                state_ = State::TrailerValue;
            else if (!Http::IsTokenChar(c))
                return fail(ChunkError::BadTrailer); // includes whitespace before the colon
            break;
        case State::TrailerValue:
            if (c == '\r')
                state_ = State::TrailerLf;
            else if (c == '\n')
                state_ = State::TrailerStart;
            else if (IsControl(c))
                return fail(ChunkError::BadTrailer);
            break;
        case State::TrailerLf:
            if (c != '\n')
                return fail(ChunkError::BareCr);
            state_ = State::TrailerStart;
            break;
        case State::TrailerEndLf:
            if (c != '\n')
                return fail(ChunkError::BareCr);
            state_ = State::Done;
            break;
        case State::Data:
        case State::Done:
        case State::Error:
            break; // not reached: handled above or returned
        }

        if (sizeLineEnded && !endSizeLine())
            return Piece{Kind::Error, 0};
        if (state_ == State::Data)
            return Piece{Kind::Framing, i};
        if (state_ == State::Done)
            return Piece{Kind::Done, i};
    }
    return Piece{Kind::NeedMore, in.size()};
}

size_t Http::WriteChunkHeader(uint64_t size, char (&out)[MaxChunkHeaderSize])
{
    static constexpr char Digits[] = "0123456789abcdef";
    char reversed[16];
    size_t n = 0;
    do {
        reversed[n++] = Digits[size & 0xf];
        size >>= 4;
    } while (size);
    size_t len = 0;
    while (n)
        out[len++] = reversed[--n];
    out[len++] = '\r';
    out[len++] = '\n';
    return len;
}

std::string Http::ChunkHeader(uint64_t size)
{
    char buf[MaxChunkHeaderSize];
    return std::string(buf, WriteChunkHeader(size, buf));
}
