/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::RandomNode and Acl::MaxConnNode: the acl types whose one
/// value is a number (`random`, `maxconn`).

#pragma once

#include "acl/Node.h"

#include <cstddef>

namespace Acl {

/// `acl NAME random PROBABILITY`: matches at random with that probability,
/// written as a decimal (0.25), a fraction (1/4) or a ratio of matches to
/// non-matches (1:3), as Squid 5.7 reads it. One value per acl.
class RandomNode : public Node {
public:
    /// An unset `random` acl.
    explicit RandomNode(std::string name);

    bool addValues(const std::vector<std::string>& values, std::string& why,
                   std::vector<std::string>& warnings) override;
    bool isEmpty() const override { return !set_; }
    bool match(const Checklist& facts) const override;

    /// The probability parsed, from 0 to 1.
    double probability() const { return probability_; }

private:
    bool set_ = false;
    double probability_ = 0;
};

/// `acl NAME maxconn N`: matches when the client's address has more than N
/// connections open to cuttle (this one included), as Squid counts them.
/// One value per acl, above 0 (Squid refuses 0).
class MaxConnNode : public Node {
public:
    /// An unset `maxconn` acl.
    explicit MaxConnNode(std::string name);

    bool addValues(const std::vector<std::string>& values, std::string& why,
                   std::vector<std::string>& warnings) override;
    bool isEmpty() const override { return !set_; }
    bool match(const Checklist& facts) const override;

private:
    bool set_ = false;
    size_t limit_ = 0;
};

} // namespace Acl
