/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/TransferCodings.h"
#include "http/FieldSyntax.h"
#include "http/Fields.h"

bool Http::TransferCodings::add(std::string_view value)
{
    bool any = false;
    const bool ok = ForEachListElement(value, [this, &any](std::string_view item) {
        if (item.empty())
            return true; // RFC 9110 section 5.6.1: recipients ignore empty elements
        const auto semicolon = item.find(';');
        const auto coding = TrimOws(item.substr(0, semicolon));
        if (coding.empty())
            return false;
        for (const char c : coding) {
            if (!IsTokenChar(c))
                return false;
        }
        const bool chunked = EqualsIgnoreCase(coding, "chunked");
        // RFC 9112 section 7.1 defines no parameter for chunked, and a
        // sender MUST NOT apply it more than once (section 6.1)
        if (chunked && (sawChunked_ || semicolon != std::string_view::npos))
            return false;
        sawChunked_ = sawChunked_ || chunked;
        others_ = others_ || !chunked;
        chunkedLast_ = chunked;
        any = true;
        return true;
    });
    present_ = true;
    // an empty Transfer-Encoding frames nothing; refusing it is the safe reading
    return ok && any;
}
