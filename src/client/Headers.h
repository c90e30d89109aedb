/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Client::BuildOriginRequest() and Client::BuildClientReply(): the
/// heads that cross each hop, with hop-by-hop fields removed (RFC 9110
/// section 7.6.1), the framing recomputed for the hop (RFC 9112 section 6),
/// and Via / X-Forwarded-For as squid.conf's `via` and `forwarded_for` say.
///
/// Heads are not body: each client's reply head is serialized into its own
/// small string once (doc/design.md "The path of a body byte"); body bytes are never touched here.
#pragma once

#include "acl/AccessList.h"
#include "config/Settings.h"
#include "log/ValueFormat.h"
#include "http/RequestParser.h"
#include "store/BodyWriter.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Store {
struct Reply;
}

namespace Client {

/// What the request head to the origin is built from.
struct OriginRequestSpec {
    std::string_view method;                                ///< as received
    std::string_view path;                                  ///< origin-form: path and query
    std::string hostField;                                  ///< the Host value (the URL's authority)
    const std::vector<Http::HeaderField>* fields = nullptr; ///< the client's fields
    std::string_view clientAddress;                         ///< for X-Forwarded-For
    std::string_view viaName;                               ///< "host (cuttle/1.0)", empty: no Via
    Config::ForwardedFor forwardedFor = Config::ForwardedFor::On;
    Store::BodyWriter::Framing bodyFraming = Store::BodyWriter::Framing::None; ///< how the body goes
    uint64_t contentLength = 0;                                                ///< with Framing::Raw
    bool hasZeroLength = false; ///< Framing::None, but the client sent `Content-Length: 0`
    bool dropRange = false;     ///< leave the client's Range and If-Range out (the whole object is wanted)
    bool keepAlive = true;      ///< `Connection: keep-alive`, else `close` (server_persistent_connections)
    /// fields cuttle adds (a revalidation's If-None-Match / If-Modified-Since);
    /// the client's own conditional fields are dropped when there are any
    std::vector<std::pair<std::string, std::string>> extraFields;
};

/// The request head to send to the origin (HTTP/1.1, persistent).
std::string BuildOriginRequest(const OriginRequestSpec& spec);

/// Adds the stored reply's validators to a request (RFC 9111 4.3.1):
/// If-None-Match from its ETag, If-Modified-Since from its Last-Modified.
void AddValidators(OriginRequestSpec& spec, const Store::Reply& stored);

/// What the reply head to a client is built from.
struct ClientReplySpec {
    const Store::Reply* reply = nullptr; ///< the origin's reply
    bool clientIsHttp11 = true;          ///< HTTP/1.1 client (may get chunked)
    bool requestWasHead = false;         ///< no body goes out
    bool keepAlive = true;               ///< the connection stays open (may be turned off)
    std::string_view viaName;            ///< "host (cuttle/1.0)", empty: no Via
    std::string_view cacheName;          ///< "host" for X-Cache (empty: no X-Cache fields)
    uint16_t cachePort = 0;              ///< the port of "host:port" in X-Cache-Lookup
    bool isHit = false;                  ///< served from the store: X-Cache says HIT
    std::optional<int64_t> age;          ///< the Age to send (RFC 9111 5.1), on hits and revalidated replies
    bool notModified = false;            ///< a 304 cuttle makes from a stored reply (RFC 9110 15.4.5)
    int status = 0;                      ///< another status than the reply's (206, 416), 0: the reply's
    std::optional<uint64_t> bodyLength;  ///< the Content-Length of what is sent, when not the reply's
    bool dropContentType = false;        ///< a multipart/byteranges reply has its own Content-Type
    std::vector<std::pair<std::string, std::string>> extraFields; ///< Content-Range, Content-Type...
};

/// The reply head and the body framing for one client.
struct ClientReply {
    std::string head;                   ///< status line, fields, empty line
    Store::BodyWriter::Framing framing; ///< how the body goes out
    bool closeAfter = false;            ///< close-delimited, or the client asked to close
};

/// The reply head to send to a client, and how its body is framed.
ClientReply BuildClientReply(const ClientReplySpec& spec);

/// The head of an interim (1xx) reply to forward to a client: the status
/// line and the fields that may cross the hop, written anew with CRLF.
std::string BuildInterimReply(int status, std::string_view reason, Http::FieldsView fields);

/// Whether a 304 made from a stored reply carries this field (RFC 9110 section 15.4.5)
bool IsNotModifiedField(std::string_view name);

/// The fields that must not cross a hop, for one message: the RFC 9110
/// section 7.6.1 list, the framing fields (recomputed per hop), and any name
/// its Connection (or Proxy-Connection) fields list, gathered once.
class HopByHop {
public:
    /// the hop-by-hop names of a message with these fields (which must outlive this)
    explicit HopByHop(Http::FieldsView fields);
    /// whether a field of this name must not cross the hop
    bool contains(std::string_view name) const;

private:
    std::vector<std::string_view> connectionValues_; ///< the Connection and Proxy-Connection values
};

/// How cuttle names itself in Via and on error pages: "cuttle/VERSION", or
/// "cuttle" with httpd_suppress_version_string on.
std::string SoftwareName(const Config::Settings& settings);

/// Applies squid.conf's header rules of one direction (Config::HeaderRules)
/// to a head cuttle built (a start line, "Name: value" fields, the empty
/// line, maybe followed by a body, which stays): removes or replaces the fields the access rules deny (never
/// the hop's Content-Length, Transfer-Encoding and Connection), then appends the additions whose acls match,
/// their %-codes filled from `format`. Does nothing without rules.
void ApplyHeaderRules(std::string& head, const Config::HeaderRules& rules, const Acl::Checklist& facts,
                      const Log::FormatFacts& format);

/// Whether the field must not cross a hop (HopByHop(fields).contains(name)).
bool IsHopByHop(std::string_view name, Http::FieldsView fields);

} // namespace Client
