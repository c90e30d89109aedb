/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "tls/Minter.h"
#include "tls/Context.h"

#include <cctype>
#include <vector>

#include <arpa/inet.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509v3.h>

namespace {

/// what a kept certificate costs beyond its DER bytes: its X509 and
/// SSL_CTX structures and the map's nodes (measured with OpenSSL 3.0:
/// about 2 KB a certificate)
constexpr uint64_t EntryOverhead = 2048;

/// a minted certificate is valid from a day ago (clocks drift) for a year,
/// and never beyond the CA
constexpr long ValidBeforeSeconds = 86400;
constexpr long ValidForSeconds = 365L * 86400;

using BioPtr = std::unique_ptr<BIO, Tls::Free<BIO, BIO_free_all>>;
using ExtensionPtr = std::unique_ptr<X509_EXTENSION, Tls::Free<X509_EXTENSION, X509_EXTENSION_free>>;

bool AddExtension(X509* cert, X509* issuer, int nid, const std::string& value)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    ExtensionPtr ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
    return ext && X509_add_ext(cert, ext.get(), -1) == 1;
}

/// whether host may be written in a subjectAltName: letters, digits and
/// `.-_:` only (no `,` that would add a name, no `*`)
bool IsPlainName(const std::string& host)
{
    if (host.empty() || host.size() > 255)
        return false;
    for (const char c : host) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_' && c != ':')
            return false;
    }
    return true;
}

/// the subjectAltName names of cert that may be copied, at most 100: its
/// DNS names (a leading `*.` is kept), and with addresses its IP addresses
/// as "IP:text" (the DNS names then as "DNS:name")
std::vector<std::string> AltNames(X509* cert, bool addresses)
{
    std::vector<std::string> names;
    auto* sans = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
    for (int i = 0; sans && i < sk_GENERAL_NAME_num(sans) && names.size() < 100; ++i) {
        const GENERAL_NAME* name = sk_GENERAL_NAME_value(sans, i);
        if (name->type == GEN_IPADD && addresses) {
            const int size = ASN1_STRING_length(name->d.iPAddress);
            char text[INET6_ADDRSTRLEN] = {};
            if ((size == 4 || size == 16) &&
                ::inet_ntop(size == 4 ? AF_INET : AF_INET6, ASN1_STRING_get0_data(name->d.iPAddress), text,
                            sizeof(text)))
                names.push_back(std::string("IP:") + text);
        }
        if (name->type != GEN_DNS)
            continue;
        const auto* text = reinterpret_cast<const char*>(ASN1_STRING_get0_data(name->d.dNSName));
        const std::string value(text, size_t(ASN1_STRING_length(name->d.dNSName)));
        const bool wild = value.rfind("*.", 0) == 0;
        if (IsPlainName(wild ? value.substr(2) : value))
            names.push_back(addresses ? "DNS:" + value : value);
    }
    GENERAL_NAMES_free(sans);
    return names;
}

/// the CN of cert when it may be copied, else empty
std::string CommonName(X509* cert)
{
    char cn[65] = {};
    const int n = X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, cn, sizeof(cn));
    const std::string value = n > 0 ? std::string(cn, size_t(n)) : std::string();
    const bool wild = value.rfind("*.", 0) == 0;
    return IsPlainName(wild ? value.substr(2) : value) ? value : std::string();
}

bool IsAddress(const std::string& host)
{
    unsigned char buffer[16];
    return ::inet_pton(AF_INET, host.c_str(), buffer) == 1 ||
           ::inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

/// sets a random positive 128-bit serial: two certificates for one name
/// (a restart, an eviction) never share one, which browsers refuse
bool SetRandomSerial(X509* cert)
{
    unsigned char serial[16];
    if (RAND_bytes(serial, sizeof(serial)) != 1)
        return false;
    serial[0] &= 0x7f;
    serial[0] |= 0x01; // no leading zero byte: DER keeps all 16
    std::unique_ptr<BIGNUM, Tls::Free<BIGNUM, BN_free>> number(BN_bin2bn(serial, sizeof(serial), nullptr));
    return number && BN_to_ASN1_INTEGER(number.get(), X509_get_serialNumber(cert));
}

/// The CA of signUntrusted (Squid's Ssl::generateUntrustedCert()): the bump
/// CA's subject with its CN `Not trusted by "CN"` (`"O"` when it has no
/// CN), its validity, self-signed with a key of its own; null when OpenSSL fails
Tls::X509Ptr MakeUntrustedCa(X509* ca, EVP_PKEY* key)
{
    Tls::X509Ptr cert(X509_new());
    std::unique_ptr<X509_NAME, Tls::Free<X509_NAME, X509_NAME_free>> subject(
        X509_NAME_dup(X509_get_subject_name(ca)));
    if (!cert || !subject)
        return nullptr;
    char text[65] = {};
    std::string cn = "Not trusted";
    if (X509_NAME_get_text_by_NID(subject.get(), NID_commonName, text, sizeof(text)) > 0 ||
        X509_NAME_get_text_by_NID(subject.get(), NID_organizationName, text, sizeof(text)) > 0)
        cn += " by \"" + std::string(text) + "\"";
    for (int i; (i = X509_NAME_get_index_by_NID(subject.get(), NID_commonName, -1)) >= 0;)
        X509_NAME_ENTRY_free(X509_NAME_delete_entry(subject.get(), i));
    cn = cn.substr(0, 64); // ub-common-name
    const bool ok =
        SetRandomSerial(cert.get()) && X509_set_version(cert.get(), 2) == 1 &&
        X509_set1_notBefore(cert.get(), X509_get0_notBefore(ca)) == 1 &&
        X509_set1_notAfter(cert.get(), X509_get0_notAfter(ca)) == 1 &&
        X509_set_pubkey(cert.get(), key) == 1 &&
        X509_NAME_add_entry_by_txt(subject.get(), "CN", MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0) == 1 &&
        X509_set_subject_name(cert.get(), subject.get()) == 1 &&
        X509_set_issuer_name(cert.get(), subject.get()) == 1 &&
        AddExtension(cert.get(), cert.get(), NID_basic_constraints, "critical,CA:TRUE") &&
        AddExtension(cert.get(), cert.get(), NID_key_usage, "critical,keyCertSign,cRLSign") &&
        AddExtension(cert.get(), cert.get(), NID_subject_key_identifier, "hash") &&
        X509_sign(cert.get(), key, EVP_sha256()) > 0;
    return ok ? std::move(cert) : nullptr;
}

} // namespace

RefCount<Tls::Minter> Tls::Minter::Make(const MinterOptions& options, std::string& why)
{
    if (options.caCertFile.empty()) {
        why = "ssl-bump needs tls-cert= (the bump CA)";
        return nullptr;
    }
    const auto& keyFile = options.caKeyFile.empty() ? options.caCertFile : options.caKeyFile;
    if (!options.generate) {
        auto ctx = NewContext(TLS_server_method(), options.setOptions, options.clearOptions,
                              options.minVersion, "tls-min-version", why);
        if (!ctx)
            return nullptr;
        if (!SSL_CTX_use_certificate_chain_file(ctx.get(), options.caCertFile.c_str()) ||
            !SSL_CTX_use_PrivateKey_file(ctx.get(), keyFile.c_str(), SSL_FILETYPE_PEM) ||
            !SSL_CTX_check_private_key(ctx.get())) {
            why =
                "tls-cert=" + options.caCertFile + " tls-key=" + keyFile + ": " + LastError("cannot be used");
            return nullptr;
        }
        return RefCount<Minter>(new Minter(std::move(ctx)));
    }
    BioPtr certBio(BIO_new_file(options.caCertFile.c_str(), "r"));
    X509Ptr ca(certBio ? PEM_read_bio_X509(certBio.get(), nullptr, nullptr, nullptr) : nullptr);
    if (!ca) {
        why = "tls-cert=" + options.caCertFile + ": " + LastError("cannot be read");
        return nullptr;
    }
    BioPtr keyBio(BIO_new_file(keyFile.c_str(), "r"));
    KeyPtr caKey(keyBio ? PEM_read_bio_PrivateKey(keyBio.get(), nullptr, nullptr, nullptr) : nullptr);
    if (!caKey) {
        why = "tls-key=" + keyFile + ": " + LastError("cannot be read");
        return nullptr;
    }
    if (X509_check_private_key(ca.get(), caKey.get()) != 1) {
        why = "tls-key=" + keyFile + " is not the key of tls-cert=" + options.caCertFile;
        LastError("");
        return nullptr;
    }
    if (X509_check_ca(ca.get()) == 0) {
        why = "tls-cert=" + options.caCertFile + " is not a CA certificate: it cannot sign the bumped sites'";
        return nullptr;
    }
    if (!EVP_get_digestbyname(options.signHash.c_str())) {
        why = "sslproxy_cert_sign_hash " + options.signHash + ": OpenSSL knows no such digest";
        return nullptr;
    }
    KeyPtr key(options.rsaKeys ? EVP_RSA_gen(2048) : EVP_EC_gen("P-256"));
    KeyPtr untrustedKey(EVP_EC_gen("P-256"));
    X509Ptr untrusted(untrustedKey ? MakeUntrustedCa(ca.get(), untrustedKey.get()) : nullptr);
    if (!key || !untrusted) {
        why = LastError("the key pairs for minted certificates cannot be made");
        return nullptr;
    }
    return RefCount<Minter>(new Minter(options, std::move(ca), std::move(caKey), std::move(key),
                                       std::move(untrusted), std::move(untrustedKey)));
}

Tls::Minter::Minter(const MinterOptions& options, X509Ptr&& ca, KeyPtr&& caKey, KeyPtr&& key,
                    X509Ptr&& untrusted, KeyPtr&& untrustedKey)
    : options_(options), ca_(std::move(ca)), caKey_(std::move(caKey)), key_(std::move(key)),
      untrusted_(std::move(untrusted)), untrustedKey_(std::move(untrustedKey))
{}

std::string Tls::MintSpec::key() const
{
    static const char* const Signers[] = {"", " signUntrusted", " signSelf"};
    return Signers[int(signer)] + std::string(caNotAfter ? " setValidAfter" : "") +
           (caNotBefore ? " setValidBefore" : "") +
           (commonName.empty() ? "" : " setCommonName=" + commonName);
}

Tls::Minter::~Minter() = default;

X509* Tls::Minter::cachedCertificate(const std::string& host) const
{
    const auto it = byKey_.find(host);
    return it == byKey_.end() ? nullptr : it->second->cert.get();
}

SSL_CTX* Tls::Minter::contextFor(const std::string& host)
{
    return find(host, host, nullptr, MintSpec());
}

SSL_CTX* Tls::Minter::contextFor(const std::string& host, X509* origin, const MintSpec& spec)
{
    // one entry per origin certificate (a new one is mimicked anew) and spec
    std::string key = host;
    if (origin) {
        unsigned char digest[EVP_MAX_MD_SIZE];
        unsigned int size = 0;
        if (X509_digest(origin, EVP_sha256(), digest, &size) != 1)
            return nullptr;
        key += "/";
        static const char hex[] = "0123456789abcdef";
        for (unsigned int i = 0; i < size; ++i)
            key += std::string{hex[digest[i] >> 4], hex[digest[i] & 15]};
    }
    return find(key + spec.key(), host, origin, spec);
}

SSL_CTX* Tls::Minter::find(const std::string& key, const std::string& host, X509* origin,
                           const MintSpec& spec)
{
    if (fixed_)
        return fixed_.get();
    if (const auto it = byKey_.find(key); it != byKey_.end()) {
        entries_.splice(entries_.begin(), entries_, it->second);
        return it->second->ctx.get();
    }
    auto cert = mint(host, origin, spec);
    if (!cert)
        return nullptr;
    std::string why;
    auto ctx = NewContext(TLS_server_method(), options_.setOptions, options_.clearOptions,
                          options_.minVersion, "tls-min-version", why);
    if (!ctx || SSL_CTX_use_certificate(ctx.get(), cert.get()) != 1 ||
        SSL_CTX_use_PrivateKey(ctx.get(), key_.get()) != 1) {
        LastError("");
        return nullptr;
    }
    ++minted_;
    const int der = i2d_X509(cert.get(), nullptr);
    Entry entry{key, std::move(ctx), std::move(cert),
                uint64_t(der > 0 ? der : 0) + EntryOverhead + key.size()};
    bytes_ += entry.bytes;
    entries_.push_front(std::move(entry));
    byKey_[key] = entries_.begin();
    // the least recently used go, but never the one just made
    while (bytes_ > options_.cacheBytes && entries_.size() > 1) {
        bytes_ -= entries_.back().bytes;
        byKey_.erase(entries_.back().key);
        entries_.pop_back();
    }
    return entries_.front().ctx.get();
}

Tls::X509Ptr Tls::Minter::mint(const std::string& host, X509* origin, const MintSpec& spec) const
{
    X509Ptr cert(X509_new());
    const std::string& named = spec.commonName.empty() ? host : spec.commonName;
    // setCommonName{*.example.test} may name a wildcard, a host may not
    const bool wild = !spec.commonName.empty() && named.rfind("*.", 0) == 0;
    if (!cert || !IsPlainName(wild ? named.substr(2) : named))
        return nullptr;
    // the names: setCommonName's alone, else the origin's DNS names and
    // addresses when mimicking, else the host
    std::string altNames;
    const bool mimic = origin && spec.commonName.empty();
    for (const auto& name : mimic ? AltNames(origin, true) : std::vector<std::string>())
        altNames += (altNames.empty() ? "" : ",") + name;
    if (altNames.empty())
        altNames = (IsAddress(named) ? "IP:" : "DNS:") + named;
    // a CN holds at most 64 characters (RFC 5280 ub-common-name); the SAN
    // names the host whatever its length
    std::string cn = mimic ? CommonName(origin) : std::string();
    if (cn.empty())
        cn = named.substr(0, 64);
    // the validity: the origin's when mimicking, else from a day ago for a
    // year; never past the CA's end; the CA's ends where spec says so
    const ASN1_TIME* caEnd = X509_get0_notAfter(ca_.get());
    const ASN1_TIME* start = spec.caNotBefore ? X509_get0_notBefore(ca_.get())
                             : origin         ? X509_get0_notBefore(origin)
                                              : nullptr;
    const ASN1_TIME* end = spec.caNotAfter || !origin ? caEnd : X509_get0_notAfter(origin);
    time_t yearOn = time(nullptr) + ValidForSeconds;
    const bool validity =
        (start ? X509_set1_notBefore(cert.get(), start) == 1
               : X509_gmtime_adj(X509_getm_notBefore(cert.get()), -ValidBeforeSeconds) != nullptr) &&
        (origin || spec.caNotAfter || X509_cmp_time(caEnd, &yearOn) < 0
             ? X509_set1_notAfter(cert.get(), ASN1_TIME_compare(end, caEnd) > 0 ? caEnd : end) == 1
             : X509_time_adj_ex(X509_getm_notAfter(cert.get()), 0, 0, &yearOn) != nullptr);
    // the signer: the CA, the untrusted CA, or the certificate itself
    X509* issuer = spec.signer == MintSpec::Signer::Trusted     ? ca_.get()
                   : spec.signer == MintSpec::Signer::Untrusted ? untrusted_.get()
                                                                : cert.get();
    EVP_PKEY* signingKey = spec.signer == MintSpec::Signer::Trusted     ? caKey_.get()
                           : spec.signer == MintSpec::Signer::Untrusted ? untrustedKey_.get()
                                                                        : key_.get();
    const bool self = spec.signer == MintSpec::Signer::Self;
    const bool ok =
        validity && SetRandomSerial(cert.get()) && X509_set_version(cert.get(), 2) == 1 &&
        X509_set_pubkey(cert.get(), key_.get()) == 1 &&
        X509_NAME_add_entry_by_txt(X509_get_subject_name(cert.get()), "CN", MBSTRING_ASC,
                                   reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0) == 1 &&
        X509_set_issuer_name(cert.get(), X509_get_subject_name(self ? cert.get() : issuer)) == 1 &&
        AddExtension(cert.get(), issuer, NID_basic_constraints, "critical,CA:FALSE") &&
        AddExtension(cert.get(), issuer, NID_key_usage, "critical,digitalSignature,keyEncipherment") &&
        AddExtension(cert.get(), issuer, NID_ext_key_usage, "serverAuth") &&
        // the CA's key identifier, when it has one, helps clients find it
        (self || !X509_get0_subject_key_id(issuer) ||
         AddExtension(cert.get(), issuer, NID_authority_key_identifier, "keyid")) &&
        AddExtension(cert.get(), issuer, NID_subject_alt_name, altNames) &&
        X509_sign(cert.get(), signingKey, EVP_get_digestbyname(options_.signHash.c_str())) > 0;
    if (!ok) {
        LastError("");
        return nullptr;
    }
    return cert;
}

std::vector<std::string> Tls::CertificateNames(X509* cert)
{
    auto names = AltNames(cert, false);
    if (names.empty()) {
        if (auto cn = CommonName(cert); !cn.empty())
            names.push_back(std::move(cn));
    }
    return names;
}
