/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::ExternalNode: the `external` acl type.

#pragma once

#include "acl/Node.h"

namespace Acl {

class ExternalType;

/// `acl NAME external CLASS [ARGUMENT...]`: the external_acl_type CLASS
/// helper answers OK (match) or ERR (no match) for this request and these
/// arguments, as in Squid 5.7. Until its answer is known (Checklist::answers)
/// the check stops with a Lookup (Pending); a BH answer or a helper that
/// failed ends the check Denied, whether the acl is negated or not. The
/// notes of the answer (user=, tag=, message=, log=, others) join
/// Checklist::notes whether it matched or not.
class ExternalNode : public Node {
public:
    /// An acl not bound to a type yet (Registry::parse() binds it).
    explicit ExternalNode(std::string name);

    /// Binds the acl to its type and arguments (its only line); false with
    /// `why` when it already has them (Squid refuses a second line).
    bool bind(const ExternalType& type, std::vector<std::string> arguments, std::string& why);

    bool addValues(const std::vector<std::string>& values, std::string& why,
                   std::vector<std::string>& warnings) override;
    bool isEmpty() const override { return type_ == nullptr; }
    bool match(const Checklist& facts) const override;

private:
    const ExternalType* type_ = nullptr; ///< owned by the Registry
    std::vector<std::string> arguments_;
};

} // namespace Acl
