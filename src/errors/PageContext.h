/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Errors::PageContext: the facts an error page may show.
#pragma once

#include <cstdint>
#include <ctime>
#include <string>

namespace Errors {

/// What went wrong and around which request: the values of the template %-codes.
///
/// Fields left empty print Squid's placeholder ("[unknown]", "[no URL]", ...).
/// Values that come from the request or the network are HTML-escaped by render().
struct PageContext {
    std::string errorName;       ///< %c: "ERR_ACCESS_DENIED" (buildReply() fills it from the template name)
    std::string url;             ///< %u: the request URL as received; %U and %B strip a password
    std::string method;          ///< %M: "GET"
    std::string protocol;        ///< %P: the URL scheme, "http"
    std::string clientAddress;   ///< %i: "127.0.0.1"
    std::string serverHost;      ///< %H: host name of the origin or peer
    uint16_t serverPort = 0;     ///< %p: port of the URL (0 prints "[unknown port]")
    std::string serverAddress;   ///< %I: IP the proxy connected to
    std::string visibleHostname; ///< %h: `visible_hostname`
    std::string localAddress;    ///< %A: the proxy's listening IP
    uint16_t localPort = 0;      ///< %b: the proxy's listening port
    int xerrno = 0;              ///< %e and %E (shown as "(111) Connection refused")
    std::string dnsError;        ///< %z: the resolver's message
    std::string request;         ///< %R and %W: the request line and headers as received
    std::string user;            ///< %a: authenticated user name
    std::string authMessage;     ///< %m: authentication helper's message
    std::string externalAclMessage;       ///< %o and %O: external ACL helper's message
    std::string errorDetail;              ///< %D: detail text (e.g. a TLS reason)
    std::string errorDetailName;          ///< %x: detail's name
    std::string message;                  ///< %Z: preformatted message
    std::string ftpRequest;               ///< %f: FTP command sent
    std::string ftpReply;                 ///< %F: FTP reply received
    std::string ftpServerMessage;         ///< %g: FTP server message
    std::string stylesheet;               ///< %l: CSS (`err_page_stylesheet` contents), inserted unescaped
    std::string htmlText;                 ///< %L: `err_html_text`, inserted unescaped
    std::time_t timestamp = 0;            ///< %t (local) and %T (GMT); 0 means now
    std::time_t requestStart = 0;         ///< @Squid{%ts}: when the request started
    std::string acceptLanguage;           ///< the request's Accept-Language (Catalog::choose())
    std::string adminEmail = "webmaster"; ///< %w: `cache_mgr`
    bool emailErrorData = false;          ///< `email_err_data`: whether %W adds the mailto details
    std::string software;                 ///< %s: "" means "cuttle/PACKAGE_VERSION"
    bool stripQueryTerms = false;         ///< `strip_query_terms`: %U drops the query
};

/// "cuttle/PACKAGE_VERSION", the Server: header value and the default %s.
const std::string& SoftwareName();

} // namespace Errors
