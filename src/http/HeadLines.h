/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Http::HeadLines and Http::ParseFieldLine(): the line ends and the
/// field lines of an HTTP/1 head (RFC 9112 sections 2.2 and 5), the syntax
/// that RequestParser and ReplyParser share. Each parser keeps what is its
/// own: the first line (request line, status line), where the head size
/// limit cuts, the fields it records (Content-Length, Transfer-Encoding,
/// Host) and its error codes. The one rule here on which they differ, a
/// bare LF, is a constructor argument.
///
/// HeadLines finds one line at a time in the caller's buffer, which may
/// only grow between calls (see RequestParser.h); it remembers where the
/// current line starts and how far its end has been looked for, so a head
/// fed byte by byte is searched once, O(size) in total:
///
///     buffer: [line CRLF][line CRLF][line with no end yet ...........|CR]
///                                    ^lineStart()         searched up to^
///
/// A CR as the last byte before the limit is searched again by the next
/// call: its LF may come with the next read.

#pragma once

#include "http/Fields.h"

#include <cstddef>
#include <string_view>

namespace Http {

/// Which bytes end a line of a head (RFC 9112 section 2.2).
enum class LineEnds {
    CrLfOnly,    ///< CRLF only; a bare LF is an error (requests: see RequestParser.h)
    CrLfOrBareLf ///< CRLF, or an LF alone, as section 2.2 lets a recipient take it (replies)
};

/// What HeadLines::next() found.
enum class LineEnd {
    Found,    ///< a line ended; lineStart() is now the offset after its end
    NeedMore, ///< no line end among the bytes before the limit
    BareCr,   ///< a CR not followed by LF
    BareLf    ///< an LF not preceded by CR, with LineEnds::CrLfOnly
};

/// Finds the lines of one head in turn; see the file comment.
class HeadLines {
public:
    /// ends: what ends a line
    explicit HeadLines(LineEnds ends) : ends_(ends) {}

    /// Looks for the end of the line that starts at lineStart() among the
    /// bytes of buf before limit (a limit below lineStart() finds nothing).
    /// On Found, line is that line without its CRLF or LF, a view into buf.
    LineEnd next(std::string_view buf, size_t limit, std::string_view& line);

    /// offset in the buffer of the line being looked for: after Found, the
    /// offset just past the line found, which after a head's final empty
    /// line is the head's size
    size_t lineStart() const { return lineStart_; }

    /// Forgets the head, to find the lines of the next one from offset 0.
    void reset() { lineStart_ = scanned_ = 0; }

private:
    LineEnds ends_;        ///< what ends a line
    size_t lineStart_ = 0; ///< offset of the first byte of the line being looked for
    size_t scanned_ = 0;   ///< bytes already searched for a line end
};

/// Why ParseFieldLine() refused a line.
enum class FieldLineError {
    None,    ///< a valid field line
    ObsFold, ///< the line starts with SP or HTAB
    BadField ///< no colon, a name that is not a token, or a control byte in the value
};

/// Splits one field line, without its line end, into a field (RFC 9112
/// section 5: `field-name ":" OWS field-value OWS`): the name as sent and
/// the value without its OWS, both views into line. Strict, as both
/// parsers are (their file comments say why): a line that starts with
/// whitespace is obs-fold (section 5.2), or whitespace before the first
/// field (section 2.2), and is ObsFold, not unfolded; the name must be a
/// non-empty token, so whitespace before the colon is BadField (section
/// 5.1); the value may hold no control byte but HTAB (RFC 9110 section
/// 5.5), so no CR, LF or NUL. field is set only when the result is None.
FieldLineError ParseFieldLine(std::string_view line, HeaderField& field);

} // namespace Http
