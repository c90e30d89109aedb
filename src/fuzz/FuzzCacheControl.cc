/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file libFuzzer harness of Http::ParseCacheControl (and Pragma,
/// delta-seconds). The input is cut at each LF into the values of several
/// Cache-Control field lines. Properties checked, for any bytes:
/// - delta-seconds never exceed MaxDeltaSeconds; an invalid max-age or
///   s-maxage never comes with a value;
/// - field names of no-cache="..." and private="..." are lowercase tokens;
/// - isEmpty(), hasKnown(), hasNoCache() and hasPrivate() agree with the
///   members;
/// - several field lines are one list (RFC 9110 section 5.3): when no value
///   holds a DQUOTE, the lines joined with commas parse to the same result;
/// - ParseDeltaSeconds of the input is its digits, saturated.

#include "cuttle.h"

#include "fuzz/Check.h"
#include "http/CacheControl.h"
#include "http/FieldSyntax.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

void CheckFields(const std::vector<std::string>& names)
{
    for (const auto& name : names) {
        FUZZ_CHECK(!name.empty());
        for (const char c : name)
            FUZZ_CHECK(Http::IsTokenChar(c) && !(c >= 'A' && c <= 'Z'));
    }
}

void CheckDelta(const std::optional<uint64_t>& delta)
{
    FUZZ_CHECK(!delta || *delta <= Http::MaxDeltaSeconds);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const auto text = Fuzz::AsText(data, size);
    const auto values = Fuzz::SplitLines(text);

    const auto cc = Http::ParseCacheControl(values);
    FUZZ_CHECK(cc == Http::ParseCacheControl(values));
    for (const auto* delta :
         {&cc.maxAge, &cc.sMaxAge, &cc.staleWhileRevalidate, &cc.staleIfError, &cc.maxStale, &cc.minFresh})
        CheckDelta(*delta);
    FUZZ_CHECK(!(cc.maxAgeInvalid && cc.maxAge));
    FUZZ_CHECK(!(cc.sMaxAgeInvalid && cc.sMaxAge));
    CheckFields(cc.noCacheFields);
    CheckFields(cc.privateFields);
    FUZZ_CHECK(cc.hasNoCache() == (cc.noCache || !cc.noCacheFields.empty()));
    FUZZ_CHECK(cc.hasPrivate() == (cc.isPrivate || !cc.privateFields.empty()));
    FUZZ_CHECK(cc.isEmpty() == (!cc.hasKnown() && !cc.hasUnknown));
    if (cc.noStore || cc.noCache || cc.isPublic || cc.maxAge || cc.maxAgeInvalid || cc.mustRevalidate)
        FUZZ_CHECK(cc.hasKnown());

    if (text.find('"') == std::string_view::npos) {
        std::string joined;
        for (size_t i = 0; i < values.size(); ++i) {
            if (i)
                joined += ',';
            joined.append(values[i]);
        }
        FUZZ_CHECK(Http::ParseCacheControl({joined}) == cc);
    }

    (void)Http::PragmaHasNoCache(values);

    const auto delta = Http::ParseDeltaSeconds(text);
    bool allDigits = !text.empty();
    uint64_t n = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') {
            allDigits = false;
            break;
        }
        n = n > Http::MaxDeltaSeconds ? n : n * 10 + uint64_t(c - '0');
    }
    FUZZ_CHECK(delta.has_value() == allDigits);
    if (allDigits)
        FUZZ_CHECK(*delta == std::min(n, Http::MaxDeltaSeconds));
    return 0;
}
