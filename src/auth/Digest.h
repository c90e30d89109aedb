/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Auth::Digest: `auth_param digest` (RFC 7616, RFC 2617) as Squid 5.7
/// offers it: MD5, qop="auth", nonces that cuttle makes and checks, and the
/// user's HA1 asked of a Squid digest helper (digest_file_auth,
/// digest_ldap_auth) with the request `"user":"realm"` and the answer
/// `OK ha1="HEX"`. doc/design.md "Authentication".
///
/// A nonce is 16 bytes from OpenSSL's RAND_bytes, sent as 32 hex digits; it
/// is good for nonce_max_duration and nonce_max_count uses, each with a
/// larger nonce count (nonce_strictness: exactly one larger). It is bound
/// to the first user who logs in with it. A nonce that is unknown,
/// expired, used up or replayed, with otherwise right credentials, gets a
/// new challenge with stale=true (the client retries without asking its
/// user again).

#pragma once

#include "auth/Basic.h"
#include "helper/Pool.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace Auth {

/// The fields of a `Proxy-Authorization: Digest ...` value (RFC 7616 section 3.4).
struct DigestCredentials {
    std::string user;      ///< username
    std::string realm;     ///< realm
    std::string nonce;     ///< nonce (as cuttle sent it)
    std::string uri;       ///< digest-uri: the request-target
    std::string response;  ///< request-digest: 32 hex digits
    std::string algorithm; ///< "MD5" (the default) or "MD5-sess"
    std::string cnonce;    ///< with qop
    std::string nc;        ///< nonce-count: 8 hex digits, with qop
    std::string qop;       ///< "auth" or empty (RFC 2069 compatibility)
};

/// The credentials of a `Proxy-Authorization: Digest k=v, ...` value; nullopt
/// for another scheme, bad syntax, a missing username, realm, nonce, uri or
/// response, an algorithm other than MD5 and MD5-sess, a qop other than
/// auth, a qop without cnonce and nc (or cnonce without qop), or a
/// user name that cannot go into the helper's request line.
std::optional<DigestCredentials> ParseDigest(std::string_view fieldValue);

/// The MD5 of `text` in lowercase hex (OpenSSL's EVP).
std::string Md5Hex(std::string_view text);

/// RFC 2617 section 3.2.2.1: the request-digest of credentials for `method`
/// from the user's HA1 = MD5(user:realm:password) in hex (MD5-sess is
/// derived from it here).
std::string DigestResponse(const std::string& ha1, const DigestCredentials& credentials,
                           std::string_view method);

/// How `auth_param digest` is set (Squid 5.7's defaults).
struct DigestOptions {
    Helper::Options helper; ///< program, children, startup=, idle=, concurrency=
    std::string realm = "Squid proxy-caching web server"; ///< the realm of the challenge
    std::chrono::seconds nonceGarbageInterval{5 * 60};    ///< how often expired nonces are dropped
    std::chrono::seconds nonceMaxDuration{30 * 60};       ///< how long a nonce is good
    uint64_t nonceMaxCount = 50;                          ///< how many uses a nonce is good for
    bool nonceStrictness = false; ///< on: each nonce count must be exactly one more than the last
    bool checkNonceCount = true;  ///< off: the client's nonce count is ignored
    bool postWorkaround = false;  ///< on: a non-GET digest computed for GET is accepted (old browsers)
    bool utf8 = false;            ///< on: a Latin-1 user name goes to the helper in UTF-8
};

/// The digest scheme: its helpers, the HA1s they gave, and the nonces.
class Digest {
public:
    using Clock = std::chrono::steady_clock;

    /// Starts the helpers (Helper::Pool); throws TextException when they cannot run.
    Digest(Comm::Loop& loop, const DigestOptions& options);

    /// Applies new options after a reconfigure; nonces and HA1s stay.
    void reconfigure(const DigestOptions& options);
    /// Stops the helpers (Helper::Pool::shutdown()).
    void shutdown() { pool_.shutdown(); }

    /// Checks credentials sent with a request of `method` to `target`
    /// (the request-target as sent; digest-uri may be it or, for an
    /// absolute target, its path and query, as curl sends). Good: `user` is set and the nonce
    /// counted; Stale: right HA1 but the nonce is no longer good (or
    /// unknown); Unknown: ask check() for the user's HA1; Bad: anything else.
    Verdict lookUp(const DigestCredentials& credentials, std::string_view method, std::string_view target,
                   std::string& user, Clock::time_point now);

    /// Asks a helper for the user's HA1 and keeps its answer, then calls `done`.
    Helper::Ticket check(const DigestCredentials& credentials, std::function<void()> done);

    /// The Proxy-Authenticate value of a 407 with a new nonce:
    /// `Digest realm="...", nonce="...", qop="auth", stale=false|true`.
    std::string challenge(bool stale, Clock::time_point now);

    /// the nonces known (for tests)
    size_t nonceCount() const { return nonces_.size(); }

    /// How long a user's HA1 is kept (Squid's authenticate_ttl default).
    static constexpr std::chrono::seconds Ha1Ttl{3600};
    /// How long "no such user" is kept, and how old an HA1 must be before a
    /// wrong response asks the helper again (the password may have changed).
    static constexpr std::chrono::seconds BadTtl{2};
    /// At most this many nonces are kept (each 407 makes one).
    static constexpr size_t MaxNonces = 65536;

private:
    /// A nonce cuttle sent.
    struct Nonce {
        Clock::time_point created; ///< when it was made
        uint64_t count = 0;        ///< the largest nonce count seen
        std::string user;          ///< the user it was first good for; empty: none yet
    };
    /// A helper's answer about a user.
    struct Ha1 {
        std::string ha1;           ///< hex; empty: no such user (or the helper failed)
        Clock::time_point fetched; ///< when the helper answered
    };

    /// the cache key of a user in a realm
    static std::string Key(const DigestCredentials& credentials);
    /// whether the nonce may take this use (Squid's authDigestNonceIsValid); counts it
    bool takeNonceUse(Nonce& nonce, const DigestCredentials& credentials, Clock::time_point now) const;
    /// drops expired nonces every nonceGarbageInterval, and one when the table is full
    void collectGarbage(Clock::time_point now);

    DigestOptions options_;
    Helper::Pool pool_;
    std::unordered_map<std::string, Ha1> users_;    ///< by Key()
    std::unordered_map<std::string, Nonce> nonces_; ///< by the nonce's hex text
    Clock::time_point nextCollection_{};            ///< when collectGarbage() sweeps again
};

} // namespace Auth
