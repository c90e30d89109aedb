/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/Method.h"

namespace {
constexpr std::string_view Names[] = {"GET",     "HEAD",    "POST",  "PUT",  "DELETE",
                                      "CONNECT", "OPTIONS", "TRACE", "PATCH"};
}

Http::Method Http::MethodFromToken(std::string_view token)
{
    for (size_t i = 0; i < std::size(Names); ++i) {
        if (Names[i] == token)
            return static_cast<Method>(i);
    }
    return Method::Other;
}

std::string_view Http::MethodName(Method m)
{
    const auto i = static_cast<size_t>(m);
    return i < std::size(Names) ? Names[i] : std::string_view();
}

bool Http::IsSafe(Method m)
{
    return m == Method::Get || m == Method::Head || m == Method::Options || m == Method::Trace;
}

bool Http::IsIdempotent(Method m)
{
    return IsSafe(m) || m == Method::Put || m == Method::Delete;
}
