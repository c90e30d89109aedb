/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "config/Handlers.h"
#include "base/UserAccount.h"
#include "sbuf/BlockPool.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstdint>
#include <set>

using namespace Config;
using namespace Config::Handlers;

const std::string& Config::Handlers::Name(const DirectiveCall& call)
{
    return call.line.words[0];
}

void Config::Handlers::WarnExtra(const DirectiveCall& call, size_t pos)
{
    if (pos < call.line.words.size())
        call.warning("ignoring extra words after the value of " + Name(call) + ": '" + call.line.words[pos] +
                     "'...");
}

bool Config::Handlers::NeedArgs(const DirectiveCall& call, size_t n)
{
    if (call.line.words.size() < n + 1) {
        call.error(Name(call) + " needs a value");
        return false;
    }
    return true;
}

bool Config::Handlers::ParseCount(const std::string& text, unsigned& value)
{
    if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos)
        return false;
    value = static_cast<unsigned>(std::stoul(text));
    return true;
}

bool Config::Handlers::ParseOnOff(const DirectiveCall& call, const std::string& word, bool& value)
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

namespace {

/// The block pool's size classes bound request_buffer_size (doc/design.md "The path of a body byte").
constexpr uint64_t MinBlock = Sbuf::BlockPool::MinBlockSize;
constexpr uint64_t MaxBlock = Sbuf::BlockPool::MaxBlockSize;

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
    "accel",
    "vhost",
    "vport",
    "defaultsite",
    "require-proxy-header", // src acls would see the load balancer, not the client
};

} // namespace

const char* const PortOtherOptions[] = {"allow-direct",
                                        "act-as-origin",
                                        "ignore-cc",
                                        "no-vhost",
                                        "protocol",
                                        "connection-auth",
                                        "disable-pmtu-discovery",
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
                                        "tls-default-ca",
                                        "tls-no-default-ca",
                                        "tls-crlfile",
                                        "tls-capath"};

void Config::Handlers::HttpPortHandler(DirectiveCall& call)
{
    ParsePortLine(call, false);
}

void Config::Handlers::HttpsPortHandler(DirectiveCall& call)
{
    ParsePortLine(call, true);
}

void Config::Handlers::ParsePortLine(DirectiveCall& call, bool https)
{
    if (!NeedArgs(call, 1))
        return;
    const std::string directive = https ? "https_port" : "http_port";
    HttpPort p;
    p.tls = https;
    std::string why;
    if (!ParseHostPort(call.line.words[1], p.host, p.port, true, why)) {
        call.error("bad " + directive + ": " + why);
        return;
    }
    p.origin = call.line.file + ":" + std::to_string(call.line.line);
    p.name = call.line.words[1];
    bool ok = true;
    bool tproxy = false;
    std::vector<std::string> bumpOnly; // TLS options of an http_port: they serve ssl-bump only
    for (size_t i = 2; i < call.line.words.size(); ++i) {
        const std::string& opt = call.line.words[i];
        const std::string key = opt.substr(0, opt.find('='));
        bool known = false;
        if (ParseTlsPortOption(call, opt, p, ok)) {
            if (!https)
                bumpOnly.push_back(opt);
            continue;
        }
        if (ParseBumpPortOption(call, opt, p, ok))
            continue;
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
        if (key == "name") {
            // Squid 5.7 takes any name, an empty one too; myportname acls compare it
            p.name = opt.size() > 5 ? opt.substr(5) : std::string();
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
                call.error(directive + " option '" + opt +
                           "' is not implemented by cuttle and ignoring it would change the port's access "
                           "control: refusing it");
                ok = false;
                known = true;
            }
        }
        for (const char* s : PortOtherOptions) {
            if (!known && key == s) {
                call.warning(directive + " option '" + opt + "' is not implemented by cuttle; ignoring it");
                known = true;
            }
        }
        if (!known) {
            call.error("unknown " + directive + " option '" + opt + "'");
            ok = false;
        }
    }
    if (https && p.tlsCert.empty() && ok) {
        call.error("https_port needs tls-cert=");
        ok = false;
    }
    // intercepted TLS is bumped on an `https_port ... intercept ssl-bump`
    // (doc/design.md "SSL bump"); Squid's other combinations are refused
    if (https && p.sslBump && !p.intercept && ok) {
        call.error("https_port: ssl-bump requires intercept (cuttle has no tproxy): add it, or use http_port "
                   "ssl-bump for CONNECT");
        ok = false;
    }
    if (https && p.intercept && !p.sslBump && ok) {
        call.error("https_port: intercept without ssl-bump (intercepted TLS ended with one certificate) is "
                   "not implemented by cuttle: refusing it");
        ok = false;
    }
    if (!https && p.sslBump && p.intercept && ok) {
        call.error("http_port: ssl-bump on an intercept port is not implemented by cuttle: refusing it "
                   "(intercepted TLS is bumped on an https_port ... intercept ssl-bump)");
        ok = false;
    }
    if (p.sslBump && p.tlsCert.empty() && ok) {
        call.error(directive + " ssl-bump needs tls-cert= (the bump CA, or the certificate to show when "
                               "generate-host-certificates=off)");
        ok = false;
    }
    if (!p.sslBump) {
        for (const auto& opt : bumpOnly)
            call.warning("http_port option '" + opt + "' serves ssl-bump only; ignoring it");
    }
    if (ok)
        call.settings.httpPorts.push_back(std::move(p));
}

void Config::Handlers::AclHandler(DirectiveCall& call)
{
    auto words = call.args();
    // Squid 5.7 (acl/Acl.cc) skips this line of older configurations, with
    // a note, before it looks at the values: its manager acl is built in
    if (words.size() >= 2 && words[0] == "manager" && words[1] == "proto") {
        call.warning("UPGRADE: ACL 'manager' is now a built-in ACL. Remove it from your config file.");
        return;
    }
    // Squid 5.7 (ACLProxyAuth::parse) needs a configured scheme before the acl
    if (words.size() >= 2 &&
        (words[1] == "proxy_auth" || words[1] == "proxy_auth_regex" || words[1] == "max_user_ip") &&
        call.settings.authBasic.program.empty() && call.settings.authDigest.program.empty()) {
        call.error("bad acl: acl " + words[0] + " " + words[1] +
                   " needs a configured authentication scheme first (auth_param basic|digest program ...), "
                   "as in Squid");
        return;
    }
    for (auto& w : words)
        if (Lexer::IsQuoted(w))
            w = "\"" + call.lexer.resolve(Lexer::Unquote(w)) + "\"";
    std::string why;
    switch (call.settings.acls.parse(words, why, call.resolveHost)) {
    case Acl::Registry::ParseOutcome::Ok:
        if (!why.empty()) // Registry.h: warnings Squid logs too
            call.warning("acl: " + why);
        break;
    case Acl::Registry::ParseOutcome::Unsupported:
        // one warning per type and file: a file of a hundred ident acls gets one
        call.warningOnce("acl type " + call.line.file + "\n" + words[1],
                         "acl: " + why + " (http_access lines that use it are errors)", words[1] + " acl");
        break;
    case Acl::Registry::ParseOutcome::Error:
        call.error("bad acl: " + why);
        break;
    }
}

namespace {

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

} // namespace

void Config::Handlers::RequestBufferSizeHandler(DirectiveCall& call)
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

namespace {

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

} // namespace

void Config::Handlers::DebugOptionsHandler(DirectiveCall& call)
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

void Config::Handlers::ForwardedForHandler(DirectiveCall& call)
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

void Config::Handlers::DnsNameserversHandler(DirectiveCall& call)
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

void Config::Handlers::CacheEffectiveUserHandler(DirectiveCall& call)
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

void Config::Handlers::CacheEffectiveGroupHandler(DirectiveCall& call)
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

void Config::Handlers::HostnameHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    if (!IsHostName(call.line.words[1])) {
        call.error("bad " + Name(call) + " '" + call.line.words[1] + "'");
        return;
    }
    WarnExtra(call, 2);
    (Name(call) == "unique_hostname" ? call.settings.uniqueHostname : call.settings.visibleHostname) =
        call.line.words[1];
}

/// A directory name of the language tree: no '/', not "." or "..".
void Config::Handlers::ErrorDefaultLanguageHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    const auto& word = call.line.words[1];
    if (word.find('/') != std::string::npos || word == "." || word == "..") {
        call.error("bad error_default_language '" + word + "': a language directory's name (de, pt-br)");
        return;
    }
    WarnExtra(call, 2);
    call.settings.errorDefaultLanguage = word;
}

/// The rest of the line as written (Lexer: SquidRestOfLineAfter()), or a quoted string's text.
void Config::Handlers::ErrHtmlTextHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    const auto& text = call.line.words[1];
    const bool quoted = text.size() >= 2 && text.front() == '"' && text.back() == '"';
    call.settings.errHtmlText = quoted ? Lexer::Unquote(text) : text;
}

void Config::Handlers::CachemgrPasswdHandler(DirectiveCall& call)
{
    if (call.line.words.size() < 2) {
        call.error("cachemgr_passwd needs a password (or none, or disable) and the actions it applies to");
        return;
    }
    if (call.line.words.size() == 2) {
        // Squid 5.7 accepts it too, and it changes nothing
        call.warning("cachemgr_passwd names no action: it has no effect");
        return;
    }
    ManagerPassword entry;
    entry.password = call.line.words[1];
    entry.actions.assign(call.line.words.begin() + 2, call.line.words.end());
    call.settings.managerPasswords.push_back(std::move(entry));
}

bool Config::Handlers::ParseLineAcls(DirectiveCall& call, size_t pos, AclLine& line)
{
    const auto& w = call.line.words;
    if (pos >= w.size())
        return true;
    std::vector<std::string> rule{"allow"};
    rule.insert(rule.end(), w.begin() + static_cast<std::ptrdiff_t>(pos), w.end());
    std::string why;
    if (!line.acls.parse(rule, call.settings.acls, why)) {
        call.error("bad " + Name(call) + ": " + why);
        return false;
    }
    return true;
}

void Config::Handlers::TcpOutgoingAddressHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    OutgoingAddress line;
    // an address literal: cuttle resolves no name at parse time
    const auto address = Acl::Address::Parse(call.line.words[1]);
    if (!address) {
        call.error("bad tcp_outgoing_address '" + call.line.words[1] + "': not an IPv4 or IPv6 address");
        return;
    }
    line.address = *address;
    if (ParseLineAcls(call, 2, line))
        call.settings.tcpOutgoingAddresses.push_back(std::move(line));
}

namespace {

/// Squid's xstrtoui(..., 0, max): decimal, 0x hex or 0 octal, at most max.
bool ParseUnsigned(const std::string& text, uint32_t max, uint32_t& value)
{
    if (text.empty() || text[0] == '-' || text[0] == '+')
        return false;
    errno = 0;
    char* end = nullptr;
    const auto v = std::strtoull(text.c_str(), &end, 0);
    if (errno != 0 || *end != '\0' || v > max)
        return false;
    value = static_cast<uint32_t>(v);
    return true;
}

} // namespace

void Config::Handlers::TcpOutgoingTosHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    OutgoingTos line;
    uint32_t value = 0;
    if (!ParseUnsigned(call.line.words[1], 255, value)) {
        call.error("bad " + Name(call) + " value '" + call.line.words[1] +
                   "': a TOS byte, 0 to 255 (0x00 to 0xff)");
        return;
    }
    // Squid 5.7: the two ECN bits are not the admin's to set
    if (value & 0x03) {
        call.warning("Tos value '" + std::to_string(value) + "' adjusted to '" +
                     std::to_string(value & 0xfc) + "'");
        value &= 0xfc;
    }
    line.tos = static_cast<uint8_t>(value);
    if (ParseLineAcls(call, 2, line))
        call.settings.tcpOutgoingTos.push_back(std::move(line));
}

void Config::Handlers::TcpOutgoingMarkHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    OutgoingMark line;
    if (!ParseUnsigned(call.line.words[1], UINT32_MAX, line.mark)) {
        call.error("bad " + Name(call) + " value '" + call.line.words[1] +
                   "': a netfilter mark, 0 to 4294967295 (0x0 to 0xffffffff)");
        return;
    }
    if (ParseLineAcls(call, 2, line))
        call.settings.tcpOutgoingMarks.push_back(std::move(line));
}
