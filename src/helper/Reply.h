/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Helper::Reply and ParseReply(): one line a Squid helper answered,
/// parsed as Squid 5.7 does (src/helper/Reply.cc there).
///
/// The grammar of a reply line, after the channel id (Helper::Pool strips
/// it) and without its LF (or CRLF):
///
///     reply   = [ result [ SP notes ] [ SP other ] ] | old-style
///     result  = "OK" | "ERR" | "BH"                  ; then a space or the end
///             | "TT" SP token | "AF" SP [token SP] user | "NA" SP text
///     notes   = key "=" value *( SP key "=" value )  ; keys may repeat
///     value   = token (%XX-decoded, RFC 1738)
///             | DQUOTE ... DQUOTE (\" \\ \n \r escapes, not %-decoded)
///
/// - A line that starts with no result code (an old url_rewrite_program's
///   "http://example.com/new", a "302:http://..." or Squid's "LD" lines) is
///   Result::Unknown with the whole line in `other` and no notes: the
///   caller interprets it.
/// - A BH or NA line's text after its notes is its `message` note (Squid
///   helpers used to put a bare message there).
/// - The parser is a pure function of its input: it never throws and never
///   fails; garbage becomes Unknown.
///
/// Helper::Reply is also what Helper::Pool hands its callers when no helper
/// answered (the child died, the request timed out, the queue overflowed...):
/// then `failure` says why, and `result` is BrokenHelper, so that a caller
/// checking for Okay denies.

#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace Helper {

/// The result code of a reply (Squid's Helper::ResultCode).
enum class Result {
    Unknown,      ///< no result code: an old-style reply (or an empty line)
    Okay,         ///< OK (and AF, the old NTLM/Negotiate success)
    Error,        ///< ERR (and NA, the old NTLM/Negotiate failure)
    BrokenHelper, ///< BH: the helper could not decide; also every pool failure
    Tt,           ///< TT: an NTLM/Negotiate challenge token follows (note "token")
};

/// Why the pool answered a request itself instead of a helper.
enum class Failure {
    None,        ///< a helper answered
    ChildDied,   ///< the child handling the request exited or broke the protocol
    TimedOut,    ///< no answer within Options::timeout (Squid's on-timeout=fail)
    Overloaded,  ///< the queue overflowed for longer than Options::persistentOverload
    Unavailable, ///< children die too fast: restarting is suspended (Options::restartBackoff)
    ShutDown,    ///< the pool was shut down, or its children were
};

/// One key=value pair of a reply; Squid calls these notes.
struct Note {
    std::string key;   ///< as sent, case kept
    std::string value; ///< unquoted or %-decoded
};

/// A parsed helper reply (or a pool's failure, see `failure`).
struct Reply {
    Result result = Result::Unknown; ///< the result code
    std::vector<Note> notes;         ///< key=value pairs in the order sent (keys may repeat)
    std::string other;               ///< the text not parsed as above (the whole line for Unknown)
    Failure failure = Failure::None; ///< None when a helper answered

    /// the value of the first note with this key, or nullptr
    const std::string* findNote(std::string_view key) const;
    /// whether the result is Okay (callers allow only then)
    bool isOkay() const { return result == Result::Okay; }
};

/// Parses one reply line (no channel id, no LF). Never throws.
Reply ParseReply(std::string_view line);

/// The reply a pool gives when no helper answered: BrokenHelper, `failure`
/// set and a `message` note saying why.
Reply MakeFailure(Failure failure, std::string message);

/// "OK", "ERR", "BH", "TT" or "Unknown"
const char* ResultName(Result result);
/// "none", "child died", "timed out", "overloaded", "unavailable", "shut down"
const char* FailureName(Failure failure);

/// RFC 1738 %XX-escaping of a request token, as Squid's rfc1738_escape()
/// (unsafe characters, controls, bytes >= 0x80) or, with `reservedToo`,
/// rfc1738_escape_part() (also ; / ? : @ = &). The caller escapes what it
/// puts in a request line.
std::string Rfc1738Escape(std::string_view text, bool reservedToo = false);
/// Decodes %XX (either case); a malformed escape and %00 stay as they are.
std::string Rfc1738Unescape(std::string_view text);

} // namespace Helper
