/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "config/Directives.h"
#include "config/Units.h"
#include "base/UserAccount.h"
#include "sbuf/BlockPool.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>

#ifndef CUTTLE_DEFAULT_LOG_DIR
#define CUTTLE_DEFAULT_LOG_DIR "/usr/local/var/log/cuttle"
#endif
#ifndef CUTTLE_DEFAULT_RUN_DIR
#define CUTTLE_DEFAULT_RUN_DIR "/usr/local/var/run"
#endif
#ifndef CUTTLE_DEFAULT_ERROR_DIR
#define CUTTLE_DEFAULT_ERROR_DIR "/usr/local/share/cuttle/errors/templates"
#endif

void Config::DirectiveCall::error(const std::string& reason) const
{
    diagnostics.push_back(Diagnostic{Diagnostic::Level::Error, line.file, line.line, reason});
}

void Config::DirectiveCall::warning(const std::string& reason) const
{
    diagnostics.push_back(Diagnostic{Diagnostic::Level::Warning, line.file, line.line, reason});
}

Config::Regex::Regex(const std::string& pattern, bool caseInsensitive)
{
    const int flags = REG_EXTENDED | REG_NOSUB | (caseInsensitive ? REG_ICASE : 0);
    const int code = regcomp(&compiled_, pattern.c_str(), flags);
    if (code == 0) {
        valid_ = true;
        return;
    }
    char text[256];
    regerror(code, &compiled_, text, sizeof(text));
    error_ = text;
}

Config::Regex::~Regex()
{
    if (valid_)
        regfree(&compiled_);
}

bool Config::Regex::matches(const std::string& text) const
{
    return valid_ && regexec(&compiled_, text.c_str(), 0, nullptr, 0) == 0;
}

namespace {

using namespace Config;

/// The block pool's size classes bound request_buffer_size (doc/design.md "The path of a body byte").
constexpr uint64_t MinBlock = Sbuf::BlockPool::MinBlockSize;
constexpr uint64_t MaxBlock = Sbuf::BlockPool::MaxBlockSize;

const std::string& Name(const DirectiveCall& call)
{
    return call.line.words[0];
}

/// Squid ignores words after a value; cuttle says so.
void WarnExtra(const DirectiveCall& call, size_t pos)
{
    if (pos < call.line.words.size())
        call.warning("ignoring extra words after the value of " + Name(call) + ": '" + call.line.words[pos] +
                     "'...");
}

bool NeedArgs(const DirectiveCall& call, size_t n)
{
    if (call.line.words.size() < n + 1) {
        call.error(Name(call) + " needs a value");
        return false;
    }
    return true;
}

/// A directive whose one value a Units parser reads into Settings::*Field:
/// sizes (Units::ParseSize) and times (Units::ParseDuration).
template <typename Value, Value Settings::*Field,
          Units::Result (*Parse)(const std::vector<std::string>&, size_t&, Value&)>
void UnitHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    size_t pos = 1;
    Value value{};
    const auto r = Parse(call.line.words, pos, value);
    if (!r.ok) {
        call.error("bad " + Name(call) + " value: " + r.why);
        return;
    }
    if (!r.warning.empty())
        call.warning(Name(call) + ": " + r.warning);
    WarnExtra(call, pos);
    call.settings.*Field = value;
}

template <uint64_t Settings::*Field>
void SizeHandler(DirectiveCall& call)
{
    UnitHandler<uint64_t, Field, Units::ParseSize>(call);
}

/// A size, or "auto" (left empty: the user of the setting works it out).
template <std::optional<uint64_t> Settings::*Field>
void SizeOrAutoHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    if (call.line.words[1] == "auto") {
        WarnExtra(call, 2);
        call.settings.*Field = std::nullopt;
        return;
    }
    uint64_t size = 0;
    size_t pos = 1;
    const auto r = Units::ParseSize(call.line.words, pos, size);
    if (!r.ok) {
        call.error("bad " + Name(call) + " value: " + r.why + " (a size, or auto)");
        return;
    }
    if (!r.warning.empty())
        call.warning(Name(call) + ": " + r.warning);
    WarnExtra(call, pos);
    call.settings.*Field = size;
}

template <Duration Settings::*Field>
void DurationHandler(DirectiveCall& call)
{
    UnitHandler<Duration, Field, Units::ParseDuration>(call);
}

/// Squid's parse_onoff(): on, off, and the deprecated enable/disable.
bool ParseOnOff(const DirectiveCall& call, const std::string& word, bool& value)
{
    if (word == "on" || word == "enable") {
        if (word == "enable")
            call.warning("'enable' is deprecated: write 'on'");
        value = true;
        return true;
    }
    if (word == "off" || word == "disable") {
        if (word == "disable")
            call.warning("'disable' is deprecated: write 'off'");
        value = false;
        return true;
    }
    call.error("bad " + Name(call) + " value '" + word + "': use on or off");
    return false;
}

template <bool Settings::*Field>
void OnOffHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    bool value = false;
    if (ParseOnOff(call, call.line.words[1], value)) {
        WarnExtra(call, 2);
        call.settings.*Field = value;
    }
}

template <std::string Settings::*Field>
void WordHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    WarnExtra(call, 2);
    call.settings.*Field = call.line.words[1];
}

/// A path; "none" is kept as is when the directive allows it. Relative
/// paths are made absolute against the start directory.
template <std::string Settings::*Field, bool AllowNone>
void PathHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    const std::string& word = call.line.words[1];
    WarnExtra(call, 2);
    if (word == "none") {
        if (!AllowNone) {
            call.error(Name(call) + " cannot be none");
            return;
        }
        call.settings.*Field = word;
        return;
    }
    call.settings.*Field = call.lexer.resolve(Lexer::Unquote(word));
}

bool ParsePort(const std::string& text, uint16_t& port)
{
    if (text.empty() || text.size() > 5)
        return false;
    unsigned long v = 0;
    for (char c : text) {
        if (!std::isdigit(static_cast<unsigned char>(c)))
            return false;
        v = v * 10 + static_cast<unsigned long>(c - '0');
    }
    if (v > 65535)
        return false;
    port = static_cast<uint16_t>(v);
    return true;
}

bool IsIpv4(const std::string& s)
{
    in_addr a{};
    return inet_pton(AF_INET, s.c_str(), &a) == 1;
}

bool IsIpv6(const std::string& s)
{
    in6_addr a{};
    return inet_pton(AF_INET6, s.c_str(), &a) == 1;
}

bool IsHostName(const std::string& s)
{
    if (s.empty() || s.size() > 253)
        return false;
    for (char c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.')
            return false;
    return true;
}

/// `[addr:]port` with IPv6 as `[::1]:3128`; false and `why` when bad.
bool ParseHostPort(const std::string& text, std::string& host, uint16_t& port, bool portRequired,
                   std::string& why)
{
    host.clear();
    std::string portText;
    if (!text.empty() && text[0] == '[') {
        const size_t close = text.find(']');
        if (close == std::string::npos) {
            why = "'" + text + "': missing ']' after the IPv6 address";
            return false;
        }
        host = text.substr(1, close - 1);
        if (!IsIpv6(host)) {
            why = "'" + host + "' is not an IPv6 address";
            return false;
        }
        if (close + 1 < text.size()) {
            if (text[close + 1] != ':') {
                why = "'" + text + "': expected ':PORT' after ']'";
                return false;
            }
            portText = text.substr(close + 2);
        }
    } else if (text.find(':') != text.rfind(':')) {
        why = "'" + text + "': write an IPv6 address in brackets, as [::1]:3128";
        return false;
    } else if (const size_t colon = text.find(':'); colon != std::string::npos) {
        host = text.substr(0, colon);
        portText = text.substr(colon + 1);
    } else if (portRequired || std::all_of(text.begin(), text.end(), [](char c) {
                   return std::isdigit(static_cast<unsigned char>(c));
               })) {
        portText = text;
    } else {
        host = text;
    }
    if (!host.empty() && text[0] != '[' && !IsIpv4(host) && !IsHostName(host)) {
        why = "'" + host + "' is not an address";
        return false;
    }
    if (portText.empty()) {
        if (portRequired) {
            why = "'" + text + "': a port is missing";
            return false;
        }
        return true;
    }
    if (!ParsePort(portText, port)) {
        why = "'" + portText + "' is not a port (0 to 65535)";
        return false;
    }
    return true;
}

// Squid 5.7 http_port options. Those that change what the port means for
// security are errors: ignoring them would turn the port into a plain
// forward-proxy port with different access-control facts.
const char* const PortSecurityOptions[] = {
    "ssl-bump", // skipping TLS inspection would bypass ssl_bump policy
    "accel",
    "vhost",
    "vport",
    "defaultsite",
    "require-proxy-header", // src acls would see the load balancer, not the client
};

const char* const PortOtherOptions[] = {"allow-direct",
                                        "act-as-origin",
                                        "ignore-cc",
                                        "no-vhost",
                                        "protocol",
                                        "connection-auth",
                                        "disable-pmtu-discovery",
                                        "name",
                                        "tcpkeepalive",
                                        "worker-queues",
                                        "ipv4",
                                        "tls-cert",
                                        "tls-key",
                                        "cert",
                                        "key",
                                        "cipher",
                                        "options",
                                        "tls-options",
                                        "clientca",
                                        "tls-cafile",
                                        "cafile",
                                        "capath",
                                        "crlfile",
                                        "dhparams",
                                        "tls-dh",
                                        "sslflags",
                                        "sslcontext",
                                        "tls-no-npn",
                                        "tls-min-version",
                                        "version",
                                        "generate-host-certificates",
                                        "dynamic_cert_mem_cache_size",
                                        "tls-default-ca",
                                        "tls-no-default-ca",
                                        "tls-crlfile",
                                        "tls-capath"};

void HttpPortHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    HttpPort p;
    std::string why;
    if (!ParseHostPort(call.line.words[1], p.host, p.port, true, why)) {
        call.error("bad http_port: " + why);
        return;
    }
    p.origin = call.line.file + ":" + std::to_string(call.line.line);
    bool ok = true;
    bool tproxy = false;
    for (size_t i = 2; i < call.line.words.size(); ++i) {
        const std::string& opt = call.line.words[i];
        const std::string key = opt.substr(0, opt.find('='));
        bool known = false;
        // Squid 5.7 takes `transparent` as `intercept`, silently; each
        // refuses the other interception mode (cache_cf.cc parse_port_option)
        if (opt == "intercept" || opt == "transparent") {
            if (tproxy) {
                call.error(
                    "http_port: Intercept mode requires its own interception port. It cannot be shared "
                    "with other modes.");
                ok = false;
            }
            p.intercept = true;
            continue;
        }
        if (opt == "tproxy") {
            tproxy = true;
            if (p.intercept)
                call.error("http_port: TPROXY option requires its own interception port. It cannot be shared "
                           "with other modes.");
            else
                call.error("http_port option 'tproxy' is not implemented by cuttle (it would need "
                           "IP_TRANSPARENT sockets and CAP_NET_ADMIN): refusing it");
            ok = false;
            continue;
        }
        for (const char* s : PortSecurityOptions) {
            if (key == s) {
                call.error("http_port option '" + opt +
                           "' is not implemented by cuttle and ignoring it would change the port's access "
                           "control: refusing it");
                ok = false;
                known = true;
            }
        }
        for (const char* s : PortOtherOptions) {
            if (!known && key == s) {
                call.warning("http_port option '" + opt + "' is not implemented by cuttle; ignoring it");
                known = true;
            }
        }
        if (!known) {
            call.error("unknown http_port option '" + opt + "'");
            ok = false;
        }
    }
    if (ok)
        call.settings.httpPorts.push_back(std::move(p));
}

void AclHandler(DirectiveCall& call)
{
    auto words = call.args();
    for (auto& w : words)
        if (Lexer::IsQuoted(w))
            w = "\"" + call.lexer.resolve(Lexer::Unquote(w)) + "\"";
    std::string why;
    switch (call.settings.acls.parse(words, why)) {
    case Acl::Registry::ParseOutcome::Ok:
        if (!why.empty()) // Registry.h: warnings Squid logs too
            call.warning("acl: " + why);
        break;
    case Acl::Registry::ParseOutcome::Unsupported:
        call.warning("acl: " + why + " (http_access lines that use it are errors)");
        break;
    case Acl::Registry::ParseOutcome::Error:
        call.error("bad acl: " + why);
        break;
    }
}

void HttpAccessHandler(DirectiveCall& call)
{
    std::string why;
    if (!call.settings.httpAccess.parse(call.args(), call.settings.acls, why))
        call.error("bad http_access: " + why);
    else if (!why.empty()) // AccessList.h: a warning, e.g. a rule with no acl is skipped
        call.warning("http_access: " + why);
}

/// Squid's parse_int() for a count: decimal digits only; cuttle refuses a
/// negative count, which Squid would take.
void LogfileRotateHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    const std::string& word = call.line.words[1];
    unsigned long value = 0;
    bool ok = !word.empty() && word.size() <= 9;
    for (const char c : word)
        ok = ok && std::isdigit(static_cast<unsigned char>(c));
    if (ok)
        value = std::stoul(word);
    if (!ok) {
        call.error("bad logfile_rotate value '" + word + "': use a count from 0 to 999999999");
        return;
    }
    WarnExtra(call, 2);
    call.settings.logfileRotate = static_cast<unsigned>(value);
}

bool ParseBufferSize(const std::string& what, const std::vector<std::string>& words, size_t& pos,
                     uint64_t& out, const DirectiveCall& call)
{
    const auto r = Units::ParseSize(words, pos, out);
    if (!r.ok) {
        call.error("bad request_buffer_size " + what + ": " + r.why);
        return false;
    }
    if (!r.warning.empty())
        call.warning("request_buffer_size " + what + ": " + r.warning);
    if (out < MinBlock || out > MaxBlock) {
        call.error("request_buffer_size " + what + " " + Units::FormatSize(out) +
                   " is outside the block pool's sizes (256 bytes to 4 MB)");
        return false;
    }
    return true;
}

void RequestBufferSizeHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    const auto& w = call.line.words;
    BufferSize b;
    if (w[1] != "auto") {
        size_t pos = 1;
        if (!ParseBufferSize("size", w, pos, b.fixed, call))
            return;
        WarnExtra(call, pos);
        b.min = b.max = b.fixed;
        call.settings.requestBufferSize = b;
        return;
    }
    b.isAuto = true;
    b.min = 16 * 1024;
    b.max = 1024 * 1024;
    for (size_t i = 2; i < w.size();) {
        const size_t eq = w[i].find('=');
        const std::string key = w[i].substr(0, eq);
        if (eq == std::string::npos || (key != "min" && key != "max")) {
            call.error("bad request_buffer_size option '" + w[i] + "': use min=SIZE and max=SIZE");
            return;
        }
        // "min=16 KB" (two words, as sizes are written) or "min=16KB"
        std::vector<std::string> value{w[i].substr(eq + 1)};
        std::string number, unit;
        size_t cut = 0;
        while (cut < value[0].size() &&
               (std::isdigit(static_cast<unsigned char>(value[0][cut])) || value[0][cut] == '.'))
            ++cut;
        if (cut > 0 && cut < value[0].size() && Units::SizeUnit(value[0].substr(cut)))
            value = {value[0].substr(0, cut), value[0].substr(cut)};
        else if (i + 1 < w.size() && Units::SizeUnit(w[i + 1])) {
            value.push_back(w[i + 1]);
            ++i;
        }
        ++i;
        size_t pos = 0;
        uint64_t size = 0;
        if (!ParseBufferSize(key, value, pos, size, call))
            return;
        (key == "min" ? b.min : b.max) = size;
    }
    if (b.min > b.max) {
        call.error("request_buffer_size: min (" + Units::FormatSize(b.min) + ") is above max (" +
                   Units::FormatSize(b.max) + ")");
        return;
    }
    call.settings.requestBufferSize = b;
}

void AccessLogHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    const auto& w = call.line.words;
    AccessLogSpec spec;
    const std::string& place = w[1];
    if (place == "none") {
        WarnExtra(call, 2);
        call.settings.accessLogs.clear();
        return;
    }
    std::string path;
    if (place.rfind("stdio:", 0) == 0) {
        spec.kind = AccessLogSpec::Kind::Stdio;
        path = place.substr(6);
    } else if (place.rfind("daemon:", 0) == 0) {
        spec.kind = AccessLogSpec::Kind::Daemon;
        path = place.substr(7);
    } else if (place.rfind("syslog", 0) == 0 || place.rfind("udp:", 0) == 0 || place.rfind("tcp:", 0) == 0) {
        call.warning("access_log module '" + place.substr(0, place.find(':')) +
                     "' is not implemented by cuttle; ignoring this log");
        return;
    } else if (place.find(':') != std::string::npos && place[0] != '/') {
        call.error("unknown access_log module in '" + place + "' (use stdio:PATH, daemon:PATH or none)");
        return;
    } else {
        spec.kind = AccessLogSpec::Kind::Stdio; // Squid: a bare path is a stdio log
        path = place;
    }
    if (path.empty()) {
        call.error("access_log '" + place + "' names no file");
        return;
    }
    spec.path = call.lexer.resolve(path);
    std::vector<std::string> acls;
    bool formatGiven = false;
    for (size_t i = 2; i < w.size(); ++i) {
        const size_t eq = w[i].find('=');
        if (eq != std::string::npos) {
            const std::string key = w[i].substr(0, eq);
            if (key == "logformat") {
                spec.format = w[i].substr(eq + 1);
                formatGiven = true;
            } else if (key == "buffer-size" || key == "on-error" || key == "rotate") {
                call.warning("access_log option '" + w[i] + "' is not implemented by cuttle; ignoring it");
            } else {
                call.error("unknown access_log option '" + w[i] + "'");
                return;
            }
        } else if (!formatGiven) {
            spec.format = w[i]; // Squid's legacy syntax: PLACE [FORMAT [acl...]]
            formatGiven = true;
        } else {
            acls.push_back(w[i]);
        }
    }
    if (spec.format != "squid" && spec.format != "common" && spec.format != "combined") {
        static const std::set<std::string> squidBuiltIn = {"referrer", "useragent", "icap_squid"};
        call.error(squidBuiltIn.count(spec.format)
                       ? "access_log format '" + spec.format +
                             "' is Squid's but not implemented by cuttle (use squid, common or combined)"
                       : "unknown access_log format '" + spec.format +
                             "' (cuttle knows squid, common and combined)");
        return;
    }
    for (const auto& a : acls) {
        const std::string name = a[0] == '!' ? a.substr(1) : a;
        if (!call.settings.acls.find(name)) {
            call.error("access_log names the undefined acl '" + name + "'");
            return;
        }
    }
    if (!acls.empty())
        call.warning(
            "access_log acls are not implemented by cuttle: this log gets every request, not only the "
            "ones its acls select");
    call.settings.accessLogs.push_back(std::move(spec));
}

bool ParseDebugLevel(const std::string& word, std::string& why)
{
    const size_t comma = word.find(',');
    if (comma == std::string::npos) {
        why = "'" + word + "' is not SECTION,LEVEL";
        return false;
    }
    const std::string section = word.substr(0, comma);
    const std::string level = word.substr(comma + 1);
    if (section != "ALL") {
        if (section.empty() || section.size() > 2 || !std::all_of(section.begin(), section.end(), [](char c) {
                return std::isdigit(static_cast<unsigned char>(c));
            })) {
            why = "'" + section + "' is not ALL or a section number (0 to 99)";
            return false;
        }
    }
    if (level.size() != 1 || !std::isdigit(static_cast<unsigned char>(level[0]))) {
        why = "'" + level + "' is not a debug level (0 to 9)";
        return false;
    }
    return true;
}

void DebugOptionsHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    std::string value;
    for (size_t i = 1; i < call.line.words.size(); ++i) {
        const std::string& word = call.line.words[i];
        std::string why;
        if (word.rfind("rotate=", 0) == 0) {
            const std::string n = word.substr(7);
            if (n.empty() || n.size() > 4 || !std::all_of(n.begin(), n.end(), [](char c) {
                    return std::isdigit(static_cast<unsigned char>(c));
                })) {
                call.error("bad debug_options rotate count '" + n + "'");
                return;
            }
        } else if (!ParseDebugLevel(word, why)) {
            call.error("bad debug_options: " + why);
            return;
        }
        value += (value.empty() ? "" : " ") + word;
    }
    call.settings.debugOptions = value;
}

void ForwardedForHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    static const std::pair<const char*, ForwardedFor> values[] = {{"on", ForwardedFor::On},
                                                                  {"off", ForwardedFor::Off},
                                                                  {"transparent", ForwardedFor::Transparent},
                                                                  {"truncate", ForwardedFor::Truncate},
                                                                  {"delete", ForwardedFor::Delete}};
    for (const auto& [name, value] : values) {
        if (call.line.words[1] == name) {
            WarnExtra(call, 2);
            call.settings.forwardedFor = value;
            return;
        }
    }
    call.error("bad forwarded_for value '" + call.line.words[1] +
               "': use on, off, transparent, truncate or delete");
}

void DnsNameserversHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    std::vector<std::string> values;
    for (size_t i = 1; i < call.line.words.size(); ++i) {
        const std::string& w = call.line.words[i];
        if (Lexer::IsQuoted(w)) {
            if (!call.lexer.readValuesFile(w, call.line, values))
                return;
        } else {
            values.push_back(w);
        }
    }
    std::vector<std::string> good;
    for (const auto& v : values) {
        std::string host, why;
        uint16_t port = 0;
        if (IsIpv6(v)) {
            good.push_back(v);
            continue;
        }
        if (!ParseHostPort(v, host, port, false, why) || host.empty() || (!IsIpv4(host) && !IsIpv6(host))) {
            call.error("bad dns_nameservers address '" + v + "': use IP, IP:PORT or [IPv6]:PORT");
            return;
        }
        good.push_back(v);
    }
    for (auto& g : good)
        call.settings.dnsNameservers.push_back(std::move(g));
}

void CacheEffectiveUserHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    WarnExtra(call, 2);
    // Squid 5.7 checks the user at configure time too (getpwnam); a missing
    // user or root fails here rather than at the drop, so -k parse says so
    std::string why;
    const auto user = UserAccount::Find(call.line.words[1], why);
    if (!user) {
        call.error("cache_effective_user: " + why);
        return;
    }
    if (user->uid == 0) {
        call.error("cache_effective_user " + user->name +
                   " is root (user id 0): cuttle does not serve as root; name an unprivileged user");
        return;
    }
    call.settings.cacheEffectiveUser = user->name;
}

void CacheEffectiveGroupHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    WarnExtra(call, 2);
    std::string why;
    if (!UserAccount::FindGroup(call.line.words[1], why)) {
        call.error("cache_effective_group: " + why);
        return;
    }
    call.settings.cacheEffectiveGroup = call.line.words[1];
}

void VisibleHostnameHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    if (!IsHostName(call.line.words[1])) {
        call.error("bad visible_hostname '" + call.line.words[1] + "'");
        return;
    }
    WarnExtra(call, 2);
    call.settings.visibleHostname = call.line.words[1];
}

// The cache's directives (Squid 5.7's syntax and meaning).

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

/// `refresh_pattern [-i] REGEX MIN PERCENT MAX [OPTION...]`: the options
/// of Squid 5.7 (its USE_HTTP_VIOLATIONS ones included, as Debian builds
/// it). Unlike Squid, which logs them and goes on, an unknown option and
/// a bad regex are errors: a line that is silently half applied would
/// cache what the administrator meant not to.
void RefreshPatternHandler(DirectiveCall& call)
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
void MemoryReplacementPolicyHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    const auto& w = call.line.words;
    if (w[1] == "lru") {
        WarnExtra(call, 2);
        call.settings.memoryReplacementPolicy = ReplacementPolicy::Lru;
        return;
    }
    if (w[1] != "heap") {
        call.error("unknown memory_replacement_policy '" + w[1] +
                   "': use lru, heap GDSF, heap LFUDA or heap LRU");
        return;
    }
    if (w.size() < 3) {
        call.warning("memory_replacement_policy heap names no key: using heap LRU, as Squid does");
        call.settings.memoryReplacementPolicy = ReplacementPolicy::HeapLru;
        return;
    }
    static const std::pair<const char*, ReplacementPolicy> keys[] = {{"GDSF", ReplacementPolicy::HeapGdsf},
                                                                     {"LFUDA", ReplacementPolicy::HeapLfuda},
                                                                     {"LRU", ReplacementPolicy::HeapLru}};
    for (const auto& [key, policy] : keys) {
        if (w[2] == key) {
            WarnExtra(call, 3);
            call.settings.memoryReplacementPolicy = policy;
            return;
        }
    }
    call.error("unknown memory_replacement_policy heap key '" + w[2] + "': use GDSF, LFUDA or LRU");
}

/// `cache allow|deny ACL...`: parsed exactly as http_access is, so an
/// undefined or unimplemented acl is an error (fail closed).
void CacheHandler(DirectiveCall& call)
{
    std::string why;
    if (!call.settings.cacheAccess.parse(call.args(), call.settings.acls, why))
        call.error("bad cache: " + why);
    else if (!why.empty())
        call.warning("cache: " + why);
}

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
        if (!r.ok && Name(call) == "range_offset_limit" && numeric && words.size() > 1 &&
            !Units::SizeUnit(words[1]))
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

/// quick_abort_min SIZE: a negative size ("-1 KB") means "always finish a
/// fetch that is being kept", as in Squid; a bare number is KB.
void QuickAbortMinHandler(DirectiveCall& call)
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
void QuickAbortMaxHandler(DirectiveCall& call)
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

void MaxFiledescriptorsHandler(DirectiveCall& call)
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

void QuickAbortPctHandler(DirectiveCall& call)
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

/// `range_offset_limit SIZE|none [[!]ACL...]`: lines accumulate and the
/// first whose acls match applies (Squid's acl_b_size_t).
void RangeOffsetLimitHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    const auto& w = call.line.words;
    RangeOffsetLimit limit;
    size_t pos = 1;
    if (!ParseSignedSize(call, w, pos, limit.bytes, true, false))
        return;
    if (limit.bytes < 0)
        limit.bytes = -1;
    if (pos < w.size()) {
        std::vector<std::string> rule{"allow"};
        rule.insert(rule.end(), w.begin() + static_cast<std::ptrdiff_t>(pos), w.end());
        std::string why;
        if (!limit.acls.parse(rule, call.settings.acls, why)) {
            call.error("bad range_offset_limit: " + why);
            return;
        }
    }
    call.settings.rangeOffsetLimits.push_back(std::move(limit));
}

#define LOG_DIR_SHOWN "$(localstatedir)/log/cuttle"
#define RUN_DIR_SHOWN "$(runstatedir)"
#define ERROR_DIR_SHOWN "$(pkgdatadir)/errors/templates"

const std::vector<Directive> Table = {
    {"http_port", "[ADDRESS:]PORT [OPTION...]", nullptr, nullptr, "httpPorts",
     "Listens for proxy requests on PORT, on every address or on ADDRESS only (an IPv4 address, a host name, "
     "or "
     "an IPv6 address in brackets: [::1]:3128). Port 0 binds a free port, which cache.log names. Several "
     "lines "
     "open several ports. `intercept` (or Squid's older spelling `transparent`) makes it a port for "
     "connections that iptables REDIRECT or DNAT sent to cuttle: each connection's original destination is "
     "read with SO_ORIGINAL_DST, requests come in origin-form and their URL is built from Host, the Host is "
     "verified against the original destination (host_verify_strict), and requests are forwarded to the "
     "original destination address (logged ORIGINAL_DST); a connection without NAT state is closed. Squid's "
     "other options after the address are accepted with a warning and ignored, except those that change "
     "what the port means for access control (ssl-bump, tproxy, accel, vhost, vport, defaultsite, "
     "require-proxy-header), which are errors. With no http_port line cuttle listens nowhere.",
     HttpPortHandler, true},
    {"acl", "NAME TYPE [-FLAG...] VALUE... | NAME TYPE \"FILE\"", nullptr, nullptr, "acls",
     "Defines a named access list of one type (src, dst, port, method, dstdomain, ...); more lines with the "
     "same "
     "name add values. Names ignore case, as in Squid (Foo and foo are one acl). A method value is read as "
     "Squid reads it: `get` is GET (with a warning). A quoted \"FILE\" value names a file whose lines are "
     "values; a relative file name is "
     "resolved against the directory cuttle starts in. Squid's predefined acls all, localhost, to_localhost, "
     "to_linklocal, manager and CONNECT exist already. An acl type that cuttle does not implement is a "
     "warning "
     "here, and any http_access line that uses it is an error.",
     AclHandler, true},
    {"http_access", "allow|deny [!]ACL...", nullptr, "deny all", "httpAccess",
     "Allows or denies a request when every acl named on the line matches (a ! negates one); the first "
     "matching "
     "line decides. When no line matches, the answer is the opposite of the last line's; with no lines at "
     "all, "
     "every request is denied. A line that names an undefined acl or one of a type cuttle does not implement "
     "is "
     "an error: a rule is never dropped silently.",
     HttpAccessHandler, true},
    {"cache_mem", "SIZE", "256 MB", nullptr, "cacheMem",
     "The memory that cached objects may use, in bytes, KB, MB or GB (two words, as `256 MB`). In-transit "
     "objects are counted too while they are being kept.",
     SizeHandler<&Settings::cacheMem>, false},
    {"shared_memory_locking", "on|off", "off", nullptr, "sharedMemoryLocking",
     "Whether the memory for cache_mem is taken, populated and locked in RAM (mlock) when cuttle starts, as "
     "Squid does with its shared memory: RSS is cache_mem from the start, and an object being stored is read "
     "into pages that are already there, so a large miss that is kept runs as fast as one that is not (fresh "
     "pages cost a fault and a zeroing each, and on a virtual machine often a fault in the host). Locking "
     "needs a large enough RLIMIT_MEMLOCK (LimitMEMLOCK= in a systemd unit) or CAP_IPC_LOCK; when it fails "
     "cuttle does not start. A change takes effect at the next start. Off, as in Squid, takes memory as "
     "objects arrive.",
     OnOffHandler<&Settings::sharedMemoryLocking>, false},
    {"memory_populate_ahead", "auto|SIZE", "auto", nullptr, "memoryPopulateAhead",
     "cuttle's own: how much memory a helper thread keeps mapped and populated ahead of need, so that a "
     "large object being kept is read into pages that are already there (a fresh page costs a fault and a "
     "zeroing, and on a virtual machine often a fault in the host: a 512 MiB object kept into fresh pages "
     "arrived at 0.80x the rate of one not kept). The helper makes pages only while the proxy is quiet "
     "(right after start, and once no ready memory has been taken for a quarter of a second), at idle "
     "priority, never racing a transfer for the CPU; the memory it holds and what the "
     "cache holds together stay within cache_mem. auto is maximum_object_size_in_memory (at most "
     "cache_mem) in whole 4 MB chunks, so that one object of the largest size kept arrives into ready "
     "pages; with the default 512 KB that is none, and no thread. 0 turns it off; with "
     "shared_memory_locking on it is off too, as cache_mem was populated at start. Takes effect at once on "
     "a reconfigure.",
     SizeOrAutoHandler<&Settings::memoryPopulateAhead>, false},
    {"maximum_object_size_in_memory", "SIZE", "512 KB", nullptr, "maximumObjectSizeInMemory",
     "Objects larger than this are not kept in the memory cache; their bodies are released as soon as every "
     "client has been sent them.",
     SizeHandler<&Settings::maximumObjectSizeInMemory>, false},
    {"minimum_object_size", "SIZE", "0 KB", nullptr, "minimumObjectSize",
     "Responses with a body smaller than this are not kept in the cache; 0 keeps responses of any size, "
     "empty ones included.",
     SizeHandler<&Settings::minimumObjectSize>, false},
    {"memory_replacement_policy", "lru|heap GDSF|heap LFUDA|heap LRU", "lru", nullptr,
     "memoryReplacementPolicy",
     "Which objects the memory cache evicts first when cache_mem is full: lru, the least recently used; heap "
     "GDSF (Greedy-Dual Size Frequency), which keeps small popular objects for a better hit rate; heap LFUDA "
     "(Least Frequently Used with Dynamic Aging), which keeps popular objects whatever their size for a "
     "better "
     "byte hit rate; heap LRU, least recently used kept in a heap. `heap` alone is heap LRU, with a warning, "
     "as in Squid; the key names are case-sensitive.",
     MemoryReplacementPolicyHandler, false},
    {"cache", "allow|deny [!]ACL...", nullptr, nullptr, "cacheAccess",
     "Requests that these rules deny are neither answered from the cache nor stored in it; other "
     "transactions and objects already cached are not affected. The rules read as http_access rules do: the "
     "first line whose acls all match decides, and when none does the answer is the opposite of the last "
     "line's. With no cache line at all everything may be cached. A line that names an undefined acl or one "
     "of a type cuttle does not implement is an error.",
     CacheHandler, true},
    {"refresh_pattern", "[-i] REGEX MIN PERCENT MAX [OPTION...]", nullptr, nullptr, "refreshPatterns",
     "How long a response without explicit freshness (no max-age, s-maxage or Expires) stays fresh, for "
     "URLs that the POSIX extended regular expression REGEX matches (-i: ignoring case). The lines are "
     "tried in order and the first match applies; when none matches, cuttle uses Squid's built-in rule, "
     "`0 20% 4320`. MIN and MAX are minutes (cropped to 0 .. 525600, with a warning, as in Squid); PERCENT "
     "(the % is optional) may exceed 100. A response with Last-Modified is fresh for PERCENT of the time "
     "between Last-Modified and its Date, at most MAX; one without is fresh for MIN (at most MAX). As RFC "
     "9111 "
     "says, and unlike Squid, this heuristic applies only to status codes that allow it (200, 203, 204, 300, "
     "301, 308, 404, 405, 410, 414, 501) and to responses marked public. Squid's "
     "options: override-expire (MIN also applies to responses with an explicit expiry), override-lastmod "
     "(MIN also applies when Last-Modified says less), reload-into-ims (a client reload becomes a "
     "validation), ignore-reload (a client reload is served from the cache), ignore-no-store and "
     "ignore-private (the response's no-store or private is ignored), refresh-ims (a client "
     "If-Modified-Since is sent to the origin), store-stale (keep responses that are stale or cannot be "
     "validated), max-stale=SECONDS (overrides max_stale). The override and ignore options violate HTTP. A "
     "bad regex, a bad number and an unknown option are errors; Squid's obsolete ignore-no-cache, "
     "ignore-must-revalidate and ignore-auth get a warning. squid.conf.default has Squid's four usual lines.",
     RefreshPatternHandler, true},
    {"max_stale", "TIME", "1 week", nullptr, "maxStale",
     "How stale a cached response may be and still be served when its validation fails (the origin cannot "
     "be reached or answers with an error). A refresh_pattern max-stale=N option overrides it.",
     DurationHandler<&Settings::maxStale>, false},
    {"negative_ttl", "TIME", "0 seconds", nullptr, "negativeTtl",
     "How long error responses that Squid caches negatively (such as 404 Not Found) without an explicit "
     "expiry stay fresh. 0, Squid 5.7's default, gives them no freshness; more violates HTTP.",
     DurationHandler<&Settings::negativeTtl>, false},
    {"collapsed_forwarding", "on|off", "off", nullptr, "collapsedForwarding",
     "Whether concurrent requests for the same cachable URL share one origin fetch while it is in flight "
     "(a late request joins only while the start of the body is still held), and concurrent requests that "
     "find the same stale object share one revalidation (logged TCP_CF_REFRESH_*). Off, as in Squid, "
     "forwards each request on its own.",
     OnOffHandler<&Settings::collapsedForwarding>, false},
    {"quick_abort_min", "SIZE", "16 KB", nullptr, "quickAbortMin",
     "When every client of a fetch that is being cached has gone, the fetch goes on if less than this is "
     "left to read. A negative size (-1 KB) always finishes such fetches. A number without a unit is KB, as "
     "in Squid.",
     QuickAbortMinHandler, false},
    {"quick_abort_max", "SIZE", "16 KB", nullptr, "quickAbortMax",
     "When every client of a fetch that is being cached has gone, the fetch is abandoned if more than this "
     "is left to read (unless quick_abort_min says to go on). Setting both quick_abort_min and "
     "quick_abort_max to 0 KB abandons every such fetch. A number without a unit is KB, as in Squid.",
     QuickAbortMaxHandler, false},
    {"quick_abort_pct", "PERCENT", "95", nullptr, "quickAbortPct",
     "When every client of a fetch that is being cached has gone and neither quick_abort_min nor "
     "quick_abort_max decided, the fetch goes on if more than this percentage (0 to 100) of it has been "
     "read.",
     QuickAbortPctHandler, false},
    {"range_offset_limit", "SIZE|none [[!]ACL...]", "0", nullptr, "rangeOffsetLimits",
     "How far into an object a Range request may start for cuttle to fetch the whole object (and so be able "
     "to cache it); a Range that starts further is forwarded as it is and its answer is not cached. 0 never "
     "fetches more than the client asked for; none (or -1) always fetches the whole object, whatever "
     "quick_abort says. Several lines may be given, each with acls after the size (the size then needs its "
     "unit, as in Squid); the first line whose acls all match applies, and 0 when none does.",
     RangeOffsetLimitHandler, true},
    {"read_ahead_gap", "SIZE", "16 KB", nullptr, "readAheadGap",
     "How far the origin side may read ahead of the slowest client of an object before it stops reading and "
     "waits. The default is Squid's value, kept because the benchmark's sweep (doc/tuning.md) found no gain "
     "from a larger gap with cuttle's reads of up to 1 MB (the kernel's socket buffers already overlap "
     "reading and writing), and a small gap keeps a slow client of a large object cheap: it holds at most "
     "the gap plus two read blocks.",
     SizeHandler<&Settings::readAheadGap>, false},
    {"request_buffer_size", "SIZE | auto [min=SIZE] [max=SIZE]", "auto min=16 KB max=1 MB", nullptr,
     "requestBufferSize",
     "The size of one read block (cuttle's; it replaces Squid's compile-time HTTP_REQBUF_SZ). A fixed SIZE, "
     "or "
     "`auto`, which adapts each connection's read size between min and max from how full its reads come "
     "back. "
     "Sizes must lie within the block pool's sizes, 256 bytes to 4 MB, and min may not exceed max. The "
     "default was chosen by the benchmark (doc/tuning.md): a bulk transfer grows to 1 MB reads and moves a "
     "GB in about 5,000 system calls, while a connection with small replies keeps 16 KB blocks.",
     RequestBufferSizeHandler, false},
    {"request_header_max_size", "SIZE", "64 KB", nullptr, "requestHeaderMaxSize",
     "The largest request header section accepted; a larger one is answered with an error.",
     SizeHandler<&Settings::requestHeaderMaxSize>, false},
    {"reply_header_max_size", "SIZE", "64 KB", nullptr, "replyHeaderMaxSize",
     "The largest reply header section accepted from an origin; a larger one makes the reply an error.",
     SizeHandler<&Settings::replyHeaderMaxSize>, false},
    {"access_log", "stdio:PATH|daemon:PATH|none [FORMAT]",
     "stdio:" CUTTLE_DEFAULT_LOG_DIR "/access.log squid", "stdio:" LOG_DIR_SHOWN "/access.log squid",
     "accessLogs",
     "Writes one line per transaction to PATH in FORMAT (squid, the default, common or combined; "
     "`logformat=NAME` works "
     "too). Several lines write several logs; `none` turns logging off. An unknown format is an error. "
     "Squid's "
     "acls after the format are accepted with a warning and the log then gets every request. A relative PATH "
     "is "
     "resolved against the directory cuttle starts in.",
     AccessLogHandler, true},
    {"cache_log", "PATH", CUTTLE_DEFAULT_LOG_DIR "/cache.log", LOG_DIR_SHOWN "/cache.log", "cacheLog",
     "Where cuttle writes its own messages (start-up, warnings, errors). A relative PATH is resolved against "
     "the "
     "directory cuttle starts in.",
     PathHandler<&Settings::cacheLog, false>, false},
    {"pid_filename", "PATH|none", CUTTLE_DEFAULT_RUN_DIR "/cuttle.pid", RUN_DIR_SHOWN "/cuttle.pid",
     "pidFilename",
     "The file that holds the running cuttle's process id, which `cuttle -k` uses to signal it; none writes "
     "no "
     "pid file. A relative PATH is resolved against the directory cuttle starts in.",
     PathHandler<&Settings::pidFilename, true>, false},
    {"debug_options", "ALL,LEVEL|SECTION,LEVEL... [rotate=N]", "ALL,1", nullptr, "debugOptions",
     "How much cache.log says: ALL,LEVEL sets every section, SECTION,LEVEL (0 to 99, levels 0 to 9) one "
     "section, "
     "later pairs override earlier ones. rotate=N keeps N old cache.log files on rotation.",
     DebugOptionsHandler, false},
    {"logfile_rotate", "COUNT", "10", nullptr, "logfileRotate",
     "How many old copies of each log `cuttle -k rotate` keeps: access.log becomes access.log.0, the "
     "previous access.log.0 becomes access.log.1, and so on up to COUNT-1; 0 renames nothing and only "
     "reopens the logs, for an external logrotate (Debian's Squid package sets 0 in "
     "/etc/squid/conf.d/debian.conf). cache.log uses debug_options rotate=N instead when that is given.",
     LogfileRotateHandler, false},
    {"visible_hostname", "HOSTNAME", nullptr, nullptr, "visibleHostname",
     "The host name that error pages and Via headers show. Without it cuttle uses the system's host name.",
     VisibleHostnameHandler, false},
    {"via", "on|off", "on", nullptr, "via",
     "Whether cuttle adds a Via header to requests and replies it forwards (RFC 9110 section 7.6.3).",
     OnOffHandler<&Settings::via>, false},
    {"strip_query_terms", "on|off", "on", nullptr, "stripQueryTerms",
     "Whether access.log shows URLs without their query terms (everything after the `?`), as Squid does by "
     "default, so that passwords and session ids in query strings do not reach the log.",
     OnOffHandler<&Settings::stripQueryTerms>, false},
    {"host_verify_strict", "on|off", "off", nullptr, "hostVerifyStrict",
     "How a request whose Host header fails verification is answered, as in Squid 5.7. On an intercept port "
     "the Host must resolve to the connection's original destination address and name its port, if any; "
     "with off a request that fails is still forwarded to the original destination but neither served from "
     "nor stored in the cache (a CONNECT gets 409). With on it gets 409 Conflict (ERR_CONFLICT_HOST). An "
     "absolute-form request is verified by its URL's host and port instead of Host; a request without Host "
     "is not verified, so it is forwarded but not cached. Forward proxy ports check nothing: as in Squid, "
     "the URL's authority stands for Host there.",
     OnOffHandler<&Settings::hostVerifyStrict>, false},
    {"forwarded_for", "on|off|transparent|truncate|delete", "on", nullptr, "forwardedFor",
     "What cuttle does with X-Forwarded-For: on appends the client address, off appends `unknown`, "
     "transparent "
     "leaves the header alone, truncate replaces it with the client address, delete removes it.",
     ForwardedForHandler, false},
    {"connect_timeout", "TIME", "1 minute", nullptr, "connectTimeout",
     "How long cuttle waits for a TCP connection to an origin to open.",
     DurationHandler<&Settings::connectTimeout>, false},
    {"read_timeout", "TIME", "15 minutes", nullptr, "readTimeout",
     "How long an origin connection may stay silent while a reply is awaited or being read before cuttle "
     "gives "
     "up on it.",
     DurationHandler<&Settings::readTimeout>, false},
    {"request_timeout", "TIME", "5 minutes", nullptr, "requestTimeout",
     "How long cuttle waits for a complete request header section after a client connected or its previous "
     "request ended.",
     DurationHandler<&Settings::requestTimeout>, false},
    {"client_idle_pconn_timeout", "TIME", "2 minutes", nullptr, "clientIdlePconnTimeout",
     "How long an idle persistent client connection is kept open between requests.",
     DurationHandler<&Settings::clientIdlePconnTimeout>, false},
    {"server_idle_pconn_timeout", "TIME", "1 minute", nullptr, "serverIdlePconnTimeout",
     "How long an idle persistent origin connection is kept in the pool for reuse.",
     DurationHandler<&Settings::serverIdlePconnTimeout>, false},
    {"dns_nameservers", "IP[:PORT]|[IPv6]:PORT...", nullptr, nullptr, "dnsNameservers",
     "The DNS servers to ask instead of those of /etc/resolv.conf. A port after the address (IP:PORT, "
     "[::1]:PORT) is a cuttle extension, used by the tests' DNS server. Several lines add servers.",
     DnsNameserversHandler, true},
    {"dns_timeout", "TIME", "30 seconds", nullptr, "dnsTimeout",
     "How long a DNS lookup may take, every try of every server included, before the request gets "
     "ERR_DNS_FAIL.",
     DurationHandler<&Settings::dnsTimeout>, false},
    {"max_filedescriptors", "NUMBER", "0", nullptr, "maxFiledescriptors",
     "How many descriptors cuttle may hold: the soft limit is set to this at start, and the hard "
     "limit raised to it when cuttle starts as root. 0 keeps the limit cuttle was started with (ulimit "
     "-n, or LimitNOFILE= in the systemd unit). Read at start only: a reconfigure does not change it. "
     "cache.log says how many are available.",
     MaxFiledescriptorsHandler, false},
    {"hosts_file", "PATH|none", "/etc/hosts", nullptr, "hostsFile",
     "A hosts file whose names are resolved without DNS; none reads no file.",
     PathHandler<&Settings::hostsFile, true>, false},
    {"shutdown_lifetime", "TIME", "30 seconds", nullptr, "shutdownLifetime",
     "On shutdown, how long cuttle lets transactions in progress finish after it stops accepting new ones.",
     DurationHandler<&Settings::shutdownLifetime>, false},
    {"coredump_dir", "PATH|none", "none", nullptr, "coredumpDir",
     "The directory cuttle moves to after start-up, so that core dumps land there; none stays in the start "
     "directory.",
     PathHandler<&Settings::coredumpDir, true>, false},
    {"cache_effective_user", "USER", "proxy", nullptr, "cacheEffectiveUser",
     "The user that cuttle serves as when started by root (Debian's Squid default). Once its ports are "
     "bound, "
     "its logs open and its pid file written, cuttle sets its groups, group and user (real, effective and "
     "saved) to this user's and keeps only the capability CAP_NET_BIND_SERVICE (so that a reconfigure can "
     "bind a port below 1024); the log files, the pid file and the directories it created for them become "
     "this user's, so that -k rotate and shutdown can rename and remove them. A user that does not exist, or "
     "root, is an error (-k parse reports it). Started by another user, cuttle stays that user and says so "
     "in cache.log.",
     CacheEffectiveUserHandler, false},
    {"cache_effective_group", "GROUP|GID", nullptr, nullptr, "cacheEffectiveGroup",
     "The only group cuttle serves with when started by root, by name or number, instead of the primary "
     "group "
     "and group memberships of cache_effective_user (as in Squid, which does not recommend it); unset, those "
     "are used. A group that does not exist is an error.",
     CacheEffectiveGroupHandler, false},
    {"error_directory", "PATH", CUTTLE_DEFAULT_ERROR_DIR, ERROR_DIR_SHOWN, "errorDirectory",
     "The directory of the error page templates (Squid's ERR_* files).",
     PathHandler<&Settings::errorDirectory, false>, false},
};

struct Loosening {
    const char* name;
    const char* why;
};

// Ignoring any of these could let through a request that Squid would have
// refused, so they fail closed.
const Loosening LooseningTable[] = {
    {"auth_param", "without authentication, acls that require a login cannot be enforced"},
    {"http_reply_access", "replies it would deny would be sent"},
    {"ssl_bump", "TLS traffic it would inspect or terminate would pass untouched"},
    {"adapted_http_access", "requests it would deny after adaptation would be forwarded"},
    {"miss_access", "cache misses it would deny would be forwarded"},
    {"never_direct", "requests it forces through a (filtering) parent would go direct"},
    {"url_rewrite_program", "a rewriter that blocks sites (e.g. squidGuard) would be bypassed"},
    {"adaptation_access", "requests it sends to an ICAP/eCAP filter would not be filtered"},
    {"icap_access", "requests it sends to an ICAP filter would not be filtered"},
    {"follow_x_forwarded_for", "src acls would see the forwarding proxy's address instead of the client's"},
};

} // namespace

const std::vector<Directive>& Config::Directives()
{
    return Table;
}

const Directive* Config::FindDirective(const std::string& name)
{
    for (const auto& d : Table)
        if (name == d.name)
            return &d;
    return nullptr;
}

std::vector<std::pair<std::string, std::string>> Config::LooseningDirectives()
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& l : LooseningTable)
        out.emplace_back(l.name, l.why);
    return out;
}

const char* Config::LooseningDirectiveReason(const std::string& name)
{
    for (const auto& l : LooseningTable)
        if (name == l.name)
            return l.why;
    return nullptr;
}

std::string Config::RecommendedConfig(const StateLayout& layout)
{
    return "#\n"
           "# Recommended minimum configuration (Squid's):\n"
           "#\n"
           "\n"
           "# Example rule allowing access from your local networks.\n"
           "# Adapt to list your (internal) IP networks from where browsing\n"
           "# should be allowed\n"
           "acl localnet src 0.0.0.1-0.255.255.255\t# RFC 1122 \"this\" network (LAN)\n"
           "acl localnet src 10.0.0.0/8\t\t# RFC 1918 local private network (LAN)\n"
           "acl localnet src 100.64.0.0/10\t\t# RFC 6598 shared address space (CGN)\n"
           "acl localnet src 169.254.0.0/16 \t# RFC 3927 link-local (directly plugged) machines\n"
           "acl localnet src 172.16.0.0/12\t\t# RFC 1918 local private network (LAN)\n"
           "acl localnet src 192.168.0.0/16\t\t# RFC 1918 local private network (LAN)\n"
           "acl localnet src fc00::/7       \t# RFC 4193 local private network range\n"
           "acl localnet src fe80::/10      \t# RFC 4291 link-local (directly plugged) machines\n"
           "\n"
           "acl SSL_ports port 443\n"
           "acl Safe_ports port 80\t\t# http\n"
           "acl Safe_ports port 21\t\t# ftp\n"
           "acl Safe_ports port 443\t\t# https\n"
           "acl Safe_ports port 70\t\t# gopher\n"
           "acl Safe_ports port 210\t\t# wais\n"
           "acl Safe_ports port 1025-65535\t# unregistered ports\n"
           "acl Safe_ports port 280\t\t# http-mgmt\n"
           "acl Safe_ports port 488\t\t# gss-http\n"
           "acl Safe_ports port 591\t\t# filemaker\n"
           "acl Safe_ports port 777\t\t# multiling http\n"
           "\n"
           "#\n"
           "# Recommended minimum Access Permission configuration:\n"
           "#\n"
           "# Deny requests to certain unsafe ports\n"
           "http_access deny !Safe_ports\n"
           "\n"
           "# Deny CONNECT to other than secure SSL ports\n"
           "http_access deny CONNECT !SSL_ports\n"
           "\n"
           "# Only allow cachemgr access from localhost\n"
           "http_access allow localhost manager\n"
           "http_access deny manager\n"
           "\n"
           "#\n"
           "# INSERT YOUR OWN RULE(S) HERE TO ALLOW ACCESS FROM YOUR CLIENTS\n"
           "#\n"
           "\n"
           "# Example rule allowing access from your local networks.\n"
           "# Adapt localnet in the ACL section to list your (internal) IP networks\n"
           "# from where browsing should be allowed\n"
           "#http_access allow localnet\n"
           "http_access allow localhost\n"
           "\n"
           "# And finally deny all other access to this proxy\n"
           "http_access deny all\n"
           "\n"
           "# Squid normally listens to port 3128\n"
           "http_port 3128\n"
           "\n"
           "#\n"
           "# Add any of your own refresh_pattern entries above these.\n"
           "#\n"
           "refresh_pattern ^ftp:\t\t1440\t20%\t10080\n"
           "refresh_pattern ^gopher:\t1440\t0%\t1440\n"
           "refresh_pattern -i (/cgi-bin/|\\?) 0\t0%\t0\n"
           "refresh_pattern .\t\t0\t20%\t4320\n"
           "\n"
           "# Logs and the pid file, where the user running cuttle can write them.\n" +
           std::string(layout.logDir[0] == '/'
                           ? "# (absolute paths under the installed state directory)\n"
                           : "# Relative paths are resolved against the directory cuttle starts in.\n") +
           "access_log stdio:" + layout.logDir + "/access.log squid\n" + "cache_log " + layout.logDir +
           "/cache.log\n" + "pid_filename " + layout.runDir + "/cuttle.pid\n" +
           (layout.errorDir.empty() ? std::string()
                                    : "\n# Error page templates (Squid's ERR_* file names).\n"
                                      "error_directory " +
                                          layout.errorDir + "\n");
}
