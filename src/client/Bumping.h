/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Client::BumpState: what a client connection knows of SSL bump
/// (doc/design.md "SSL bump"). Two kinds of connections carry one:
///
///   - a connection accepted on an `http_port ... ssl-bump`: `ca` is the
///     port's Tls::Minter; while its CONNECT's ssl_bump steps are decided,
///     the CONNECT's facts, URL and route wait here;
///   - a bumped connection (speaking TLS with a minted certificate): `authority` is
///     the CONNECT's host:port, so an origin-form request `GET /path` is
///     `https://authority/path`, and `sni` what the client asked for.
///
/// After peek or stare at step 2 cuttle connects to the origin (directly)
/// and looks at its certificate with a Tls::Probe: step 3's ssl::server_name
/// sees its names, and a bump mimics it (Tls::Minter::contextFor()). So
/// does a bump at step 2 when squid.conf has sslproxy_cert_error,
/// sslproxy_cert_sign or sslproxy_cert_adapt lines (DecideMinting()).
///
/// A connection of a plain http_port has none (Connection holds a null
/// pointer: 8 bytes).
#pragma once

#include "acl/AccessList.h"
#include "config/Settings.h"
#include "http/Url.h"
#include "server/Forwarder.h"
#include "comm/Connector.h"
#include "tls/Minter.h"
#include "tls/Probe.h"

#include <memory>
#include <optional>
#include <string>

namespace Client {

/// see the file comment
struct BumpState {
    Tls::MinterRef ca;     ///< the ssl-bump port's CA (null on a bumped connection)
    std::string authority; ///< a bumped connection's CONNECT host:port; empty: not bumped
    std::string sni;       ///< the client's SNI (or empty)
    /// The error an intercepted client's made-up CONNECT got (its whole
    /// reply, Connection: close): written over the bumped connection to the
    /// first request there, as Squid bumps a client to show it the page
    /// (Connection::deliverAfterBump()); empty: none
    struct Denial {
        std::string reply; ///< the reply's bytes
        int status = 0;    ///< its status
        std::string page;  ///< its error template (ERR_ACCESS_DENIED...)
    } denial;

    // while a CONNECT's steps are decided (Connection::State::Peeking)
    int step = 0;                          ///< the step being decided (1, 2, 3)
    bool waiting = false;                  ///< a lookup for ssl_bump's acls is out (decideBump())
    std::unique_ptr<Acl::Checklist> facts; ///< the CONNECT's facts, for ssl_bump
    Http::Url url;                         ///< the CONNECT's host:port
    Server::Request route;                 ///< where a splice goes
    bool answered = false;                 ///< the client has its 200 already
    // step 3 after peek or stare at step 2: the origin's certificate
    std::unique_ptr<Comm::Connector> dialer; ///< connecting to the origin
    Comm::Address originAddress;             ///< where it connected
    std::unique_ptr<Tls::Probe> probe;       ///< its handshake
    Tls::X509Ptr origin;                     ///< its certificate, to mimic; null: not seen
    /// bumped at step 2, the origin looked at first for sslproxy_cert_*
    /// (step 3 bumps without asking ssl_bump again)
    bool bumpAfterLook = false;
};

/// How the certificate of a bump after a look at the origin is minted, as
/// Squid 5 decides (doc/design.md "SSL bump"), with facts.tlsErrors the
/// origin certificate's errors: nullopt when sslproxy_cert_error refuses
/// one of them (the default certificate then, for the error page that
/// follows: signed by the CA, named for the client's host, not mimicked);
/// else the signer of the first matching sslproxy_cert_sign line (then
/// Squid's defaults: signUntrusted ssl::certUntrusted, signSelf
/// ssl::certSelfSigned, signTrusted all), and the first matching
/// sslproxy_cert_adapt line of each algorithm (setCommonName without a
/// name: connectHost).
std::optional<Tls::MintSpec> DecideMinting(const Config::Settings& settings, Acl::Checklist& facts,
                                           const std::string& connectHost);

/// The first rule of `rules` whose action is possible at `step` and whose
/// acls match `facts` (with facts.sslBumpStep = step); Splice when none
/// does, as Squid 5. Peek and stare are impossible at step 3. Nothing when
/// a rule needs a lookup not made yet (an external acl: facts.lookup names
/// it): the caller asks for it and decides again with the answer.
std::optional<Config::SslBumpRule::Action> DecideBump(const std::vector<Config::SslBumpRule>& rules,
                                                      Acl::Checklist& facts, int step);

} // namespace Client
