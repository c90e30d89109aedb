/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "errors/Templates.h"

#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace {

/// A page name may not leave the directory.
bool isSafeName(const std::string& name)
{
    return !name.empty() && name.find('/') == std::string::npos && name != "." && name != "..";
}

} // namespace

std::string Errors::Templates::ReadFile(const std::string& path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return {};
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return {};
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

Errors::Templates::Templates(const std::string& directory)
{
    load({directory}, KnownNames());
}

std::vector<std::string> Errors::Templates::load(const std::vector<std::string>& directories,
                                                 const std::vector<std::string>& names)
{
    loaded_.clear();
    std::vector<std::string> missing;
    for (const auto& name : names) {
        if (loaded_.count(name))
            continue; // named twice (a deny_info page that is also an ERR_* name)
        std::string text;
        for (const auto& directory : directories) {
            if (isSafeName(name) && !directory.empty())
                text = ReadFile(directory + "/" + name);
            if (!text.empty())
                break;
        }
        if (text.empty())
            missing.push_back(name);
        else
            loaded_.emplace(name, std::move(text));
    }
    return missing;
}

const std::string* Errors::Templates::find(const std::string& name) const
{
    const auto it = loaded_.find(name);
    return it == loaded_.end() ? nullptr : &it->second;
}

const std::string& Errors::Templates::get(const std::string& name) const
{
    const auto* text = find(name);
    return text ? *text : FallbackTemplate();
}

bool Errors::Templates::IsKnownName(const std::string& name)
{
    for (const auto& known : KnownNames())
        if (known == name)
            return true;
    return false;
}

const std::vector<std::string>& Errors::Templates::KnownNames()
{
    // Squid 5.7's errors/templates, plus three names of later Squid releases
    // that cuttle may send (request start/parse timeouts, relay refusal).
    static const std::vector<std::string> names = {
        "ERR_ACCESS_DENIED",
        "ERR_ACL_TIME_QUOTA_EXCEEDED",
        "ERR_AGENT_CONFIGURE",
        "ERR_AGENT_WPAD",
        "ERR_CACHE_ACCESS_DENIED",
        "ERR_CACHE_MGR_ACCESS_DENIED",
        "ERR_CANNOT_FORWARD",
        "ERR_CONFLICT_HOST",
        "ERR_CONNECT_FAIL",
        "ERR_DIR_LISTING",
        "ERR_DNS_FAIL",
        "ERR_ESI",
        "ERR_FORWARDING_DENIED",
        "ERR_FTP_DISABLED",
        "ERR_FTP_FAILURE",
        "ERR_FTP_FORBIDDEN",
        "ERR_FTP_NOT_FOUND",
        "ERR_FTP_PUT_CREATED",
        "ERR_FTP_PUT_ERROR",
        "ERR_FTP_PUT_MODIFIED",
        "ERR_FTP_UNAVAILABLE",
        "ERR_GATEWAY_FAILURE",
        "ERR_ICAP_FAILURE",
        "ERR_INVALID_REQ",
        "ERR_INVALID_RESP",
        "ERR_INVALID_URL",
        "ERR_LIFETIME_EXP",
        "ERR_NO_RELAY",
        "ERR_ONLY_IF_CACHED_MISS",
        "ERR_PRECONDITION_FAILED",
        "ERR_PROTOCOL_UNKNOWN",
        "ERR_READ_ERROR",
        "ERR_READ_TIMEOUT",
        "ERR_SECURE_CONNECT_FAIL",
        "ERR_SHUTTING_DOWN",
        "ERR_SOCKET_FAILURE",
        "ERR_TOO_BIG",
        "ERR_UNSUP_HTTPVERSION",
        "ERR_UNSUP_REQ",
        "ERR_URN_RESOLVE",
        "ERR_WRITE_ERROR",
        "ERR_ZERO_SIZE_OBJECT",
        "ERR_REQUEST_START_TIMEOUT",
        "ERR_REQUEST_PARSE_TIMEOUT",
        "ERR_RELAY_REMOTE",
    };
    return names;
}

const std::string& Errors::Templates::FallbackTemplate()
{
    static const std::string page =
        "<!DOCTYPE html>\n"
        "<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<title>ERROR: %c</title></head>\n"
        "<body id=\"%c\">\n"
        "<h1>ERROR: %c</h1>\n"
        "<p>The proxy could not complete the request for <a href=\"%U\">%U</a>.</p>\n"
        "<p>The administrator of this proxy is <a href=\"mailto:%w%W\">%w</a>.</p>\n"
        "<hr>\n<div id=\"footer\"><p>Generated %T by %h (%s)</p></div>\n"
        "</body></html>\n";
    return page;
}
