/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/PortNode.h"
#include "acl/AccessList.h"

#include <algorithm>
#include <cctype>

namespace Acl {

namespace {

/// One decimal port; false with `why` as Squid words it.
bool ParsePort(const std::string& text, uint16_t& port, std::string& why)
{
    if (text.empty() || !std::isdigit(static_cast<unsigned char>(text.front()))) {
        why = "no digits were found in the port value '" + text + "'";
        return false;
    }
    unsigned long value = 0;
    for (const unsigned char c : text) {
        if (!std::isdigit(c)) {
            why = "invalid port value '" + text + "': not a number";
            return false;
        }
        value = value * 10 + (c - '0');
        if (value > 65535) {
            why = "port value '" + text + "' is larger than 65535";
            return false;
        }
    }
    port = static_cast<uint16_t>(value);
    return true;
}

} // namespace

PortNode::PortNode(std::string name, Side side)
    : Node(std::move(name), side == Side::Local ? "localport" : "port"), side_(side)
{}

bool PortNode::addValues(const std::vector<std::string>& values, std::string& why, std::vector<std::string>&)
{
    for (const auto& value : values) {
        const auto dash = value.find('-');
        uint16_t lo = 0;
        uint16_t hi = 0;
        if (!ParsePort(value.substr(0, dash), lo, why))
            return false;
        hi = lo;
        if (dash != std::string::npos) {
            if (!ParsePort(value.substr(dash + 1), hi, why))
                return false;
            if (hi < lo) {
                why = "invalid port range '" + value + "': the end is below the start";
                return false;
            }
        }
        ranges_.emplace_back(lo, hi);
    }
    return true;
}

bool PortNode::match(const Checklist& facts) const
{
    const auto port = side_ == Side::Local ? facts.localPort : facts.dstPort;
    return std::any_of(ranges_.begin(), ranges_.end(),
                       [port](const auto& r) { return r.first <= port && port <= r.second; });
}

} // namespace Acl
