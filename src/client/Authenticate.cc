/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The client side of `auth_param`: a request's Proxy-Authorization
/// read for http_access, the helper asked when the rules need its verdict,
/// and the challenges of a 407 (doc/design.md "Authentication").

#include "cuttle.h"
#include "client/Connection.h"
#include "acl/AccessList.h"
#include "auth/Basic.h"
#include "auth/Digest.h"
#include "base/TextException.h"
#include "client/Services.h"
#include "config/Settings.h"

namespace {

/// Acl::AuthState of a scheme's verdict
Acl::AuthState StateOf(Auth::Verdict verdict)
{
    switch (verdict) {
    case Auth::Verdict::Good:
        return Acl::AuthState::Valid;
    case Auth::Verdict::Unknown:
        return Acl::AuthState::Unchecked;
    case Auth::Verdict::Bad:
    case Auth::Verdict::Stale:
        break;
    }
    return Acl::AuthState::Invalid;
}

} // namespace

void Client::Connection::readCredentials(Acl::Checklist& facts)
{
    staleNonce_ = false;
    const auto value = parser_.findField("Proxy-Authorization");
    if (!value)
        return;
    if (auto* basic = services_.basicAuth()) {
        if (const auto credentials = Auth::ParseBasic(*value)) {
            facts.auth = StateOf(basic->lookUp(*credentials, facts.user, Auth::Basic::Clock::now()));
            return;
        }
    }
    if (auto* digest = services_.digestAuth()) {
        if (digestPassed_ && digestPassed_->first == *value) {
            // the same head again: its nonce use is taken already
            facts.auth = Acl::AuthState::Valid;
            facts.user = digestPassed_->second;
            return;
        }
        if (const auto credentials = Auth::ParseDigest(*value)) {
            const auto verdict = digest->lookUp(*credentials, parser_.methodToken(), parser_.target(),
                                                facts.user, Auth::Digest::Clock::now());
            staleNonce_ = verdict == Auth::Verdict::Stale;
            facts.auth = StateOf(verdict);
            if (verdict == Auth::Verdict::Good)
                digestPassed_ =
                    std::make_unique<std::pair<std::string, std::string>>(std::string(*value), facts.user);
            return;
        }
        facts.auth = Acl::AuthState::Invalid; // a Digest value cuttle cannot read: a new challenge
    }
}

void Client::Connection::checkCredentials()
{
    // the head stays unconsumed and is handled again with the verdict
    // cached (processBuffered())
    const auto value = parser_.findField("Proxy-Authorization");
    Must(value); // the rules wait only for credentials readCredentials() found unchecked
    auto done = [this] { resumeAfterCheck(); };
    if (auto* basic = services_.basicAuth()) {
        if (const auto credentials = Auth::ParseBasic(*value)) {
            authCheck_ = basic->check(*credentials, std::move(done));
            return;
        }
    }
    const auto credentials = Auth::ParseDigest(*value);
    auto* digest = services_.digestAuth();
    Must(credentials && digest);
    authCheck_ = digest->check(*credentials, std::move(done));
}

std::vector<std::pair<std::string, std::string>> Client::Connection::authChallenges()
{
    // one Proxy-Authenticate per configured scheme, in the order of their
    // first auth_param line, as Squid 5.7 sends them
    std::vector<std::pair<std::string, std::string>> fields;
    for (const auto& scheme : services_.settings().authSchemes) {
        if (scheme == "basic" && services_.basicAuth())
            fields.emplace_back("Proxy-Authenticate", services_.basicAuth()->challenge());
        else if (scheme == "digest" && services_.digestAuth())
            fields.emplace_back("Proxy-Authenticate",
                                services_.digestAuth()->challenge(staleNonce_, Auth::Digest::Clock::now()));
    }
    if (fields.empty()) // a proxy_auth acl without a scheme cannot be configured; still say which
        fields.emplace_back("Proxy-Authenticate", "Basic");
    return fields;
}
