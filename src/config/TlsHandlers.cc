/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "config/Handlers.h"
#include "config/Units.h"

#include <cstdlib>
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

} // namespace

void Config::Handlers::TlsOutgoingOptionsHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    auto& out = call.settings.tlsOutgoing;
    for (size_t i = 1; i < call.line.words.size(); ++i) {
        const auto& word = call.line.words[i];
        const size_t eq = word.find('=');
        const std::string key = word.substr(0, eq);
        const std::string value = eq == std::string::npos ? std::string() : word.substr(eq + 1);
        if (eq == std::string::npos) {
            call.error("tls_outgoing_options: '" + word + "' is not KEY=VALUE");
            return;
        }
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
                call.error("tls_outgoing_options: unknown min-version '" + value + "': 1.0, 1.1, 1.2 or 1.3");
                return;
            }
        } else if (key == "options") {
            if (!ParseOptions(value, out.setOptions, out.clearOptions, bad)) {
                call.error("tls_outgoing_options: unknown TLS option '" + bad + "'");
                return;
            }
        } else if (key == "flags") {
            if (!ParseFlags(value, out, bad)) {
                call.error("tls_outgoing_options: unknown or unsupported flag '" + bad +
                           "' (DONT_VERIFY_PEER, DONT_VERIFY_DOMAIN, NO_DEFAULT_CA, NO_SESSION_REUSE)");
                return;
            }
        } else if (key == "default-ca") {
            if (value != "on" && value != "off") {
                call.error("tls_outgoing_options: default-ca=" + value + ": on or off expected");
                return;
            }
            out.defaultCa = value == "on";
        } else {
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
    bool known = false;
    for (const auto& [name, action] : Actions) {
        if (words[0] == name) {
            rule.action = action;
            known = true;
        }
    }
    if (!known) {
        call.error("ssl_bump: unknown action '" + words[0] + "' (peek, stare, splice, bump, terminate)");
        return;
    }
    if (words[0] == "client-first" || words[0] == "server-first" || words[0] == "none")
        call.warning("ssl_bump " + words[0] + " is Squid's older name: cuttle takes it as " +
                     (rule.action == Action::Bump ? "bump" : "splice"));
    words[0] = "allow";
    std::string why;
    if (!rule.acls.parse(words, call.settings.acls, why)) {
        call.error("bad ssl_bump: " + why);
        return;
    }
    if (!why.empty()) {
        call.warning("ssl_bump: " + why);
        return;
    }
    call.settings.sslBump.push_back(std::move(rule));
}

void Config::Handlers::CertHelperHandler(DirectiveCall& call)
{
    call.warningOnce("sslcrtd",
                     call.line.words[0] +
                         ": cuttle mints bumped certificates itself and needs no certificate helper; "
                         "ignoring sslcrtd_program and sslcrtd_children",
                     "sslcrtd directive");
}
