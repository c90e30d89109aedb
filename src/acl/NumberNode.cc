/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/NumberNode.h"
#include "acl/AccessList.h"

#include <cctype>
#include <cstdlib>
#include <random>

namespace Acl {

namespace {

/// A non-negative decimal number written wholly; false otherwise.
bool ParseDecimal(const std::string& text, double& value)
{
    if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '.'))
        return false;
    char* end = nullptr;
    value = std::strtod(text.c_str(), &end);
    return end && *end == '\0';
}

/// Exactly one value, or `why`.
bool OneValue(const std::vector<std::string>& values, bool alreadySet, const char* type, std::string& why)
{
    if (values.size() != 1 || alreadySet) {
        why = std::string("a ") + type + " acl takes exactly one value";
        return false;
    }
    return true;
}

} // namespace

RandomNode::RandomNode(std::string name) : Node(std::move(name), "random") {}

bool RandomNode::addValues(const std::vector<std::string>& values, std::string& why,
                           std::vector<std::string>&)
{
    if (!OneValue(values, set_, "random", why))
        return false;
    const auto& text = values[0];
    const auto sep = text.find_first_of(":/");
    double value = 0;
    bool ok = false;
    if (sep == std::string::npos) {
        ok = ParseDecimal(text, value);
    } else {
        double a = 0;
        double b = 0;
        ok = ParseDecimal(text.substr(0, sep), a) && ParseDecimal(text.substr(sep + 1), b);
        const double whole = text[sep] == ':' ? a + b : b;
        ok = ok && whole > 0;
        value = ok ? a / whole : 0;
    }
    if (!ok || value < 0 || value > 1) {
        why = "invalid probability '" + text + "': expecting 0.25, 1/4 or 1:3 (between 0 and 1)";
        return false;
    }
    probability_ = value;
    set_ = true;
    return true;
}

bool RandomNode::match(const Checklist&) const
{
    thread_local std::mt19937 generator{std::random_device{}()};
    return std::uniform_real_distribution<double>(0.0, 1.0)(generator) < probability_;
}

MaxConnNode::MaxConnNode(std::string name) : Node(std::move(name), "maxconn") {}

bool MaxConnNode::addValues(const std::vector<std::string>& values, std::string& why,
                            std::vector<std::string>&)
{
    if (!OneValue(values, set_, "maxconn", why))
        return false;
    const auto& text = values[0];
    if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) {
        why = "invalid maxconn value '" + text + "': expecting a number of connections";
        return false;
    }
    limit_ = std::stoul(text);
    if (limit_ == 0) {
        why = "maxconn 0 would match every client: Squid 5.7 refuses it too";
        return false;
    }
    set_ = true;
    return true;
}

bool MaxConnNode::match(const Checklist& facts) const
{
    return facts.clientConnections > limit_;
}

} // namespace Acl
