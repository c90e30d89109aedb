/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Log::ValueFormat: a quoted squid.conf value with logformat %-codes,
/// as `request_header_add NAME "VALUE"` and `reply_header_add` take it.
///
/// Squid 5.7 reads the quoted value with its logformat parser and fills it
/// in for each message. cuttle knows the codes of the facts its access.log
/// prints that exist while a head is built:
///
/// | code        | value                                     |
/// |-------------|-------------------------------------------|
/// | `%>a`       | the client's address                      |
/// | `%rm`       | the request method                        |
/// | `%ru`       | the request URL                           |
/// | `%un`       | the user name, `-` without one            |
/// | `%ts`       | the request's start, seconds since 1970   |
/// | `%tu`       | the milliseconds of that second, unpadded |
/// | `%{NAME}>h` | the request's NAME field, `-` without one |
/// | `%%`        | a `%`                                     |
///
/// Any other code (or a modifier such as `%03tu` or `%[un`) is refused when
/// the line is read, so that a value never goes out with a code in it.

#pragma once

#include <sys/time.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Log {

/// The facts a ValueFormat reads when it is filled in.
struct FormatFacts {
    std::string_view clientAddress; ///< %>a
    std::string_view method;        ///< %rm
    std::string_view url;           ///< %ru
    std::string_view user;          ///< %un; empty prints "-"
    timeval start{};                ///< %ts and %tu: when the request started
    /// %{NAME}>h: the request's NAME field (values joined by ", "); unset: none
    std::function<std::optional<std::string>(std::string_view)> requestField;
};

/// A value with %-codes, parsed once and filled in per message (see the file comment).
class ValueFormat {
public:
    /// Parses `text` (without its quotes). False with `why` at an unknown
    /// code or a `%` at the end.
    bool parse(std::string_view text, std::string& why);

    /// The value for one message.
    std::string expand(const FormatFacts& facts) const;

    /// Whether the value has no %-code (expand() returns the same text each time).
    bool isLiteral() const;

private:
    /// What one piece of the value is.
    enum class Code { Literal, ClientAddress, Method, Url, User, Seconds, Milliseconds, RequestField };
    /// One piece: a literal text or a code (with its field name for RequestField).
    struct Token {
        Code code = Code::Literal; ///< what it prints
        std::string text;          ///< the literal, or the field name
    };
    std::vector<Token> tokens_; ///< in order
};

} // namespace Log
