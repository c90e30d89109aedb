/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The encodings access.log applies to a value, as Squid 5.7 writes them
/// (each checked against Debian's squid 5.7: see src/log/tests/TestFormat.cc).
///
/// | function          | logformat modifier | what it changes                                        |
/// |-------------------|--------------------|--------------------------------------------------------|
/// | UrlEscape()       | `%#`               | RFC 1738 unsafe characters, controls, bytes >= 0x7F, `%` |
/// | UrlEscapeUnescaped() | (a code's default) | the same but `%` stays (pass-through URL encoding)  |
/// | QuoteMimeBlob()   | `%[`, user names   | `%[]`, controls, bytes >= 0x7F as lowercase %xx; CR LF as \r
/// \n; `\` doubled | | QuoteString()     | `%"`               | `"` and `\` get a `\`; CR LF TAB become \r \n
/// \t       | | QuoteShellWord()  | `%/`               | as QuoteString() without TAB, in quotes when it has
/// a space |

#pragma once

#include <string>
#include <string_view>

namespace Log {

/// Squid's rfc1738_escape(): `%#`.
void UrlEscape(std::string& out, std::string_view text);
/// Squid's rfc1738_escape_unescaped(): the default of the header and URL codes.
void UrlEscapeUnescaped(std::string& out, std::string_view text);
/// Squid's Format::QuoteMimeBlob(): `%[`, the user names of the built-in formats, log_mime_hdrs.
void QuoteMimeBlob(std::string& out, std::string_view text);
/// Squid's log_quoted_string(): `%"`.
void QuoteString(std::string& out, std::string_view text);
/// Squid's strwordquote(): `%/`.
void QuoteShellWord(std::string& out, std::string_view text);

/// Squid's stringHasCntl(): C0 controls, DEL and C1 controls.
bool HasControl(std::string_view text);

} // namespace Log
