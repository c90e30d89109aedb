/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Errors::render() and Errors::buildReply(): from a template to the bytes of a reply.
///
/// %-codes are Squid 5.7's (errorpage.cc); each prints what Squid 5.7 prints:
///
/// | code | value                              | code | value                            |
/// |------|------------------------------------|------|----------------------------------|
/// | %a   | user name ("-")                    | %l   | err_page_stylesheet text (raw)   |
/// | %A   | proxy's listening IP               | %L   | err_html_text (raw)              |
/// | %b   | proxy's listening port             | %m   | auth helper message              |
/// | %B   | ftp:// URL with %2f ("" otherwise) | %M   | method                           |
/// | %c   | error name                         | %o   | external ACL message             |
/// | %D   | error detail                       | %O   | the same, not escaped            |
/// | %e   | errno                              | %p   | URL port                         |
/// | %E   | "(errno) strerror"                 | %P   | protocol                         |
/// | %f   | FTP request                        | %R   | request, origin-form, no secrets |
/// | %F   | FTP reply                          | %s   | software "cuttle/VERSION"        |
/// | %g   | FTP server message                 | %S   | signature (footer, expanded)     |
/// | %h   | visible_hostname                   | %t   | local time (CLF form)            |
/// | %H   | server host name                   | %T   | GMT time (RFC 1123)              |
/// | %i   | client IP                          | %u   | URL                              |
/// | %I   | server IP                          | %U   | URL, no password, strip_query_terms |
/// | %w   | cache_mgr                          | %W   | mailto details (email_err_data)  |
/// | %x   | error detail name                  | %z   | DNS error                        |
/// | %Z   | preformatted message               | %%   | "%"                              |
///
/// Any other %X is copied as-is (Squid 5.7 warns about it when it loads the
/// template and then does the same). `@Squid{%CODE}` is a logformat code, as
/// in Squid 5.7, for the codes Log::ValueFormat knows (%>a %rm %ru %un %ts
/// %tu); another is copied as-is. Every value is HTML-escaped except %l, %L,
/// %O, %S (admin-provided HTML) and %W (already URL-encoded and &amp;-joined).

#pragma once

#include "errors/PageContext.h"

#include <string>
#include <utility>
#include <vector>

namespace Errors {

class Catalog;

/// TEMPLATE_TEXT with every %-code replaced from CONTEXT (see the file comment).
std::string render(const std::string& templateText, const PageContext& context);

/// A deny_info URL with its %-codes expanded from CONTEXT, each value
/// URL-escaped as Squid's rfc1738_escape_part() (but %R), for a Location
/// field. The codes are Config::DenyInfoUrlCodes and %% (as "%25"); any other is left as it is.
std::string ExpandDenyInfoUrl(const std::string& pattern, const PageContext& context);

/// How the client side frames an error reply.
struct ReplyOptions {
    bool close = false;    ///< add `Connection: close`
    bool headOnly = false; ///< the head without the page (a reply to HEAD)
    /// fields after Squid's own (the client side's X-Cache, Via, Connection: keep-alive)
    std::vector<std::pair<std::string, std::string>> extraFields;
};

/// The whole HTTP/1.1 reply for an error: status line, Squid's error headers, the page.
/// The page and its language are CATALOG.choose(TEMPLATE_NAME, CONTEXT.acceptLanguage):
///
///     HTTP/1.1 403 Forbidden
///     Server: cuttle/0.1.0
///     Mime-Version: 1.0
///     Date: Tue, 02 Jan 2024 03:04:05 GMT
///     Content-Type: text/html;charset=utf-8
///     Content-Length: 1234
///     X-Squid-Error: ERR_ACCESS_DENIED 0
///     Vary: Accept-Language            (only when negotiated: no error_directory)
///     Content-Language: de             (the same; Catalog.h says which)
///     Connection: close                (only when options.close)
///     ...                              (options.extraFields, in order)
///
/// The page is rendered with CONTEXT (whose errorName defaults to
/// TEMPLATE_NAME, and stylesheet to the catalog's); it follows the head unless
/// options.headOnly (a reply to HEAD: RFC 9110 section 9.3.2), and
/// Content-Length is its length either way.
std::string buildReply(int statusCode, const std::string& templateName, const PageContext& context,
                       const Catalog& catalog, const ReplyOptions& options = {});

} // namespace Errors
