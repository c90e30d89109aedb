/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::PortNode: the `port` and `localport` acl types.

#pragma once

#include "acl/Node.h"

#include <cstdint>
#include <utility>

namespace Acl {

/// `acl NAME port|localport N|N-M...`: the port of the request URL
/// (Checklist::dstPort; port) or the port the client connected to
/// (Checklist::localPort; localport) is one of the listed ports or inside one of the inclusive ranges. Values
/// are decimal 0..65535 (Squid rejects larger ones as "larger than the type
/// 'short'"); a range must not be reversed.
class PortNode : public Node {
public:
    /// Which port of the transaction the acl tests.
    enum class Side { Destination, Local };

    /// An empty `port` (Destination) or `localport` (Local) acl.
    explicit PortNode(std::string name, Side side = Side::Destination);

    bool addValues(const std::vector<std::string>& values, std::string& why,
                   std::vector<std::string>& warnings) override;
    bool isEmpty() const override { return ranges_.empty(); }
    bool match(const Checklist& facts) const override;

    /// The inclusive ranges parsed so far (a single port is a range of one).
    const std::vector<std::pair<uint16_t, uint16_t>>& ranges() const { return ranges_; }

private:
    Side side_;
    std::vector<std::pair<uint16_t, uint16_t>> ranges_;
};

} // namespace Acl
