/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::ManagerNode: Squid's predefined `manager` acl.

#pragma once

#include "acl/Node.h"

namespace Acl {

/// The predefined `manager` acl. Squid 5.7 defines it as
/// `url_regex -i ^cache_object:// +i ^https?://[^/]+/squid-internal-mgr/`;
/// cuttle matches the same requests without a regex engine: the URL scheme
/// is cache_object (any case), or the scheme is http/https and the path
/// starts with /squid-internal-mgr/.
///
/// Its type stays "url_regex", so `acl manager proxy ...` clashes as in
/// Squid. An `acl manager url_regex` line repeating Squid's own patterns is
/// accepted; any other pattern makes the acl unsupported (cuttle has no url_regex).
class ManagerNode : public Node {
public:
    /// The predefined acl, named "manager".
    ManagerNode();

    /// -i and +i (regex case flags) are accepted.
    bool acceptsOption(const std::string& option) const override;
    bool addValues(const std::vector<std::string>& values, std::string& why,
                   std::vector<std::string>& warnings) override;
    bool isEmpty() const override { return false; }
    bool match(const Checklist& facts) const override;
};

} // namespace Acl
