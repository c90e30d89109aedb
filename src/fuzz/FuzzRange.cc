/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file libFuzzer harness of Http::ByteRangeSet, If-Range and the
/// multipart framing (http/Range.h). Properties checked, for any bytes:
/// - a Range value that parses has 1..MaxRanges specs, no first-last spec
///   with last < first, and toString() parses back to the same specs;
/// - resolved against bodies of several lengths, every range is non-empty
///   and inside the body, ranges neither overlap nor touch, their total is
///   at most the body, and every byte a satisfiable spec asked for (its
///   first and last byte) is in some range;
/// - the multipart body's length from bodyLength() is the sum of the
///   framing strings and the ranges;
/// - IfRangeMatches never matches a weak or malformed validator;
/// - a Content-Range value that parses (a 206's, Store::Parts) names a
///   non-empty range whose last byte lies within the complete length when
///   one is given, and ContentRangeValue() of what it names parses back to
///   the same.

#include "cuttle.h"

#include "fuzz/Check.h"
#include "http/ETag.h"
#include "http/Range.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

bool Covered(const std::vector<Http::ByteRange>& ranges, uint64_t offset)
{
    for (const auto& r : ranges) {
        if (offset >= r.offset && offset - r.offset < r.length)
            return true;
    }
    return false;
}

void CheckResolved(const Http::ByteRangeSet& set, uint64_t length)
{
    const auto ranges = set.resolve(length);
    uint64_t total = 0;
    for (size_t i = 0; i < ranges.size(); ++i) {
        const auto& r = ranges[i];
        FUZZ_CHECK(r.length > 0);
        FUZZ_CHECK(r.offset < length && r.length <= length - r.offset);
        total += r.length;
        for (size_t j = 0; j < i; ++j) {
            const auto& o = ranges[j];
            // neither overlapping nor adjacent: a gap of at least one byte
            FUZZ_CHECK(r.offset > o.last() + 1 || o.offset > r.last() + 1);
        }
    }
    FUZZ_CHECK(total <= length);

    bool anySatisfiable = false;
    for (const auto& spec : set.specs()) {
        uint64_t first = 0, last = 0;
        if (spec.isSuffix) {
            if (spec.suffix == 0 || length == 0)
                continue;
            first = length - std::min(spec.suffix, length);
            last = length - 1;
        } else {
            if (spec.first >= length)
                continue;
            first = spec.first;
            last = std::min(spec.last, length - 1);
        }
        anySatisfiable = true;
        FUZZ_CHECK(Covered(ranges, first) && Covered(ranges, last));
    }
    FUZZ_CHECK(anySatisfiable == !ranges.empty());
    if (ranges.empty())
        return;

    Http::MultipartByteranges multipart("cuttleboundary", "text/plain", length);
    uint64_t body = multipart.closing().size();
    for (size_t i = 0; i < ranges.size(); ++i)
        body += multipart.partHead(ranges[i], i == 0).size() + ranges[i].length;
    FUZZ_CHECK(multipart.bodyLength(ranges) == body);
    FUZZ_CHECK(Http::ContentRangeValue(ranges[0], length).rfind("bytes ", 0) == 0);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const auto text = Fuzz::AsText(data, size);

    // If-Range: a weak or malformed validator never matches
    const Http::EntityTag strong("abc", false);
    const auto validator = Http::ParseEntityTag(text);
    const bool matches = Http::IfRangeMatches(text, strong, 1000000000, 1000000100);
    if (validator)
        FUZZ_CHECK(!matches || (!validator->isWeak() && validator->opaque() == "abc"));
    FUZZ_CHECK(!Http::IfRangeMatches(text, std::nullopt, std::nullopt, std::nullopt));

    if (const auto range = Http::ParseContentRange(text)) {
        FUZZ_CHECK(range->range.length > 0 && range->range.last() >= range->range.offset);
        if (range->completeLength) {
            FUZZ_CHECK(range->range.last() < *range->completeLength);
            const auto again =
                Http::ParseContentRange(Http::ContentRangeValue(range->range, *range->completeLength));
            FUZZ_CHECK(again && again->range == range->range &&
                       again->completeLength == range->completeLength);
        }
    }

    Http::ByteRangeSet set;
    if (!set.parse(text)) {
        FUZZ_CHECK(set.specs().empty());
        return 0;
    }
    FUZZ_CHECK(!set.specs().empty() && set.specs().size() <= Http::ByteRangeSet::MaxRanges);
    for (const auto& spec : set.specs()) {
        if (!spec.isSuffix)
            FUZZ_CHECK(spec.last >= spec.first);
    }
    Http::ByteRangeSet again;
    FUZZ_CHECK(again.parse(set.toString()));
    FUZZ_CHECK(again.specs() == set.specs());

    Fuzz::Splitter random(text, 1);
    for (const uint64_t length : {uint64_t(0), uint64_t(1), uint64_t(100), uint64_t(1000),
                                  random.nextRandom() % 100000, random.nextRandom(), UINT64_MAX})
        CheckResolved(set, length);
    return 0;
}
