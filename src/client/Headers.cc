/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "client/Headers.h"
#include "http/FieldSyntax.h"
#include "http/Head.h"
#include "http/StatusCode.h"
#include "store/Entry.h"

namespace {

/// fields never forwarded (RFC 9110 section 7.6.1, RFC 9112 section 6), plus
/// Expect (cuttle answers 100-continue itself) and Host (rebuilt first)
constexpr std::string_view HopByHopNames[] = {
    "Connection",        "Keep-Alive",     "Proxy-Connection",    "TE",
    "Trailer",           "Upgrade",        "Proxy-Authorization", "Proxy-Authenticate",
    "Transfer-Encoding", "Content-Length",
};

/// whether a comma-separated list value names token
bool ListHas(std::string_view list, std::string_view token)
{
    size_t pos = 0;
    while (pos <= list.size()) {
        size_t comma = list.find(',', pos);
        if (comma == std::string_view::npos)
            comma = list.size();
        if (Http::EqualsIgnoreCase(Http::TrimOws(list.substr(pos, comma - pos)), token))
            return true;
        pos = comma + 1;
    }
    return false;
}

} // namespace

bool Client::IsNotModifiedField(std::string_view name)
{
    for (const auto keep :
         {"Cache-Control", "Content-Location", "Date", "ETag", "Expires", "Vary", "Last-Modified"}) {
        if (Http::EqualsIgnoreCase(name, keep))
            return true;
    }
    return false;
}

Client::HopByHop::HopByHop(Http::FieldsView fields)
{
    for (const auto f : fields) {
        if (Http::EqualsIgnoreCase(f.name, "Connection") ||
            Http::EqualsIgnoreCase(f.name, "Proxy-Connection"))
            connectionValues_.push_back(f.value);
    }
}

bool Client::HopByHop::contains(std::string_view name) const
{
    for (const auto h : HopByHopNames) {
        if (Http::EqualsIgnoreCase(name, h))
            return true;
    }
    for (const auto value : connectionValues_) {
        if (ListHas(value, name))
            return true;
    }
    return false;
}

bool Client::IsHopByHop(std::string_view name, Http::FieldsView fields)
{
    return HopByHop(fields).contains(name);
}

void Client::AddValidators(OriginRequestSpec& spec, const Store::Reply& stored)
{
    if (const auto etag = stored.findField("ETag"))
        spec.extraFields.emplace_back("If-None-Match", std::string(*etag));
    if (const auto lm = stored.findField("Last-Modified"))
        spec.extraFields.emplace_back("If-Modified-Since", std::string(*lm));
}

std::string Client::BuildOriginRequest(const OriginRequestSpec& spec)
{
    std::string out;
    out.reserve(512);
    out.append(spec.method);
    out.push_back(' ');
    out.append(spec.path);
    out.append(" HTTP/1.1\r\n");
    Http::AppendField(out, "Host", spec.hostField);

    std::string via;
    std::string xff;
    bool sawXff = false;
    const auto& fields = *spec.fields;
    const HopByHop hopByHop(fields);
    for (const auto& f : fields) {
        if (hopByHop.contains(f.name) || Http::EqualsIgnoreCase(f.name, "Host") ||
            Http::EqualsIgnoreCase(f.name, "Expect"))
            continue;
        if (!spec.extraFields.empty() &&
            (Http::EqualsIgnoreCase(f.name, "If-None-Match") ||
             Http::EqualsIgnoreCase(f.name, "If-Modified-Since") ||
             Http::EqualsIgnoreCase(f.name, "If-Match") ||
             Http::EqualsIgnoreCase(f.name, "If-Unmodified-Since") ||
             Http::EqualsIgnoreCase(f.name, "If-Range") || Http::EqualsIgnoreCase(f.name, "Range")))
            continue; // a revalidation of the stored object asks its own question
        if (spec.dropRange &&
            (Http::EqualsIgnoreCase(f.name, "Range") || Http::EqualsIgnoreCase(f.name, "If-Range")))
            continue; // range_offset_limit: the whole object, to store it
        if (Http::EqualsIgnoreCase(f.name, "Via")) {
            via += (via.empty() ? "" : ", ") + std::string(f.value);
            continue;
        }
        if (Http::EqualsIgnoreCase(f.name, "X-Forwarded-For")) {
            xff += (xff.empty() ? "" : ", ") + std::string(f.value);
            sawXff = true;
            continue;
        }
        Http::AppendField(out, f.name, f.value);
    }
    if (!spec.viaName.empty()) {
        via += via.empty() ? "1.1 " : ", 1.1 ";
        via += spec.viaName;
    }
    if (!via.empty())
        Http::AppendField(out, "Via", via);

    // squid.conf forwarded_for, as Squid 5.7 applies it
    switch (spec.forwardedFor) {
    case Config::ForwardedFor::On:
        if (sawXff) {
            xff += ", ";
            xff += spec.clientAddress;
            Http::AppendField(out, "X-Forwarded-For", xff);
        } else {
            Http::AppendField(out, "X-Forwarded-For", spec.clientAddress);
        }
        break;
    case Config::ForwardedFor::Off:
        Http::AppendField(out, "X-Forwarded-For", sawXff ? xff + ", unknown" : "unknown");
        break;
    case Config::ForwardedFor::Transparent:
        if (sawXff)
            Http::AppendField(out, "X-Forwarded-For", xff);
        break;
    case Config::ForwardedFor::Truncate:
        Http::AppendField(out, "X-Forwarded-For", spec.clientAddress);
        break;
    case Config::ForwardedFor::Delete:
        break;
    }

    switch (spec.bodyFraming) {
    case Store::BodyWriter::Framing::None:
        if (spec.hasZeroLength)
            Http::AppendField(out, "Content-Length", "0");
        break;
    case Store::BodyWriter::Framing::Raw:
        Http::AppendField(out, "Content-Length", std::to_string(spec.contentLength));
        break;
    case Store::BodyWriter::Framing::Chunked:
        Http::AppendField(out, "Transfer-Encoding", "chunked");
        break;
    }
    for (const auto& [name, value] : spec.extraFields)
        Http::AppendField(out, name, value);
    Http::AppendField(out, "Connection", spec.keepAlive ? "keep-alive" : "close");
    Http::EndHead(out);
    return out;
}

std::string Client::BuildInterimReply(int status, std::string_view reason, Http::FieldsView fields)
{
    std::string out;
    Http::AppendStatusLine(out, status, reason);
    const HopByHop hopByHop(fields);
    for (const auto f : fields) {
        if (!hopByHop.contains(f.name))
            Http::AppendField(out, f.name, f.value);
    }
    Http::EndHead(out);
    return out;
}

Client::ClientReply Client::BuildClientReply(const ClientReplySpec& spec)
{
    const auto& reply = *spec.reply;
    ClientReply result;
    result.closeAfter = !spec.keepAlive;

    std::string& out = result.head;
    out.reserve(reply.head.size() + 256);
    if (spec.notModified)
        Http::AppendStatusLine(out, Http::ToInt(Http::StatusCode::NotModified));
    else if (spec.status)
        Http::AppendStatusLine(out, spec.status);
    else
        Http::AppendStatusLine(out, reply.status, reply.reason());

    std::string via;
    const HopByHop hopByHop(reply.fields());
    for (const auto f : reply.fields()) {
        // a 304 carries only what RFC 9110 section 15.4.5 lists (and Last-Modified, as Squid sends)
        if (spec.notModified && !IsNotModifiedField(f.name))
            continue;
        if (spec.age && Http::EqualsIgnoreCase(f.name, "Age"))
            continue; // replaced by the Age this cache computes
        if (spec.dropContentType && Http::EqualsIgnoreCase(f.name, "Content-Type"))
            continue;
        if (Http::EqualsIgnoreCase(f.name, "Content-Length") && !reply.hasBody) {
            // HEAD and 304: the length of the body that was not sent, kept as is
            if (!reply.contentLength)
                Http::AppendField(out, f.name, f.value);
            continue;
        }
        if (hopByHop.contains(f.name))
            continue;
        if (Http::EqualsIgnoreCase(f.name, "Via")) {
            via += (via.empty() ? "" : ", ") + std::string(f.value);
            continue;
        }
        Http::AppendField(out, f.name, f.value);
    }
    if (!spec.viaName.empty()) {
        via += via.empty() ? "1.1 " : ", 1.1 ";
        via += spec.viaName;
    }
    if (!via.empty())
        Http::AppendField(out, "Via", via);

    if (spec.age)
        Http::AppendField(out, "Age", std::to_string(*spec.age));
    for (const auto& [name, value] : spec.extraFields)
        Http::AppendField(out, name, value);
    if (spec.notModified) {
        result.framing = Store::BodyWriter::Framing::None;
    } else if (!reply.hasBody || spec.requestWasHead) {
        result.framing = Store::BodyWriter::Framing::None;
        // a HEAD answered from a stored GET: the length of the body it would get
        if (reply.hasBody && reply.contentLength)
            Http::AppendField(out, "Content-Length", std::to_string(*reply.contentLength));
    } else if (spec.bodyLength) {
        result.framing = Store::BodyWriter::Framing::Raw;
        Http::AppendField(out, "Content-Length", std::to_string(*spec.bodyLength));
    } else if (reply.contentLength) {
        result.framing = Store::BodyWriter::Framing::Raw;
        Http::AppendField(out, "Content-Length", std::to_string(*reply.contentLength));
    } else if (spec.clientIsHttp11) {
        result.framing = Store::BodyWriter::Framing::Chunked;
        Http::AppendField(out, "Transfer-Encoding", "chunked");
    } else {
        // an HTTP/1.0 client never gets chunked: the end of the body is the close
        result.framing = Store::BodyWriter::Framing::Raw;
        result.closeAfter = true;
    }
    if (!spec.cacheName.empty()) {
        std::string value = spec.isHit ? "HIT from " : "MISS from ";
        value += spec.cacheName;
        Http::AppendField(out, "X-Cache", value);
        value += ':';
        value += std::to_string(spec.cachePort);
        Http::AppendField(out, "X-Cache-Lookup", value);
    }
    Http::AppendField(out, "Connection", result.closeAfter ? "close" : "keep-alive");
    Http::EndHead(out);
    return result;
}
