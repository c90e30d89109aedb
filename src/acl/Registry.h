/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::Registry: the named acls of one configuration (`acl NAME TYPE VALUE...`).

#pragma once

#include "acl/IpNode.h"
#include "acl/forward.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace Acl {

/// Owns every named acl of a configuration. A fresh Registry already holds
/// Squid's predefined acls: all, localhost, to_localhost, to_linklocal,
/// manager, CONNECT, and the ssl_error ones ssl::certHasExpired,
/// ssl::certNotYetValid, ssl::certDomainMismatch, ssl::certUntrusted,
/// ssl::certSelfSigned.
///
/// Implemented types: src, dst, localip, port, localport, method,
/// myportname, proto, dstdomain, dstdom_regex, url_regex, urlpath_regex,
/// browser, referer_regex, req_header, rep_header, req_mime_type,
/// rep_mime_type, http_status, time, random, maxconn, hier_code, peername,
/// peername_regex, any-of, all-of, proxy_auth, proxy_auth_regex, external,
/// note, ext_user, ext_user_regex, tag, max_user_ip, srcdomain,
/// srcdom_regex, ssl_error, at_step, ssl::server_name,
/// ssl::server_name_regex, transaction_initiator (and the built-in
/// manager). Every other Squid 5.7 type parses as ParseOutcome::Unsupported.
///
/// Acl names ignore case, as in Squid 5.7 (ACL::FindByName uses strcasecmp):
/// `acl Foo ...` and `acl foo ...` are one acl, and `http_access allow ALL`
/// names the predefined `all`. The Node keeps the spelling of its first line.
///
/// Repeating a name adds values (ORed), also for predefined acls, as Squid
/// does (`acl CONNECT method GET` makes CONNECT match GET too; `acl all src
/// all` only warns about the duplicate). A repeated name with another type is
/// an Error.
class Registry {
public:
    Registry();
    ~Registry();
    Registry(Registry&&) noexcept;
    Registry& operator=(Registry&&) noexcept;

    /// What parsing one `acl` line did.
    enum class ParseOutcome {
        Ok,          ///< the acl is defined (or extended: repeated lines add values)
        Unsupported, ///< a Squid acl type cuttle does not implement: recorded as such, `why` says which
        Error        ///< bad name, unknown type, bad value, type clash with an earlier line: `why` says
    };

    /// Parses the words after `acl` (NAME TYPE [-flags] VALUE...). A value
    /// may be a quoted "file" whose lines are values (path already resolved
    /// by the caller's lexer and passed as the word `"path"`, quotes kept);
    /// as in Squid, each line is a value (its first word for the address and
    /// port types: Node::takesWholeFileLines()), and lines starting with `#`
    /// and empty lines are skipped. A file that cannot be read is an
    /// Error (Squid only logs it and leaves the acl empty).
    ///
    /// On Ok, `why` is empty or holds warnings Squid would log too (duplicate
    /// value, masked host bits, netmask syntax, empty acl), joined by "; ":
    /// the caller should log it as a warning. On Unsupported and Error it
    /// says why, without the file:line prefix.
    ///
    /// Host names among the values of an address acl (src, dst, localip)
    /// are resolved with `resolveHost` (IpNode::setHostResolver()); without
    /// one they make the acl Unsupported.
    ParseOutcome parse(const std::vector<std::string>& words, std::string& why,
                       const IpNode::HostResolver* resolveHost = nullptr);

    /// The acl with this name, or nullptr. Unsupported-type acls are found
    /// too (isSupported() is false on them).
    const Node* find(const std::string& name) const;

    /// Parses the words after `external_acl_type` (ExternalType::Parse()); a
    /// name defined twice is an error. `acl X external NAME` lines must come
    /// after it, as in Squid.
    bool defineExternalType(const std::vector<std::string>& words, std::string& why);

    /// The external_acl_type called `name`, or nullptr.
    const ExternalType* findExternalType(const std::string& name) const;

    /// Every external_acl_type in the order defined.
    const std::vector<std::unique_ptr<ExternalType>>& externalTypes() const { return externalTypes_; }

    /// Whether `type` is an acl type of Squid 5.7 (implemented or not).
    static bool IsKnownType(const std::string& type);

    /// Longest acl name Squid accepts.
    static constexpr size_t MaxNameLength = 63;

private:
    /// Creates a Node for a new name of an implemented type; nullptr otherwise.
    static std::unique_ptr<Node> MakeNode(const std::string& name, const std::string& type);

    /// Adds one line of an any-of/all-of acl: `names` must be defined acls.
    bool addGroup(GroupNode& group, const std::vector<std::string>& names, std::string& why) const;

    /// Binds an external acl to its type: `values` are CLASS [ARGUMENT...].
    bool bindExternal(ExternalNode& acl, const std::vector<std::string>& values, std::string& why) const;

    /// Defines a predefined acl from its values; the values are known good.
    void predefine(const std::string& name, const std::string& type, const std::vector<std::string>& values);

    /// Orders acl names without regard to ASCII case.
    struct CaseLess {
        /// Whether `a` sorts before `b` ignoring case.
        bool operator()(const std::string& a, const std::string& b) const;
    };

    std::map<std::string, std::unique_ptr<Node>, CaseLess> nodes_;
    std::vector<std::unique_ptr<ExternalType>> externalTypes_; ///< external acls (in nodes_) point to them
};

} // namespace Acl
