/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/HeadLines.h"
#include "http/FieldSyntax.h"

Http::LineEnd Http::HeadLines::next(std::string_view buf, size_t limit, std::string_view& line)
{
    for (size_t i = scanned_; i < limit; ++i) {
        const char c = buf[i];
        if (c == '\n' && ends_ == LineEnds::CrLfOnly)
            return LineEnd::BareLf; // a CRLF's LF is taken with its CR below
        if (c == '\r') {
            if (i + 1 == limit) {
                scanned_ = i; // the LF may come with the next read (or be past the limit)
                return LineEnd::NeedMore;
            }
            if (buf[i + 1] != '\n')
                return LineEnd::BareCr;
        } else if (c != '\n') {
            continue;
        }
        line = buf.substr(lineStart_, i - lineStart_);
        lineStart_ = scanned_ = i + (c == '\r' ? 2 : 1);
        return LineEnd::Found;
    }
    scanned_ = limit;
    return LineEnd::NeedMore;
}

Http::FieldLineError Http::ParseFieldLine(std::string_view line, HeaderField& field)
{
    if (!line.empty() && IsOws(line.front()))
        return FieldLineError::ObsFold;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0)
        return FieldLineError::BadField;
    const auto name = line.substr(0, colon);
    for (const char c : name) {
        if (!IsTokenChar(c))
            return FieldLineError::BadField; // includes whitespace before the colon
    }
    const auto value = TrimOws(line.substr(colon + 1));
    for (const char c : value) {
        if (!IsFieldValueChar(c))
            return FieldLineError::BadField;
    }
    field = HeaderField{name, value};
    return FieldLineError::None;
}
