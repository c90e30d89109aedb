/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "log/AccessLog.h"
#include "log/CacheLog.h"
#include "log/Encoding.h"
#include "log/Sink.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <ctime>
#include <stdexcept>

namespace {

/// Squid's MAX_URL: the log form of a URL is cut to MAX_URL - 1 bytes.
constexpr size_t MaxUrl = 8192;

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

std::string_view dash(std::string_view s)
{
    return s.empty() ? std::string_view("-") : s;
}

/// The URL as Squid 5.7 logs it (urlCanonicalCleanWithoutRequest): cut to
/// MAX_URL-1 bytes and escaped only when it holds a control character
/// (bytes such as UTF-8 letters are logged raw, as Squid does).
void appendUrl(std::string& out, const std::string& url)
{
    if (url.size() < MaxUrl && !Log::HasControl(url)) {
        out += dash(url);
        return;
    }
    const std::string_view cut = std::string_view(url).substr(0, MaxUrl - 1);
    if (!Log::HasControl(cut)) {
        out += cut;
        return;
    }
    std::string escaped;
    Log::UrlEscapeUnescaped(escaped, cut);
    out += std::string_view(escaped).substr(0, 2 * MaxUrl - 1);
}

/// the user name of the built-in formats (Squid's QuoteUrlEncodeUsername())
void appendUser(std::string& out, const std::string& user)
{
    if (user.empty())
        out += '-';
    else
        Log::QuoteMimeBlob(out, user);
}

/// seconds.milliseconds of the log time, as %ts.%03tu
void appendTime(std::string& line, const Log::AccessRecord& r)
{
    const timeval t = r.logTime();
    appendNumber(line, static_cast<int64_t>(t.tv_sec));
    line += '.';
    appendNumber(line, static_cast<int64_t>(t.tv_usec / 1000), 3, '0');
}

/// Squid's Time::FormatHttpd(): local time, as %tl
void appendHttpdTime(std::string& line, const Log::AccessRecord& r)
{
    const std::time_t secs = r.logTime().tv_sec;
    std::tm tm{};
    ::localtime_r(&secs, &tm);
    char when[64];
    line.append(when, std::strftime(when, sizeof(when), "%d/%b/%Y:%H:%M:%S %z", &tm));
}

/// `%>a - %[un [%tl] "%rm %ru HTTP/%rv" %>Hs %<st`, shared by common and combined
void appendCommonHead(std::string& line, const Log::AccessRecord& r)
{
    line += dash(r.clientAddress);
    line += " - ";
    appendUser(line, r.user);
    line += " [";
    appendHttpdTime(line, r);
    line += "] \"";
    line += dash(r.method);
    line += ' ';
    appendUrl(line, r.url);
    line += " HTTP/";
    line += dash(r.httpVersion);
    line += "\" ";
    appendNumber(line, r.httpStatus);
    line += ' ';
    appendNumber(line, static_cast<int64_t>(r.bytesSent));
}

void appendCodes(std::string& line, const Log::AccessRecord& r)
{
    line += dash(r.resultCode);
    line += ':';
    line += dash(r.hierarchy);
}

/// log_mime_hdrs: ` [request fields] [reply head]`
void appendMimeHeaders(std::string& line, const Log::AccessRecord& r)
{
    line += " [";
    Log::QuoteMimeBlob(line, r.requestHead);
    line += "] [";
    Log::QuoteMimeBlob(line, r.replyHead);
    line += ']';
}

void appendBuiltIn(std::string& line, Log::AccessFormat fmt, const Log::AccessRecord& r)
{
    using Log::AccessFormat;
    switch (fmt) {
    case AccessFormat::Squid:
    case AccessFormat::Custom:
        // "%ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru %[un %Sh/%<a %mt", built
        // in place (a line per request: no printf, no temporary strings)
        appendTime(line, r);
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
        appendUrl(line, r.url);
        line += ' ';
        appendUser(line, r.user);
        line += ' ';
        line += dash(r.hierarchy);
        line += '/';
        line += dash(r.peerAddress);
        line += ' ';
        line +=
            dash(std::string_view(r.mimeType).substr(0, r.mimeType.find_first_of("; \t"))); // the media type
        return;
    case AccessFormat::Common:
        appendCommonHead(line, r);
        line += ' ';
        appendCodes(line, r);
        return;
    case AccessFormat::Combined:
        // Squid's HttpdCombined() prints both fields as received
        appendCommonHead(line, r);
        line += " \"";
        line += dash(r.referer);
        line += "\" \"";
        line += dash(r.userAgent);
        line += "\" ";
        appendCodes(line, r);
        return;
    case AccessFormat::Referrer:
        appendTime(line, r);
        line += ' ';
        line += dash(r.clientAddress);
        line += ' ';
        line += dash(r.referer);
        line += ' ';
        appendUrl(line, r.url);
        return;
    case AccessFormat::UserAgent:
        line += dash(r.clientAddress);
        line += " [";
        appendHttpdTime(line, r);
        line += "] \"";
        line += dash(r.userAgent);
        line += '"';
        return;
    case AccessFormat::IcapSquid:
        // Squid's SquidIcap() for a transaction without ICAP, as Squid 5.7 writes it
        appendTime(line, r);
        line += "      0 ";
        line += dash(r.clientAddress);
        line += " ICAP_ERR_UNKNOWN/000 0 NONE (null) ";
        appendUser(line, r.user);
        line += " -/:: -";
        return;
    }
}

bool hasMimeHeaders(Log::AccessFormat fmt)
{
    return fmt == Log::AccessFormat::Squid || fmt == Log::AccessFormat::Common ||
           fmt == Log::AccessFormat::Combined;
}

/// a monotonic second, for buffered_logs' once-a-second flush
int64_t monotonicSecond()
{
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return ts.tv_sec;
}

} // namespace

std::string Log::formatSquid(const AccessRecord& r)
{
    return format(AccessFormat::Squid, r);
}

std::string Log::formatCommon(const AccessRecord& r)
{
    return format(AccessFormat::Common, r);
}

std::string Log::formatCombined(const AccessRecord& r)
{
    return format(AccessFormat::Combined, r);
}

std::string Log::format(AccessFormat fmt, const AccessRecord& r)
{
    std::string line;
    line.reserve(160 + r.url.size());
    appendBuiltIn(line, fmt, r);
    return line;
}

Log::AccessFormat Log::ParseFormatName(const std::string& name)
{
    static const std::pair<const char*, AccessFormat> names[] = {
        {"squid", AccessFormat::Squid},          {"auto", AccessFormat::Squid},
        {"common", AccessFormat::Common},        {"combined", AccessFormat::Combined},
        {"referrer", AccessFormat::Referrer},    {"useragent", AccessFormat::UserAgent},
        {"icap_squid", AccessFormat::IcapSquid},
    };
    for (const auto& [n, f] : names)
        if (name == n)
            return f;
    throw std::invalid_argument("'" + name + "' is not a built-in log format");
}

Log::AccessLog::AccessLog() = default;

Log::AccessLog::~AccessLog()
{
    writeAll();
}

void Log::AccessLog::add(OutputSpec spec)
{
    if (spec.format == AccessFormat::Custom && !spec.custom)
        throw std::invalid_argument("a custom access_log format without its logformat");
    Output out;
    if (spec.module != "none")
        out.sink = Sink::Open(spec);
    out.spec = std::move(spec);
    outputs_.push_back(std::move(out));
    updateNeeds();
}

void Log::AccessLog::add(const std::string& place, AccessFormat fmt)
{
    OutputSpec spec;
    spec.parsePlace(place);
    spec.format = fmt;
    add(std::move(spec));
}

size_t Log::AccessLog::size() const
{
    size_t n = 0;
    for (const auto& out : outputs_)
        n += out.sink != nullptr;
    return n;
}

void Log::AccessLog::setMimeHeaders(bool on)
{
    mimeHeaders_ = on;
    updateNeeds();
}

void Log::AccessLog::updateNeeds()
{
    needs_ = RecordNeeds();
    for (const auto& out : outputs_) {
        if (out.spec.custom)
            needs_.add(out.spec.custom->needs());
        if (mimeHeaders_ && hasMimeHeaders(out.spec.format)) {
            needs_.requestHead = true;
            needs_.replyHead = true;
        }
    }
}

void Log::AccessLog::log(const AccessRecord& r)
{
    // Squid's accessLogLogTo(): skip a log whose acls do not match; a
    // matching `none` ends the list
    for (auto& out : outputs_) {
        if (out.spec.filter && !out.spec.filter->accepts(r))
            continue;
        if (!out.sink)
            break;
        line_.clear();
        if (out.spec.format == AccessFormat::Custom)
            out.spec.custom->append(line_, r, sequence_);
        else
            appendBuiltIn(line_, out.spec.format, r);
        if (mimeHeaders_ && hasMimeHeaders(out.spec.format))
            appendMimeHeaders(line_, r);
        line_ += '\n';
        out.sink->append(line_);
        if (!out.sink->error().empty())
            reportError(out);
    }
    ++sequence_;
}

void Log::AccessLog::logLine(std::string_view line)
{
    for (auto& out : outputs_) {
        if (!out.sink)
            continue;
        out.sink->append(line);
        if (!out.sink->error().empty())
            reportError(out);
    }
}

void Log::AccessLog::flush()
{
    if (buffered_) {
        const int64_t now = monotonicSecond();
        if (now == lastFlushSecond_)
            return;
        lastFlushSecond_ = now;
    }
    writeAll();
}

bool Log::AccessLog::isSettled() const
{
    return std::all_of(outputs_.begin(), outputs_.end(),
                       [](const Output& out) { return !out.sink || out.sink->isSettled(); });
}

void Log::AccessLog::writeAll()
{
    for (auto& out : outputs_) {
        if (out.sink && !out.sink->flush())
            reportError(out);
    }
}

void Log::AccessLog::rotate(int count, std::set<std::string>* done)
{
    for (auto& out : outputs_) {
        if (!out.sink)
            continue;
        const bool elsewhere = done && out.spec.isFile() && !done->insert(out.spec.place).second;
        const bool ok =
            elsewhere ? out.sink->reopen() : out.sink->rotate(out.spec.rotate >= 0 ? out.spec.rotate : count);
        if (!ok)
            reportError(out);
    }
}

void Log::AccessLog::reopen()
{
    for (auto& out : outputs_) {
        if (out.sink && !out.sink->reopen())
            reportError(out);
    }
}

void Log::AccessLog::close()
{
    writeAll();
    outputs_.clear();
}

void Log::AccessLog::reportError(Output& out)
{
    if (!out.sink->takeErrorReport())
        return;
    if (out.spec.dieOnError) {
        // Squid's on-error=die: the worker exits
        debugs(46, 0, "FATAL: access.log: " << out.sink->error());
        cacheLog().flush();
        std::exit(1);
    }
    debugs(46, 0,
           "ERROR: access.log: " << out.sink->error() << " (later errors of this log are not reported)");
}
