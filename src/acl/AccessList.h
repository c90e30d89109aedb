/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::AccessList: an ordered `http_access`-style rule list with
/// Squid's first-match semantics and implicit last rule.

#pragma once

#include "acl/Address.h"
#include "acl/Lookup.h"
#include "acl/forward.h"

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Acl {

/// The answer of a rule list.
enum class Answer {
    Allowed,
    Denied,
    AuthRequired, ///< a proxy_auth acl needs credentials the request lacks or got wrong: 407
    Pending       ///< an acl needs a lookup first (Checklist::lookup): check again after
};

/// What the proxy credentials of a request are known to be.
enum class AuthState {
    Absent,    ///< no Proxy-Authorization the configured schemes can read
    Unchecked, ///< credentials whose check by the helper has not been made yet
    Valid,     ///< checked good: Checklist::user is the user
    Invalid    ///< checked bad (or the helper failed)
};

/// A message's header fields as an acl reads them (the acl part does not
/// parse HTTP: the caller adapts its parsed message).
class Fields {
public:
    virtual ~Fields() = default;
    /// Every value of the fields called `name` (ASCII case ignored), joined
    /// with ", " in message order as Squid's HttpHeader::getByName() joins
    /// them; nullopt when the message has no such field.
    virtual std::optional<std::string> get(std::string_view name) const = 0;
};

/// The facts a rule is checked against: one transaction.
///
/// Addresses are Acl::Address values: fill them with
/// Address::FromSockaddr() from getpeername()/the resolved origin, or
/// Address::Parse() from a literal. An IPv4 client on a dual-stack socket
/// (::ffff:a.b.c.d) matches IPv4 rules either way.
///
/// Facts a check point does not know yet stay unset and match no acl that
/// reads them: a reply acl (http_status, rep_header, rep_mime_type,
/// hier_code) in an http_access rule never matches, as in Squid, where
/// such a rule warns and the acl does not match.
struct Checklist {
    Address srcAddr;      ///< client address; unset matches no src acl
    uint16_t srcPort = 0; ///< client's port (external_acl_type's %SRCPORT)
    /// the origin's addresses when resolved: a dst acl matches when one of
    /// them is in it (Squid's ACLDestinationIP); empty: dstHost if it is a
    /// literal, else no dst acl matches
    std::vector<Address> dstAddrs;
    std::string dstHost;   ///< host name or literal from the URL
    uint16_t dstPort = 0;  ///< port from the URL (80 when absent)
    std::string method;    ///< request method as sent, e.g. "GET", "CONNECT"
    std::string urlScheme; ///< lowercase scheme: "http", "https", "cache_object", ...
    std::string urlPath;   ///< path of the URL with its query, for `manager` and urlpath_regex
    std::string url;       ///< the whole URL as Squid's url_regex sees it (canonical; host:port for CONNECT)

    Address localAddr;            ///< the address the client connected to (localip)
    uint16_t localPort = 0;       ///< the port the client connected to (localport)
    std::string portName;         ///< the `name=` of the http_port the client came in on (myportname)
    size_t clientConnections = 0; ///< open connections from srcAddr, this one included (maxconn)
    time_t now = 0;               ///< when the check runs, for the time acl (0: the check reads the clock)

    const Fields* request = nullptr; ///< the request's header fields; nullptr matches no header acl
    const Fields* reply = nullptr;   ///< the reply's header fields; nullptr before a reply exists
    int replyStatus = 0;             ///< the reply's status code; 0 before a reply exists
    std::string hierCode;            ///< Squid's hierarchy code (e.g. "HIER_DIRECT"); empty before forwarding
    std::string peerName;            ///< the cache_peer the request went to; empty when none
    /// the certificate errors the ssl_error acl sees (base/TlsErrors.h): the
    /// one sslproxy_cert_error is asked about, or all of the origin's for
    /// sslproxy_cert_sign and sslproxy_cert_adapt; empty elsewhere
    std::vector<int> tlsErrors;
    /// ssl_bump's step (at_step: 1 SslBump1, 2 SslBump2, 3 SslBump3); 0 outside ssl_bump
    int sslBumpStep = 0;
    /// the server name a bumped or peeked client asked for (its SNI); empty: none or not known yet
    std::string tlsSni;
    /// the names of the origin's certificate (subjectAltName DNS names, else
    /// its CN), once ssl_bump stared or peeked at it (step 3); empty: not seen
    std::vector<std::string> tlsCertNames;

    AuthState auth = AuthState::Absent; ///< the request's credentials (proxy_auth)
    std::string user;                   ///< the user when auth is Valid

    const LookupAnswers* answers = nullptr; ///< lookups answered so far; nullptr: none (Acl/Lookup.h)
    UserAddresses* userAddresses = nullptr; ///< where users were seen (max_user_ip); nullptr: nowhere

    /// Set by an acl that cannot decide without something the check lacks
    /// (a proxy_auth acl with credentials that are absent, bad or not
    /// checked yet; an external acl whose helper was not asked yet): the
    /// check stops there with AuthRequired or Pending; or Denied, by an
    /// acl whose lookup failed (a helper's BH), as Squid ends such a check.
    mutable Answer interruption = Answer::Allowed;

    /// The name of the last acl an AccessList::check() evaluated (matched
    /// or not), as Squid's AclMatchedName: what deny_info looks up. Empty
    /// before a check, and after one of a list without rules.
    mutable std::string_view lastAcl;
    /// With interruption Pending: the lookup to make before checking again.
    mutable Lookup lookup;
    /// The notes of the helper answers the check used (external acls), each
    /// key=value pair once, in order: Squid's request notes, which the
    /// `note` acl matches. Later checks of the transaction see them.
    mutable std::vector<Note> notes;

    /// Adds `note` to `notes` unless the same pair is there (Squid's appendNewOnly()).
    void addNote(const Note& note) const;
    /// The value of the first note called `key`, or "" (an external acl's
    /// user= is "user", its tag= "tag").
    std::string noteValue(const std::string& key) const;

    /// The names ssl::server_name and ssl::server_name_regex match (one
    /// matching is enough), as Squid 5 computes them: the client's name is
    /// the SNI, else the URL's (the CONNECT's) host; the server's are
    /// tlsCertNames. --client-requested: the client's; --server-provided:
    /// the server's, or "none" before they are known; otherwise (and
    /// --consensus) the server's once known, else the client's.
    std::vector<std::string> tlsServerNames(ServerNameSource source) const;

    /// The name that the domain acls match for `address` (Squid's
    /// fqdncache_gethostbyaddr()): its canonical name, lowercased, or "none"
    /// when it has none or is unset; nullopt when it has not been looked up
    /// yet, with interruption Pending and `lookup` set.
    std::optional<std::string> addressName(const Address& address) const;
};

/// `http_access allow|deny [!]acl...` lines in order.
///
/// check(): the first rule whose acls all match decides. When no rule
/// matches, the answer is the opposite of the last rule's action (Squid's
/// implicit last rule); with no rules at all, Denied. A deny rule whose
/// last acl is a proxy_auth one answers AuthRequired. As in Squid, an acl
/// that needs credentials stops the check where it is evaluated: the answer
/// is then AuthRequired (no or bad credentials) or Pending (check them and
/// run the list again).
class AccessList {
public:
    /// Parses the words after `http_access` (allow|deny [!]NAME...). Every
    /// named acl must exist in `acls` and be supported, or the line is an
    /// error (fail closed: a rule is never silently dropped). A missing or
    /// unknown action is an error too (Squid 5.7 only logs it and skips the
    /// line, which would drop a rule).
    ///
    /// As in Squid, an action with no acl (`http_access allow`) is skipped
    /// with a warning: parse() returns true, adds no rule, and sets `why`.
    /// So on true, a non-empty `why` is a warning to log.
    bool parse(const std::vector<std::string>& words, const Registry& acls, std::string& why);

    /// The list's answer for one transaction.
    Answer check(const Checklist& facts) const;

    /// Number of rules parsed.
    size_t size() const { return rules_.size(); }

    /// Whether some rule uses an acl that reads Checklist::dstAddrs (a `dst`
    /// acl), so the caller should resolve the origin before check().
    bool needsDstAddress() const;

private:
    struct Term {
        const Node* acl = nullptr; ///< owned by the Registry, which outlives the list
        bool negated = false;
    };
    struct Rule {
        Answer action = Answer::Denied;
        std::vector<Term> terms;
    };
    std::vector<Rule> rules_;
};

} // namespace Acl
