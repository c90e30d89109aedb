/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::DomainNode: the `dstdomain` and `srcdomain` acl types.

#pragma once

#include "acl/Node.h"

#include <deque>
#include <set>
#include <string_view>
#include <unordered_set>

namespace Acl {

/// `acl NAME dstdomain [-n] DOMAIN...`: the URL's host is one of the
/// listed names (`www.example.com`: that host only) or inside one of the
/// listed domains (`.example.com`: example.com and every name under it).
/// Names compare without regard to ASCII case. An address in the URL is
/// compared as written; cuttle never looks its name up (Squid does unless
/// `-n` is given: see doc/differences.md), so `-n` changes nothing.
///
/// `acl NAME srcdomain DOMAIN...`: the same test of the client's name, by
/// reverse DNS of its address (Checklist::addressName(): an address without
/// a name is "none").
///
/// `acl NAME ssl::server_name [--client-requested|--server-provided|--consensus]
/// DOMAIN...`: the same test of the TLS server name
/// (Checklist::tlsServerNames(): the SNI, else the CONNECT's host, and
/// the origin certificate's names once ssl_bump stared or peeked at it).
///
/// Overlapping values follow Squid 5.7's rules exactly:
///   - a repeated value is ignored;
///   - a value inside an earlier domain (`.example.com www.example.com`)
///     is ignored with a warning to remove it;
///   - a domain that covers an earlier value (`www.example.com
///     .example.com`), or a name and the domain of the same name
///     (`example.com .example.com`, either order), is an error, as Squid's
///     "You need to remove ..." is fatal.
///
/// Block lists of 100,000 names are common: adding a value costs O(log n)
/// (a sorted set of reversed names finds what a domain would cover) and a
/// match costs one hash lookup per label of the host, whatever the list's
/// size.
class DomainNode : public Node {
public:
    /// whose name the acl tests
    enum class Side {
        Destination, ///< dstdomain: the URL's host
        Source,      ///< srcdomain: the client's
        ServerName,  ///< ssl::server_name: the TLS server name
    };

    /// An empty `dstdomain` or `srcdomain` acl.
    DomainNode(std::string name, Side side);

    bool takesWholeFileLines() const override { return true; }
    bool acceptsOption(const std::string& option) const override;
    void beginLine(const std::vector<std::string>& options) override;
    bool addValues(const std::vector<std::string>& values, std::string& why,
                   std::vector<std::string>& warnings) override;
    bool isEmpty() const override { return names_.empty(); }
    bool match(const Checklist& facts) const override;

    /// Whether `host` (lowercase) is one of the names or inside one of the domains.
    bool matchesHost(std::string_view host) const;

private:
    /// Adds one lowercased value; false with `why` when Squid would refuse it.
    bool add(const std::string& value, std::string& why, std::vector<std::string>& warnings);

    std::deque<std::string> names_;                ///< every kept value, lowercased; owns the views below
    std::unordered_set<std::string_view> hosts_;   ///< `www.example.com` values
    std::unordered_set<std::string_view> domains_; ///< `.example.com` values, without their dot
    std::set<std::string, std::less<>> reversed_;  ///< every kept value reversed, to find covered ones
    Side side_;
    ServerNameSource source_ = ServerNameSource::Default; ///< ssl::server_name's option
};

/// whether option is one of ssl::server_name's (and _regex's) name sources
bool IsServerNameOption(const std::string& option);
/// the source an ssl::server_name option names (IsServerNameOption())
ServerNameSource ServerNameOption(const std::string& option);

} // namespace Acl
