/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "client/Headers.h"
#include "http/FieldSyntax.h"
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

void AppendField(std::string& out, std::string_view name, std::string_view value)
{
    out.append(name);
    out.append(": ");
    out.append(value);
    out.append("\r\n");
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
    AppendField(out, "Host", spec.hostField);

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
        AppendField(out, f.name, f.value);
    }
    if (!spec.viaName.empty())
        via += (via.empty() ? "1.1 " : ", 1.1 ") + spec.viaName;
    if (!via.empty())
        AppendField(out, "Via", via);

    // squid.conf forwarded_for, as Squid 5.7 applies it
    switch (spec.forwardedFor) {
    case Config::ForwardedFor::On:
        AppendField(out, "X-Forwarded-For", sawXff ? xff + ", " + spec.clientAddress : spec.clientAddress);
        break;
    case Config::ForwardedFor::Off:
        AppendField(out, "X-Forwarded-For", sawXff ? xff + ", unknown" : std::string("unknown"));
        break;
    case Config::ForwardedFor::Transparent:
        if (sawXff)
            AppendField(out, "X-Forwarded-For", xff);
        break;
    case Config::ForwardedFor::Truncate:
        AppendField(out, "X-Forwarded-For", spec.clientAddress);
        break;
    case Config::ForwardedFor::Delete:
        break;
    }

    switch (spec.bodyFraming) {
    case Store::BodyWriter::Framing::None:
        if (spec.hasZeroLength)
            AppendField(out, "Content-Length", "0");
        break;
    case Store::BodyWriter::Framing::Raw:
        AppendField(out, "Content-Length", std::to_string(spec.contentLength));
        break;
    case Store::BodyWriter::Framing::Chunked:
        AppendField(out, "Transfer-Encoding", "chunked");
        break;
    }
    for (const auto& [name, value] : spec.extraFields)
        AppendField(out, name, value);
    AppendField(out, "Connection", "keep-alive");
    out.append("\r\n");
    return out;
}

std::string Client::BuildInterimReply(int status, std::string_view reason, Http::FieldsView fields)
{
    std::string out = "HTTP/1.1 " + std::to_string(status) + " ";
    out.append(reason.empty() ? Http::ReasonPhrase(Http::StatusCode(status)) : reason);
    out.append("\r\n");
    const HopByHop hopByHop(fields);
    for (const auto f : fields) {
        if (!hopByHop.contains(f.name))
            AppendField(out, f.name, f.value);
    }
    out.append("\r\n");
    return out;
}

Client::ClientReply Client::BuildClientReply(const ClientReplySpec& spec)
{
    const auto& reply = *spec.reply;
    ClientReply result;
    result.closeAfter = !spec.keepAlive;

    std::string& out = result.head;
    out.reserve(reply.head.size() + 256);
    out.append("HTTP/1.1 ");
    if (spec.notModified) {
        out.append("304 Not Modified");
    } else if (spec.status) {
        out.append(std::to_string(spec.status));
        out.push_back(' ');
        out.append(Http::ReasonPhrase(Http::StatusCode(spec.status)));
    } else {
        out.append(std::to_string(reply.status));
        out.push_back(' ');
        if (!reply.reason().empty())
            out.append(reply.reason());
        else
            out.append(Http::ReasonPhrase(Http::StatusCode(reply.status)));
    }
    out.append("\r\n");

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
                AppendField(out, f.name, f.value);
            continue;
        }
        if (hopByHop.contains(f.name))
            continue;
        if (Http::EqualsIgnoreCase(f.name, "Via")) {
            via += (via.empty() ? "" : ", ") + std::string(f.value);
            continue;
        }
        AppendField(out, f.name, f.value);
    }
    if (!spec.viaName.empty())
        via += (via.empty() ? "1.1 " : ", 1.1 ") + spec.viaName;
    if (!via.empty())
        AppendField(out, "Via", via);

    if (spec.age)
        AppendField(out, "Age", std::to_string(*spec.age));
    for (const auto& [name, value] : spec.extraFields)
        AppendField(out, name, value);
    if (spec.notModified) {
        result.framing = Store::BodyWriter::Framing::None;
    } else if (!reply.hasBody || spec.requestWasHead) {
        result.framing = Store::BodyWriter::Framing::None;
        // a HEAD answered from a stored GET: the length of the body it would get
        if (reply.hasBody && reply.contentLength)
            AppendField(out, "Content-Length", std::to_string(*reply.contentLength));
    } else if (spec.bodyLength) {
        result.framing = Store::BodyWriter::Framing::Raw;
        AppendField(out, "Content-Length", std::to_string(*spec.bodyLength));
    } else if (reply.contentLength) {
        result.framing = Store::BodyWriter::Framing::Raw;
        AppendField(out, "Content-Length", std::to_string(*reply.contentLength));
    } else if (spec.clientIsHttp11) {
        result.framing = Store::BodyWriter::Framing::Chunked;
        AppendField(out, "Transfer-Encoding", "chunked");
    } else {
        // an HTTP/1.0 client never gets chunked: the end of the body is the close
        result.framing = Store::BodyWriter::Framing::Raw;
        result.closeAfter = true;
    }
    if (!spec.cacheName.empty()) {
        const char* verdict = spec.isHit ? "HIT from " : "MISS from ";
        AppendField(out, "X-Cache", verdict + spec.cacheName);
        AppendField(out, "X-Cache-Lookup", verdict + spec.cacheLookupName);
    }
    AppendField(out, "Connection", result.closeAfter ? "close" : "keep-alive");
    out.append("\r\n");
    return result;
}
