/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "config/HeaderRules.h"

#include <strings.h>

namespace {

/// Squid 5.7's registered header names (src/http/RegisteredHeadersHash.gperf),
/// checked against Squid: `request_header_access Other deny all` keeps these
/// and removes any other name
constexpr std::string_view KnownHeaders[] = {
    "Accept",
    "Accept-Charset",
    "Accept-Encoding",
    "Accept-Language",
    "Accept-Ranges",
    "Age",
    "Allow",
    "Alternate-Protocol",
    "Authentication-Info",
    "Authorization",
    "Cache-Control",
    "CDN-Loop",
    "Connection",
    "Content-Base",
    "Content-Disposition",
    "Content-Encoding",
    "Content-Language",
    "Content-Length",
    "Content-Location",
    "Content-MD5",
    "Content-Range",
    "Content-Type",
    "Cookie",
    "Cookie2",
    "Date",
    "ETag",
    "Expect",
    "Expires",
    "Forwarded",
    "From",
    "Front-End-Https",
    "FTP-Arguments",
    "FTP-Command",
    "FTP-Pre",
    "FTP-Reason",
    "FTP-Status",
    "Host",
    "HTTP2-Settings",
    "If-Match",
    "If-Modified-Since",
    "If-None-Match",
    "If-Range",
    "If-Unmodified-Since",
    "Keep-Alive",
    "Key",
    "Last-Modified",
    "Link",
    "Location",
    "Max-Forwards",
    "Mime-Version",
    "Negotiate",
    "Origin",
    "Pragma",
    "Proxy-Authenticate",
    "Proxy-Authentication-Info",
    "Proxy-Authorization",
    "Proxy-Connection",
    "Proxy-support",
    "Public",
    "Range",
    "Referer",
    "Request-Range",
    "Retry-After",
    "Server",
    "Set-Cookie",
    "Set-Cookie2",
    "Surrogate-Capability",
    "Surrogate-Control",
    "TE",
    "Title",
    "Trailer",
    "Transfer-Encoding",
    "Translate",
    "Unless-Modified-Since",
    "Upgrade",
    "User-Agent",
    "Vary",
    "Via",
    "Warning",
    "WWW-Authenticate",
    "X-Accelerator-Vary",
    "X-Cache",
    "X-Cache-Lookup",
    "X-Forwarded-For",
    "X-Next-Services",
    "X-Request-URI",
    "X-Squid-Error",
};

bool equalsIgnoreCase(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

/// whether a word is a quoted string (the lexer keeps the quotes)
bool isQuoted(const std::string& word)
{
    return word.size() >= 2 && word.front() == '"' && word.back() == '"';
}

} // namespace

bool Config::IsSquidKnownHeader(std::string_view name)
{
    for (const auto known : KnownHeaders)
        if (equalsIgnoreCase(name, known))
            return true;
    return false;
}

Config::HeaderRules::Group& Config::HeaderRules::track(const std::string& name)
{
    // Squid's HeaderManglers::track(): a known name first, then "All" and
    // "Other" exactly as written, then a custom name
    if (!IsSquidKnownHeader(name)) {
        if (name == "All")
            return all_;
        if (name == "Other")
            return other_;
    }
    for (auto& g : named_)
        if (equalsIgnoreCase(g.name, name))
            return g;
    named_.push_back(Group{name, {}, std::nullopt});
    return named_.back();
}

const Config::HeaderRules::Group* Config::HeaderRules::find(std::string_view name) const
{
    for (const auto& g : named_)
        if (g.rules.size() != 0 && equalsIgnoreCase(g.name, name))
            return &g;
    if (other_.rules.size() != 0 && !IsSquidKnownHeader(name))
        return &other_;
    if (all_.rules.size() != 0)
        return &all_;
    return nullptr;
}

bool Config::HeaderRules::parseAccess(const std::vector<std::string>& words, const Acl::Registry& acls,
                                      std::string& why)
{
    if (words.size() < 2) {
        why = "expected a header name and allow|deny [!]ACL...";
        return false;
    }
    Acl::AccessList parsed;
    if (!parsed.parse({words.begin() + 1, words.end()}, acls, why))
        return false;
    if (parsed.size() == 0)
        return true; // a rule without acls: skipped, `why` says so
    // checked on its own first, so that a bad line makes no group; then
    // it joins its group's list (AccessList appends one rule per parse)
    Group& g = track(words[0]);
    std::string again;
    return g.rules.parse({words.begin() + 1, words.end()}, acls, again);
}

void Config::HeaderRules::setReplacement(const std::string& name, const std::string& value)
{
    track(name).replacement = value;
}

bool Config::HeaderRules::parseAddition(const std::vector<std::string>& words, const Acl::Registry& acls,
                                        std::string& why)
{
    if (words.size() < 2) {
        why = "expected a header name and a value";
        return false;
    }
    Addition a;
    a.name = words[0];
    if (a.name.empty() || a.name.find_first_of(":\"") != std::string::npos) {
        why = "bad header name '" + a.name + "'";
        return false;
    }
    const std::string& value = words[1];
    if (isQuoted(value)) {
        if (!a.value.parse(std::string_view(value).substr(1, value.size() - 2), why))
            return false;
    } else {
        // a token is taken as it is, %-codes and all, as in Squid
        std::string literal;
        for (const char c : value) {
            literal += c;
            if (c == '%')
                literal += '%';
        }
        if (!a.value.parse(literal, why))
            return false;
    }
    if (words.size() > 2) {
        std::vector<std::string> rule{"allow"};
        rule.insert(rule.end(), words.begin() + 2, words.end());
        if (!a.acls.parse(rule, acls, why))
            return false;
    }
    additions_.push_back(std::move(a));
    return true;
}

bool Config::HeaderRules::hasAccessRules() const
{
    if (all_.rules.size() != 0 || other_.rules.size() != 0)
        return true;
    for (const auto& g : named_)
        if (g.rules.size() != 0)
            return true;
    return false;
}

Config::HeaderRules::Verdict Config::HeaderRules::check(std::string_view name, const Acl::Checklist& facts,
                                                        const std::string*& replacement) const
{
    const Group* g = find(name);
    if (!g)
        return Verdict::Keep;
    // anything but a clear allow removes: a proxy_auth acl that cannot
    // decide here (Squid's fast check) does not let a field through
    if (g->rules.check(facts) == Acl::Answer::Allowed)
        return Verdict::Keep;
    if (g->replacement) {
        replacement = &*g->replacement;
        return Verdict::Replace;
    }
    return Verdict::Remove;
}
