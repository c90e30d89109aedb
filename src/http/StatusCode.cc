/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/StatusCode.h"

const char* Http::ReasonPhrase(StatusCode code)
{
    // Squid 5's phrases (src/http/StatusCode.cc), which follow RFC 9110
    // except where Squid kept older wording, e.g. "HTTP Version not supported"
    switch (code) {
    case StatusCode::None:
        return "Init";
    case StatusCode::Continue:
        return "Continue";
    case StatusCode::SwitchingProtocols:
        return "Switching Protocols";
    case StatusCode::Ok:
        return "OK";
    case StatusCode::Created:
        return "Created";
    case StatusCode::Accepted:
        return "Accepted";
    case StatusCode::NonAuthoritativeInformation:
        return "Non-Authoritative Information";
    case StatusCode::NoContent:
        return "No Content";
    case StatusCode::ResetContent:
        return "Reset Content";
    case StatusCode::PartialContent:
        return "Partial Content";
    case StatusCode::MultipleChoices:
        return "Multiple Choices";
    case StatusCode::MovedPermanently:
        return "Moved Permanently";
    case StatusCode::Found:
        return "Found";
    case StatusCode::SeeOther:
        return "See Other";
    case StatusCode::NotModified:
        return "Not Modified";
    case StatusCode::TemporaryRedirect:
        return "Temporary Redirect";
    case StatusCode::PermanentRedirect:
        return "Permanent Redirect";
    case StatusCode::BadRequest:
        return "Bad Request";
    case StatusCode::Unauthorized:
        return "Unauthorized";
    case StatusCode::Forbidden:
        return "Forbidden";
    case StatusCode::NotFound:
        return "Not Found";
    case StatusCode::MethodNotAllowed:
        return "Method Not Allowed";
    case StatusCode::NotAcceptable:
        return "Not Acceptable";
    case StatusCode::ProxyAuthenticationRequired:
        return "Proxy Authentication Required";
    case StatusCode::RequestTimeout:
        return "Request Timeout";
    case StatusCode::Conflict:
        return "Conflict";
    case StatusCode::Gone:
        return "Gone";
    case StatusCode::LengthRequired:
        return "Length Required";
    case StatusCode::PreconditionFailed:
        return "Precondition Failed";
    case StatusCode::ContentTooLarge:
        return "Payload Too Large";
    case StatusCode::UriTooLong:
        return "URI Too Long";
    case StatusCode::UnsupportedMediaType:
        return "Unsupported Media Type";
    case StatusCode::RangeNotSatisfiable:
        return "Requested Range Not Satisfiable";
    case StatusCode::ExpectationFailed:
        return "Expectation Failed";
    case StatusCode::MisdirectedRequest:
        return "Misdirected Request";
    case StatusCode::UnprocessableContent:
        return "Unprocessable Entity";
    case StatusCode::UpgradeRequired:
        return "Upgrade Required";
    case StatusCode::PreconditionRequired:
        return "Precondition Required";
    case StatusCode::TooManyRequests:
        return "Too Many Requests";
    case StatusCode::RequestHeaderFieldsTooLarge:
        return "Request Header Fields Too Large";
    case StatusCode::InternalServerError:
        return "Internal Server Error";
    case StatusCode::NotImplemented:
        return "Not Implemented";
    case StatusCode::BadGateway:
        return "Bad Gateway";
    case StatusCode::ServiceUnavailable:
        return "Service Unavailable";
    case StatusCode::GatewayTimeout:
        return "Gateway Timeout";
    case StatusCode::HttpVersionNotSupported:
        return "HTTP Version not supported";
    }
    const int n = ToInt(code);
    if (n >= 100 && n < 200)
        return "Informational";
    if (n >= 200 && n < 300)
        return "Success";
    if (n >= 300 && n < 400)
        return "Redirection";
    if (n >= 400 && n < 500)
        return "Client Error";
    if (n >= 500 && n < 600)
        return "Server Error";
    return "Unknown";
}
