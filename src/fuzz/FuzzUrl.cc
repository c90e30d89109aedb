/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file libFuzzer harness of Http::Url. Properties checked, for any bytes:
/// - a URL that parses is shorter than MaxLength, has a lowercase scheme and
///   host, a non-empty host, a path that starts with '/', a port that is
///   explicit (1..65535) or the scheme's default, and no control byte or
///   space in any part;
/// - canonical() parses again to the same scheme, host, port and path
///   (without the fragment), and its canonical() is itself (idempotent);
/// - canonical() holds no userinfo: no '@' before the host.

#include "cuttle.h"

#include "fuzz/Check.h"
#include "http/Url.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace {

bool HasNoControlOrSpace(std::string_view s)
{
    for (const char c : s) {
        if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
            return false;
    }
    return true;
}

bool HasNoUpper(std::string_view s)
{
    for (const char c : s) {
        if (c >= 'A' && c <= 'Z')
            return false;
    }
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const auto text = Fuzz::AsText(data, size);
    Http::Url url;
    if (!url.parse(text))
        return 0;

    FUZZ_CHECK(text.size() < Http::Url::MaxLength);
    FUZZ_CHECK(!url.scheme().empty() && HasNoUpper(url.scheme()) && HasNoControlOrSpace(url.scheme()));
    FUZZ_CHECK(!url.host().empty() && HasNoUpper(url.host()) && HasNoControlOrSpace(url.host()));
    FUZZ_CHECK(!url.path().empty() && url.path()[0] == '/' && HasNoControlOrSpace(url.path()));
    if (url.hasExplicitPort())
        FUZZ_CHECK(url.port() >= 1);
    if (url.isIpv6Host())
        FUZZ_CHECK(url.authorityHost() == "[" + url.host() + "]");
    else
        FUZZ_CHECK(url.authorityHost() == url.host());

    const auto canonical = url.canonical();
    FUZZ_CHECK(HasNoControlOrSpace(canonical));
    FUZZ_CHECK(canonical.find('#') == std::string::npos || url.path().find('#') != std::string::npos);
    const auto authority = canonical.find("://");
    FUZZ_CHECK(authority != std::string::npos);
    const auto hostEnd = canonical.find('/', authority + 3);
    FUZZ_CHECK(canonical.substr(authority + 3, hostEnd - authority - 3).find('@') == std::string::npos);

    Http::Url again;
    FUZZ_CHECK(again.parse(canonical));
    FUZZ_CHECK(again.scheme() == url.scheme());
    FUZZ_CHECK(again.host() == url.host());
    FUZZ_CHECK(again.port() == url.port());
    FUZZ_CHECK(again.path() == url.path());
    FUZZ_CHECK(again.canonical() == canonical);
    return 0;
}
