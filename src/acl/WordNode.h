/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::WordNode: the acl types that compare one word of the
/// transaction with a list of words (proto, myportname, hier_code, peername).

#pragma once

#include "acl/Node.h"

#include <set>

namespace Acl {

/// `acl NAME TYPE WORD...`: the transaction's word for TYPE is one of the
/// listed words.
///   - proto: the URL's scheme by Squid 5.7's protocol names (HTTP, HTTPS,
///     FTP, CACHE_OBJECT, ...; case ignored); a CONNECT request is NONE, as
///     in Squid 5.7. An unknown name is ignored with Squid's warning.
///   - myportname: the `name=` of the http_port the client came in on
///     (its `[address:]port` as written when it has none).
///   - hier_code: the hierarchy code access.log shows (HIER_DIRECT,
///     HIER_NONE, FIRST_PARENT_MISS, ...); an unknown code is an error, as
///     in Squid. Before the request is forwarded no code matches.
///   - peername: the name of the cache_peer the request went to.
///   - at_step: ssl_bump's step (SslBump1, SslBump2, SslBump3; Squid's
///     GeneratingCONNECT is taken and never matches); an unknown step is an error.
///   - transaction_initiator: who started the transaction; every transaction
///     cuttle checks acls for is a client's, so `client` and `all` match
///     and Squid's other initiators (internal, icp, ...) never do; an
///     unknown one is an error.
class WordNode : public Node {
public:
    /// Which word of the transaction the acl tests.
    enum class Subject { Protocol, PortName, HierCode, PeerName, BumpStep, Initiator };

    /// An empty acl of type `typeName` testing `subject`.
    WordNode(std::string name, std::string typeName, Subject subject);

    bool takesWholeFileLines() const override { return true; }
    bool addValues(const std::vector<std::string>& values, std::string& why,
                   std::vector<std::string>& warnings) override;
    bool isEmpty() const override { return words_.empty(); }
    bool match(const Checklist& facts) const override;

    /// Squid 5.7's protocol name for a lowercase URL scheme ("http" ->
    /// "HTTP"); "NONE" for an empty scheme (CONNECT).
    static std::string ProtocolName(const std::string& scheme);

private:
    Subject subject_;
    std::set<std::string, std::less<>> words_;
};

} // namespace Acl
