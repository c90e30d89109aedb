/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::RegexNode: the acl types that match regular expressions
/// against a text of the transaction (url_regex, urlpath_regex,
/// dstdom_regex, browser, referer_regex, req_header, rep_header,
/// req_mime_type, rep_mime_type, peername_regex).

#pragma once

#include "acl/Node.h"

#include <memory>
#include <optional>
#include <string_view>

class Regex;

namespace Acl {

/// `acl NAME TYPE [-i] REGEX...`: one of the expressions matches somewhere
/// in the text the type names (POSIX extended, compiled as Squid 5.7 does:
/// REG_EXTENDED | REG_NOSUB, REG_ICASE after `-i`).
///
/// As in Squid, `-i` and `+i` may also appear between the expressions and
/// switch case sensitivity for the ones that follow; each line starts case
/// sensitive. The header types (req_header, rep_header) take the header
/// name first: `acl NAME req_header Header-Name [-i] REGEX...`; every line
/// of one acl must name the same header (Squid says to use any-of instead).
///
/// The texts, as Squid 5.7 matches them:
///   - url_regex: the canonical URL (host:port for CONNECT)
///   - urlpath_regex: the path with its query (empty for CONNECT)
///   - dstdom_regex: the URL's host, lowercased (no reverse lookup of an
///     address: see doc/differences.md)
///   - srcdom_regex: the client's name (Checklist::addressName(), "none" when
///     it has none)
///   - ext_user_regex: the user an external acl's helper named (user=)
///   - browser, referer_regex: the User-Agent, Referer field
///   - req_header, rep_header: every value of the named field, joined by ", "
///   - req_mime_type: the request's Content-Type; rep_mime_type: the reply's,
///     or "" when it has none (so `^$` finds replies without one)
///   - peername_regex: the name of the cache_peer the request went to
///   - ssl::server_name_regex: the TLS server name, with ssl::server_name's
///     options (Checklist::tlsServerName())
/// A text that is absent (no such field, no reply yet) matches nothing.
class RegexNode : public Node {
public:
    /// What the expressions are matched against (see the class comment).
    enum class Subject {
        Url,
        UrlPath,
        DstDomain,
        SrcDomain,
        ExtUser,
        Browser,
        Referer,
        RequestHeader,
        ReplyHeader,
        RequestMimeType,
        ReplyMimeType,
        PeerName,
        ServerName
    };

    /// An empty acl of type `typeName` matching `subject`.
    RegexNode(std::string name, std::string typeName, Subject subject);
    ~RegexNode() override;

    bool takesWholeFileLines() const override { return true; }
    bool acceptsOption(const std::string& option) const override;
    void beginLine(const std::vector<std::string>& options) override;
    bool addValues(const std::vector<std::string>& values, std::string& why,
                   std::vector<std::string>& warnings) override;
    bool isEmpty() const override { return patterns_.empty(); }
    bool match(const Checklist& facts) const override;

    /// Moves `checked` (each expression compiled alone) into `out`, runs of
    /// them joined with '|' as Squid 5.7 joins an acl line's expressions.
    static void Combine(std::vector<std::unique_ptr<Regex>>& checked,
                        std::vector<std::unique_ptr<Regex>>& out);

private:
    /// The text this acl matches in `facts`, or nullopt when it is absent;
    /// a header field's value is copied into `field`, which must outlive it.
    std::optional<std::string_view> subjectOf(const Checklist& facts,
                                              std::optional<std::string>& field) const;

    Subject subject_;
    std::string fieldName_;                               ///< req_header/rep_header: the header's name
    bool lineIgnoresCase_ = false;                        ///< `-i` among the current line's options
    ServerNameSource source_ = ServerNameSource::Default; ///< ssl::server_name_regex's option
    std::vector<std::unique_ptr<Regex>> patterns_;
};

} // namespace Acl
