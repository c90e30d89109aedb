/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Auth::Basic: `auth_param basic` (RFC 7617) checked by a Squid basic
/// authentication helper (basic_ncsa_auth, basic_ldap_auth, ...), with the
/// checked credentials cached for `credentialsttl`. doc/design.md "Authentication".

#pragma once

#include "helper/Pool.h"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace Auth {

/// A user name and password as a client sent them.
struct Credentials {
    std::string user;     ///< before the first ':' (RFC 7617 section 2)
    std::string password; ///< after it
};

/// The credentials of a `Proxy-Authorization: Basic BASE64` value (scheme
/// name in any case, RFC 9110 section 11.1); nullopt for another scheme or
/// a value that is not base64 of "user:password".
std::optional<Credentials> ParseBasic(std::string_view fieldValue);

/// Decodes standard base64 (RFC 4648 section 4, padding optional);
/// nullopt on any other character.
std::optional<std::string> DecodeBase64(std::string_view text);

/// How `auth_param basic` is set.
struct BasicOptions {
    Helper::Options helper; ///< program, children, startup=, idle=, concurrency=
    std::string realm = "Squid proxy-caching web server"; ///< Squid 5.7's default realm
    std::chrono::seconds credentialsTtl{2 * 3600}; ///< how long a good check stays good (Squid: 2 hours)
    bool caseSensitive = false; ///< off: the user name is lowercased before the check, as in Squid
    bool utf8 = false;          ///< on: Latin-1 credentials are sent to the helper in UTF-8
};

/// What a check of credentials found (see Basic::lookUp()).
enum class Verdict {
    Unknown, ///< not checked yet: ask the helper
    Good,    ///< the helper vouched for them
    Bad,     ///< wrong, or the helper failed
    Stale,   ///< Digest: right, but with a nonce no longer good: a 407 with stale=true
};

/// Latin-1 to UTF-8 (Squid's `auth_param SCHEME utf8 on`).
std::string Latin1ToUtf8(const std::string& text);

/// The basic scheme: its helpers and the cache of their answers.
class Basic {
public:
    using Clock = std::chrono::steady_clock;

    /// Starts the helpers (Helper::Pool); throws TextException when they cannot run.
    Basic(Comm::Loop& loop, const BasicOptions& options);

    /// Applies new options after a reconfigure (Helper::Pool::reconfigure());
    /// cached verdicts stay, as in Squid.
    void reconfigure(const BasicOptions& options);
    /// Stops the helpers (Helper::Pool::shutdown()).
    void shutdown() { pool_.shutdown(); }

    /// The cached verdict on these credentials (Unknown: ask check()); for
    /// Good, `user` is the user name as the rules see it.
    Verdict lookUp(const Credentials& credentials, std::string& user, Clock::time_point now);

    /// Asks a helper about the credentials and caches its answer (a good
    /// one for credentialsttl, a bad one or a helper failure briefly, so
    /// that the request that asked sees it), then calls `done`.
    Helper::Ticket check(const Credentials& credentials, std::function<void()> done);

    /// The Proxy-Authenticate value of a 407: `Basic realm="..."`.
    std::string challenge() const;

    /// The user name as the helper and the rules see it (lowercased unless casesensitive).
    std::string userName(const std::string& sent) const;

    /// How long a bad verdict is remembered: long enough for the request that
    /// asked, short enough that a corrected password or a restarted helper is
    /// asked again.
    static constexpr std::chrono::seconds BadTtl{2};

private:
    /// The cache key of credentials.
    static std::string Key(const Credentials& credentials);

    struct Cached {
        bool good = false;
        Clock::time_point expires;
    };

    BasicOptions options_;
    Helper::Pool pool_;
    std::unordered_map<std::string, Cached> cache_;
};

} // namespace Auth
