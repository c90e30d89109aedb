/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "log/Encoding.h"

namespace {

/// appends %XX in the digits given (Squid's rfc1738 uses upper case, its c2x table lower case)
void appendHex(std::string& out, unsigned char c, const char* digits)
{
    out += '%';
    out += digits[c >> 4];
    out += digits[c & 0xF];
}

constexpr const char* Upper = "0123456789ABCDEF";
constexpr const char* Lower = "0123456789abcdef";

/// lib/rfc1738.c: what rfc1738_escape() escapes besides controls and non-ASCII
constexpr std::string_view Unsafe = "<>\"#%{}|\\^~[]`' ";

void urlEscape(std::string& out, std::string_view text, bool keepPercent)
{
    out.reserve(out.size() + text.size());
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if ((keepPercent && c == '%') || (u > 0x1F && u < 0x7F && Unsafe.find(c) == std::string_view::npos))
            out += c;
        else
            appendHex(out, u, Upper);
    }
}

} // namespace

void Log::UrlEscape(std::string& out, std::string_view text)
{
    urlEscape(out, text, false);
}

void Log::UrlEscapeUnescaped(std::string& out, std::string_view text)
{
    urlEscape(out, text, true);
}

void Log::QuoteMimeBlob(std::string& out, std::string_view text)
{
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '\r')
            out += "\\r";
        else if (c == '\n')
            out += "\\n";
        else if (u <= 0x1F || u >= 0x7F || c == '%' || c == '[' || c == ']')
            appendHex(out, u, Lower);
        else if (c == '\\')
            out += "\\\\";
        else
            out += c;
    }
}

void Log::QuoteString(std::string& out, std::string_view text)
{
    for (const char c : text) {
        switch (c) {
        case '\r':
            out += "\\r";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        case '"':
        case '\\':
            out += '\\';
            out += c;
            break;
        default:
            out += c;
        }
    }
}

void Log::QuoteShellWord(std::string& out, std::string_view text)
{
    const bool quoted = text.find(' ') != std::string_view::npos;
    if (quoted)
        out += '"';
    for (const char c : text) {
        if (c == '\r')
            out += "\\r";
        else if (c == '\n')
            out += "\\n";
        else if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else
            out += c;
    }
    if (quoted)
        out += '"';
}

bool Log::HasControl(std::string_view text)
{
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u <= 0x1F || (u >= 0x7F && u <= 0x9F))
            return true;
    }
    return false;
}
