/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::Registry: the named acls of one configuration (`acl NAME TYPE VALUE...`).

#pragma once

#include "acl/forward.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace Acl {

/// Owns every named acl of a configuration. A fresh Registry already holds
/// Squid's predefined acls: all, localhost, to_localhost, to_linklocal,
/// manager, CONNECT.
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
    /// by the caller's lexer and passed as the word `"path"`, quotes kept).
    ParseOutcome parse(const std::vector<std::string>& words, std::string& why);

    /// The acl with this name, or nullptr. Unsupported-type acls are found
    /// too (isSupported() is false on them).
    const Node* find(const std::string& name) const;

private:
    std::map<std::string, std::unique_ptr<Node>> nodes_;
};

} // namespace Acl
