/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "log/AccessLog.h"
#include "log/CacheLog.h"

#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <stdexcept>

namespace {

/// Squid's MAX_URL: the log form of a URL is cut to MAX_URL - 1 bytes.
constexpr size_t MaxUrl = 8192;

const char HexDigits[] = "0123456789ABCDEF";

void appendHex(std::string& out, unsigned char c)
{
    out += '%';
    out += HexDigits[c >> 4];
    out += HexDigits[c & 0xF];
}

/// appends n in decimal, padded on the left with pad to at least width characters
void appendNumber(std::string& out, int64_t n, size_t width = 0, char pad = ' ')
{
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof(digits), n).ptr;
    const size_t size = static_cast<size_t>(end - digits);
    if (size < width)
        out.append(width - size, pad);
    out.append(digits, size);
}

/// Squid's stringHasCntl(): C0 controls, DEL and C1 controls.
bool hasControl(const std::string& s)
{
    for (const unsigned char c : s) {
        if (c <= 0x1F || (c >= 0x7F && c <= 0x9F))
            return true;
    }
    return false;
}

/// Squid's rfc1738_escape_unescaped(): unsafe characters, controls and
/// non-ASCII become %XX; an existing '%' is kept.
std::string escapeUnescaped(const std::string& s)
{
    static const std::string_view unsafe = "<>\"#{}|\\^~[]`' ";
    std::string out;
    out.reserve(s.size());
    for (const unsigned char c : s) {
        if (c <= 0x1F || c >= 0x7F || unsafe.find(static_cast<char>(c)) != std::string_view::npos)
            appendHex(out, c);
        else
            out += static_cast<char>(c);
    }
    return out;
}

/// The URL as Squid 5.7 logs it (urlCanonicalCleanWithoutRequest): cut to
/// MAX_URL-1 bytes and escaped only when it holds a control character
/// (bytes such as UTF-8 letters are logged raw, as Squid does).
std::string logUrl(const std::string& url)
{
    std::string u = url.substr(0, MaxUrl - 1);
    if (hasControl(u)) {
        u = escapeUnescaped(u);
        if (u.size() > 2 * MaxUrl - 1)
            u.resize(2 * MaxUrl - 1);
    }
    return u;
}

/// Squid's `%[` quoting (Format::QuoteMimeBlob / log_quote()).
std::string quoteMimeBlob(const std::string& s)
{
    static const std::string_view special = "%\"#;<>?{}|\\^~`[]";
    std::string out;
    for (const unsigned char c : s) {
        if (c == '\r')
            out += "\\r";
        else if (c == '\n')
            out += "\\n";
        else if (c <= 0x1F || c >= 0x7F || special.find(static_cast<char>(c)) != std::string_view::npos)
            appendHex(out, c);
        else
            out += static_cast<char>(c);
    }
    return out;
}

/// "-" for an empty field, as Squid prints.
std::string orDash(const std::string& s)
{
    return s.empty() ? std::string("-") : s;
}

std::string userField(const std::string& user)
{
    return user.empty() ? std::string("-") : orDash(quoteMimeBlob(user));
}

/// `"%rm %ru HTTP/%rv" %>Hs %<st` shared by common and combined, with the CLF head before it.
std::string commonHead(const Log::AccessRecord& r)
{
    const timeval t = r.logTime();
    const std::time_t secs = t.tv_sec;
    std::tm tm{};
    ::localtime_r(&secs, &tm);
    char when[64];
    std::strftime(when, sizeof(when), "%d/%b/%Y:%H:%M:%S %z", &tm);
    std::string line = orDash(r.clientAddress) + " - " + userField(r.user) + " [" + when + "] \"" +
                       orDash(r.method) + " " + orDash(logUrl(r.url)) + " HTTP/" + orDash(r.httpVersion) +
                       "\" " + std::to_string(r.httpStatus) + " " + std::to_string(r.bytesSent);
    return line;
}

} // namespace

std::string Log::formatSquid(const AccessRecord& r)
{
    // "%ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru %[un %Sh/%<a %mt", built
    // in place (a line per request: no printf, no temporary strings)
    const timeval t = r.logTime();
    const auto dash = [](std::string_view s) { return s.empty() ? std::string_view("-") : s; };
    std::string line;
    line.reserve(160 + r.url.size());
    appendNumber(line, static_cast<int64_t>(t.tv_sec));
    line += '.';
    appendNumber(line, static_cast<int64_t>(t.tv_usec / 1000), 3, '0');
    line += ' ';
    appendNumber(line, r.responseTimeMs, 6, ' ');
    line += ' ';
    line += dash(r.clientAddress);
    line += ' ';
    line += dash(r.resultCode);
    line += '/';
    appendNumber(line, r.httpStatus, 3, '0');
    line += ' ';
    appendNumber(line, static_cast<int64_t>(r.bytesSent));
    line += ' ';
    line += dash(r.method);
    line += ' ';
    if (r.url.size() < MaxUrl && !hasControl(r.url))
        line += dash(r.url); // logUrl() would return it as it is
    else
        line += dash(logUrl(r.url));
    line += ' ';
    if (r.user.empty())
        line += '-';
    else
        line += userField(r.user);
    line += ' ';
    line += dash(r.hierarchy);
    line += '/';
    line += dash(r.peerAddress);
    line += ' ';
    line += dash(std::string_view(r.mimeType).substr(0, r.mimeType.find_first_of("; \t"))); // the media type
    return line;
}

std::string Log::formatCommon(const AccessRecord& r)
{
    return commonHead(r) + " " + orDash(r.resultCode) + ":" + orDash(r.hierarchy);
}

std::string Log::formatCombined(const AccessRecord& r)
{
    return commonHead(r) + " \"" + orDash(quoteMimeBlob(r.referer)) + "\" \"" +
           orDash(quoteMimeBlob(r.userAgent)) + "\" " + orDash(r.resultCode) + ":" + orDash(r.hierarchy);
}

std::string Log::format(AccessFormat fmt, const AccessRecord& r)
{
    switch (fmt) {
    case AccessFormat::Squid:
        return formatSquid(r);
    case AccessFormat::Common:
        return formatCommon(r);
    case AccessFormat::Combined:
        return formatCombined(r);
    }
    return formatSquid(r);
}

Log::AccessFormat Log::ParseFormatName(const std::string& name)
{
    if (name == "squid")
        return AccessFormat::Squid;
    if (name == "common")
        return AccessFormat::Common;
    if (name == "combined")
        return AccessFormat::Combined;
    throw std::invalid_argument("unsupported logformat '" + name + "' (cuttle has squid, common, combined)");
}

Log::AccessLog::AccessLog() = default;

Log::AccessLog::~AccessLog()
{
    flush();
}

void Log::AccessLog::add(const std::string& spec, AccessFormat fmt)
{
    if (spec == "none")
        return;
    std::string path;
    if (spec.rfind("stdio:", 0) == 0)
        path = spec.substr(6);
    else if (spec.rfind("daemon:", 0) == 0)
        path = spec.substr(7); // served in-process; see AccessLog.h
    else if (!spec.empty() && spec.front() == '/')
        path = spec;
    else
        throw std::invalid_argument("unsupported access_log destination '" + spec +
                                    "' (cuttle has stdio:PATH, daemon:PATH, none)");
    if (path.empty())
        throw std::invalid_argument("access_log destination '" + spec + "' has no path");

    auto out = std::make_unique<Output>();
    out->format = fmt;
    out->file.open(path);
    outputs_.push_back(std::move(out));
}

void Log::AccessLog::log(const AccessRecord& r)
{
    for (auto& out : outputs_) {
        std::string line = format(out->format, r);
        line += '\n';
        out->file.append(line);
        if (!out->file.lastError().empty())
            reportError(*out);
    }
}

void Log::AccessLog::flush()
{
    for (auto& out : outputs_) {
        if (!out->file.flush())
            reportError(*out);
    }
}

void Log::AccessLog::rotate(int count)
{
    for (auto& out : outputs_) {
        if (!out->file.rotate(count))
            reportError(*out);
    }
}

void Log::AccessLog::reopen()
{
    for (auto& out : outputs_) {
        if (!out->file.reopen())
            reportError(*out);
    }
}

void Log::AccessLog::close()
{
    flush();
    outputs_.clear();
}

void Log::AccessLog::reportError(Output& out)
{
    if (out.file.takeErrorReport())
        debugs(46, 0,
               "ERROR: access.log: " << out.file.lastError()
                                     << " (later errors of this file are not logged)");
}
