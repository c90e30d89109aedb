/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Log::Format: a `logformat NAME FORMAT` line's FORMAT, parsed once and
/// filled in from a Log::AccessRecord for each line of an access_log.
///
/// FORMAT is literal text with Squid 5.7's %-codes:
///
///     % [encoding] [-] [[0]width] [.precision] [{arg}] code [{arg}]
///
/// encoding is one of `"` `[` `#` `/` `'` (log/Encoding.h); `-` aligns left;
/// width pads (with zeros for a number when it starts with 0); .precision cuts
/// a text, or gives a time its fraction digits (%tr, %tu, %tS). A code whose
/// value cuttle does not have prints `-`, as Squid prints an absent value (the
/// list is in doc/directives.md under logformat). Codes Debian's squid 5.7
/// refuses (ssl::*, %us) are refused too.
///
/// The built-in formats (squid, common, combined, referrer, useragent,
/// icap_squid) are not Formats: Squid writes them with their own functions,
/// which differ from their logformat spelling in places (see AccessLog.h).

#pragma once

#include "log/AccessRecord.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace Log {

/// The optional AccessRecord fields the logs of a configuration print.
struct RecordNeeds {
    bool requestHead = false; ///< AccessRecord::requestHead
    bool replyHead = false;   ///< AccessRecord::replyHead
    bool requestUrl = false;  ///< AccessRecord::requestUrl
    /// adds what `other` needs
    void add(const RecordNeeds& other);
};

/// One logformat's FORMAT (see the file comment).
class Format {
public:
    /// Parses FORMAT. False with `why` at an unknown code or a `%` at the end;
    /// `warnings` gets what Squid warns about (deprecated codes).
    bool parse(std::string_view text, std::string& why, std::vector<std::string>& warnings);

    /// Appends the line for R (without a newline); `sequence` is %sn.
    void append(std::string& out, const AccessRecord& r, uint64_t sequence) const;

    /// What append() reads beyond the always-filled AccessRecord fields.
    const RecordNeeds& needs() const { return needs_; }
    /// Whether a code prints a whole header (%>h or %<h without a name): as
    /// in Squid 5.7, such a format turns log_mime_hdrs on.
    bool printsAllHeaders() const { return allHeaders_; }

    /// What one %-code prints (the values of the codes table in Format.cc).
    enum class Code : uint8_t;
    /// How a value is encoded: the modifier after the `%`, or PassThrough,
    /// the default of the codes Squid URL-encodes leaving `%` as it is.
    enum class Encoding : uint8_t { Default, Quoted, MimeBlob, Url, Shell, Raw, PassThrough };

private:
    /// One piece of FORMAT: a literal or a code with its modifiers.
    struct Token {
        Code code{};                           ///< what it prints (0: a literal)
        Encoding encoding = Encoding::Default; ///< the modifier
        bool left = false;                     ///< `-`: pad on the right
        bool zero = false;                     ///< width starts with 0: zero-pad numbers
        int widthMin = -1;                     ///< width; -1: none
        int widthMax = -1;                     ///< .precision; -1: none
        int64_t divisor = 1000;                ///< microseconds per printed fraction unit (times)
        char separator = ',';                  ///< %{Name:;element}: the list separator
        std::string text;                      ///< the literal, the {arg}, or the header name
        std::string element;                   ///< %{Name:element}: the list member; empty: whole field
    };
    bool parseCode(std::string_view& rest, Token& token, std::string& why,
                   std::vector<std::string>& warnings);
    void appendToken(std::string& out, const Token& t, const AccessRecord& r, uint64_t sequence) const;

    std::vector<Token> tokens_; ///< in order
    RecordNeeds needs_;         ///< see needs()
    bool allHeaders_ = false;   ///< see printsAllHeaders()
};

/// The value of header field NAME in HEAD (field lines ending in CRLF, a
/// status or request line before them is skipped), values of repeated fields
/// joined by ", " as Squid's getByName(); false when absent.
bool FindField(std::string_view head, std::string_view name, std::string& value);
/// Squid's getByNameListMember(): the value after `member=` in the list
/// `value` split at `,` and `separator` (quotes respected); empty when absent.
std::string ListMember(std::string_view value, std::string_view member, char separator);

} // namespace Log
