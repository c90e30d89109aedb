/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The log directives' handlers: access_log, logformat,
/// logfile_rotate, cache_log (see doc/directives.md).

#include "cuttle.h"
#include "config/Handlers.h"

#include <algorithm>
#include <stdexcept>

using Config::AccessLogSpec;
using Config::DirectiveCall;
using Config::Settings;

namespace {

/// The logformat line called NAME, or nullptr.
const Config::LogformatSpec* FindLogformat(const Settings& settings, const std::string& name)
{
    for (const auto& f : settings.logformats)
        if (f.name == name)
            return &f;
    return nullptr;
}

/// Whether access_log would take `word` as a log format name (Squid's setLogformat()).
bool IsLogFormatName(const Settings& settings, const std::string& word)
{
    try {
        Log::ParseFormatName(word);
        return true;
    } catch (const std::invalid_argument&) {
        return FindLogformat(settings, word) != nullptr;
    }
}

/// buffer-size=SIZE: "64KB", "1 MB" is not one word; bytes without a unit
bool ParseBufferSizeOption(const DirectiveCall& call, const std::string& value, size_t& out)
{
    uint64_t bytes = 0;
    const auto r = Config::Units::ParseSizeWord(value, bytes);
    if (!r.ok || bytes == 0) {
        call.error("bad access_log buffer-size '" + value + "': use a size such as 64KB");
        return false;
    }
    out = static_cast<size_t>(bytes);
    return true;
}

} // namespace

/// `logformat NAME FORMAT`: the Lexer hands FORMAT over as Squid reads it,
/// the rest of the line as written (quotes, blanks and `#` included).
void Config::Handlers::LogformatHandler(DirectiveCall& call)
{
    const auto& w = call.line.words;
    if (w.size() < 3) {
        call.error(w.size() < 2 ? "logformat needs a NAME and a FORMAT"
                                : "logformat " + w[1] + " needs a FORMAT");
        return;
    }
    // Squid 5.7 (log/Config.cc): these names are its own, and a name defined twice keeps its first format
    static const char* const builtIn[] = {"squid", "common", "combined", "useragent", "referrer"};
    const bool isBuiltIn = std::find_if(std::begin(builtIn), std::end(builtIn),
                                        [&](const char* b) { return w[1] == b; }) != std::end(builtIn);
    if (isBuiltIn || FindLogformat(call.settings, w[1])) {
        call.warning("logformat " + w[1] + " is already defined; ignoring this line (as Squid 5.7)");
        return;
    }
    auto format = std::make_shared<Log::Format>();
    std::string why;
    std::vector<std::string> warnings;
    if (!format->parse(w[2], why, warnings)) {
        call.error("logformat " + w[1] + ": " + why);
        return;
    }
    for (const auto& warning : warnings)
        call.warning(warning);
    call.settings.logformats.push_back(LogformatSpec{w[1], std::move(format)});
}

void Config::Handlers::CacheLogHandler(DirectiveCall& call)
{
    PathHandler<&Settings::cacheLog, true>(call);
    if (call.line.words.size() > 1 && call.line.words[1] == "none")
        call.warning("cache_log none: cuttle keeps no cache.log and writes its messages to stderr; Squid 5.7 "
                     "writes them to a file named 'none' in its working directory");
}

void Config::Handlers::CacheStoreLogHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    WarnExtra(call, 2);
    Log::OutputSpec spec;
    try {
        spec.parsePlace(call.line.words[1]);
    } catch (const std::invalid_argument& e) {
        call.error(std::string("bad cache_store_log: ") + e.what());
        return;
    }
    if (spec.isFile())
        spec.place = call.lexer.resolve(spec.place);
    call.settings.cacheStoreLog = std::move(spec);
}

void Config::Handlers::AccessLogHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    const auto& w = call.line.words;
    AccessLogSpec spec;
    // Squid 5.7 (accessLogLogTo()) tries the logs in order and stops at the
    // first `none` whose acls match: after a `none` without acls nothing is written
    auto& logs = call.settings.accessLogs;
    if (std::any_of(logs.begin(), logs.end(),
                    [](const AccessLogSpec& l) { return l.output.module == "none" && l.acls.size() == 0; })) {
        call.warning("access_log after 'access_log none' never gets a line (as in Squid 5.7): ignoring it");
        return;
    }
    try {
        spec.output.parsePlace(w[1]);
    } catch (const std::invalid_argument& e) {
        call.error(std::string("bad access_log: ") + e.what());
        return;
    }
    if (spec.output.isFile())
        spec.output.place = call.lexer.resolve(spec.output.place);
    // Squid 5.7's parse_access_log(): PLACE [FORMAT] [ACL...] or PLACE
    // [OPTION=VALUE...] [ACL...]. A third word without '=' is the format
    // only when it names one (built in, or a logformat line's); otherwise it
    // and every word after it are acls, and the format is squid.
    bool formatGiven = false;
    size_t i = 2;
    if (spec.output.module == "none") {
        // `none [acl...]`: no place, no format
    } else if (i < w.size() && w[i].find('=') == std::string::npos) {
        if (IsLogFormatName(call.settings, w[i])) {
            spec.format = w[i++];
            formatGiven = true;
        }
    } else {
        for (; i < w.size() && w[i].find('=') != std::string::npos; ++i) {
            const std::string key = w[i].substr(0, w[i].find('='));
            const std::string value = w[i].substr(key.size() + 1);
            if (key == "logformat") {
                if (formatGiven) {
                    call.error("access_log names a second log format: '" + w[i] + "'");
                    return;
                }
                spec.format = value;
                formatGiven = true;
                if (!IsLogFormatName(call.settings, spec.format)) {
                    call.error("access_log: log format '" + spec.format + "' is not defined");
                    return;
                }
            } else if (key == "buffer-size") {
                if (!ParseBufferSizeOption(call, value, spec.output.bufferSize))
                    return;
            } else if (key == "on-error") {
                if (value != "die" && value != "drop") {
                    call.error("bad access_log on-error '" + value + "': use die or drop");
                    return;
                }
                spec.output.dieOnError = value == "die";
            } else if (key == "rotate") {
                unsigned count = 0;
                if (!ParseCount(value, count)) {
                    call.error("bad access_log rotate '" + value + "': use a count from 0 to 999999999");
                    return;
                }
                spec.output.rotate = static_cast<int>(count);
            } else {
                call.error("unknown access_log option '" + w[i] + "'");
                return;
            }
        }
    }
    if (spec.format == "auto") {
        call.warning("access_log: log format 'auto' no longer exists; using 'squid' instead (as Squid 5.7)");
        spec.format = "squid";
    }
    if (const auto* custom = FindLogformat(call.settings, spec.format)) {
        spec.output.format = Log::AccessFormat::Custom;
        spec.output.custom = custom->format;
    } else {
        spec.output.format = Log::ParseFormatName(spec.format);
    }
    if (i < w.size()) {
        std::vector<std::string> rule{"allow"};
        rule.insert(rule.end(), w.begin() + static_cast<std::ptrdiff_t>(i), w.end());
        std::string why;
        if (!spec.acls.parse(rule, call.settings.acls, why)) {
            call.error("bad access_log acls: " + why);
            return;
        }
    }
    logs.push_back(std::move(spec));
}
