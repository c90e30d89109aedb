/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "client/Lookups.h"
#include "acl/ExternalType.h"
#include "acl/Registry.h"
#include "helper/Reply.h"
#include "log/CacheLog.h"

#include <algorithm>

Client::Lookups::Lookups(Comm::Loop& loop) : loop_(loop) {}

Client::Lookups::~Lookups() = default;

void Client::Lookups::configure(const Acl::Registry& acls, Clock::duration ipTtl)
{
    userAddresses_.setTtl(ipTtl);
    std::map<std::string, Type> next;
    for (const auto& t : acls.externalTypes()) {
        Helper::Options options;
        options.name = t->name();
        options.argv = t->program();
        options.childrenMax = t->childrenMax();
        options.startup = t->childrenStartup();
        options.idle = t->childrenIdle();
        options.concurrency = t->concurrency();
        options.queueSize = t->queueSize();
        Type type;
        if (auto old = types_.find(t->name()); old != types_.end()) {
            type.pool = std::move(old->second.pool);
            type.pool->reconfigure(options);
        } else {
            type.pool = std::make_unique<Helper::Pool>(loop_, options);
        }
        type.ttl = t->ttl();
        type.negativeTtl = t->negativeTtl();
        type.cacheSize = t->cacheSize();
        next.emplace(t->name(), std::move(type));
    }
    for (auto& [name, type] : types_) {
        if (type.pool) {
            type.pool->shutdown();
            retired_.push_back(std::move(type.pool));
        }
    }
    types_ = std::move(next);
    retired_.erase(std::remove_if(retired_.begin(), retired_.end(),
                                  [](const std::unique_ptr<Helper::Pool>& p) { return p->isFinished(); }),
                   retired_.end());
}

const Acl::LookupResult* Client::Lookups::find(const Acl::Lookup& lookup, Clock::time_point now) const
{
    if (lookup.kind == Acl::Lookup::Kind::AddressName) {
        const auto address = lookup.words.empty() ? std::nullopt : Comm::Address::Parse(lookup.words[0], 0);
        const auto known = address && resolver_ ? resolver_->knownNames(*address) : std::nullopt;
        if (!known)
            return nullptr;
        knownName_ = Interpret(*known);
        return &knownName_;
    }
    const auto type = types_.find(lookup.helper);
    if (lookup.kind != Acl::Lookup::Kind::External || type == types_.end())
        return nullptr;
    const auto cached = type->second.cache.find(RequestLine(lookup.words));
    if (cached == type->second.cache.end() || cached->second.expires <= now)
        return nullptr;
    return &cached->second.result;
}

Comm::Lookup Client::Lookups::startName(const Acl::Lookup& lookup,
                                        std::function<void(const Acl::LookupResult&)> done)
{
    const auto address = lookup.words.empty() ? std::nullopt : Comm::Address::Parse(lookup.words[0], 0);
    if (!address || !resolver_)
        return Comm::Lookup();
    return resolver_->resolveAddress(
        *address,
        [done = std::move(done)](const Comm::Resolver::Answer& answer) { done(Interpret(answer)); });
}

Acl::LookupResult Client::Lookups::Interpret(const Comm::Resolver::Answer& answer)
{
    Acl::LookupResult result;
    result.names = answer.names;
    result.verdict = !answer.names.empty() ? Acl::LookupResult::Verdict::Match
                     : answer.isNotFound   ? Acl::LookupResult::Verdict::NoMatch
                                           : Acl::LookupResult::Verdict::Error;
    return result;
}

Helper::Ticket Client::Lookups::start(const Acl::Lookup& lookup,
                                      std::function<void(const Acl::LookupResult&)> done)
{
    const auto type = types_.find(lookup.helper);
    if (lookup.kind != Acl::Lookup::Kind::External || type == types_.end() || !type->second.pool)
        return Helper::Ticket(); // not a lookup this side runs (LookupAnswers answers Error)
    auto line = RequestLine(lookup.words);
    const std::string name = lookup.helper;
    auto& pool = *type->second.pool;
    return pool.submit(line, [this, name, line, done = std::move(done)](const Helper::Reply& reply) {
        const auto result = Interpret(reply);
        if (const auto t = types_.find(name); t != types_.end())
            remember(t->second, line, result);
        if (reply.failure != Helper::Failure::None)
            debugs(82, 1,
                   "ERROR: external ACL '" << name
                                           << "' got no answer: " << Helper::FailureName(reply.failure));
        done(result);
    });
}

void Client::Lookups::remember(Type& type, const std::string& line, const Acl::LookupResult& result)
{
    if (result.verdict == Acl::LookupResult::Verdict::Error) {
        type.cache.erase(line);
        return;
    }
    const auto ttl = result.verdict == Acl::LookupResult::Verdict::Match ? type.ttl : type.negativeTtl;
    if (ttl.count() == 0)
        return;
    const auto now = Clock::now();
    if (type.cache.size() >= type.cacheSize && !type.cache.count(line)) {
        // a full cache of live answers is walked at most once a second:
        // a walk per new request line would make each lookup cost the cache's size
        if (now - type.lastSweep < std::chrono::seconds(1))
            return;
        type.lastSweep = now;
        for (auto i = type.cache.begin(); i != type.cache.end();) {
            if (i->second.expires <= now)
                i = type.cache.erase(i);
            else
                ++i;
        }
        if (type.cache.size() >= type.cacheSize)
            return;
    }
    type.cache[line] = Cached{result, now + ttl};
}

std::string Client::Lookups::RequestLine(const std::vector<std::string>& words)
{
    std::string line;
    for (const auto& w : words) {
        if (!line.empty())
            line += ' ';
        line += w.empty() ? std::string("-") : Helper::Rfc1738Escape(w);
    }
    return line;
}

Acl::LookupResult Client::Lookups::Interpret(const Helper::Reply& reply)
{
    Acl::LookupResult result;
    switch (reply.result) {
    case Helper::Result::Okay:
        result.verdict = Acl::LookupResult::Verdict::Match;
        break;
    case Helper::Result::Error:
        result.verdict = Acl::LookupResult::Verdict::NoMatch;
        break;
    default:
        result.verdict = Acl::LookupResult::Verdict::Error;
        break;
    }
    for (const auto& n : reply.notes)
        result.notes.emplace_back(n.key, n.value);
    return result;
}

void Client::LookupAnswers::beginCheck(Lookups& shared)
{
    shared_ = &shared;
    if (!isFresh_)
        answered_.clear();
    isFresh_ = false;
}

void Client::LookupAnswers::start(const Acl::Lookup& lookup, std::function<void()> done)
{
    const auto answer = [this, lookup, done](const Acl::LookupResult& result) {
        answered_.emplace_back(lookup, result);
        isFresh_ = true;
        done();
    };
    if (lookup.kind == Acl::Lookup::Kind::AddressName) {
        nameLookup_ = shared_->startName(lookup, answer);
        if (nameLookup_.isPending())
            return;
    } else {
        ticket_ = shared_->start(lookup, answer);
        if (ticket_.isPending())
            return;
    }
    // nobody to ask: an Error, from the loop as an answer would come
    failure_ = shared_->loop().defer([answer] { answer(Acl::LookupResult{}); });
}

const Acl::LookupResult* Client::LookupAnswers::find(const Acl::Lookup& lookup) const
{
    for (const auto& [asked, result] : answered_) {
        if (asked == lookup)
            return &result;
    }
    return shared_ ? shared_->find(lookup, Lookups::Clock::now()) : nullptr;
}

void Client::UserAddresses::expire(std::map<std::string, Clock::time_point>& seen,
                                   Clock::time_point now) const
{
    for (auto i = seen.begin(); i != seen.end();) {
        if (now - i->second >= ttl_)
            i = seen.erase(i);
        else
            ++i;
    }
}

void Client::UserAddresses::note(const std::string& user, const std::string& address, Clock::time_point now)
{
    if (users_.size() >= 4096 && now - lastSweep_ >= std::chrono::seconds(1)) {
        // drop the users whose addresses all expired; at most once a second,
        // so that a table of live users does not cost a walk per request
        lastSweep_ = now;
        for (auto u = users_.begin(); u != users_.end();) {
            expire(u->second, now);
            u = u->second.empty() ? users_.erase(u) : std::next(u);
        }
    }
    auto& seen = users_[user];
    if (seen.size() >= MaxPerUser && !seen.count(address))
        expire(seen, now);
    if (seen.size() < MaxPerUser || seen.count(address))
        seen[address] = now;
}

size_t Client::UserAddresses::count(const std::string& user)
{
    const auto u = users_.find(user);
    if (u == users_.end())
        return 0;
    expire(u->second, Clock::now());
    return u->second.size();
}

void Client::UserAddresses::forget(const std::string& user, const std::string& address)
{
    if (const auto u = users_.find(user); u != users_.end())
        u->second.erase(address);
}
