/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The handlers of the cache's directives (Squid 5.7's syntax and meaning).

#include "cuttle.h"
#include "config/Handlers.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <memory>

using namespace Config;
using namespace Config::Handlers;

namespace {

/// A whole decimal number with an optional sign, as Squid's xatoi() reads
/// it (cuttle takes no octal or hex here); false when it is not one or
/// has more than 18 digits.
bool ParseInteger(const std::string& word, int64_t& value)
{
    size_t i = (!word.empty() && (word[0] == '-' || word[0] == '+')) ? 1 : 0;
    if (i == word.size() || word.size() - i > 18)
        return false;
    int64_t v = 0;
    for (size_t j = i; j < word.size(); ++j) {
        if (!std::isdigit(static_cast<unsigned char>(word[j])))
            return false;
        v = v * 10 + (word[j] - '0');
    }
    value = word[0] == '-' ? -v : v;
    return true;
}

/// Squid 5.7 crops refresh_pattern ages to [0, 1 year] (in minutes).
constexpr int64_t MaxRefreshMinutes = 60 * 24 * 365;

/// MIN or MAX of a refresh_pattern line: minutes, into seconds.
bool ParseRefreshAge(const DirectiveCall& call, const char* what, const std::string& word, int64_t& seconds)
{
    int64_t minutes = 0;
    if (!ParseInteger(word, minutes)) {
        call.error("bad refresh_pattern " + std::string(what) + " age '" + word +
                   "': use a whole number of minutes");
        return false;
    }
    if (minutes < 0) {
        call.warning("refresh_pattern " + std::string(what) + " age " + word +
                     " is negative: cropped back to 0, as Squid does");
        minutes = 0;
    } else if (minutes > MaxRefreshMinutes) {
        call.warning("refresh_pattern " + std::string(what) + " age " + word +
                     " minutes is too high: cropped back to 1 year (525600), as Squid does");
        minutes = MaxRefreshMinutes;
    }
    seconds = minutes * 60;
    return true;
}

} // namespace

/// `refresh_pattern [-i] REGEX MIN PERCENT MAX [OPTION...]`: the options
/// of Squid 5.7 (its USE_HTTP_VIOLATIONS ones included, as Debian builds
/// it). Unlike Squid, which logs them and goes on, an unknown option and
/// a bad regex are errors: a line that is silently half applied would
/// cache what the administrator meant not to.
void Config::Handlers::RefreshPatternHandler(DirectiveCall& call)
{
    const auto& w = call.line.words;
    RefreshPattern p;
    size_t i = 1;
    if (i < w.size() && (w[i] == "-i" || w[i] == "+i")) {
        p.caseInsensitive = w[i] == "-i";
        ++i;
    }
    if (w.size() < i + 4) {
        call.error("refresh_pattern needs [-i] REGEX MIN PERCENT MAX [OPTION...]");
        return;
    }
    p.pattern = w[i++];
    auto regex = std::make_shared<const Regex>(p.pattern, p.caseInsensitive);
    if (!regex->isValid()) {
        call.error("bad refresh_pattern regular expression '" + p.pattern + "': " + regex->error());
        return;
    }
    p.regex = std::move(regex);
    if (!ParseRefreshAge(call, "minimum", w[i++], p.min))
        return;
    // Squid's GetPercentage(false): one optional '%', no upper limit.
    std::string pct = w[i++];
    if (!pct.empty() && pct.back() == '%')
        pct.pop_back();
    if (!ParseInteger(pct, p.percent) || p.percent < 0 || p.percent > INT32_MAX) {
        call.error("bad refresh_pattern percent '" + w[i - 1] + "': use a whole percentage, 0% or more");
        return;
    }
    if (!ParseRefreshAge(call, "maximum", w[i++], p.max))
        return;
    const std::pair<const char*, bool RefreshPattern::*> flags[] = {
        {"override-expire", &RefreshPattern::overrideExpire},
        {"override-lastmod", &RefreshPattern::overrideLastmod},
        {"reload-into-ims", &RefreshPattern::reloadIntoIms},
        {"ignore-reload", &RefreshPattern::ignoreReload},
        {"ignore-no-store", &RefreshPattern::ignoreNoStore},
        {"ignore-private", &RefreshPattern::ignorePrivate},
        {"refresh-ims", &RefreshPattern::refreshIms},
        {"store-stale", &RefreshPattern::storeStale},
    };
    for (; i < w.size(); ++i) {
        const std::string& opt = w[i];
        bool known = false;
        for (const auto& [name, field] : flags) {
            if (opt == name) {
                p.*field = true;
                known = true;
            }
        }
        if (known)
            continue;
        if (opt.rfind("max-stale=", 0) == 0) {
            int64_t seconds = 0;
            if (!ParseInteger(opt.substr(10), seconds)) {
                call.error("bad refresh_pattern option '" + opt + "': max-stale takes whole seconds");
                return;
            }
            p.maxStale = seconds < 0 ? -1 : seconds; // Squid: negative means max_stale applies
        } else if (opt == "ignore-no-cache" || opt == "ignore-must-revalidate" || opt == "ignore-auth") {
            call.warning("refresh_pattern option '" + opt +
                         "' is obsolete (Squid 5.7 ignores it too); remove it");
        } else {
            call.error("unknown refresh_pattern option '" + opt + "'");
            return;
        }
    }
    p.origin = call.line.file + ":" + std::to_string(call.line.line);
    call.settings.refreshPatterns.push_back(std::move(p));
}

/// `lru | heap GDSF | heap LFUDA | heap LRU`, as Squid's createRemovalPolicy
/// reads them (`heap` alone is heap LRU, with a note, as in Squid).
void Config::Handlers::ParseReplacementPolicy(DirectiveCall& call, ReplacementPolicy& policy)
{
    if (!NeedArgs(call, 1))
        return;
    const auto& w = call.line.words;
    if (w[1] == "lru") {
        WarnExtra(call, 2);
        policy = ReplacementPolicy::Lru;
        return;
    }
    if (w[1] != "heap") {
        call.error("unknown " + w[0] + " '" + w[1] + "': use lru, heap GDSF, heap LFUDA or heap LRU");
        return;
    }
    if (w.size() < 3) {
        call.warning(w[0] + " heap names no key: using heap LRU, as Squid does");
        policy = ReplacementPolicy::HeapLru;
        return;
    }
    static const std::pair<const char*, ReplacementPolicy> keys[] = {{"GDSF", ReplacementPolicy::HeapGdsf},
                                                                     {"LFUDA", ReplacementPolicy::HeapLfuda},
                                                                     {"LRU", ReplacementPolicy::HeapLru}};
    for (const auto& [key, kind] : keys) {
        if (w[2] == key) {
            WarnExtra(call, 3);
            policy = kind;
            return;
        }
    }
    call.error("unknown " + w[0] + " heap key '" + w[2] + "': use GDSF, LFUDA or LRU");
}

namespace {

/// Squid's parseBytesLine64(): `none` and `-1` (-1: no limit) when
/// allowNone, a bare 0 (which takes no unit word in Squid), or SIZE, negative
/// when allowNone; advances pos. A number with no unit word after it is KB
/// when `kilobytes` (Squid's kb_int64_t), else bytes (both with a warning).
bool ParseSignedSize(const DirectiveCall& call, const std::vector<std::string>& w, size_t& pos,
                     int64_t& value, bool allowNone, bool kilobytes)
{
    const std::string& word = w[pos];
    if (allowNone && (word == "none" || word == "-1")) {
        value = -1;
        ++pos;
        return true;
    }
    if (!word.empty() && word.find_first_not_of('0') == std::string::npos) {
        value = 0;
        ++pos;
        if (pos < w.size() && Units::SizeUnit(w[pos]))
            ++pos; // "0 KB"
        return true;
    }
    std::vector<std::string> words(w.begin() + static_cast<std::ptrdiff_t>(pos), w.end());
    const bool negative = allowNone && word.size() > 1 && word[0] == '-';
    if (negative)
        words[0].erase(0, 1);
    const bool numeric = !words[0].empty() && words[0].find_first_not_of("0123456789.") == std::string::npos;
    if (kilobytes && words.size() == 1 && numeric) {
        call.warning("no unit on " + Name(call) + " '" + word + "', assuming KB, as Squid does");
        words.push_back("KB");
    }
    size_t p = 0;
    uint64_t bytes = 0;
    const auto r = Units::ParseSize(words, p, bytes);
    if (!r.ok || bytes > uint64_t(INT64_MAX)) {
        std::string why = r.ok ? "the size is too big" : r.why;
        if (!r.ok && !kilobytes && numeric && words.size() > 1 && !Units::SizeUnit(words[1]))
            why += "; a size followed by acls needs its unit, as in Squid";
        call.error("bad " + Name(call) + " value: " + why);
        return false;
    }
    if (!r.warning.empty())
        call.warning(Name(call) + ": " + r.warning);
    value = negative ? -static_cast<int64_t>(bytes) : static_cast<int64_t>(bytes);
    pos += p;
    return true;
}

} // namespace

/// quick_abort_min SIZE: a negative size ("-1 KB") means "always finish a
/// fetch that is being kept", as in Squid; a bare number is KB.
void Config::Handlers::QuickAbortMinHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    size_t pos = 1;
    int64_t value = 0;
    if (!ParseSignedSize(call, call.line.words, pos, value, true, true))
        return;
    if (value == -1 && pos < call.line.words.size() && Units::SizeUnit(call.line.words[pos]))
        ++pos; // "-1 KB"
    WarnExtra(call, pos);
    call.settings.quickAbortMin = value < 0 ? -1 : value;
}

/// quick_abort_max SIZE: a bare number is KB, as in Squid.
void Config::Handlers::QuickAbortMaxHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    size_t pos = 1;
    int64_t value = 0;
    if (!ParseSignedSize(call, call.line.words, pos, value, false, true))
        return;
    WarnExtra(call, pos);
    call.settings.quickAbortMax = static_cast<uint64_t>(value);
}

void Config::Handlers::MaxFiledescriptorsHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    int64_t value = 0;
    // at least enough for the listeners, the logs and a few connections
    if (!ParseInteger(call.line.words[1], value) || (value != 0 && value < 64) ||
        value > (int64_t(1) << 30)) {
        call.error("bad max_filedescriptors value '" + call.line.words[1] +
                   "': use 0 or a whole number from 64 to 1073741824");
        return;
    }
    WarnExtra(call, 2);
    call.settings.maxFiledescriptors = static_cast<uint64_t>(value);
}

void Config::Handlers::QuickAbortPctHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    int64_t value = 0;
    if (!ParseInteger(call.line.words[1], value) || value < 0 || value > 100) {
        call.error("bad quick_abort_pct value '" + call.line.words[1] +
                   "': use a whole number from 0 to 100");
        return;
    }
    WarnExtra(call, 2);
    call.settings.quickAbortPct = static_cast<unsigned>(value);
}

/// `NAME SIZE|none [[!]ACL...]` (range_offset_limit, reply_body_max_size):
/// lines accumulate and the first whose acls match applies (Squid's
/// acl_b_size_t); the acls read as one `allow ACL...` rule.
void Config::Handlers::SizeLimitHandler(DirectiveCall& call, std::vector<SizeLimit>& limits)
{
    if (!NeedArgs(call, 1))
        return;
    const auto& w = call.line.words;
    SizeLimit limit;
    size_t pos = 1;
    if (!ParseSignedSize(call, w, pos, limit.bytes, true, false))
        return;
    if (limit.bytes < 0)
        limit.bytes = -1;
    if (!ParseLineAcls(call, pos, limit))
        return;
    limits.push_back(std::move(limit));
}

void Config::Handlers::RangeOffsetLimitHandler(DirectiveCall& call)
{
    SizeLimitHandler(call, call.settings.rangeOffsetLimits);
}

void Config::Handlers::ReplyBodyMaxSizeHandler(DirectiveCall& call)
{
    SizeLimitHandler(call, call.settings.replyBodyMaxSizes);
}

/// `request_body_max_size SIZE`: Squid 5.7's b_int64_t, one size for every
/// request (0: no limit); words after it are ignored, as Squid ignores them.
void Config::Handlers::RequestBodyMaxSizeHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    size_t pos = 1;
    int64_t value = 0;
    if (!ParseSignedSize(call, call.line.words, pos, value, false, false))
        return;
    if (pos < call.line.words.size())
        call.warning("request_body_max_size takes no acls: ignoring '" + call.line.words[pos] +
                     "' and what follows; the limit applies to every request, as in Squid 5.7");
    call.settings.requestBodyMaxSize = static_cast<uint64_t>(value);
}

void Config::Handlers::WorkersHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    unsigned value = 0;
    if (!ParseCount(call.line.words[1], value) || value > Settings::MaxWorkers) {
        call.error("bad workers value '" + call.line.words[1] + "': use a count from 1 to " +
                   std::to_string(Settings::MaxWorkers));
        return;
    }
    WarnExtra(call, 2);
    if (value == 0) {
        call.warning("workers 0 is Squid's no-daemon mode: cuttle runs one worker (-N keeps it in the "
                     "foreground)");
        value = 1;
    }
    call.settings.workers = value;
}

namespace {

/// the numbers of a cpu_affinity_map list ("1,2,3"), each at least 1; false when one is not
bool ParseNumberList(const std::string& text, std::vector<unsigned>& numbers)
{
    size_t start = 0;
    while (start <= text.size()) {
        const auto comma = std::min(text.find(',', start), text.size());
        unsigned value = 0;
        if (!ParseCount(text.substr(start, comma - start), value) || value == 0)
            return false;
        numbers.push_back(value);
        start = comma + 1;
    }
    return !numbers.empty();
}

} // namespace

// Squid 5.7's CpuAffinityMap::parse(): both lists, of the same length
void Config::Handlers::CpuAffinityMapHandler(DirectiveCall& call)
{
    std::vector<unsigned> processes, cores;
    for (const auto& word : call.args()) {
        const auto eq = word.find('=');
        const auto key = word.substr(0, eq);
        auto* list = key == "process_numbers" ? &processes : key == "cores" ? &cores : nullptr;
        if (!list || eq == std::string::npos) {
            call.error("cpu_affinity_map: unknown option '" + word +
                       "': use process_numbers=P,... cores=C,...");
            return;
        }
        list->clear();
        if (!ParseNumberList(word.substr(eq + 1), *list)) {
            call.error("cpu_affinity_map: bad " + key + " list '" + word.substr(eq + 1) +
                       "': use numbers from 1, separated by commas");
            return;
        }
    }
    if (processes.empty() || cores.empty() || processes.size() != cores.size()) {
        call.error("cpu_affinity_map needs process_numbers= and cores= lists of the same length");
        return;
    }
    call.settings.cpuAffinity.clear();
    for (size_t i = 0; i < processes.size(); ++i)
        call.settings.cpuAffinity.emplace_back(processes[i], cores[i]);
}
