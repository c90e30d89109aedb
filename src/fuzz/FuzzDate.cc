/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file libFuzzer harness of the HTTP-date functions (http/Date.h).
/// Properties checked, for any bytes:
/// - a text that parses has the length of one of the three formats (29 for
///   IMF-fixdate, 24 for asctime, 30..33 for rfc850) and gives a time in
///   years 0000..9999;
/// - formatting that time gives a 29-byte IMF-fixdate that parses back to
///   the same time (the round trip), and formatting it again gives the
///   same text;
/// - a two-digit rfc850 year lands at most 50 years after `now`;
/// - the parse does not depend on `now` except for rfc850 dates;
/// - any time_t (the input's first 8 bytes), formatted, parses back to
///   itself clamped to years 0000..9999.

#include "cuttle.h"

#include "fuzz/Check.h"
#include "http/Date.h"

#include <cstdint>
#include <cstring>
#include <ctime>
#include <string>
#include <string_view>

namespace {

constexpr time_t Now = 1767225600;           // 2026-01-01T00:00:00Z
constexpr time_t Year0 = -62167219200;       // 0000-01-01T00:00:00Z
constexpr time_t Year9999End = 253402300799; // 9999-12-31T23:59:59Z
constexpr time_t FiftyYears = 50 * 366 * 86400LL;

/// formats t and checks the text parses back to t
void CheckRoundTrip(time_t t)
{
    const auto text = Http::FormatHttpDate(t);
    FUZZ_CHECK(text.size() == Http::HttpDateLength);
    char raw[Http::HttpDateLength];
    FUZZ_CHECK(Http::FormatHttpDate(t, raw) == Http::HttpDateLength);
    FUZZ_CHECK(text == std::string_view(raw, sizeof(raw)));
    const auto back = Http::ParseHttpDate(text, Now);
    FUZZ_CHECK(back.has_value());
    FUZZ_CHECK(*back == t);
    FUZZ_CHECK(Http::FormatHttpDate(*back) == text);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const auto text = Fuzz::AsText(data, size);

    const auto t = Http::ParseHttpDate(text, Now);
    if (t) {
        const size_t n = text.size();
        FUZZ_CHECK(n == 24 || n == 29 || (n >= 30 && n <= 33));
        FUZZ_CHECK(*t >= Year0 && *t <= Year9999End + 1); // 23:59:60 of the last day
        const bool isRfc850 = n >= 30;
        if (isRfc850)
            FUZZ_CHECK(*t <= Now + FiftyYears);
        if (*t <= Year9999End)
            CheckRoundTrip(*t);
        // only a two-digit year reads `now`
        const auto later = Http::ParseHttpDate(text, Now + 40 * 366 * 86400LL);
        if (!isRfc850)
            FUZZ_CHECK(later == t);
    } else {
        FUZZ_CHECK(!Http::ParseHttpDate(text, 0).has_value() || text.size() >= 30);
    }

    // any time, clamped to the years the format holds
    if (size >= sizeof(int64_t)) {
        int64_t raw = 0;
        std::memcpy(&raw, data, sizeof(raw));
        const time_t any = time_t(raw);
        const time_t clamped = any < Year0 ? Year0 : any > Year9999End ? Year9999End : any;
        const auto formatted = Http::FormatHttpDate(any);
        FUZZ_CHECK(formatted == Http::FormatHttpDate(clamped));
        CheckRoundTrip(clamped);
    }
    return 0;
}
