/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Http::Url: the parts of an absolute-form request target
/// (RFC 9112 section 3.2.2, RFC 3986) that logs, acls and forwarding need.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace Http {

/// An absolute URL `scheme://[userinfo@]host[:port][path][?query]`.
///
/// The host is kept lowercased (host names are case-insensitive) and an
/// IPv6 literal without its brackets. Only absolute URLs with an authority
/// parse: an origin-form target ("/path") is not a Url (a forward proxy
/// answers it with ERR_INVALID_URL).
class Url {
public:
    /// Squid's MAX_URL: a URL of this many bytes or more is refused (Squid
    /// 5.7 answers it 400 ERR_INVALID_URL), before anything is copied.
    static constexpr size_t MaxLength = 8192;

    /// Parses an absolute URL. Returns false (and leaves *this unspecified)
    /// on anything malformed: no scheme, no "//", empty or invalid host,
    /// a port that is not 1..65535 digits, a control character or space,
    /// MaxLength bytes or more.
    bool parse(std::string_view text);

    /// "http", "https", ... (lowercased)
    const std::string& scheme() const { return scheme_; }
    /// the host name or address literal; an IPv6 literal without brackets
    const std::string& host() const { return host_; }
    /// the port: explicit, else the scheme's default (80 for http, 443 for https, 21 ftp), else 0
    uint16_t port() const { return port_; }
    /// whether the URL named a port
    bool hasExplicitPort() const { return explicitPort_; }
    /// whether the port is the scheme's default (a Host field leaves it out)
    bool hasDefaultPort() const;
    /// the path and query, "/" when the URL had none
    const std::string& path() const { return path_; }
    /// whether the host is an IPv6 literal
    bool isIpv6Host() const { return host_.find(':') != std::string::npos; }
    /// host as it goes in an authority: "[::1]" for IPv6, otherwise host()
    std::string authorityHost() const;
    /// The URL as Squid logs and shows it (its canonical form): lowercased
    /// scheme and host, no userinfo (credentials never reach a log), the
    /// port only when it is not the scheme's default, no fragment:
    /// `HTTP://u:pw@Example.COM:80/a#f` -> `http://example.com/a`.
    std::string canonical() const;

private:
    std::string scheme_;
    std::string host_;
    std::string path_;
    uint16_t port_ = 0;
    bool explicitPort_ = false;
};

} // namespace Http
