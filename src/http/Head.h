/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The one serializer of HTTP/1.1 head lines (RFC 9112 sections 4 and
/// 5): a status line, a field line, the empty line that ends a head. Every
/// head cuttle writes is built with these: the replies to clients
/// (Client::BuildClientReply, interim replies), error pages
/// (Errors::buildReply), the manager page and PURGE's reply, and the field
/// lines of the requests to origins (Client::BuildOriginRequest).
///
/// Values are written as given: callers pass field values that came through
/// a parser (no CR, LF or NUL) or that they made themselves.

#pragma once

#include <string>
#include <string_view>

namespace Http {

/// appends `HTTP/1.1 STATUS REASON` CRLF; an empty reason takes ReasonPhrase(status)
void AppendStatusLine(std::string& out, int status, std::string_view reason = {});

/// appends `NAME: VALUE` CRLF (inline: a head has many fields)
inline void AppendField(std::string& out, std::string_view name, std::string_view value)
{
    out.append(name);
    out.append(": ");
    out.append(value);
    out.append("\r\n");
}

/// appends the empty line that ends a head
inline void EndHead(std::string& out)
{
    out.append("\r\n");
}

} // namespace Http
