/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The handlers of the directive table (Directives.cc): one function
/// per directive syntax, each parsing one line into Settings. Internal to
/// src/config: the parser reaches them only through the table's rows.
///
/// The generic handlers are templates over the Settings field they fill;
/// the others live by topic in Handlers.cc (ports, acls, access, logs,
/// DNS, users) and CacheHandlers.cc (the cache's directives).

#pragma once

#include "config/Directives.h"
#include "config/Units.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace Config::Handlers {

/// The directive's name as written (words[0]).
const std::string& Name(const DirectiveCall& call);

/// Squid ignores words after a value; cuttle says so (words from `pos` on).
void WarnExtra(const DirectiveCall& call, size_t pos);

/// Whether the line has at least `n` values; an error otherwise.
bool NeedArgs(const DirectiveCall& call, size_t n);

/// A count as Squid's parse_int() reads one, but never negative: decimal
/// digits only, at most 9 of them; false otherwise.
bool ParseCount(const std::string& text, unsigned& value);

/// Squid's parse_onoff(): on, off, and the deprecated enable/disable.
bool ParseOnOff(const DirectiveCall& call, const std::string& word, bool& value);

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

/// Squid's parse_int() for a count: decimal digits only; cuttle refuses a
/// negative count, which Squid would take.
template <unsigned Settings::*Field>
void CountHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    const std::string& word = call.line.words[1];
    unsigned value = 0;
    if (!ParseCount(word, value)) {
        call.error("bad " + Name(call) + " value '" + word + "': use a count from 0 to 999999999");
        return;
    }
    WarnExtra(call, 2);
    call.settings.*Field = value;
}

/// A count, or -1 for none (Squid's parse_int() of a limit whose -1 turns it off).
template <std::optional<unsigned> Settings::*Field>
void LimitHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    const std::string& word = call.line.words[1];
    unsigned value = 0;
    if (word != "-1" && !ParseCount(word, value)) {
        call.error("bad " + Name(call) + " value '" + word +
                   "': use a count from 0 to 999999999, or -1 for no limit");
        return;
    }
    WarnExtra(call, 2);
    call.settings.*Field = word == "-1" ? std::nullopt : std::optional<unsigned>(value);
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

/// `NAME allow|deny [!]ACL...` into an Acl::AccessList (http_access,
/// http_reply_access, cache): parsed exactly as http_access is, so an
/// undefined or unimplemented acl is an error (fail closed).
template <Acl::AccessList Settings::*Field>
void AccessRulesHandler(DirectiveCall& call)
{
    std::string why;
    if (!(call.settings.*Field).parse(call.args(), call.settings.acls, why))
        call.error("bad " + Name(call) + ": " + why);
    else if (!why.empty()) // AccessList.h: a warning, e.g. a rule with no acl is skipped
        call.warning(Name(call) + ": " + why);
}

void HttpPortHandler(DirectiveCall& call);
void HttpsPortHandler(DirectiveCall& call);
/// an http_port (https false) or https_port line into settings.httpPorts
void ParsePortLine(DirectiveCall& call, bool https);
/// One https_port option: whether it is a TLS one (tls-cert=, tls-key=,
/// tls-dh=, options=, cafile=, clientca=, tls-min-version=, cipher= and
/// Squid's older names), then parsed into port; a bad value is reported and
/// clears ok (TlsHandlers.cc).
bool ParseTlsPortOption(DirectiveCall& call, const std::string& option, HttpPort& port, bool& ok);
/// One http_port option of SSL bump: whether it is one (ssl-bump,
/// generate-host-certificates=, dynamic_cert_mem_cache_size=), then parsed
/// into port; a bad value is reported and clears ok (TlsHandlers.cc).
bool ParseBumpPortOption(DirectiveCall& call, const std::string& option, HttpPort& port, bool& ok);
/// `ssl_bump ACTION [!]ACL...` (TlsHandlers.cc)
void SslBumpHandler(DirectiveCall& call);
/// `sslproxy_cert_sign signTrusted|signUntrusted|signSelf [!]ACL...` (TlsHandlers.cc)
void CertSignHandler(DirectiveCall& call);
/// `sslproxy_cert_adapt setValidAfter|setValidBefore|setCommonName[{CN}] [!]ACL...` (TlsHandlers.cc)
void CertAdaptHandler(DirectiveCall& call);
/// `sslproxy_cert_sign_hash DIGEST`: a name OpenSSL knows (TlsHandlers.cc)
void CertSignHashHandler(DirectiveCall& call);
/// sslcrtd_program, sslcrtd_children: accepted with one warning (TlsHandlers.cc)
void CertHelperHandler(DirectiveCall& call);
void AclHandler(DirectiveCall& call);
void AuthParamHandler(DirectiveCall& call);
void ExternalAclTypeHandler(DirectiveCall& call);

/// `N [startup=N] [idle=N] [concurrency=N] [queue-size=N]` from words[pos]
/// on (auth_param's and the ..._children directives' children); errors through call.
void ParseHelperChildren(DirectiveCall& call, size_t pos, HelperChildren& children);

/// `url_rewrite_program`, `store_id_program`: the helper and its arguments; `none` unsets it.
template <HelperProgramSettings Settings::*Field>
void HelperProgramHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    auto& program = (call.settings.*Field).program;
    program.assign(call.line.words.begin() + 1, call.line.words.end());
    if (program.size() == 1 && program[0] == "none")
        program.clear();
}

/// `url_rewrite_children`, `store_id_children`.
template <HelperProgramSettings Settings::*Field>
void HelperChildrenHandler(DirectiveCall& call)
{
    ParseHelperChildren(call, 1, (call.settings.*Field).children);
}

/// `url_rewrite_extras`, `store_id_extras`: only Squid's default, which
/// client/Rewrite.cc sends.
void HelperExtrasHandler(DirectiveCall& call);
void RequestBufferSizeHandler(DirectiveCall& call);
void AccessLogHandler(DirectiveCall& call);
void LogformatHandler(DirectiveCall& call);
void CacheLogHandler(DirectiveCall& call);
void CacheStoreLogHandler(DirectiveCall& call);
void DebugOptionsHandler(DirectiveCall& call);
void ForwardedForHandler(DirectiveCall& call);
void DnsNameserversHandler(DirectiveCall& call);
void CacheEffectiveUserHandler(DirectiveCall& call);
void CacheEffectiveGroupHandler(DirectiveCall& call);
/// visible_hostname and unique_hostname: one host name
void HostnameHandler(DirectiveCall& call);
void ErrorDefaultLanguageHandler(DirectiveCall& call);
void ErrHtmlTextHandler(DirectiveCall& call);
void CachemgrPasswdHandler(DirectiveCall& call);

// HeaderHandlers.cc: one line of Config::HeaderRules, for either direction
/// `*_header_access NAME allow|deny [!]ACL...` into `rules`
void HeaderAccessLine(DirectiveCall& call, HeaderRules& rules);
/// `*_header_replace NAME VALUE` into `rules`
void HeaderReplaceLine(DirectiveCall& call, HeaderRules& rules);
/// `*_header_add NAME VALUE [ACL...]` into `rules`
void HeaderAddLine(DirectiveCall& call, HeaderRules& rules);

/// A header rule directive of the direction Settings::*Field holds.
template <HeaderRules Settings::*Field, void (*Line)(DirectiveCall&, HeaderRules&)>
void HeaderRulesHandler(DirectiveCall& call)
{
    Line(call, call.settings.*Field);
}

void RefreshPatternHandler(DirectiveCall& call);
/// `lru | heap GDSF | heap LFUDA | heap LRU` into policy (CacheHandlers.cc)
void ParseReplacementPolicy(DirectiveCall& call, ReplacementPolicy& policy);
/// memory_replacement_policy and cache_replacement_policy
template <ReplacementPolicy Settings::*Field>
void ReplacementPolicyHandler(DirectiveCall& call)
{
    ParseReplacementPolicy(call, call.settings.*Field);
}
/// `cache_dir TYPE DIR MBYTES [L1 L2] [OPTION...]` (DiskHandlers.cc)
void CacheDirHandler(DirectiveCall& call);
/// `store_dir_select_algorithm least-load|round-robin`
void StoreDirSelectHandler(DirectiveCall& call);
/// `cache_swap_low PERCENT` and `cache_swap_high PERCENT`
void CacheSwapHandler(DirectiveCall& call);
/// `memory_cache_mode always|disk|network`
void MemoryCacheModeHandler(DirectiveCall& call);
void QuickAbortMinHandler(DirectiveCall& call);
void QuickAbortMaxHandler(DirectiveCall& call);
void MaxFiledescriptorsHandler(DirectiveCall& call);
/// workers N: 1 to MaxWorkers (0, Squid's no-daemon mode, is 1)
void WorkersHandler(DirectiveCall& call);
/// cpu_affinity_map process_numbers=P,... cores=C,...
void CpuAffinityMapHandler(DirectiveCall& call);
void QuickAbortPctHandler(DirectiveCall& call);
void RangeOffsetLimitHandler(DirectiveCall& call);
/// a `NAME SIZE|none [[!]ACL...]` line into `limits` (CacheHandlers.cc)
void SizeLimitHandler(DirectiveCall& call, std::vector<SizeLimit>& limits);
/// The `[[!]ACL...]` words from `pos` on into line.acls; false (and an error) when one is bad.
bool ParseLineAcls(DirectiveCall& call, size_t pos, AclLine& line);
void TcpOutgoingAddressHandler(DirectiveCall& call);
void TcpOutgoingTosHandler(DirectiveCall& call);
void TcpOutgoingMarkHandler(DirectiveCall& call);
void ReplyBodyMaxSizeHandler(DirectiveCall& call);
void RequestBodyMaxSizeHandler(DirectiveCall& call);
void DenyInfoHandler(DirectiveCall& call);
void CachePeerHandler(DirectiveCall& call);
void CachePeerAccessHandler(DirectiveCall& call);
void ForwardMaxTriesHandler(DirectiveCall& call);
void ConnectRetriesHandler(DirectiveCall& call);
void IcpPortHandler(DirectiveCall& call);
void UdpIncomingAddressHandler(DirectiveCall& call);
/// `tls_outgoing_options KEY=VALUE...` (TlsHandlers.cc)
void TlsOutgoingOptionsHandler(DirectiveCall& call);
/// what ParseTlsOutgoingOption() made of an option
enum class TlsOption {
    Parsed, ///< taken into the options
    Bad,    ///< a known key with a bad value (reported)
    Unknown ///< no such key (not reported: the caller names what it takes)
};
/// One KEY=VALUE of tls_outgoing_options (cafile, capath, cert, key,
/// cipher, min-version, options, flags, default-ca) into out; also the
/// tls-KEY= options of a cache_peer. A bad value is reported as "what: ..."
/// (TlsHandlers.cc).
TlsOption ParseTlsOutgoingOption(const DirectiveCall& call, const std::string& what, const std::string& key,
                                 const std::string& value, TlsOutgoingOptions& out);

} // namespace Config::Handlers
