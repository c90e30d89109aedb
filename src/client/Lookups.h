/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Client::Lookups and Client::LookupAnswers: the client side's half of
/// the acl lookups (acl/Lookup.h): the external_acl_type helpers, the cache
/// of their answers, the names of addresses (through Comm::Resolver and its
/// name cache), and one connection's view of them. doc/design.md "Lookups".

#pragma once

#include "acl/Lookup.h"
#include "acl/MaxUserIpNode.h"
#include "comm/Resolver.h"
#include "helper/Pool.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace Acl {
class Registry;
}

namespace Client {

/// The client addresses each authenticated user came from, each kept for
/// authenticate_ip_ttl after its last request (Squid's Auth::User ip list),
/// for max_user_ip acls. Bounded: a user's list holds at most MaxPerUser
/// addresses, and expired users are dropped as the table grows.
class UserAddresses : public Acl::UserAddresses {
public:
    using Clock = std::chrono::steady_clock;
    /// the most addresses kept per user (more count as this many)
    static constexpr size_t MaxPerUser = 1024;

    /// sets authenticate_ip_ttl
    void setTtl(Clock::duration ttl) { ttl_ = ttl; }
    /// `user` made a request from `address` now
    void note(const std::string& user, const std::string& address, Clock::time_point now);

    size_t count(const std::string& user) override;
    void forget(const std::string& user, const std::string& address) override;
    void forgetAll(const std::string& user) override { users_.erase(user); }

private:
    /// drops the expired addresses of one user's list
    void expire(std::map<std::string, Clock::time_point>& seen, Clock::time_point now) const;

    Clock::duration ttl_ = std::chrono::seconds(1);
    std::unordered_map<std::string, std::map<std::string, Clock::time_point>>
        users_;                     ///< user: address: last seen
    Clock::time_point lastSweep_{}; ///< the last walk over every user (at most one a second)
};

/// The external_acl_type helpers of the configuration in force and the
/// answers they gave, shared by every connection (Squid's per-type cache):
/// OK for ttl=, ERR for negative_ttl=, at most cache= answers (when full,
/// expired ones are dropped, and a new answer is not kept if none was).
/// BH and failures are never cached (Squid 5.7 drops the old entry too).
class Lookups {
public:
    using Clock = std::chrono::steady_clock;

    /// No helper until configure().
    explicit Lookups(Comm::Loop& loop);
    ~Lookups();
    Lookups(const Lookups&) = delete;
    Lookups& operator=(const Lookups&) = delete;

    /// Runs the external_acl_type helpers `acls` defines: a type with a
    /// known name reconfigures its pool, a new one starts one, a removed one
    /// is shut down. Every cached answer is dropped (Squid makes its types
    /// anew on reconfigure). `ipTtl` is authenticate_ip_ttl (userAddresses()).
    /// Throws TextException when a helper cannot run.
    void configure(const Acl::Registry& acls, Clock::duration ipTtl);

    /// where AddressName lookups go (nullptr: nowhere, they answer Error)
    void setResolver(Comm::Resolver* resolver) { resolver_ = resolver; }

    /// The cached answer to `lookup`, or nullptr. An AddressName answer is
    /// valid until the next find().
    const Acl::LookupResult* find(const Acl::Lookup& lookup, Clock::time_point now) const;

    /// Looks up the names of an AddressName lookup's address and gives them
    /// to `done` (from the loop). Without a resolver or a valid address, an
    /// empty Lookup: `done` is never called.
    Comm::Lookup startName(const Acl::Lookup& lookup, std::function<void(const Acl::LookupResult&)> done);

    /// An address's names as acls read them: Match with its names, NoMatch
    /// when it has none, Error when the lookup failed.
    static Acl::LookupResult Interpret(const Comm::Resolver::Answer& answer);

    /// Asks the helper of `lookup` (an External one), caches the answer, and
    /// gives it to `done` (from the loop). For a lookup no helper here can
    /// answer (an unknown type), an empty Ticket: `done` is never called.
    Helper::Ticket start(const Acl::Lookup& lookup, std::function<void(const Acl::LookupResult&)> done);

    /// the loop the helpers run on
    Comm::Loop& loop() { return loop_; }

    /// where authenticated users came from (max_user_ip)
    UserAddresses& userAddresses() { return userAddresses_; }

    /// The request line of `words`: each one URL-escaped, "-" when empty,
    /// joined with spaces (Squid 5.7's external acl key).
    static std::string RequestLine(const std::vector<std::string>& words);

    /// A helper reply as acls read it: OK, ERR, or anything else an Error.
    static Acl::LookupResult Interpret(const Helper::Reply& reply);

private:
    /// one cached answer
    struct Cached {
        Acl::LookupResult result;
        Clock::time_point expires;
    };
    /// one external_acl_type
    struct Type {
        std::unique_ptr<Helper::Pool> pool;
        std::chrono::seconds ttl{0};
        std::chrono::seconds negativeTtl{0};
        size_t cacheSize = 0;
        std::unordered_map<std::string, Cached> cache; ///< by request line
        Clock::time_point lastSweep{}; ///< the last walk over a full cache (at most one a second)
    };

    /// keeps `result` for `line` as the type's options say
    void remember(Type& type, const std::string& line, const Acl::LookupResult& result);

    Comm::Loop& loop_;
    Comm::Resolver* resolver_ = nullptr;
    mutable Acl::LookupResult knownName_; ///< find()'s answer to an AddressName lookup
    UserAddresses userAddresses_;
    std::map<std::string, Type> types_;
    std::vector<std::unique_ptr<Helper::Pool>> retired_; ///< shut down, finishing
};

/// One connection's view of the lookups: the shared cache plus the answers
/// it waited for during the current request (an answer the cache did not
/// keep, a BH, is used by the check that asked for it; so the check ends).
class LookupAnswers : public Acl::LookupAnswers {
public:
    /// Prepares a check of a request against `shared`: the answers of an
    /// earlier request are forgotten, those of this one kept.
    void beginCheck(Lookups& shared);

    /// Asks for `lookup` (External) and calls `done` once its answer is kept.
    void start(const Acl::Lookup& lookup, std::function<void()> done);

    /// Stops waiting (the callback will not run).
    void cancel()
    {
        ticket_.cancel();
        nameLookup_.cancel();
        failure_.cancel();
    }

    const Acl::LookupResult* find(const Acl::Lookup& lookup) const override;

private:
    Lookups* shared_ = nullptr;
    std::vector<std::pair<Acl::Lookup, Acl::LookupResult>> answered_; ///< this request's
    bool isFresh_ = false; ///< answered_ grew since the last beginCheck()
    Helper::Ticket ticket_;
    Comm::Lookup nameLookup_; ///< an AddressName lookup in flight
    Comm::Timer failure_;     ///< delivers the Error of a lookup nobody can answer
};

} // namespace Client
