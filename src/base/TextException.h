/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file TextException (an exception with a message and the source location
/// that threw it) and the Must() family of invariant checks.
///
/// Must() is for broken invariants (STYLE.md "Errors, in a daemon", item 2):
/// the event loop catches the exception around each callback and ends only
/// that transaction. Untrusted input is never checked with Must(): parsers
/// return a result instead.

#pragma once

#include <stdexcept>
#include <string>

/// A bug-class failure: a message plus the file and line that threw it.
/// what() reads "file:line: message".
class TextException : public std::runtime_error {
public:
    /// an exception thrown at file:line with the given message; file must
    /// be a string with static storage (as __FILE__ is)
    TextException(const std::string& message, const char* file, int line);

    /// the message without the location
    const std::string& message() const { return message_; }
    /// the source file that threw (as __FILE__ spelled it)
    const char* file() const { return file_; }
    /// the source line that threw
    int line() const { return line_; }

private:
    std::string message_; ///< the message without the location
    const char* file_;    ///< static string from __FILE__
    int line_;            ///< from __LINE__
};

/// Throws TextException("check failed: COND") at the caller's file:line
/// unless cond holds.
#define Must(cond)                                                                                           \
    do {                                                                                                     \
        if (!(cond))                                                                                         \
            throw TextException("check failed: " #cond, __FILE__, __LINE__);                                 \
    } while (0)

/// Like Must(), with a message that says what went wrong instead of the
/// condition text (message is a std::string or a C string).
#define Must2(cond, message)                                                                                 \
    do {                                                                                                     \
        if (!(cond))                                                                                         \
            throw TextException((message), __FILE__, __LINE__);                                              \
    } while (0)

/// Throws TextException(message) at the caller's file:line.
#define Throw(message) throw TextException((message), __FILE__, __LINE__)
