/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::Node: one named acl (`acl NAME TYPE VALUE...`) and its values.

#pragma once

#include "acl/forward.h"

#include <string>
#include <vector>

namespace Acl {

/// A named acl of one type. Repeated `acl` lines with the same name add
/// values to the same Node, and a Node matches when any value matches (OR).
///
/// A Node may be unsupported: either its whole type is one cuttle does not
/// implement, or one of its values needs something cuttle cannot do yet (a
/// host name in `dst`, which Squid resolves at parse time). Such a Node
/// still exists so that an `http_access` line naming it is refused with a
/// reason instead of being dropped or evaluated wrongly.
class Node {
public:
    /// A Node called `name` of the acl type `typeName` (as written in squid.conf).
    Node(std::string name, std::string typeName);
    virtual ~Node();
    Node(const Node&) = delete;
    Node& operator=(const Node&) = delete;

    /// The acl name.
    const std::string& name() const { return name_; }

    /// The acl type as written in squid.conf, e.g. "src", "dstdomain".
    const std::string& typeName() const { return typeName_; }

    /// Whether match() can be trusted; false for unimplemented types and values.
    bool isSupported() const { return unsupported_.empty(); }

    /// Why the Node is unsupported, phrased to follow "acl NAME ", e.g.
    /// "is of type time, which cuttle does not implement". Empty when supported.
    const std::string& unsupportedReason() const { return unsupported_; }

    /// Whether `option` (a word starting with '-' or '+' before the values,
    /// such as "-n") is valid for this type.
    virtual bool acceptsOption(const std::string& option) const;

    /// Whether a line of a value file is one value even with spaces inside
    /// (Squid 5.7 gives its parsers the whole line: names and expressions
    /// keep it all, the address and port parsers stop at the first word).
    virtual bool takesWholeFileLines() const { return false; }

    /// Called before addValues() with the options of that line (each one
    /// accepted by acceptsOption()), so that they apply to its values only.
    virtual void beginLine(const std::vector<std::string>& /*options*/) {}

    /// Adds the values of one more `acl` line (options and files already
    /// handled by the Registry). Returns false with `why` on a bad value;
    /// appends Squid-style warnings (duplicates, masked host bits) to `warnings`.
    virtual bool addValues(const std::vector<std::string>& values, std::string& why,
                           std::vector<std::string>& warnings) = 0;

    /// Whether no value has been added: an empty acl matches nothing.
    virtual bool isEmpty() const = 0;

    /// Whether any value matches these facts. Meaningful only when isSupported().
    virtual bool match(const Checklist& facts) const = 0;

    /// Whether the acl checks proxy credentials (proxy_auth): a deny rule
    /// that ends with one answers AuthRequired, so that the user may log in
    /// as someone the rule lets through (Squid's 407 for such a denial).
    virtual bool isProxyAuth() const { return false; }

    /// Whether match() reads Checklist::dstAddrs (so the caller should resolve first).
    virtual bool needsDstAddress() const { return false; }

protected:
    /// Records why this Node cannot be evaluated; the first reason wins.
    void markUnsupported(std::string reason);

private:
    std::string name_;
    std::string typeName_;
    std::string unsupported_;
};

/// An acl of a Squid type that cuttle does not implement: it records the
/// name and type only, never matches, and is never supported.
class UnsupportedNode : public Node {
public:
    /// An unsupported acl of type `typeName`.
    UnsupportedNode(std::string name, std::string typeName);

    /// Every option is accepted: the values are not interpreted.
    bool acceptsOption(const std::string&) const override { return true; }
    /// Ignores the values and succeeds.
    bool addValues(const std::vector<std::string>&, std::string&, std::vector<std::string>&) override
    {
        return true;
    }
    /// Always false: the values are not kept.
    bool isEmpty() const override { return false; }
    /// Never matches (callers must check isSupported() first).
    bool match(const Checklist&) const override { return false; }
};

} // namespace Acl
