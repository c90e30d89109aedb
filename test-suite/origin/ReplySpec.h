/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file What one reply of the test origin looks like, and the parser of the
/// `key=value&key=value` syntax shared by query strings and script lines.
/// The syntax is the origin's contract with every system test: see README.md.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace Origin {

/// how a reply misbehaves on purpose (`fail=`)
enum class Failure {
    None,      ///< a well-formed reply
    Reset,     ///< `reset@N`: head, N body bytes, then a TCP reset
    Stall,     ///< `stall@N`: head, N body bytes, then silence with the socket open
    Empty,     ///< `empty`: close without a byte
    BadHeader, ///< `badheader`: a header line without a colon, then close
    Garbage    ///< `garbage`: bytes that are not HTTP, then close
};

/// One reply as the query parameters (or one script line) describe it.
struct ReplySpec {
    /// the status code (`status=`), 200..999
    int status = 200;
    /// extra header fields in order (`h=`, `cc=`, `etag=`, `lm=`, `exp=`, `ct=`)
    std::vector<std::pair<std::string, std::string>> headers;
    /// a pattern body of this size (`s=`); none: the default text body
    std::optional<uint64_t> size;
    /// the wait before the reply (`t=`)
    std::chrono::microseconds delay{0};
    /// the body leaves at this many bytes per second, the head at once (`rate=`); 0: at full speed
    uint64_t rate = 0;
    /// a chunked reply (`chunked=1`)
    bool chunked = false;
    /// close the connection after the reply; without chunked=1, close-delimited (`close=1`)
    bool close = false;
    /// the deliberate failure (`fail=`)
    Failure failure = Failure::None;
    /// body bytes sent before a Reset or Stall failure
    uint64_t failAt = 0;
    /// the reply head is padded with filler fields to at least this many bytes (`hsize=`)
    uint64_t headSize = 0;
    /// a pattern or file body honours a request's single byte range with a 206 (`ranges=1`)
    bool ranges = false;
};

/// Decimal digits (at most 19), nothing else.
std::optional<uint64_t> parseDecimal(std::string_view text);

/// A size: decimal digits with an optional `k`, `m` or `g` suffix (1024^n).
std::optional<uint64_t> parseSize(std::string_view text);

/// A duration: a decimal number (a fraction is allowed) and a unit: `us`, `ms`, `s` or `m`.
std::optional<std::chrono::microseconds> parseDuration(std::string_view text);

/// RFC 3986 percent-decoding (a `+` stays a `+`); nothing on a bad escape.
std::optional<std::string> percentDecode(std::string_view text);

/// Applies every `key=value` of a `&`-separated list to spec; unknown keys are
/// ignored (tests add them to vary URLs). Returns an error text, empty on success.
std::string applyParams(std::string_view params, ReplySpec& spec);

/// The standard reason phrase of a status code ("Unknown" for others).
const char* reasonPhrase(int status);

} // namespace Origin
