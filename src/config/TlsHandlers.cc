/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "config/Handlers.h"
#include "config/Units.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <utility>

#include <openssl/ssl.h>

namespace {

using Config::DirectiveCall;

/// Squid 5's options= names (Security::PeerOptions::parseOptions): OpenSSL's
/// SSL_OP_* bits; the obsolete ones are 0 in OpenSSL 3.0, accepted as Squid does
const std::pair<const char*, uint64_t> OptionNames[] = {
    {"NETSCAPE_REUSE_CIPHER_CHANGE_BUG", SSL_OP_NETSCAPE_REUSE_CIPHER_CHANGE_BUG},
    {"SSLREF2_REUSE_CERT_TYPE_BUG", SSL_OP_SSLREF2_REUSE_CERT_TYPE_BUG},
    {"MICROSOFT_BIG_SSLV3_BUFFER", SSL_OP_MICROSOFT_BIG_SSLV3_BUFFER},
    {"SSLEAY_080_CLIENT_DH_BUG", SSL_OP_SSLEAY_080_CLIENT_DH_BUG},
    {"TLS_D5_BUG", SSL_OP_TLS_D5_BUG},
    {"TLS_BLOCK_PADDING_BUG", SSL_OP_TLS_BLOCK_PADDING_BUG},
    {"TLS_ROLLBACK_BUG", SSL_OP_TLS_ROLLBACK_BUG},
    {"ALL", SSL_OP_ALL},
    {"SINGLE_DH_USE", SSL_OP_SINGLE_DH_USE},
    {"EPHEMERAL_RSA", SSL_OP_EPHEMERAL_RSA},
    {"PKCS1_CHECK_1", SSL_OP_PKCS1_CHECK_1},
    {"PKCS1_CHECK_2", SSL_OP_PKCS1_CHECK_2},
    {"NETSCAPE_CA_DN_BUG", SSL_OP_NETSCAPE_CA_DN_BUG},
    {"NON_EXPORT_FIRST", 0},
    {"CIPHER_SERVER_PREFERENCE", SSL_OP_CIPHER_SERVER_PREFERENCE},
    {"NETSCAPE_DEMO_CIPHER_CHANGE_BUG", SSL_OP_NETSCAPE_DEMO_CIPHER_CHANGE_BUG},
    {"NO_SSLv3", SSL_OP_NO_SSLv3},
    {"NO_TLSv1", SSL_OP_NO_TLSv1},
    {"NO_TLSv1_1", SSL_OP_NO_TLSv1_1},
    {"NO_TLSv1_2", SSL_OP_NO_TLSv1_2},
    {"NO_TLSv1_3", SSL_OP_NO_TLSv1_3},
    {"No_Compression", SSL_OP_NO_COMPRESSION},
    {"NO_TICKET", SSL_OP_NO_TICKET},
    {"SINGLE_ECDH_USE", SSL_OP_SINGLE_ECDH_USE},
    // cuttle's own: kernel TLS where the kernel and the cipher allow it (doc/tls.md)
    {"KTLS", SSL_OP_ENABLE_KTLS},
};

/// min-version= and tls-min-version=: OpenSSL's version number, or 0
int ParseVersion(const std::string& value)
{
    static const std::pair<const char*, int> Versions[] = {
        {"1.0", TLS1_VERSION}, {"1.1", TLS1_1_VERSION}, {"1.2", TLS1_2_VERSION}, {"1.3", TLS1_3_VERSION}};
    for (const auto& [name, version] : Versions) {
        if (value == name)
            return version;
    }
    return 0;
}

/// options=A:B,-C: sets and clears bits; false (with the bad name) on an unknown one
bool ParseOptions(const std::string& value, uint64_t& setOptions, uint64_t& clearOptions, std::string& bad)
{
    size_t pos = 0;
    while (pos <= value.size()) {
        const size_t end = value.find_first_of(":, ", pos);
        std::string name = value.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
        pos = end == std::string::npos ? value.size() + 1 : end + 1;
        if (name.empty())
            continue;
        bool clear = false;
        if (name[0] == '-' || name[0] == '+') {
            clear = name[0] == '-';
            name.erase(0, 1);
        }
        uint64_t bits = 0;
        bool known = false;
        for (const auto& [option, optionBits] : OptionNames) {
            if (name == option) {
                bits = optionBits;
                known = true;
            }
        }
        if (!known && name.rfind("0x", 0) == 0 && name.size() > 2) {
            char* rest = nullptr;
            bits = std::strtoull(name.c_str() + 2, &rest, 16);
            known = *rest == '\0';
        }
        if (!known) {
            bad = name;
            return false;
        }
        (clear ? clearOptions : setOptions) |= bits;
    }
    return true;
}

/// flags=A,B: false (with the bad name) on an unknown or unimplemented one
bool ParseFlags(const std::string& value, Config::TlsOutgoingOptions& out, std::string& bad)
{
    size_t pos = 0;
    while (pos <= value.size()) {
        const size_t end = value.find(',', pos);
        const std::string flag = value.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
        pos = end == std::string::npos ? value.size() + 1 : end + 1;
        if (flag == "DONT_VERIFY_PEER")
            out.verifyPeer = false;
        else if (flag == "DONT_VERIFY_DOMAIN")
            out.verifyDomain = false;
        else if (flag == "NO_DEFAULT_CA")
            out.defaultCa = false;
        else if (flag == "NO_SESSION_REUSE")
            out.sessionReuse = false;
        else if (!flag.empty()) {
            bad = flag;
            return false;
        }
    }
    return true;
}

/// the value `word` names in `names`, or nullopt
template <typename Value, size_t N>
std::optional<Value> Named(const std::pair<const char*, Value> (&names)[N], const std::string& word)
{
    for (const auto& [name, value] : names) {
        if (word == name)
            return value;
    }
    return std::nullopt;
}

/// The value the first word of a line names in `names` (the part before a
/// `{`): nullopt, with the error reported, when the line has none or it is
/// unknown; `what` is what it names ("signing algorithm").
template <typename Value, size_t N>
std::optional<Value> FirstWord(DirectiveCall& call, const std::pair<const char*, Value> (&names)[N],
                               const std::string& what)
{
    const auto& words = call.line.words;
    std::string known;
    for (const auto& entry : names)
        known += (known.empty() ? "" : ", ") + std::string(entry.first);
    if (words.size() < 2) {
        call.error(words[0] + " needs " +
                   (std::string("aeiou").find(what[0]) == std::string::npos ? "a " : "an ") + what + " (" +
                   known + ")");
        return std::nullopt;
    }
    const auto word = words[1].substr(0, words[1].find('{'));
    const auto value = Named(names, word);
    if (!value)
        call.error(words[0] + ": unknown " + what + " '" + word + "' (" + known + ")");
    return value;
}

/// The acls of an `ACTION [!]ACL...` line (ssl_bump, sslproxy_cert_sign,
/// sslproxy_cert_adapt) as one `allow ACL...` rule: whether to keep the
/// line (a line without acls is skipped with a warning, as in Squid)
bool ParseRuleAcls(DirectiveCall& call, std::vector<std::string> words, Acl::AccessList& acls)
{
    const auto& directive = call.line.words[0];
    words[0] = "allow";
    std::string why;
    if (!acls.parse(words, call.settings.acls, why)) {
        call.error("bad " + directive + ": " + why);
        return false;
    }
    if (!why.empty()) {
        call.warning(directive + ": " + why);
        return false;
    }
    return true;
}

} // namespace

Config::Handlers::TlsOption Config::Handlers::ParseTlsOutgoingOption(const DirectiveCall& call,
                                                                     const std::string& what,
                                                                     const std::string& key,
                                                                     const std::string& value,
                                                                     TlsOutgoingOptions& out)
{
    std::string bad;
    if (key == "cafile") {
        out.caFile = call.lexer.resolve(value);
    } else if (key == "capath") {
        out.caPath = call.lexer.resolve(value);
    } else if (key == "cert") {
        out.certFile = call.lexer.resolve(value);
    } else if (key == "key") {
        out.keyFile = call.lexer.resolve(value);
    } else if (key == "cipher") {
        out.cipher = value;
    } else if (key == "min-version") {
        out.minVersion = ParseVersion(value);
        if (!out.minVersion) {
            call.error(what + ": unknown min-version '" + value + "': 1.0, 1.1, 1.2 or 1.3");
            return TlsOption::Bad;
        }
    } else if (key == "options") {
        if (!ParseOptions(value, out.setOptions, out.clearOptions, bad)) {
            call.error(what + ": unknown TLS option '" + bad + "'");
            return TlsOption::Bad;
        }
    } else if (key == "flags") {
        if (!ParseFlags(value, out, bad)) {
            call.error(what + ": unknown or unsupported flag '" + bad +
                       "' (DONT_VERIFY_PEER, DONT_VERIFY_DOMAIN, NO_DEFAULT_CA, NO_SESSION_REUSE)");
            return TlsOption::Bad;
        }
    } else if (key == "default-ca") {
        if (value != "on" && value != "off") {
            call.error(what + ": default-ca=" + value + ": on or off expected");
            return TlsOption::Bad;
        }
        out.defaultCa = value == "on";
    } else {
        return TlsOption::Unknown;
    }
    return TlsOption::Parsed;
}

void Config::Handlers::TlsOutgoingOptionsHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    for (size_t i = 1; i < call.line.words.size(); ++i) {
        const auto& word = call.line.words[i];
        const size_t eq = word.find('=');
        if (eq == std::string::npos) {
            call.error("tls_outgoing_options: '" + word + "' is not KEY=VALUE");
            return;
        }
        const std::string key = word.substr(0, eq);
        switch (ParseTlsOutgoingOption(call, "tls_outgoing_options", key, word.substr(eq + 1),
                                       call.settings.tlsOutgoing)) {
        case TlsOption::Parsed:
            break;
        case TlsOption::Bad:
            return;
        case TlsOption::Unknown:
            call.error(
                "tls_outgoing_options: " + key +
                "= is not implemented (cafile=, capath=, cert=, key=, cipher=, min-version=, options=, "
                "flags=, default-ca=)");
            return;
        }
    }
}

bool Config::Handlers::ParseTlsPortOption(DirectiveCall& call, const std::string& option, HttpPort& port,
                                          bool& ok)
{
    const size_t eq = option.find('=');
    if (eq == std::string::npos)
        return false;
    const std::string key = option.substr(0, eq);
    const std::string value = option.substr(eq + 1);
    std::string bad;
    if (key == "tls-cert" || key == "cert") {
        port.tlsCert = call.lexer.resolve(value);
    } else if (key == "tls-key" || key == "key") {
        port.tlsKey = call.lexer.resolve(value);
    } else if (key == "tls-dh" || key == "dhparams") {
        port.tlsDh = call.lexer.resolve(value);
    } else if (key == "cafile") {
        port.tlsCaFile = call.lexer.resolve(value);
    } else if (key == "clientca") {
        port.tlsClientCa = call.lexer.resolve(value);
    } else if (key == "cipher") {
        port.tlsCipher = value;
    } else if (key == "tls-min-version") {
        port.tlsMinVersion = ParseVersion(value);
        if (!port.tlsMinVersion) {
            call.error(call.line.words[0] + ": unknown tls-min-version '" + value +
                       "': 1.0, 1.1, 1.2 or 1.3");
            ok = false;
        }
    } else if (key == "options") {
        if (!ParseOptions(value, port.tlsSetOptions, port.tlsClearOptions, bad)) {
            call.error(call.line.words[0] + ": unknown TLS option '" + bad + "'");
            ok = false;
        }
    } else {
        return false;
    }
    return true;
}

bool Config::Handlers::ParseBumpPortOption(DirectiveCall& call, const std::string& option, HttpPort& port,
                                           bool& ok)
{
    const size_t eq = option.find('=');
    const std::string key = option.substr(0, eq);
    const std::string value = eq == std::string::npos ? std::string() : option.substr(eq + 1);
    if (option == "ssl-bump") {
        port.sslBump = true;
    } else if (key == "generate-host-certificates") {
        // Squid 5 takes a bare name as on
        if (value.empty() || value == "on") {
            port.generateHostCertificates = true;
        } else if (value == "off") {
            port.generateHostCertificates = false;
        } else {
            call.error("http_port: generate-host-certificates=" + value + ": on or off");
            ok = false;
        }
    } else if (key == "dynamic_cert_mem_cache_size") {
        // "4MB" (Squid's spelling) or "4194304" (bytes)
        const auto r = Units::ParseSizeWord(value, port.dynamicCertCacheBytes);
        if (!r.ok) {
            call.error("http_port: dynamic_cert_mem_cache_size=" + value + ": " + r.why);
            ok = false;
        }
    } else {
        return false;
    }
    return true;
}

void Config::Handlers::SslBumpHandler(DirectiveCall& call)
{
    using Action = SslBumpRule::Action;
    // Squid 5 (src/ssl/support.cc SslBumpModeName and the ssl_bump parser)
    static const std::pair<const char*, Action> Actions[] = {
        {"peek", Action::Peek},         {"stare", Action::Stare},         {"splice", Action::Splice},
        {"bump", Action::Bump},         {"terminate", Action::Terminate}, {"client-first", Action::Bump},
        {"server-first", Action::Bump}, {"none", Action::Splice}};
    auto words = call.args();
    if (words.empty()) {
        call.error("ssl_bump needs an action (peek, stare, splice, bump, terminate)");
        return;
    }
    SslBumpRule rule;
    if (const auto action = Named(Actions, words[0])) {
        rule.action = *action;
    } else {
        call.error("ssl_bump: unknown action '" + words[0] + "' (peek, stare, splice, bump, terminate)");
        return;
    }
    if (words[0] == "client-first" || words[0] == "server-first" || words[0] == "none")
        call.warning("ssl_bump " + words[0] + " is Squid's older name: cuttle takes it as " +
                     (rule.action == Action::Bump ? "bump" : "splice"));
    if (ParseRuleAcls(call, std::move(words), rule.acls))
        call.settings.sslBump.push_back(std::move(rule));
}

void Config::Handlers::CertSignHandler(DirectiveCall& call)
{
    using Signing = CertSignRule::Signing;
    // Squid 5 (src/cache_cf.cc parse_sslproxy_cert_sign)
    static const std::pair<const char*, Signing> Names[] = {{"signTrusted", Signing::Trusted},
                                                            {"signUntrusted", Signing::Untrusted},
                                                            {"signSelf", Signing::Self}};
    const auto signing = FirstWord(call, Names, "signing algorithm");
    if (!signing)
        return;
    CertSignRule rule;
    rule.signing = *signing;
    if (ParseRuleAcls(call, call.args(), rule.acls))
        call.settings.sslproxyCertSign.push_back(std::move(rule));
}

void Config::Handlers::CertAdaptHandler(DirectiveCall& call)
{
    using Adaptation = CertAdaptRule::Adaptation;
    // Squid 5 (src/cache_cf.cc parse_sslproxy_cert_adapt): NAME or NAME{VALUE}
    static const std::pair<const char*, Adaptation> Names[] = {{"setValidAfter", Adaptation::ValidAfter},
                                                               {"setValidBefore", Adaptation::ValidBefore},
                                                               {"setCommonName", Adaptation::CommonName}};
    const auto adaptation = FirstWord(call, Names, "adaptation algorithm");
    if (!adaptation)
        return;
    CertAdaptRule rule;
    rule.adaptation = *adaptation;
    auto words = call.args();
    const auto brace = words[0].find('{');
    const std::string name = words[0].substr(0, brace);
    std::optional<std::string> value;
    if (brace != std::string::npos) {
        if (words[0].back() != '}') {
            call.error("sslproxy_cert_adapt: missing '}' in " + words[0]);
            return;
        }
        value = words[0].substr(brace + 1, words[0].size() - brace - 2);
    }
    if (value && rule.adaptation != Adaptation::CommonName) {
        call.warning("sslproxy_cert_adapt: " + name + " takes no {value}: ignoring {" + *value + "}");
    } else if (value) {
        // a name a certificate can hold: at most 64 characters (Squid's
        // limit, RFC 5280's ub-common-name), no separators (doc/design.md "SSL bump")
        const bool plain =
            !value->empty() && value->size() <= 64 && std::all_of(value->begin(), value->end(), [](char c) {
                return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' ||
                       c == '*';
            });
        if (!plain) {
            call.error("sslproxy_cert_adapt: setCommonName{" + *value +
                       "}: a host name of at most 64 letters, digits, '.', '-', '_' or '*'");
            return;
        }
        rule.commonName = *value;
    }
    if (ParseRuleAcls(call, std::move(words), rule.acls))
        call.settings.sslproxyCertAdapt.push_back(std::move(rule));
}

void Config::Handlers::CertHelperHandler(DirectiveCall& call)
{
    call.warningOnce("sslcrtd",
                     call.line.words[0] +
                         ": cuttle mints bumped certificates itself and needs no certificate helper; "
                         "ignoring sslcrtd_program and sslcrtd_children",
                     "sslcrtd directive");
}

void Config::Handlers::CertSignHashHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    WarnExtra(call, 2);
    const auto& name = call.line.words[1];
    if (!EVP_get_digestbyname(name.c_str())) {
        call.error("sslproxy_cert_sign_hash: OpenSSL knows no digest '" + name + "'");
        return;
    }
    call.settings.sslproxyCertSignHash = name;
}
