/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Log::AccessRecord: the facts of one transaction that access.log prints.
#pragma once

#include <sys/time.h>

#include <cstdint>
#include <string>

namespace Log {

/// One finished transaction, filled by the client side and given to AccessLog::log().
///
/// Plain text values, already in their log spelling: the log escapes what
/// Squid escapes (the URL, the user name) and prints "-" for empty fields.
struct AccessRecord {
    timeval start{};                      ///< when the request's first byte arrived
    timeval end{};                        ///< when the transaction ended; {0,0}: start + responseTimeMs
    int64_t responseTimeMs = 0;           ///< %tr: milliseconds from start to end
    std::string clientAddress;            ///< %>a: "127.0.0.1", "::1" (no brackets, no port)
    std::string resultCode = "NONE_NONE"; ///< %Ss: "TCP_MISS", "TCP_DENIED", "TCP_TUNNEL", ...
    int httpStatus = 0;                   ///< %>Hs: status sent to the client, 0 when none
    uint64_t bytesSent = 0;               ///< %<st: bytes written to the client, headers included
    std::string method;                  ///< %rm: "GET", "CONNECT"; Squid logs "NONE" for an unparsed request
    std::string url;                     ///< %ru: the URL as received ("error:invalid-request" when none)
    std::string user;                    ///< %un: user name; empty prints "-"
    std::string hierarchy = "HIER_NONE"; ///< %Sh: "HIER_NONE", "HIER_DIRECT", "FIRSTUP_PARENT"
    std::string peerAddress;             ///< %<a: origin or peer IP; empty prints "-"
    std::string mimeType;                ///< %mt: reply Content-Type; cut at ';' or space, empty prints "-"
    std::string httpVersion = "1.1";     ///< %rv: request version, for the common format
    std::string referer;                 ///< Referer header, for the combined format
    std::string userAgent;               ///< User-Agent header, for the combined format
    bool userFromAuth = false;           ///< %ul: user came from proxy authentication
    uint16_t clientPort = 0;             ///< %>p
    std::string localAddress;            ///< %>la, %la: the address the client connected to
    uint16_t localPort = 0;              ///< %>lp, %lp
    int peerStatus = 0;                  ///< %<Hs: status received from the next hop; 0: none
    uint64_t requestHeadSize = 0;        ///< %>sh: bytes of the request head
    uint64_t requestBodySize = 0;        ///< %>st minus %>sh: request body bytes (no chunk framing)
    uint64_t replyHeadSize = 0;          ///< %<sh: bytes of the reply head sent
    std::string errorCode;               ///< %err_code: the ERR_* page sent, if any
    int64_t responseTimeUs = -1;         ///< %tr with a precision: microseconds; -1: responseTimeMs
    /// What follows is filled only when a log needs it (AccessLog::needs()).
    std::string requestUrl;  ///< %>ru: the URL as received, before rewriting and strip_query_terms
    std::string requestHead; ///< %>h: the request's field lines as received, each ending in CRLF
    std::string replyHead;   ///< %<h: the reply head sent, status line and final CRLF included

    /// Sets end = NOW and responseTimeMs = NOW - start (never negative).
    void finish(const timeval& now);
    /// The time %ts.%03tu prints: end, or start + responseTimeMs when end is unset.
    timeval logTime() const;
};

} // namespace Log
