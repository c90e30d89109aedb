/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Byte range requests (RFC 9110 section 14): the Range field, its
/// resolution against a stored body, If-Range, and the framing of a
/// multipart/byteranges reply.
///
/// Parsing: `Range: bytes=0-99, 200-, -50` becomes a ByteRangeSet of
/// specs as sent (first-last, first-, -suffix). The unit is
/// case-insensitive; OWS around elements and empty elements are tolerated
/// (RFC 9110 section 5.6.1), none inside a spec or around "=". Any other
/// unit, a spec with last < first, a bad number, no spec at all, or more
/// than MaxRanges specs makes parse() fail, and the caller then ignores
/// Range and answers 200 (section 14.2: a server MAY ignore it; a proxy
/// MAY discard an unknown unit). Numbers of any length saturate at
/// UINT64_MAX rather than fail: `0-99999999999999999999999` is a valid way
/// to ask "to the end". Range means something for GET only (section 14.2);
/// that check is the caller's.
///
/// Resolution: resolve(length) turns the specs into (offset, length) pairs
/// within a body of that many bytes, in the order requested:
///
///     length 1000, bytes=900-, 0-99, 50-149, -50
///     specs   [900,999]  [0,99]  [50,149]  [950,999]
///     result  {900,100} {0,150}              (50-149 joined 0-99; -50 inside 900-)
///
/// A spec that starts at or past the end (or `-0`) is unsatisfiable and
/// dropped; when none is left the result is empty and the caller answers
/// 416 with UnsatisfiedRangeValue(). Overlapping and adjacent ranges are
/// coalesced (section 14.2 allows it "regardless of the order"), each
/// joined range taking the place of the first one it absorbed; ranges with
/// a gap between them are never joined, since that would send bytes nobody
/// asked for. So the parts never overlap and their total never exceeds the
/// body: `bytes=0-,0-,0-...` cannot multiply the reply (section 17.15).
///
/// If-Range (section 13.1.5): the Range applies only when the validator
/// is a strong entity-tag that strongly matches the stored ETag, or an
/// HTTP-date equal to the stored Last-Modified when that date is strong
/// (section 8.8.2.2: the stored Date is at least one second later). A weak
/// or malformed validator never matches, and the full body is sent.
///
/// Multipart framing (section 14.6): the body of a 206 with several parts
/// is built from small framing strings around slices of the stored body,
/// so the client side writes each framing block and body slice with one
/// writev and copies no body byte:
///
///     [partHead(r0, first)][body r0][partHead(r1)][body r1]...[closing()]
///     partHead(r0, true)  = "--B\r\nContent-Type: T\r\nContent-Range: bytes 0-99/1000\r\n\r\n"
///     partHead(r1, false) = "\r\n--B\r\n..."   (the CRLF before a delimiter belongs to it)
///     closing()           = "\r\n--B--\r\n"
///
/// bodyLength() gives the reply's Content-Length before any byte is sent.
///
/// Everything is pure and thread-safe; MakeBoundary() uses a per-thread
/// generator.

#pragma once

#include "http/ETag.h"

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Http {

/// One range-spec of a Range field, as sent.
struct ByteRangeSpec {
    /// a suffix spec `-N`, or a spec without a last position `N-`
    static constexpr uint64_t NoLast = UINT64_MAX;

    uint64_t first = 0;     ///< first-pos (unused for a suffix)
    uint64_t last = NoLast; ///< last-pos, or NoLast for `first-` (unused for a suffix)
    uint64_t suffix = 0;    ///< suffix-length (for a suffix)
    bool isSuffix = false;  ///< `-suffix` rather than `first-[last]`

    /// `first-last` (last < first is rejected by the parser)
    static ByteRangeSpec FromTo(uint64_t first, uint64_t last) { return {first, last, 0, false}; }
    /// `first-`
    static ByteRangeSpec From(uint64_t first) { return {first, NoLast, 0, false}; }
    /// `-suffix`
    static ByteRangeSpec Suffix(uint64_t suffix) { return {0, NoLast, suffix, true}; }

    /// the spec as sent: "0-99", "200-" or "-50"
    std::string toString() const;
    /// whether both say the same
    bool operator==(const ByteRangeSpec&) const = default;
};

/// One satisfiable range, resolved against a body length.
struct ByteRange {
    uint64_t offset = 0; ///< first byte
    uint64_t length = 0; ///< bytes (never 0)

    /// the last byte (offset + length - 1)
    uint64_t last() const { return offset + length - 1; }
    /// whether both cover the same bytes
    bool operator==(const ByteRange&) const = default;
};

/// The ranges of a `Range: bytes=...` request field.
class ByteRangeSet {
public:
    /// more specs than this make the field invalid (a defence, RFC 9110 17.15)
    static constexpr size_t MaxRanges = 100;

    /// Parses a Range field value; false when it is not a valid bytes
    /// range set (the caller then ignores Range). Replaces what was parsed.
    bool parse(std::string_view value);

    /// the specs in the order sent (empty until a parse() succeeded)
    const std::vector<ByteRangeSpec>& specs() const { return specs_; }
    /// replaces the specs (to build a field, e.g. in tests)
    void setSpecs(std::vector<ByteRangeSpec> specs) { specs_ = std::move(specs); }

    /// The satisfiable ranges within a body of `length` bytes, coalesced
    /// when they overlap or touch, in request order (see the file comment);
    /// empty when none is satisfiable (416).
    std::vector<ByteRange> resolve(uint64_t length) const;

    /// the field value: "bytes=0-99,200-,-50"
    std::string toString() const;

private:
    std::vector<ByteRangeSpec> specs_;
};

/// the Content-Range value of a part or a single-part 206: "bytes 0-99/1000"
std::string ContentRangeValue(const ByteRange& range, uint64_t completeLength);

/// the Content-Range value of a 416: "bytes */1000"
std::string UnsatisfiedRangeValue(uint64_t completeLength);

/// What a single-part 206's Content-Range says.
struct ContentRange {
    ByteRange range;                        ///< the bytes the part holds
    std::optional<uint64_t> completeLength; ///< the whole representation's length, unless "*"
};

/// Parses a satisfied Content-Range value (RFC 9110 section 14.4) in the
/// bytes unit: "bytes 0-99/1000" or "bytes 0-99/*"; nothing for anything
/// else (another unit, an unsatisfied range, a last position before the
/// first or not within the complete length).
std::optional<ContentRange> ParseContentRange(std::string_view value);

/// Evaluates an If-Range value (RFC 9110 13.1.5) against the stored reply's
/// ETag, Last-Modified and Date; true when the Range field applies, false
/// when the whole body is to be sent.
bool IfRangeMatches(std::string_view ifRange, const std::optional<EntityTag>& etag,
                    std::optional<time_t> lastModified, std::optional<time_t> date);

/// A fresh multipart boundary: "cuttle" and 32 random hex digits, which no
/// body is likely to contain and which RFC 2046's bchars allow unquoted.
std::string MakeBoundary();

/// The framing of one multipart/byteranges body; see the file comment.
class MultipartByteranges {
public:
    /// boundary: from MakeBoundary(); contentType: the stored reply's
    /// Content-Type, repeated in every part (empty: none, no such line)
    MultipartByteranges(std::string boundary, std::string contentType, uint64_t completeLength);

    /// the reply's Content-Type: "multipart/byteranges; boundary=..."
    std::string contentTypeValue() const;
    /// what precedes the part's bytes: its delimiter line (after a CRLF
    /// unless it is the first part) and its header section
    std::string partHead(const ByteRange& range, bool isFirst) const;
    /// what follows the last part's bytes: the close delimiter
    std::string closing() const;
    /// the length of the whole body with these parts (the reply's Content-Length)
    uint64_t bodyLength(const std::vector<ByteRange>& ranges) const;

    /// the boundary
    const std::string& boundary() const { return boundary_; }

private:
    std::string boundary_;
    std::string contentType_;
    uint64_t completeLength_;
};

} // namespace Http
