/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Client::AclFields: a parsed head's fields as the acl part reads them.

#pragma once

#include "acl/AccessList.h"
#include "http/Fields.h"

#include <strings.h>

namespace Client {

/// Acl::Fields over a parsed head's fields (a parser's or a stored
/// reply's, which must outlive it).
class AclFields : public Acl::Fields {
public:
    /// Reads `fields`, the head's fields in message order.
    explicit AclFields(Http::FieldsView fields) : fields_(fields) {}

    std::optional<std::string> get(std::string_view name) const override
    {
        std::optional<std::string> joined;
        for (const auto f : fields_) {
            if (f.name.size() != name.size() || strncasecmp(f.name.data(), name.data(), name.size()) != 0)
                continue;
            if (joined)
                joined->append(", ").append(f.value);
            else
                joined.emplace(f.value);
        }
        return joined;
    }

private:
    Http::FieldsView fields_;
};

} // namespace Client
