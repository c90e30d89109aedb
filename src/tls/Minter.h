/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Tls::Minter: the certificates SSL bump shows clients, made in the
/// process from the bump CA of an `http_port ... ssl-bump` (doc/design.md
/// "TLS", "SSL bump"; doc/tls.md).
///
/// The CA certificate and key are read once, when the port is bound (at
/// start, before root is dropped), and are never written anywhere. One key
/// pair for the minted certificates is made then too (ECDSA P-256 by
/// default), so minting is building one certificate and one signature by
/// the CA's key: no key generation on the loop. So is the untrusted CA of
/// sslproxy_cert_signUntrusted: a self-signed CA with a key of its own, named
/// as the bump CA but with the CN `Not trusted by "CN"` (as Squid names
/// it). Minted certificates never
/// touch disk: they are kept in a least-recently-used map by name (and by
/// the origin's certificate when one is mimicked, see contextFor(), and by
/// the MintSpec), bounded
/// by dynamic_cert_mem_cache_size (each counted by its DER size plus the
/// map's overhead), and each comes with a server SSL_CTX ready to accept
/// a bumped client.
///
/// Ownership: the port's Mode holds the Minter by reference count, as an
/// https_port holds its ServerContext; contexts handed out are refcounted
/// by OpenSSL (SSL_new takes its own reference).
#pragma once

#include "base/RefCount.h"
#include "tls/Ptr.h"

#include <cstdint>
#include <list>
#include <string>
#include <unordered_map>
#include <vector>

namespace Tls {

/// an owned key pair
using KeyPtr = std::unique_ptr<EVP_PKEY, Free<EVP_PKEY, EVP_PKEY_free>>;

/// an http_port's ssl-bump settings, as Config::HttpPort holds them
struct MinterOptions {
    std::string caCertFile;          ///< tls-cert=: the CA certificate (PEM)
    std::string caKeyFile;           ///< tls-key=: its key; empty: in caCertFile
    uint64_t cacheBytes = 4 << 20;   ///< dynamic_cert_mem_cache_size (Squid's default: 4 MB)
    bool rsaKeys = false;            ///< minted certificates get an RSA-2048 key (else ECDSA P-256)
    std::string signHash = "sha256"; ///< sslproxy_cert_sign_hash: the digest they are signed with
    /// generate-host-certificates=: off shows caCertFile (then no CA: any
    /// certificate with its key and chain) to every bumped client
    bool generate = true;
    int minVersion = TLS1_2_VERSION; ///< tls-min-version= of the bumped clients
    uint64_t setOptions = 0;         ///< options= bits to set
    uint64_t clearOptions = 0;       ///< options= bits to clear
};

/// How a certificate is minted beyond its names: Squid's sslproxy_cert_sign
/// and sslproxy_cert_adapt, which Client decides (doc/design.md "SSL bump").
struct MintSpec {
    /// who signs: the bump CA, the untrusted CA the Minter makes from it
    /// (a client trusts neither it nor what it signs), the certificate itself
    enum class Signer { Trusted, Untrusted, Self };
    Signer signer = Signer::Trusted;
    bool caNotAfter = false;  ///< setValidAfter: the certificate's "Not After" is the CA's
    bool caNotBefore = false; ///< setValidBefore: its "Not Before" is the CA's
    /// setCommonName: the CN and the one subjectAltName; empty: the usual names
    std::string commonName;

    /// what the spec adds to a cache key: empty for the default spec
    std::string key() const;
};

/// The bump CA and its minted certificates; see the file comment.
class Minter : public RefCountable {
public:
    /// A minter for options, or null with why (a file that cannot be read,
    /// a key that does not match, a certificate that is no CA)
    static RefCount<Minter> Make(const MinterOptions& options, std::string& why);
    ~Minter() override;

    /// A server context whose certificate names host (a DNS name or an IP
    /// literal), minted now or found in the cache (with generate off, the
    /// one context of the configured certificate); null when OpenSSL fails.
    /// The caller takes a reference (SSL_new() does).
    SSL_CTX* contextFor(const std::string& host);
    /// The same for a host whose origin certificate was seen (ssl_bump
    /// stared or peeked at step 2, or bumped there after a look): the
    /// minted certificate mimics its subjectAltName DNS names and addresses
    /// (and CN) and its validity (never past the CA's), as Squid does when
    /// sslproxy_cert_adapt says nothing; host alone when the origin's names
    /// cannot be copied. spec changes the signer, the validity and the
    /// names (and is part of the cache key).
    SSL_CTX* contextFor(const std::string& host, X509* origin, const MintSpec& spec = {});

    /// certificates kept now
    size_t size() const { return entries_.size(); }
    /// bytes they are counted for (at most options.cacheBytes, unless one alone is bigger)
    uint64_t bytes() const { return bytes_; }
    /// certificates minted since start (cache misses)
    uint64_t mintedCount() const { return minted_; }
    /// the certificate the context for host shows, for tests; null when not cached
    X509* cachedCertificate(const std::string& host) const;
    /// the CA that signs MintSpec::Signer::Untrusted certificates (null
    /// with generate-host-certificates=off)
    X509* untrustedCa() const { return untrusted_.get(); }

private:
    struct Entry {
        std::string key; ///< the host, and the origin certificate's digest when mimicked
        CtxPtr ctx;
        X509Ptr cert;
        uint64_t bytes = 0;
    };
    Minter(const MinterOptions& options, X509Ptr&& ca, KeyPtr&& caKey, KeyPtr&& key, X509Ptr&& untrusted,
           KeyPtr&& untrustedKey);
    explicit Minter(CtxPtr&& fixed) : fixed_(std::move(fixed)) {}
    /// a certificate for host (mimicking origin when not null), as spec
    /// says; null when OpenSSL fails
    X509Ptr mint(const std::string& host, X509* origin, const MintSpec& spec) const;
    /// the context under key, made by mint() on a miss
    SSL_CTX* find(const std::string& key, const std::string& host, X509* origin, const MintSpec& spec);

    MinterOptions options_;
    X509Ptr ca_;
    KeyPtr caKey_;
    KeyPtr key_;               ///< the minted certificates' key pair
    X509Ptr untrusted_;        ///< the untrusted CA (MintSpec::Signer::Untrusted), made at start
    KeyPtr untrustedKey_;      ///< its key pair, its own
    CtxPtr fixed_;             ///< generate-host-certificates=off: the context of every client
    std::list<Entry> entries_; ///< most recently used first
    std::unordered_map<std::string, std::list<Entry>::iterator> byKey_;
    uint64_t bytes_ = 0;
    uint64_t minted_ = 0;
};

/// a shared minter
using MinterRef = RefCount<Minter>;

/// The names cert is for, as ssl::server_name sees a server's: its
/// subjectAltName DNS names (`*.` kept), else its CN; at most 100.
std::vector<std::string> CertificateNames(X509* cert);

} // namespace Tls
