/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The URL of an intercepted request and the Host checks, as Squid 5.7
/// makes them (client_side.cc prepareTransparentURL(), client_side_request.cc
/// ClientRequestContext::hostHeaderVerify()). Plain functions of plain facts:
/// the connection does the DNS lookup and acts on the outcome
/// (doc/design.md "Interception").
///
/// An intercepted request is verified when its Host names the port the
/// client connected to (if it names one) and resolves to the address the
/// client connected to. Whatever the outcome, it is forwarded to that
/// original destination; one not verified (no Host, or a Host that failed)
/// is neither served from nor stored in the cache, and one that failed gets
/// 409 with host_verify_strict (a CONNECT always).
/// Forward ports check nothing: Squid 5.7 replaces the Host of an
/// absolute-form request with the URL's authority before its check, so
/// host_verify_strict never refuses one there.

#pragma once

#include "comm/Address.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Http {
class Url;
}

namespace Client {

/// A Host field value split as Squid splits it for verification.
struct HostField {
    std::string host;     ///< the host, brackets kept for IPv6 ("[::1]")
    bool hasPort = false; ///< a port part was given (an empty one too: "a.test:")
    uint16_t port = 0;    ///< the port; 0 when empty
    std::string portText; ///< the port part as written, for messages
};

/// Splits a Host value into host and port. A port part that is not 1 to
/// 65535 stays part of the host (which then fails to resolve), as in Squid.
HostField SplitHostField(std::string_view value);

/// The URL of a request received on an intercept port: an origin-form
/// target gets `SCHEME://` + Host + target, or, without a Host field,
/// `SCHEME://` + the original destination (address and port) + target; any
/// other target (absolute-form, authority-form) is returned unchanged.
/// The scheme is https for the requests of a bumped intercepted connection.
std::string InterceptedUrl(std::string_view target, const std::optional<std::string_view>& host,
                           const Comm::Address& originalDestination, std::string_view scheme = "http");

/// What a Host check concluded.
struct HostCheck {
    enum class Outcome {
        Skipped,     ///< nothing to check (no Host field)
        Passed,      ///< Host agrees
        Failed,      ///< Host disagrees: see mismatch and against
        NeedsLookup, ///< resolve lookupHost, then CheckResolvedHost()
    };
    Outcome outcome = Outcome::Skipped; ///< the verdict
    std::string lookupHost;             ///< for NeedsLookup: the name to resolve
    std::string mismatch;               ///< for Failed: what disagrees (Squid's alert wording)
    std::string against;                ///< for Failed: what it disagrees with

    /// whether verification failed
    bool failed() const { return outcome == Outcome::Failed; }
};

/// Checks the Host field of a request on an intercept port against the
/// original destination: a port in Host must be the original port;
/// a literal host is compared at once, a name needs a lookup.
HostCheck CheckInterceptedHost(const std::optional<std::string_view>& host,
                               const Comm::Address& originalDestination);

/// Concludes a NeedsLookup check from the addresses Host resolved to (none
/// when the lookup failed): Passed when one of them is the original
/// destination's address.
HostCheck CheckResolvedHost(const std::vector<Comm::Address>& resolved,
                            const Comm::Address& originalDestination);

/// The Host value an intercepted request is verified by: nothing without a
/// Host field (Skipped: not verified, so not cached either); its Host field
/// for an origin-form target; for absolute-form (and CONNECT's
/// authority-form) the target's own authority, port included when it is not
/// the scheme's default (always for CONNECT), as Squid 5.7 replaces Host
/// with it before verifying. A target that does not parse leaves the Host
/// field (the request is refused as a bad URL anyway).
std::optional<std::string> HostToVerify(std::string_view target, bool isConnect,
                                        const std::optional<std::string_view>& hostField);

} // namespace Client
