/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::TlsErrorNode: the `ssl_error` acl type.

#pragma once

#include "acl/Node.h"

#include <set>

namespace Acl {

/// `acl NAME ssl_error ERROR...`: one of the certificate errors asked about
/// (Checklist::tlsErrors: the one sslproxy_cert_error checks, the origin's
/// for sslproxy_cert_sign and sslproxy_cert_adapt) is one of the listed
/// ones, named as Squid names them (X509_V_ERR_CERT_HAS_EXPIRED,
/// SQUID_X509_V_ERR_DOMAIN_MISMATCH, or a shortcut such as
/// ssl::certUntrusted: base/TlsErrors.h). An unknown name is an error, as
/// in Squid. Elsewhere it matches nothing.
class TlsErrorNode : public Node {
public:
    /// An empty `ssl_error` acl.
    explicit TlsErrorNode(std::string name);

    bool addValues(const std::vector<std::string>& values, std::string& why,
                   std::vector<std::string>& warnings) override;
    bool isEmpty() const override { return codes_.empty(); }
    bool match(const Checklist& facts) const override;

private:
    std::set<int> codes_;
};

} // namespace Acl
