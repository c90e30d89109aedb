/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "errors/Templates.h"
#include "log/CacheLog.h"

#include <dirent.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace {

/// The text of a regular, non-empty file, or "" when it cannot be read.
std::string readFile(const std::string& path)
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

/// A deny_info or template name may not leave the directory.
bool isSafeName(const std::string& name)
{
    return !name.empty() && name.find('/') == std::string::npos && name != "." && name != "..";
}

} // namespace

Errors::Templates::Templates(const std::string& directory)
{
    load(directory);
}

void Errors::Templates::load(const std::string& directory)
{
    directory_ = directory;
    loaded_.clear();
    missingLogged_.clear();
    DIR* dir = ::opendir(directory.c_str());
    if (!dir) {
        debugs(4, 0, "ERROR: cannot read error_directory " << directory << "; using built-in error pages");
        return;
    }
    while (const dirent* entry = ::readdir(dir)) {
        const std::string name = entry->d_name;
        if (name.rfind("ERR_", 0) != 0)
            continue;
        std::string text = readFile(directory + "/" + name);
        if (!text.empty())
            loaded_.emplace(name, std::move(text));
    }
    ::closedir(dir);
    for (const auto& name : KnownNames()) {
        if (!loaded_.count(name) && missingLogged_.insert(name).second)
            debugs(4, 1,
                   "WARNING: error page " << directory << "/" << name
                                          << " is missing or empty; using a built-in page");
    }
    debugs(4, 2, "loaded " << loaded_.size() << " error page templates from " << directory);
}

const std::string& Errors::Templates::get(const std::string& name) const
{
    if (const auto it = loaded_.find(name); it != loaded_.end())
        return it->second;
    // A name outside the loaded set (a deny_info page added to the directory):
    // read it once; later calls find it in loaded_.
    if (!directory_.empty() && isSafeName(name) && !missingLogged_.count(name)) {
        std::string text = readFile(directory_ + "/" + name);
        if (!text.empty())
            return loaded_.emplace(name, std::move(text)).first->second;
    }
    if (missingLogged_.insert(name).second)
        debugs(4, 1,
               "WARNING: error page "
                   << (directory_.empty() ? std::string("(no error_directory)") : directory_) << "/" << name
                   << " is missing or empty; using a built-in page");
    return FallbackTemplate();
}

bool Errors::Templates::hasFile(const std::string& name) const
{
    return loaded_.count(name) != 0;
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
