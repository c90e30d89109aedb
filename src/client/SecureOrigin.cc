/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "client/Connection.h"
#include "client/Bumping.h"
#include "base/TlsErrors.h"
#include "client/Services.h"
#include "config/Settings.h"
#include "log/CacheLog.h"

void Client::Connection::aimOverTls(Server::Request& request, const Http::Url& url,
                                    const Acl::Checklist& facts) const
{
    // an intercepted request goes where the client was going, in the clear
    // unless it came over bumped TLS; the origin's certificate must name
    // the URL's host, wherever its address came from (aimAtOrigin())
    const bool bumped = bump_ && !bump_->authority.empty();
    request.tls = (!intercepted_ || bumped) && url.scheme() == "https";
    if (request.tls)
        request.tlsName = url.host();
    if (!request.tls || services_.settings().sslproxyCertError.size() == 0)
        return;
    // sslproxy_cert_error is asked during the handshake, maybe after this
    // connection is gone: its facts are copied, without the pointers into
    // the request's parse (a header acl does not match there, nor one that
    // needs a lookup), and the rules in force then are read then
    Acl::Checklist copy = facts;
    copy.request = nullptr;
    copy.reply = nullptr;
    copy.answers = nullptr;
    copy.userAddresses = nullptr;
    Services& services = services_;
    request.allowCertError = [&services, copy](int code) mutable {
        copy.tlsErrors = {code};
        const bool allowed = services.settings().sslproxyCertError.check(copy) == Acl::Answer::Allowed;
        debugs(83, 3, "sslproxy_cert_error " << (allowed ? "allows " : "denies ") << TlsErrorName(code));
        return allowed;
    };
}
