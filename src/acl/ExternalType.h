/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::ExternalType: one `external_acl_type` line, as Squid 5.7 reads it.

#pragma once

#include "acl/forward.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace Acl {

/// `external_acl_type NAME [OPTION...] FORMAT... PROGRAM [ARGUMENT...]`:
/// a helper program that `acl X external NAME [ARG...]` acls ask. The
/// format tokens (each word starting with '%') make the request line, the
/// acl's arguments follow it; the client side (Client::Lookups) runs the
/// helpers and caches their answers for ttl (OK) or negative_ttl (ERR).
class ExternalType {
public:
    /// One format token.
    struct Token {
        /// what the token expands to
        enum class Kind {
            Login,         ///< %LOGIN, %ul: the authenticated user (needs credentials)
            UserName,      ///< %un: the authenticated user, or the external one, or "-"
            ExtUser,       ///< %EXT_USER, %ue: user= of an earlier external acl
            ExtTag,        ///< %EXT_TAG, %et: tag= of an earlier external acl
            Src,           ///< %SRC, %>a: the client address
            SrcPort,       ///< %SRCPORT, %>p: the client port
            Dst,           ///< %DST, %>rd: the URL's host
            Proto,         ///< %PROTO, %>rs: the URL's scheme
            Port,          ///< %PORT, %>rP: the URL's port
            Path,          ///< %PATH, %>rp: the URL's path
            Method,        ///< %METHOD, %>rm: the request method
            Uri,           ///< %URI, %>ru: the whole URL
            MyAddr,        ///< %MYADDR, %la: the address the client connected to
            MyPort,        ///< %MYPORT, %lp: the port the client connected to
            RequestHeader, ///< %>{Name}, %>ha{Name}, with :member or :Dmember
            AclName,       ///< %ACL: the name of the acl being checked
            Data,          ///< %DATA: the acl's arguments, here instead of at the end
        };
        Kind kind = Kind::Src; ///< what it is
        std::string header;    ///< RequestHeader: the field name
        std::string member;    ///< RequestHeader: the list member to take (empty: the whole value)
        char delimiter = ',';  ///< RequestHeader: what separates members
    };

    /// Parses the words after `external_acl_type`; nullptr with `why` on a
    /// bad or unsupported line.
    static std::unique_ptr<ExternalType> Parse(const std::vector<std::string>& words, std::string& why);

    /// the type name
    const std::string& name() const { return name_; }
    /// the helper program and its arguments
    const std::vector<std::string>& program() const { return program_; }
    /// ttl=: how long an OK answer is cached (Squid: 3600 s)
    std::chrono::seconds ttl() const { return ttl_; }
    /// negative_ttl=: how long an ERR answer is cached (Squid: ttl)
    std::chrono::seconds negativeTtl() const { return negativeTtl_; }
    /// cache=: the most cached answers (Squid: 262144)
    size_t cacheSize() const { return cacheSize_; }
    /// children-max=
    unsigned childrenMax() const { return childrenMax_; }
    /// children-startup=
    unsigned childrenStartup() const { return childrenStartup_; }
    /// children-idle=
    unsigned childrenIdle() const { return childrenIdle_; }
    /// concurrency=
    unsigned concurrency() const { return concurrency_; }
    /// queue-size=; 0: Squid's default
    unsigned queueSize() const { return queueSize_; }
    /// whether the format reads the authenticated user (%LOGIN)
    bool needsLogin() const;

    /// The words of the request line for `facts` (unescaped; empty ones
    /// are sent as "-"), the acl `aclName` with its `arguments`. nullopt
    /// when the check must stop first (%LOGIN without checked credentials:
    /// facts.interruption is set, as a proxy_auth acl sets it).
    std::optional<std::vector<std::string>> requestWords(const Checklist& facts, const std::string& aclName,
                                                         const std::vector<std::string>& arguments) const;

    /// whether two lines define the same helper (a reconfigure keeps its cache)
    bool operator==(const ExternalType& other) const;

private:
    /// parses one format word into `token`; false with `why` if refused
    static bool ParseToken(const std::string& word, Token& token, std::string& why);
    /// the value of one token
    std::string expand(const Token& token, const Checklist& facts, const std::string& aclName) const;

    std::string name_;
    std::vector<Token> format_;
    std::vector<std::string> formatWords_; ///< as written, for operator==
    std::vector<std::string> program_;
    std::chrono::seconds ttl_{3600};
    std::chrono::seconds negativeTtl_{3600};
    size_t cacheSize_ = 256 * 1024;
    unsigned childrenMax_ = 5;
    unsigned childrenStartup_ = 0;
    unsigned childrenIdle_ = 1;
    unsigned concurrency_ = 0;
    unsigned queueSize_ = 0;
};

} // namespace Acl
