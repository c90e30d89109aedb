/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "client/HostVerification.h"
#include "http/Url.h"

#include <strings.h>

namespace {

Client::HostCheck Failed(std::string mismatch, std::string against)
{
    Client::HostCheck check;
    check.outcome = Client::HostCheck::Outcome::Failed;
    check.mismatch = std::move(mismatch);
    check.against = std::move(against);
    return check;
}

Client::HostCheck Passed()
{
    Client::HostCheck check;
    check.outcome = Client::HostCheck::Outcome::Passed;
    return check;
}

/// whether two addresses are the same IP (ports ignored; IPv4-mapped IPv6 is IPv4)
bool SameIp(const Comm::Address& a, const Comm::Address& b)
{
    return a.host() == b.host();
}

} // namespace

Client::HostField Client::SplitHostField(std::string_view value)
{
    HostField field;
    field.host = std::string(value);
    std::string::size_type colon = std::string::npos;
    if (!field.host.empty() && field.host[0] == '[') {
        // an IPv6 literal: a port only right after the closing bracket
        const auto close = field.host.find(']');
        if (close != std::string::npos && close + 1 < field.host.size() && field.host[close + 1] == ':')
            colon = close + 1;
    } else {
        colon = field.host.rfind(':');
    }
    if (colon == std::string::npos)
        return field;
    const std::string portText = field.host.substr(colon + 1);
    if (!portText.empty()) {
        // Squid's strtoll() check: digits only, 1 to 65535; anything else
        // leaves the colon in the host
        unsigned long number = 0;
        bool ok = portText.size() <= 5;
        for (const char c : portText) {
            if (c < '0' || c > '9')
                ok = false;
            else
                number = number * 10 + unsigned(c - '0');
        }
        if (!ok || number < 1 || number > 65535)
            return field;
        field.port = uint16_t(number);
    }
    field.hasPort = true;
    field.portText = portText;
    field.host.resize(colon);
    return field;
}

std::string Client::InterceptedUrl(std::string_view target, const std::optional<std::string_view>& host,
                                   const Comm::Address& originalDestination, std::string_view scheme)
{
    if (target.empty() || target[0] != '/')
        return std::string(target); // already absolute: used as it is, as Squid does
    const std::string prefix = std::string(scheme) + "://";
    if (host)
        return prefix + std::string(*host) + std::string(target);
    return prefix + originalDestination.toString() + std::string(target);
}

Client::HostCheck Client::CheckInterceptedHost(const std::optional<std::string_view>& host,
                                               const Comm::Address& originalDestination)
{
    if (!host)
        return HostCheck(); // nothing forged can hide in a field that is not there
    const auto field = SplitHostField(*host);
    if (field.hasPort && field.port != originalDestination.port())
        return Failed("intercepted port", field.portText);
    if (const auto literal = Comm::Address::Parse(field.host, 0)) {
        if (!field.host.empty())
            return SameIp(*literal, originalDestination) ? Passed() : Failed("local IP", "any domain IP");
    }
    HostCheck check;
    check.outcome = HostCheck::Outcome::NeedsLookup;
    check.lookupHost = field.host;
    return check;
}

Client::HostCheck Client::CheckResolvedHost(const std::vector<Comm::Address>& resolved,
                                            const Comm::Address& originalDestination)
{
    for (const auto& a : resolved) {
        if (SameIp(a, originalDestination))
            return Passed();
    }
    return Failed("local IP", "any domain IP");
}

std::optional<std::string> Client::HostToVerify(std::string_view target, bool isConnect,
                                                const std::optional<std::string_view>& hostField)
{
    // no Host: nothing is checked, as in Squid (and nothing is cached);
    // origin-form: the Host field
    if (!hostField || (!isConnect && !target.empty() && target[0] == '/'))
        return hostField ? std::optional<std::string>(std::string(*hostField)) : std::nullopt;
    // Squid 5.7 (Http::One::Server::buildHttpRequest) puts the URL's
    // authority in place of Host before it verifies it
    Http::Url url;
    if (!url.parse(isConnect ? "https://" + std::string(target) : std::string(target)))
        return std::string(*hostField);
    std::string authority = url.authorityHost();
    const uint16_t defaultPort = url.scheme() == "https" ? 443 : 80;
    if (isConnect || url.port() != defaultPort)
        authority += ":" + std::to_string(url.port());
    return authority;
}
