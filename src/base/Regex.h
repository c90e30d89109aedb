/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Regex: a POSIX extended regular expression as Squid 5.7 compiles
/// its acl and refresh_pattern expressions.

#pragma once

#include <regex.h>
#include <string>
#include <string_view>

/// A POSIX extended regular expression, compiled once when squid.conf is
/// parsed (regcomp with REG_EXTENDED | REG_NOSUB, and REG_ICASE for `-i`,
/// as Squid 5.7 compiles refresh_pattern and its regex acls) and freed with
/// the configuration. regexec() on a compiled expression does not change
/// it, so matches() may be called from any thread.
class Regex {
public:
    /// Compiles `pattern`; when it is invalid, isValid() is false and error() says why.
    Regex(const std::string& pattern, bool caseInsensitive);
    ~Regex();
    Regex(const Regex&) = delete;
    Regex& operator=(const Regex&) = delete;

    /// Whether regcomp() accepted the pattern.
    bool isValid() const { return valid_; }
    /// regerror()'s text when !isValid(), else empty.
    const std::string& error() const { return error_; }
    /// The pattern as written.
    const std::string& pattern() const { return pattern_; }
    /// Whether the expression was compiled with REG_ICASE.
    bool ignoresCase() const { return ignoresCase_; }
    /// Whether the expression matches somewhere in `text` (false when !isValid()).
    bool matches(const std::string& text) const;
    /// The same for text that is not NUL-terminated (REG_STARTEND, no copy).
    bool matches(std::string_view text) const;

private:
    regex_t compiled_{};
    bool valid_ = false;
    bool ignoresCase_ = false;
    std::string pattern_;
    std::string error_;
};
