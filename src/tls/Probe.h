/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Tls::Probe: a TLS handshake with an origin only to see its
/// certificate, for SSL bump's step 3 (doc/design.md "SSL bump"): the
/// names ssl::server_name matches there, what a bumped certificate
/// mimics, and the certificate's errors sslproxy_cert_sign and _adapt
/// see. Every certificate error is let through and noted (the probe judges
/// nothing: the fetches of the bumped requests verify the origin). A
/// connection whose certificate had no error was verified as a fetch's
/// would be: its owner may take it (release()) for the bumped requests,
/// else it closes with the probe.
///
/// Ownership: owns the socket; the owner is told once, from a deferred
/// call (never from inside the probe's own callbacks), and may destroy the
/// probe then.
#pragma once

#include "comm/Descriptor.h"
#include "comm/Loop.h"
#include "tls/Connection.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace Tls {

/// see the file comment
class Probe : public Comm::IoHandler {
public:
    /// the origin's certificate, or null when the handshake failed or timed
    /// out, and its verification errors (base/TlsErrors.h codes, each once)
    using Done = std::function<void(X509Ptr&& certificate, std::vector<int>&& errors)>;

    /// a handshake over the connected fd with host (SNI), within timeout;
    /// sessionKey names the origin in the context's session cache
    Probe(Comm::Loop& loop, const ClientContextRef& context, Comm::Descriptor&& fd, const std::string& host,
          std::string sessionKey, Comm::Milliseconds timeout, Done done);
    ~Probe() override;
    Probe(const Probe&) = delete;
    Probe& operator=(const Probe&) = delete;

    /// starts the handshake
    void start();
    /// whether the handshake ended with no certificate error (after Done)
    bool isVerified() const { return verified_; }
    /// the verified connection and its socket, for the owner to keep (once,
    /// when isVerified()); the probe is left with neither
    std::pair<Comm::Descriptor, ConnectionPtr> release();

    /* Comm::IoHandler API */
    void handleIo(const Comm::IoEvents&) override { step(); }
    void handleBug(const std::exception&) noexcept override { finish(false); }

private:
    void step();
    void finish(bool established);

    Comm::Loop& loop_;
    Comm::Descriptor fd_;
    ConnectionPtr tls_;
    Comm::Registration watch_; ///< after fd_: cancelled before it closes
    Comm::Timer timer_;        ///< the handshake's bound
    Comm::Timer report_;       ///< the deferred call that tells the owner
    Done done_;
    X509Ptr certificate_;     ///< what the owner is told
    std::vector<int> errors_; ///< and the certificate's errors
    bool finished_ = false;
    bool verified_ = false; ///< see isVerified()
};

} // namespace Tls
