/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/Head.h"
#include "http/StatusCode.h"

void Http::AppendStatusLine(std::string& out, int status, std::string_view reason)
{
    out.append("HTTP/1.1 ");
    out.append(std::to_string(status));
    out.push_back(' ');
    out.append(reason.empty() ? std::string_view(ReasonPhrase(StatusCode(status))) : reason);
    out.append("\r\n");
}
