/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/StatusNode.h"
#include "acl/AccessList.h"

#include <algorithm>
#include <cctype>

namespace Acl {

namespace {

constexpr int MaxStatus = 999;

/// One status code of at most three digits; false with `why`.
bool ParseStatus(const std::string& text, int& status, std::string& why)
{
    if (text.empty() || text.size() > 3 ||
        !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
        why = "invalid HTTP status code '" + text + "': expecting 0 to " + std::to_string(MaxStatus);
        return false;
    }
    status = std::stoi(text);
    return true;
}

} // namespace

StatusNode::StatusNode(std::string name) : Node(std::move(name), "http_status") {}

bool StatusNode::addValues(const std::vector<std::string>& values, std::string& why,
                           std::vector<std::string>&)
{
    for (const auto& value : values) {
        const auto dash = value.find('-');
        int lo = 0;
        if (!ParseStatus(value.substr(0, dash), lo, why))
            return false;
        int hi = lo;
        if (dash != std::string::npos) {
            const auto end = value.substr(dash + 1);
            if (end.empty())
                hi = MaxStatus;
            else if (!ParseStatus(end, hi, why))
                return false;
            if (hi < lo) {
                why = "invalid HTTP status range '" + value + "': the end is below the start";
                return false;
            }
        }
        ranges_.emplace_back(lo, hi);
    }
    return true;
}

bool StatusNode::match(const Checklist& facts) const
{
    const auto status = facts.replyStatus;
    return status != 0 && std::any_of(ranges_.begin(), ranges_.end(), [status](const auto& r) {
               return r.first <= status && status <= r.second;
           });
}

} // namespace Acl
