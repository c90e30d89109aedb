/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/TlsErrorNode.h"
#include "acl/AccessList.h"
#include "base/TlsErrors.h"

#include <algorithm>

Acl::TlsErrorNode::TlsErrorNode(std::string name) : Node(std::move(name), "ssl_error") {}

bool Acl::TlsErrorNode::addValues(const std::vector<std::string>& values, std::string& why,
                                  std::vector<std::string>&)
{
    for (const auto& value : values) {
        const auto codes = TlsErrorCodes(value);
        if (!codes) {
            why = "Unknown TLS error name '" + value + "'";
            return false;
        }
        codes_.insert(codes->begin(), codes->end());
    }
    return true;
}

bool Acl::TlsErrorNode::match(const Checklist& facts) const
{
    // Squid's ACLSslErrorData::match(): one of the errors is enough
    return std::any_of(facts.tlsErrors.begin(), facts.tlsErrors.end(),
                       [this](int code) { return codes_.count(code) != 0; });
}
