/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::StatusNode: the `http_status` acl type.

#pragma once

#include "acl/Node.h"

#include <utility>

namespace Acl {

/// `acl NAME http_status N|N-M|N-...`: the reply's status code is one of
/// the listed codes or inside one of the inclusive ranges (`500-` runs to
/// 999). Before a reply exists (in http_access) it matches nothing.
class StatusNode : public Node {
public:
    /// An empty `http_status` acl.
    explicit StatusNode(std::string name);

    bool addValues(const std::vector<std::string>& values, std::string& why,
                   std::vector<std::string>& warnings) override;
    bool isEmpty() const override { return ranges_.empty(); }
    bool match(const Checklist& facts) const override;

private:
    std::vector<std::pair<int, int>> ranges_;
};

} // namespace Acl
