/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::MaxUserIpNode: the `max_user_ip` acl type, and
/// Acl::UserAddresses, the addresses each user came from lately.

#pragma once

#include "acl/Node.h"

#include <string>

namespace Acl {

/// The client addresses each authenticated user was seen at within
/// authenticate_ip_ttl (the client side keeps them; Checklist::userAddresses).
class UserAddresses {
public:
    virtual ~UserAddresses() = default;
    /// the addresses `user` was seen at, not expired
    virtual size_t count(const std::string& user) = 0;
    /// forgets that `user` was seen at `address`
    virtual void forget(const std::string& user, const std::string& address) = 0;
    /// forgets every address of `user`
    virtual void forgetAll(const std::string& user) = 0;
};

/// `acl NAME max_user_ip [-s] N`: the request's user was seen at more than
/// N client addresses within authenticate_ip_ttl, as Squid 5.7 counts them
/// (ACLMaxUserIP). Like proxy_auth it needs checked credentials first. When
/// it matches, the user's addresses are forgotten (so the user may move to
/// another machine), or with -s (strict) only this request's address.
class MaxUserIpNode : public Node {
public:
    /// An empty acl.
    explicit MaxUserIpNode(std::string name);

    bool acceptsOption(const std::string& option) const override { return option == "-s"; }
    void beginLine(const std::vector<std::string>& options) override { strict_ = !options.empty(); }
    bool addValues(const std::vector<std::string>& values, std::string& why,
                   std::vector<std::string>& warnings) override;
    bool isEmpty() const override { return !maximum_; }
    bool match(const Checklist& facts) const override;

private:
    bool strict_ = false;
    size_t maximum_ = 0; ///< 0 until a value is given
    bool hasValue_ = false;
};

} // namespace Acl
