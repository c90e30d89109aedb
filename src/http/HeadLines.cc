/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/HeadLines.h"
#include "http/FieldSyntax.h"

#include <cstring>

Http::LineEnd Http::HeadLines::next(std::string_view buf, size_t limit, std::string_view& line)
{
    if (scanned_ >= limit)
        return LineEnd::NeedMore;
    // the first LF, then the first CR before it (memchr: both vectorised)
    const char* data = buf.data();
    const auto* lf = static_cast<const char*>(std::memchr(data + scanned_, '\n', limit - scanned_));
    const size_t lfAt = lf ? size_t(lf - data) : limit;
    if (const auto* cr = static_cast<const char*>(std::memchr(data + scanned_, '\r', lfAt - scanned_))) {
        const size_t i = size_t(cr - data);
        if (i + 1 == limit) {
            scanned_ = i; // the LF may come with the next read (or be past the limit)
            return LineEnd::NeedMore;
        }
        if (i + 1 != lfAt)
            return LineEnd::BareCr;
        line = buf.substr(lineStart_, i - lineStart_);
        lineStart_ = scanned_ = i + 2;
        return LineEnd::Found;
    }
    if (!lf) {
        scanned_ = limit;
        return LineEnd::NeedMore;
    }
    if (ends_ == LineEnds::CrLfOnly)
        return LineEnd::BareLf;
    line = buf.substr(lineStart_, lfAt - lineStart_);
    lineStart_ = scanned_ = lfAt + 1;
    return LineEnd::Found;
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
