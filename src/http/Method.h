/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Http::Method: request methods (RFC 9110 section 9).

#pragma once

#include <string_view>

namespace Http {

/// The methods cuttle knows by name; any other token is Other.
enum class Method {
    Get,
    Head,
    Post,
    Put,
    Delete,
    Connect,
    Options,
    Trace,
    Patch,
    Other, ///< a valid token cuttle has no special rule for
};

/// The method named by an already validated token (case-sensitive, RFC 9110
/// section 9.1).
Method MethodFromToken(std::string_view token);

/// The canonical name of a known method; "" for Other.
std::string_view MethodName(Method m);

/// Whether the method is safe (RFC 9110 section 9.2.1).
bool IsSafe(Method m);

/// Whether the method is idempotent (RFC 9110 section 9.2.2): a proxy may
/// retry only these by itself.
bool IsIdempotent(Method m);

} // namespace Http
