/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file libFuzzer harness of Http::ChunkedDecoder. Properties checked, for
/// any bytes:
/// - every piece is within the bytes it was given: Payload and Framing are
///   not empty, NeedMore takes all, Done ends the body and is sticky
///   (Done(0) after it), Error is sticky; the pieces never sum to more
///   than the input and payloadBytes() is the sum of the Payload pieces;
/// - the input in one piece, byte by byte and in pieces of 1..64 bytes
///   decodes to the same payload bytes, the same end (Done after the same
///   number of bytes, Error with the same code, or NeedMore);
/// - with a small maxChunkSize and maxTrailerSize the piece rules hold too;
/// - encoding: the input as a payload, cut into chunks with ChunkHeader()
///   and ChunkEnd and closed with LastChunk, decodes back to itself with
///   Done exactly at the end.

#include "cuttle.h"

#include "fuzz/Check.h"
#include "http/ChunkedDecoder.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

using Kind = Http::ChunkedDecoder::Piece::Kind;

/// What decoding a whole body said.
struct Outcome {
    Kind end = Kind::NeedMore; ///< Done, Error or NeedMore (ran out of input)
    size_t consumed = 0;       ///< bytes up to and including Done's
    std::string payload;       ///< the Payload bytes, in order
    Http::ChunkError error = Http::ChunkError::None;
};

/// Decodes one buffer (the rest of a piece of input), appending to out;
/// returns the bytes it consumed; out.end is set on Done or Error.
size_t DecodeBuffer(Http::ChunkedDecoder& decoder, std::string_view in, Outcome& out)
{
    size_t used = 0;
    while (true) {
        const auto rest = in.substr(used);
        const auto before = decoder.payloadBytes();
        const auto piece = decoder.next(rest);
        FUZZ_CHECK(piece.length <= rest.size());
        switch (piece.kind) {
        case Kind::Payload:
            FUZZ_CHECK(piece.length > 0);
            FUZZ_CHECK(decoder.payloadBytes() == before + piece.length);
            out.payload.append(rest.substr(0, piece.length));
            break;
        case Kind::Framing:
            FUZZ_CHECK(piece.length > 0);
            FUZZ_CHECK(decoder.payloadBytes() == before);
            break;
        case Kind::NeedMore:
            FUZZ_CHECK(piece.length == rest.size());
            FUZZ_CHECK(decoder.payloadBytes() == before);
            return used + piece.length;
        case Kind::Done: {
            FUZZ_CHECK(decoder.isDone());
            FUZZ_CHECK(decoder.payloadBytes() == before);
            out.end = Kind::Done;
            const auto again = decoder.next(rest.substr(piece.length));
            FUZZ_CHECK(again.kind == Kind::Done && again.length == 0);
            return used + piece.length;
        }
        case Kind::Error: {
            FUZZ_CHECK(piece.length == 0);
            FUZZ_CHECK(decoder.error() != Http::ChunkError::None);
            (void)decoder.errorText();
            out.end = Kind::Error;
            out.error = decoder.error();
            const auto again = decoder.next(rest);
            FUZZ_CHECK(again.kind == Kind::Error && again.length == 0);
            return used;
        }
        }
        used += piece.length;
    }
}

/// Decodes text handed over in pieces of next() bytes.
template <class NextLength>
Outcome Decode(Http::ChunkedDecoder& decoder, std::string_view text, NextLength next)
{
    Outcome out;
    size_t fed = 0;
    while (out.end == Kind::NeedMore && fed < text.size()) {
        const size_t n = std::min(text.size() - fed, next());
        const size_t used = DecodeBuffer(decoder, text.substr(fed, n), out);
        FUZZ_CHECK(used <= n);
        out.consumed = fed + used;
        if (out.end == Kind::NeedMore)
            FUZZ_CHECK(used == n);
        fed += n;
    }
    FUZZ_CHECK(out.consumed <= text.size());
    FUZZ_CHECK(out.payload.size() <= out.consumed);
    FUZZ_CHECK(decoder.payloadBytes() == out.payload.size());
    return out;
}

void CheckSame(const Outcome& whole, const Outcome& other)
{
    FUZZ_CHECK(other.end == whole.end);
    FUZZ_CHECK(other.error == whole.error);
    if (whole.end == Kind::Done) {
        FUZZ_CHECK(other.consumed == whole.consumed);
        FUZZ_CHECK(other.payload == whole.payload);
    } else if (whole.end == Kind::NeedMore) {
        FUZZ_CHECK(other.payload == whole.payload);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const auto text = Fuzz::AsText(data, size);

    Http::ChunkedDecoder whole;
    const auto all = Decode(whole, text, [&text] { return text.size(); });
    FUZZ_CHECK(all.end != Kind::NeedMore || all.consumed == text.size());

    Http::ChunkedDecoder bytes;
    CheckSame(all, Decode(bytes, text, [] { return size_t(1); }));

    Fuzz::Splitter splitter(text, 64);
    Http::ChunkedDecoder pieces;
    CheckSame(all, Decode(pieces, text, [&splitter] { return splitter.next(); }));

    // reset() starts a new body
    pieces.reset();
    FUZZ_CHECK(pieces.payloadBytes() == 0 && !pieces.isDone());
    CheckSame(all, Decode(pieces, text, [&text] { return text.size(); }));

    // small limits: the same piece rules, and no more payload than with the defaults
    Http::ChunkedDecoder small(16, 32);
    const auto limited = Decode(small, text, [&splitter] { return splitter.next(); });
    FUZZ_CHECK(limited.payload.size() <= std::max(all.payload.size(), text.size()));

    // encoding: the input as a payload survives chunking and decoding
    std::string encoded;
    for (size_t at = 0; at < text.size();) {
        const size_t n = std::min(text.size() - at, splitter.next() * 7);
        const auto header = Http::ChunkHeader(n);
        char raw[Http::MaxChunkHeaderSize];
        const size_t rawSize = Http::WriteChunkHeader(n, raw);
        FUZZ_CHECK(rawSize >= 3 && rawSize <= Http::MaxChunkHeaderSize);
        FUZZ_CHECK(header == std::string_view(raw, rawSize));
        encoded += header;
        encoded.append(text.substr(at, n));
        encoded += Http::ChunkEnd;
        at += n;
    }
    encoded += Http::LastChunk;
    Http::ChunkedDecoder decoder;
    const auto decoded = Decode(decoder, encoded, [&splitter] { return splitter.next(); });
    FUZZ_CHECK(decoded.end == Kind::Done);
    FUZZ_CHECK(decoded.consumed == encoded.size());
    FUZZ_CHECK(decoded.payload == text);
    return 0;
}
