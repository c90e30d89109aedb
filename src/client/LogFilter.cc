/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "client/LogFilter.h"
#include "config/Settings.h"
#include "http/Url.h"

Client::LogFilter::LogFilter(std::shared_ptr<const Config::Settings> settings, size_t index)
    : settings_(std::move(settings)), index_(index)
{}

bool Client::LogFilter::accepts(const Log::AccessRecord& r) const
{
    Acl::Checklist facts;
    if (const auto a = Acl::Address::Parse(r.clientAddress))
        facts.srcAddr = *a;
    if (const auto a = Acl::Address::Parse(r.localAddress))
        facts.localAddr = *a;
    facts.localPort = r.localPort;
    facts.method = r.method;
    const std::string& url = r.requestUrl.empty() ? r.url : r.requestUrl;
    facts.url = url;
    Http::Url parsed;
    if (r.method == "CONNECT") {
        const size_t colon = url.rfind(':');
        facts.dstHost = url.substr(0, colon);
        facts.dstPort =
            colon == std::string::npos ? 443 : static_cast<uint16_t>(std::atoi(url.c_str() + colon + 1));
    } else if (parsed.parse(url)) {
        facts.dstHost = parsed.host();
        facts.dstPort = parsed.port();
        facts.urlScheme = parsed.scheme();
        facts.urlPath = parsed.path();
    }
    facts.replyStatus = r.httpStatus;
    facts.hierCode = r.hierarchy;
    if (r.userFromAuth) {
        facts.auth = Acl::AuthState::Valid;
        facts.user = r.user;
    }
    return settings_->accessLogs.at(index_).matches(facts);
}
