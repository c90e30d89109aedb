/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file SSL bump (doc/design.md "SSL bump"): the ssl_bump steps of a
/// CONNECT on an `http_port ... ssl-bump`, the peek at the client's
/// ClientHello (MSG_PEEK: the bytes stay in the socket for the tunnel or
/// the TLS library), and the hand-over of a bumped client to a new
/// connection that speaks TLS with a minted certificate (Client::Side).

#include "cuttle.h"
#include "client/Bumping.h"
#include "base/TextException.h"
#include "client/Connection.h"
#include "client/Services.h"
#include "log/AccessRecord.h"
#include "log/CacheLog.h"
#include "server/Pool.h"
#include "tls/ClientHello.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <sys/socket.h>
#include <sys/time.h>

using Action = Config::SslBumpRule::Action;

namespace {

const char* ActionName(Action action)
{
    switch (action) {
    case Action::Peek:
        return "peek";
    case Action::Stare:
        return "stare";
    case Action::Splice:
        return "splice";
    case Action::Bump:
        return "bump";
    case Action::Terminate:
        return "terminate";
    }
    return "?";
}

} // namespace

std::optional<Action> Client::DecideBump(const std::vector<Config::SslBumpRule>& rules, Acl::Checklist& facts,
                                         int step)
{
    facts.sslBumpStep = step;
    for (const auto& rule : rules) {
        // Squid 5: "Rules with actions that are impossible at the current
        // step are ignored"; peek and stare end at step 3
        if (step == 3 && (rule.action == Action::Peek || rule.action == Action::Stare))
            continue;
        const auto answer = rule.acls.check(facts);
        // credentials were checked (or not asked for) with the CONNECT: a
        // proxy_auth that wants them now does not match
        if (answer == Acl::Answer::Pending && facts.lookup.kind != Acl::Lookup::Kind::Credentials)
            return std::nullopt;
        if (answer == Acl::Answer::Allowed)
            return rule.action;
    }
    return Action::Splice; // Squid 5: "If no rules match, the splice action is used"
}

std::optional<Action> Client::Connection::decideBump(int step, std::function<void()> resume)
{
    // the CONNECT's checks began this request's answers (checkAccess()):
    // they are kept through the steps, the one waited for included
    auto& facts = *bump_->facts;
    facts.answers = &lookups_;
    const auto action = DecideBump(services_.settings().sslBump, facts, step);
    facts.answers = nullptr;
    if (!action) {
        debugs(33, 3, "ssl_bump at step " << step << ": waiting for a lookup");
        lookups_.start(facts.lookup, std::move(resume));
    }
    return action;
}

std::optional<Tls::MintSpec> Client::DecideMinting(const Config::Settings& settings, Acl::Checklist& facts,
                                                   const std::string& connectHost)
{
    const auto errors = facts.tlsErrors;
    for (const int code : errors) {
        facts.tlsErrors = {code};
        if (settings.sslproxyCertError.check(facts) != Acl::Answer::Allowed) {
            facts.tlsErrors = errors;
            return std::nullopt;
        }
    }
    facts.tlsErrors = errors;
    using Signing = Config::CertSignRule::Signing;
    using Signer = Tls::MintSpec::Signer;
    Tls::MintSpec spec;
    const auto rule =
        std::find_if(settings.sslproxyCertSign.begin(), settings.sslproxyCertSign.end(),
                     [&](const auto& r) { return r.acls.check(facts) == Acl::Answer::Allowed; });
    if (rule != settings.sslproxyCertSign.end()) {
        spec.signer = rule->signing == Signing::Untrusted ? Signer::Untrusted
                      : rule->signing == Signing::Self    ? Signer::Self
                                                          : Signer::Trusted;
    } else if (settings.acls.find("ssl::certUntrusted")->match(facts)) {
        spec.signer = Signer::Untrusted; // Squid's defaults, after the configured lines
    } else if (settings.acls.find("ssl::certSelfSigned")->match(facts)) {
        spec.signer = Signer::Self;
    }
    using Adaptation = Config::CertAdaptRule::Adaptation;
    bool named = false;
    for (const auto& adapt : settings.sslproxyCertAdapt) {
        // the first matching line of each algorithm
        bool& done = adapt.adaptation == Adaptation::ValidAfter    ? spec.caNotAfter
                     : adapt.adaptation == Adaptation::ValidBefore ? spec.caNotBefore
                                                                   : named;
        if (done || adapt.acls.check(facts) != Acl::Answer::Allowed)
            continue;
        done = true;
        if (adapt.adaptation == Adaptation::CommonName)
            spec.commonName = adapt.commonName.empty() ? connectHost : adapt.commonName;
    }
    return spec;
}

void Client::Connection::setBump(std::unique_ptr<BumpState>&& bump)
{
    bump_ = std::move(bump);
}

bool Client::Connection::startBumping(const Http::Url& url, Server::Request& request,
                                      const Acl::Checklist& facts)
{
    if (!bump_ || !bump_->ca)
        return false;
    auto& b = *bump_;
    // ssl_bump is asked later, maybe after a reconfigure: the facts are
    // copied without the pointers into this request's parse and lookups
    b.facts = std::make_unique<Acl::Checklist>(facts);
    b.facts->request = nullptr;
    b.facts->reply = nullptr;
    b.facts->answers = nullptr;
    b.facts->userAddresses = nullptr;
    b.facts->tlsSni.clear();
    const auto decided = decideBump(1, [this] { resumeAfterCheck(); });
    if (!decided) {
        // the CONNECT is handled again with the answer, as after a lookup for http_access
        state_ = State::Checking;
        pendingLog_.reset(); // made again when the head is handled again
        return true;
    }
    auto action = *decided;
    debugs(33, 3,
           "ssl_bump at step 1 for CONNECT " << url.authorityHost() << ":" << url.port() << ": "
                                             << ActionName(action));
    const bool viaParent = std::any_of(request.destinations.begin(), request.destinations.end(),
                                       [](const Server::Destination& d) { return d.peer; });
    if ((action == Action::Peek || action == Action::Stare) && viaParent)
        action = Action::Splice; // a splice after a peek would need the CONNECT's head for the parent
    if (action == Action::Splice) {
        b.facts.reset();
        return false;
    }
    if (action == Action::Terminate) {
        endBumping(action);
        return true;
    }
    // bump, peek and stare answer the CONNECT first: the client's TLS
    // follows. An intercepted client's CONNECT was made up (fakeConnect()):
    // its TLS is in the socket already, and nothing answers it.
    static constexpr std::string_view Established = "HTTP/1.1 200 Connection established\r\n\r\n";
    if (!intercepted_) {
        if (::send(fd_.get(), Established.data(), Established.size(), MSG_NOSIGNAL) !=
            ssize_t(Established.size())) {
            close();
            return true;
        }
        if (pendingLog_)
            pendingLog_->bytesSent = Established.size();
    }
    b.answered = true;
    b.url = url;
    b.route = std::move(request);
    if (action == Action::Bump) {
        endBumping(action);
        return true;
    }
    b.step = 2;
    state_ = State::Peeking;
    // the ClientHello within request_timeout, as an https_port's handshake
    armTimer(services_.settings().requestTimeout);
    return true; // drive() peeks next: the hello may be in the socket already
}

void Client::Connection::fakeConnect()
{
    // Squid 5's ConnStateData::fakeAConnectRequest(): the CONNECT names the
    // original destination (localHost_:localPort_ on an intercepted
    // connection); Host verification, http_access and ssl_bump's step 1
    // see it as any other
    const std::string authority = Comm::Address::Parse(localHost_, localPort_)->toString();
    const std::string head = "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n";
    makeReadSpace();
    auto space = buffer_->reserveSpace();
    Must(space.size() >= head.size());
    std::memcpy(space.data(), head.data(), head.size());
    buffer_->commit(head.size());
    requestStarted_ = true;
    ::gettimeofday(&requestStart_, nullptr);
}

void Client::Connection::deliverAfterBump(int status, const std::string& page)
{
    // Squid bumps an intercepted TLS client to show it the error its
    // made-up CONNECT got (client-first: the certificate names the client's
    // SNI, or the original destination; no look at the origin, no ssl_bump
    // rule asked): its ClientHello is peeked at (step 2), the connection
    // handed over bumped, and the page waits for the first request there
    auto& b = *bump_;
    b.denial.reply = std::move(out_);
    b.denial.status = status;
    b.denial.page = page;
    out_.clear();
    outOffset_ = 0;
    (void)b.url.parse("https://" + Comm::Address::Parse(localHost_, localPort_)->toString());
    b.answered = true; // nothing is written before the TLS
    b.step = 2;
    state_ = State::Peeking;
    armTimer(services_.settings().requestTimeout);
}

void Client::Connection::answerWithDenial(Log::AccessRecord& record)
{
    auto& denial = bump_->denial;
    debugs(33, 3, "the bumped client's CONNECT was refused: " << denial.page << " to " << record.url);
    out_ = std::move(denial.reply);
    outOffset_ = 0;
    closeAfterReply_ = true;
    record.resultCode = "TCP_DENIED";
    record.httpStatus = denial.status;
    record.errorCode = denial.page;
    record.mimeType = "text/html";
    record.hierarchy = "HIER_NONE";
    denial = {};
    state_ = State::Writing;
    armTimer(services_.settings().readTimeout);
}

void Client::Connection::peekHello()
{
    auto& b = *bump_;
    if (b.step == 3 || b.waiting)
        return; // the origin is being looked at (probeOrigin()), or a lookup for ssl_bump
    if (buffer_ && parsedOffset_ < buffer_->size()) {
        // the client sent its hello before our 200, and our read took it
        // from the socket: TLS could not start from the socket, a tunnel can
        debugs(33, 3, "ssl_bump: bytes came before the 200: splicing");
        endBumping(Action::Splice);
        return;
    }
    std::string bytes(Tls::MaxHelloBytes, '\0');
    const ssize_t n = ::recv(fd_.get(), bytes.data(), bytes.size(), MSG_PEEK);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        close();
        return;
    }
    if (n < 0)
        return; // the next edge brings the bytes
    const auto hello = Tls::ParseClientHello(std::string_view(bytes.data(), size_t(n)));
    switch (hello.status) {
    case Tls::ClientHello::Status::NeedMore:
        if (peerClosed_)
            close(); // the rest will never come
        return;
    case Tls::ClientHello::Status::NotTls:
    case Tls::ClientHello::Status::Malformed:
        // Squid 5's on_unsupported_protocol default (respond): no tunnel
        debugs(33, 2,
               "ssl_bump: CONNECT " << b.url.authorityHost() << " from " << peerHost_
                                    << " carries no TLS ClientHello: closing");
        endBumping(Action::Terminate);
        return;
    case Tls::ClientHello::Status::Done:
        break;
    }
    b.sni = hello.serverName;
    if (!b.denial.reply.empty()) {
        handOverBumped(); // deliverAfterBump(): client-first, no rule asked
        return;
    }
    b.facts->tlsSni = b.sni;
    const auto& settings = services_.settings();
    const auto decided = decideBump(2, [this] {
        if (state_ != State::Peeking || !bump_ || bump_->step != 2)
            return;
        bump_->waiting = false;
        peekHello(); // the hello is still in the socket (it was only peeked at)
    });
    if (!decided) {
        b.waiting = true;
        return;
    }
    const auto action = *decided;
    debugs(33, 3,
           "ssl_bump at step 2 for " << (b.sni.empty() ? "(no SNI)" : b.sni) << ": " << ActionName(action));
    // a bump at step 2 looks at the origin first, as Squid's does, when
    // the certificate could depend on it (DecideMinting())
    b.bumpAfterLook =
        action == Action::Bump && (settings.sslproxyCertError.size() > 0 ||
                                   !settings.sslproxyCertSign.empty() || !settings.sslproxyCertAdapt.empty());
    if (action == Action::Peek || action == Action::Stare || b.bumpAfterLook) {
        b.step = 3;
        probeOrigin();
        return;
    }
    endBumping(action);
}

void Client::Connection::probeOrigin()
{
    auto& b = *bump_;
    auto& forwarding = services_.forwarding();
    const auto& limits = services_.forwardLimits();
    // the origin's address as the splice would dial it (a parent's CONNECT
    // was spliced at step 1); the probe is bounded by connect_timeout, the
    // whole step by the request_timeout still armed
    Comm::Connector::Target target{b.route.host, b.route.port, limits.connectTimeout,
                                   &forwarding.connectionsOpened, b.route.outgoing};
    b.dialer = std::make_unique<Comm::Connector>(
        services_.loop(), forwarding.resolver, std::move(target), [this](Comm::Connector::Result&& result) {
            if (state_ != State::Peeking)
                return;
            if (result.error != Comm::Connector::Error::None || !services_.forwarding().tls) {
                decideStepThree(nullptr, {});
                return;
            }
            bump_->originAddress = result.peer;
            auto& probe = bump_->probe;
            probe = std::make_unique<Tls::Probe>(
                services_.loop(), services_.forwarding().tls, std::move(result.fd), bump_->url.host(),
                Server::OriginSessionKey(lookedAtOrigin()), services_.forwardLimits().connectTimeout,
                [this](Tls::X509Ptr&& certificate, std::vector<int>&& errors) {
                    decideStepThree(std::move(certificate), std::move(errors));
                });
            probe->start();
        });
    b.dialer->start();
}

Server::Request Client::Connection::lookedAtOrigin() const
{
    // as the bumped requests' fetches go (aimOverTls()): the CONNECT's
    // host and port, verified for that host
    const auto& b = *bump_;
    Server::Request request;
    request.host = b.url.host();
    request.port = b.url.port();
    request.outgoing = b.route.outgoing;
    request.tls = true;
    request.tlsName = b.url.host();
    return request;
}

void Client::Connection::poolLookedAtOrigin()
{
    // the look at the origin was a TLS connection verified as a fetch's
    // is: the first bumped request takes it from the pool instead of
    // handshaking again, and the origin sees one connection, as after
    // Squid's peek (any certificate error: it closes with the probe)
    auto& b = *bump_;
    if (!b.probe || !b.probe->isVerified())
        return;
    auto [fd, tls] = b.probe->release();
    auto connection =
        std::make_unique<Server::OriginConnection>(services_.loop(), std::move(fd), b.originAddress);
    connection->startTls(std::move(tls));
    services_.forwarding().pool.put(Server::OriginPoolKey(lookedAtOrigin()), std::move(connection));
}

void Client::Connection::decideStepThree(Tls::X509Ptr&& certificate, std::vector<int>&& errors)
{
    if (state_ != State::Peeking)
        return;
    auto& b = *bump_;
    b.origin = std::move(certificate);
    if (b.origin) {
        b.facts->tlsCertNames = Tls::CertificateNames(b.origin.get());
        b.facts->tlsErrors = std::move(errors);
    }
    finishStepThree();
}

void Client::Connection::finishStepThree()
{
    if (state_ != State::Peeking)
        return;
    auto& b = *bump_;
    auto action = std::optional<Action>(Action::Bump);
    if (!b.bumpAfterLook && !(action = decideBump(3, [this] { finishStepThree(); })))
        return; // a lookup for ssl_bump's acls is out
    debugs(33, 3,
           "ssl_bump at step 3 for " << (b.sni.empty() ? b.url.host() : b.sni)
                                     << (b.origin ? "" : " (no origin certificate)") << ": "
                                     << ActionName(*action));
    endBumping(*action);
}

void Client::Connection::endBumping(Action action)
{
    auto& b = *bump_;
    if (action == Action::Bump) {
        poolLookedAtOrigin();
        handOverBumped(); // reads the facts
        return;
    }
    b.facts.reset();
    switch (action) {
    case Action::Splice:
        state_ = State::Forwarding;
        timer_.cancel(); // the dialer has its own timeouts
        dialTunnel(b.url, std::move(b.route));
        return;
    case Action::Bump:
    case Action::Peek:
    case Action::Stare:
    case Action::Terminate:
        break;
    }
    if (pendingLog_ && b.denial.reply.empty()) { // a refused one keeps its error (deliverAfterBump())
        pendingLog_->resultCode = "NONE_NONE";
        pendingLog_->httpStatus = b.answered ? 200 : 0;
        pendingLog_->hierarchy = "HIER_NONE";
    }
    close();
}

void Client::Connection::handOverBumped()
{
    auto& b = *bump_;
    // the minted certificate names what the client asked for, else the CONNECT's host
    const std::string host = b.sni.empty() ? b.url.host() : b.sni;
    // after a look at the origin: sslproxy_cert_sign and _adapt (Squid
    // signs with the CA and adapts nothing when it did not look)
    const auto spec = b.origin ? DecideMinting(services_.settings(), *b.facts, b.url.host()) : std::nullopt;
    b.facts.reset();
    SSL_CTX* context = spec ? b.ca->contextFor(host, b.origin.get(), *spec) : b.ca->contextFor(host);
    if (!context) {
        debugs(33, 1, "ERROR: ssl_bump: no certificate could be made for " << host);
        endBumping(Action::Terminate);
        return;
    }
    auto bumped = std::make_unique<BumpState>();
    bumped->authority = b.url.authorityHost() + ":" + std::to_string(b.url.port());
    bumped->sni = b.sni;
    bumped->denial = std::move(b.denial);
    // Squid 5 logs a bumped CONNECT as NONE_NONE/200 with no hierarchy (a
    // refused one keeps its error: deliverAfterBump())
    if (pendingLog_ && bumped->denial.reply.empty()) {
        pendingLog_->resultCode = "NONE_NONE";
        pendingLog_->httpStatus = 200;
        pendingLog_->hierarchy = "HIER_NONE";
    }
    registration_.cancel(); // the bumped connection watches the socket now
    timer_.cancel();
    services_.adoptBumped(std::move(fd_), *Comm::Address::Parse(peerHost_, peerPort_),
                          *Comm::Address::Parse(localHost_, localPort_), portName_, context,
                          std::move(bumped), intercepted_ ? &interceptPort_ : nullptr);
    close(); // logs the CONNECT; the decrypted requests are the new connection's
}
