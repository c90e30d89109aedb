/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "server/Forwarder.h"
#include "base/TextException.h"
#include "http/Fields.h"
#include "http/Head.h"
#include "log/CacheLog.h"
#include "sbuf/BlockPool.h"
#include "sbuf/Pipe.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

namespace {

/// base64 (RFC 4648 section 4) of text, for a Basic login
std::string Base64(std::string_view text)
{
    static constexpr char Alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    size_t i = 0;
    for (; i + 2 < text.size(); i += 3) {
        const uint32_t n = (uint8_t(text[i]) << 16) | (uint8_t(text[i + 1]) << 8) | uint8_t(text[i + 2]);
        out += {Alphabet[n >> 18], Alphabet[(n >> 12) & 63], Alphabet[(n >> 6) & 63], Alphabet[n & 63]};
    }
    if (i + 1 == text.size()) {
        const uint32_t n = uint8_t(text[i]) << 16;
        out += {Alphabet[n >> 18], Alphabet[(n >> 12) & 63], '=', '='};
    } else if (i + 2 == text.size()) {
        const uint32_t n = (uint8_t(text[i]) << 16) | (uint8_t(text[i + 1]) << 8);
        out += {Alphabet[n >> 18], Alphabet[(n >> 12) & 63], Alphabet[(n >> 6) & 63], '='};
    }
    return out;
}

/// whether head has a field called name (a "\r\nName:" line, ASCII case ignored)
bool HasField(std::string_view head, std::string_view name)
{
    for (size_t at = head.find("\r\n"); at != std::string_view::npos; at = head.find("\r\n", at + 2)) {
        const auto line = head.substr(at + 2);
        if (line.size() > name.size() && line[name.size()] == ':' &&
            Http::EqualsIgnoreCase(line.substr(0, name.size()), name))
            return true;
    }
    return false;
}

} // namespace

std::string Server::HeadForPeer(const Request& request, const Config::CachePeer& peer)
{
    using Login = Config::CachePeer::Login;
    const auto& head = request.head;
    const size_t lineEnd = head.find("\r\n");
    std::string out;
    out.reserve(head.size() + request.url.size() + 64);
    if (peer.originServer) {
        out.append(head, 0, lineEnd + 2);
    } else {
        // absolute-form (RFC 9112 section 3.2.2): the method, the URL, the version
        const size_t methodEnd = head.find(' ');
        const size_t versionStart = head.rfind(' ', lineEnd);
        out.append(head, 0, methodEnd + 1);
        out += request.url;
        out.append(head, versionStart, lineEnd + 2 - versionStart);
    }
    // Squid's httpFixupAuthentication(): Proxy-Authorization to a proxy,
    // Authorization to an originserver, never over one the request has
    const char* field = peer.originServer ? "Authorization" : "Proxy-Authorization";
    std::string credentials;
    switch (peer.login) {
    case Login::None:
        break;
    case Login::Pass:
    case Login::PassThru:
        if (!peer.originServer)
            credentials = request.proxyAuthorization;
        break;
    case Login::ProxyPass:
        if (!peer.originServer)
            credentials = request.proxyAuthorization;
        else if (Http::EqualsIgnoreCase(std::string_view(request.proxyAuthorization).substr(0, 6), "basic "))
            credentials = request.proxyAuthorization;
        break;
    case Login::Fixed:
        credentials = "Basic " + Base64(peer.loginText);
        break;
    case Login::UserSuffix:
        credentials =
            "Basic " + Base64((request.user.empty() ? std::string("-") : request.user) + peer.loginText);
        break;
    }
    if (!credentials.empty() && !HasField(head, field))
        Http::AppendField(out, field, credentials);
    // Squid's http.cc: a sibling is asked for what it holds only, unless allow-miss
    if (peer.type == Config::CachePeer::Type::Sibling && !peer.allowMiss)
        Http::AppendField(out, "Cache-Control", "only-if-cached");
    out.append(head, lineEnd + 2, std::string::npos);
    return out;
}

Server::Forwarder::Forwarder(Context& context, const Limits& limits, Request&& request, Store::EntryRef reply)
    : context_(context), limits_(limits), request_(std::move(request)), reply_(std::move(reply)),
      parser_(limits.replyHeaderMaxSize)
{
    body_ = request_.body;
    if (!body_) {
        body_ = MakeRef<Store::Entry>(1);
        body_->complete();
        request_.bodyFraming = Store::BodyWriter::Framing::None;
    }
}

Server::Forwarder::~Forwarder()
{
    timer_.cancel();
    reply_->setProducer(nullptr);
    body_->removeReader(*this);
    body_->setProducer(nullptr);
    if (connection_)
        connection_->setUser(nullptr);
}

std::string Server::Forwarder::peerHost() const
{
    return peerHost_;
}

void Server::Forwarder::start()
{
    reply_->setProducer(this);
    body_->addReader(*this);
    reply_->setReadAheadGap(limits_.readAheadGap);
    if (request_.destinations.empty())
        request_.destinations.push_back(Destination{});
    nextDestination();
}

void Server::Forwarder::nextDestination()
{
    current_ = request_.destinations[nextDestination_++];
    ++tries_;
    peerHead_ = current_.peer ? HeadForPeer(request_, current_.peer->config()) : std::string();
    // a persistent connection needs no DNS lookup
    if (auto pooled = context_.pool.take(poolKey())) {
        connection_ = std::move(pooled);
        reused_ = true;
        peerHost_ = connection_->peer().host();
        connection_->setUser(this);
        stage_ = Stage::Connecting;
        // act from the loop, never from inside start()
        // (the pool read it until EAGAIN: nothing waits unread on it)
        timer_ = context_.loop.defer([this] { onConnected(false); }, this);
        return;
    }
    dial();
}

bool Server::Forwarder::mayTryNext() const
{
    // Squid's FwdState: another destination while forward_max_tries allows
    return nextDestination_ < request_.destinations.size() && tries_ < limits_.forwardMaxTries;
}

const std::string& Server::OriginTlsName(const Request& request)
{
    return request.tlsName.empty() ? request.host : request.tlsName;
}

std::string Server::OriginSessionKey(const Request& request)
{
    return OriginTlsName(request) + "@" + request.host + ":" + std::to_string(request.port);
}

std::string Server::OriginPoolKey(const Request& request)
{
    return (request.tls ? "https://" + OriginTlsName(request) + "@" : "") + request.host + ":" +
           std::to_string(request.port) + request.outgoing.key();
}

std::string Server::Forwarder::poolKey() const
{
    // a parent's connections are its own: a request in absolute-form never
    // goes to an origin, nor origin-form to a parent that shares its address
    if (current_.peer)
        return "peer " + current_.peer->name() + request_.outgoing.key();
    return OriginPoolKey(request_);
}

void Server::Forwarder::dial()
{
    stage_ = Stage::Connecting;
    releaseConnection(false);
    const Peer* peer = current_.peer.getRaw();
    Comm::Connector::Target target{peer ? peer->config().host : request_.host,
                                   peer ? peer->config().httpPort : request_.port,
                                   peer ? peer->connectTimeout() : limits_.connectTimeout,
                                   &context_.connectionsOpened, request_.outgoing};
    target.spareDelay = limits_.spareDelay;
    target.retries = limits_.connectRetries;
    dialer_ =
        std::make_unique<Comm::Connector>(context_.loop, context_.resolver, std::move(target),
                                          [this](Comm::Connector::Result&& r) { onDialed(std::move(r)); });
    dialer_->start();
}

void Server::Forwarder::onDialed(Comm::Connector::Result&& result)
{
    if (result.error != Comm::Connector::Error::Dns)
        peerHost_ = result.peer.host(); // the address connected to, or the last one tried
    if (auto* peer = current_.peer.getRaw())
        peer->noteDialed(result.error == Comm::Connector::Error::None);
    if (result.error != Comm::Connector::Error::None && mayTryNext()) {
        debugs(17, 2,
               "forwarding to " << request_.host << ":" << request_.port << ": " << result.text
                                << "; trying the next destination");
        dialer_.reset();
        nextDestination();
        return;
    }
    if (result.error != Comm::Connector::Error::None && current_.peer) {
        // Squid 5.7 answers a request whose last destination, a parent, could
        // not be reached with 502 ERR_READ_ERROR, logged HIER_NONE/- (as
        // test-suite/hierarchy/failover.sh checks)
        peerHost_.clear();
        fail(Failure::ReadError, result.text, result.xerrno);
        return;
    }
    switch (result.error) {
    case Comm::Connector::Error::Dns:
        fail(Failure::DnsFail, result.text);
        return;
    case Comm::Connector::Error::Connect:
        fail(Failure::ConnectFail, result.text, result.xerrno);
        return;
    case Comm::Connector::Error::None:
        break;
    }
    connection_ = std::make_unique<OriginConnection>(context_.loop, std::move(result.fd), result.peer);
    if (current_.peer)
        connection_->setPeer(current_.peer);
    connection_->setUser(this);
    reused_ = false;
    if (current_.peer ? current_.peer->tls() != nullptr : request_.tls) {
        startHandshake();
        return;
    }
    onConnected(true); // the connector may have taken a readable event with its own
}

void Server::Forwarder::startHandshake()
{
    // to an https:// origin, or to a `cache_peer ... tls` (whose own
    // options, name and sessions apply)
    const Peer* peer = current_.peer.getRaw();
    const auto& context = peer ? peer->tls() : context_.tls;
    if (!context) {
        tlsFailure_ = Tls::HandshakeFailure("no TLS context");
        fail(Failure::SecureConnectFail, tlsFailure_.detail);
        return;
    }
    stage_ = Stage::Handshaking;
    // the session cache's key: the origin or peer, whatever address it resolved to
    const std::string& name = peer ? peer->tlsName() : OriginTlsName(request_);
    auto key = peer ? "peer " + peer->name() : OriginSessionKey(request_);
    connection_->startTls(std::make_unique<Tls::Connection>(context, connection_->fd(), name, std::move(key),
                                                            request_.allowCertError));
    // connect_timeout bounds the handshake as it bounds the connect (Squid's
    // TLS negotiation timeout is what is left of it)
    timer_ = context_.loop.schedule(
        peer ? peer->connectTimeout() : limits_.connectTimeout,
        [this] {
            tlsFailure_ = Tls::HandshakeFailure(std::strerror(ETIMEDOUT));
            fail(Failure::SecureConnectFail, "TLS handshake timed out", ETIMEDOUT);
        },
        this);
    continueHandshake();
}

void Server::Forwarder::continueHandshake()
{
    auto& tls = *connection_->tls();
    switch (tls.handshake()) {
    case Tls::Connection::Step::Blocked:
        return; // the socket's next event goes on
    case Tls::Connection::Step::Failed:
        tlsFailure_ = tls.failure();
        fail(Failure::SecureConnectFail, tlsFailure_.name + ": " + tlsFailure_.detail);
        return;
    case Tls::Connection::Step::Done:
        break;
    }
    timer_.cancel();
    debugs(83, 3,
           "TLS with " << (current_.peer ? "cache_peer " + current_.peer->name() : request_.host) << ":"
                       << (current_.peer ? current_.peer->config().httpPort : request_.port) << ": "
                       << tls.version() << (tls.isResumed() ? ", session resumed" : "") << ", "
                       << tls.cipheredBy());
    // bytes that came with the handshake's end (the reply, even) announce
    // themselves no more: onConnected() reads at once
    onConnected(true);
}

void Server::Forwarder::chargeTo(Store::Charge&& stored)
{
    charge_ = std::move(stored);
    charge();
}

void Server::Forwarder::onConnected(bool mayHaveReply)
{
    dialer_.reset(); // from the loop: not inside its own callback any more
    stage_ = Stage::Exchanging;
    connection_->noteUse();
    ++context_.requests;
    activity_ = context_.loop.now();
    armTimeout();
    requestTime_ = ::time(nullptr);
    sender_.start(peerHead_.empty() ? request_.head : peerHead_, request_.bodyFraming, *body_);
    sendMore();
    if (mayHaveReply && stage_ == Stage::Exchanging)
        readMore(); // a reply (or an EOF) may be waiting, its event gone
}

void Server::Forwarder::handleIo(const Comm::IoEvents& events)
{
    if (stage_ == Stage::Handshaking) {
        continueHandshake();
        return;
    }
    if (stage_ == Stage::Connecting && connection_) {
        // a pooled connection's first event: go on now rather than at the
        // deferred call that start() set (this is not inside start())
        timer_.cancel();
        onConnected(events.readable || events.hangup || events.error);
        return;
    }
    if (stage_ != Stage::Exchanging)
        return;
    if (events.hangup)
        peerClosed_ = true;
    // over TLS a write may wait for a read and a read for a write (Tls::Connection)
    const auto* tls = connection_->tls();
    if (sendBlocked_ && (events.writable || (events.readable && tls && tls->writeWantsRead())))
        sendMore();
    if (stage_ == Stage::Exchanging && (events.readable || events.hangup || events.error ||
                                        (events.writable && tls && tls->readWantsWrite())))
        readMore();
}

void Server::Forwarder::handleBug(const std::exception& e) noexcept
{
    try {
        fail(Failure::ReadError, std::string("internal error: ") + e.what());
    } catch (...) {
    }
}

void Server::Forwarder::sendMore()
{
    if (requestSent_ || stage_ != Stage::Exchanging)
        return;
    // store/Entry.h's rule: the write below tells the body entry it moved
    // (noteConsumed), which may resume the client, which appends more body
    // and calls noteDataAvailable() -> here again: the write in progress
    // takes those bytes in its own loop, so the inner call does nothing
    if (sending_)
        return;
    sending_ = true;
    sendBlocked_ = false;
    const auto before = sender_.bytesWritten();
    const auto result =
        connection_->tls() ? sender_.write(*connection_, *body_) : sender_.write(connection_->fd(), *body_);
    sending_ = false;
    if (sender_.bytesWritten() != before) {
        activity_ = context_.loop.now();
        context_.bytesOut += sender_.bytesWritten() - before;
    }
    switch (result) {
    case Store::BodyWriter::Result::Blocked:
        sendBlocked_ = true;
        return;
    case Store::BodyWriter::Result::Caught:
        return; // noteDataAvailable() resumes when the client sends more
    case Store::BodyWriter::Result::Done:
        requestSent_ = true;
        return;
    case Store::BodyWriter::Result::Cold: // a file body's only, and a request body is none
    case Store::BodyWriter::Result::Error:
        if (body_->hasFailed()) {
            // the client's body broke off: the origin must not take a truncated request
            fail(Failure::Aborted, "the request body was cut short");
            return;
        }
        if (sender_.error() == EPIPE || sender_.error() == ECONNRESET) {
            // the origin may have replied and closed: read what it said
            // (an early 413, say); with nothing to read, that is a failure
            requestSent_ = true;
            if (mayRetry()) {
                retry();
                return;
            }
            readMore();
            if (stage_ == Stage::Exchanging && !headDone_)
                fail(Failure::WriteError, std::strerror(sender_.error()), sender_.error());
            return;
        }
        fail(Failure::WriteError, std::strerror(sender_.error()), sender_.error());
        return;
    }
}

void Server::Forwarder::noteDataAvailable()
{
    // the request body grew (or ended): send it on
    if (stage_ == Stage::Exchanging && !sendBlocked_)
        sendMore();
}

void Server::Forwarder::resumeProducing()
{
    if (!paused_ || reading_ || stage_ != Stage::Exchanging)
        return;
    paused_ = false;
    activity_ = context_.loop.now(); // time spent waiting for the client is not the origin's
    readMore();
}

void Server::Forwarder::noteReadersGone()
{
    if (stage_ == Stage::Done)
        return;
    if (headDone_ && (framing_ == Http::ReplyParser::Framing::None ||
                      (framing_ == Http::ReplyParser::Framing::Length && bodyLeft_ == 0))) {
        // the client left with the whole reply (a 204, a 304, an empty body:
        // it went out with the head, before finish() was reached): complete
        // it, so that a stored one is not dropped as abandoned
        if (block_ && headStart_ < block_->size())
            reusable_ = false; // bytes nobody asked for
        finish();
        return;
    }
    if (reply_->isKept() && headDone_ && shouldFinishAlone()) {
        debugs(11, 3,
               "every client left " << request_.host << ":" << request_.port
                                    << "; finishing the object into the cache (quick_abort)");
        finishingAlone_ = true;
        resumeProducing();
        return;
    }
    // the client went away before the reply was complete: the rest is not wanted
    failure_ = Failure::Aborted;
    stage_ = Stage::Done;
    timer_.cancel();
    dialer_.reset(); // no callback after this, even from inside it
    releaseConnection(false);
    // a stored object left half-fetched must not stay in the cache as an
    // object in flight that never completes (a collapsed request would wait on it)
    reply_->fail("every client left");
    charge();
    noteDone();
}

bool Server::Forwarder::shouldFinishAlone() const
{
    // Squid 5.7's quick_abort rules (store_client.cc CheckQuickAbortIsReasonable)
    if (limits_.quickAbortMin < 0)
        return true;
    if (framing_ != Http::ReplyParser::Framing::Length)
        return false; // an unknown length: nothing to weigh
    const uint64_t received = reply_->body().endOffset();
    const uint64_t expected = received + bodyLeft_;
    const uint64_t remaining = bodyLeft_;
    if (remaining < uint64_t(limits_.quickAbortMin))
        return true;
    if (remaining > limits_.quickAbortMax)
        return false;
    if (expected < 100)
        return true; // too small to weigh in percent: Squid goes on
    // "more than quick_abort_pct percent", in Squid's integer arithmetic (on body bytes)
    return received / (expected / 100) > limits_.quickAbortPct;
}

bool Server::Forwarder::makeReadSpace()
{
    auto& pool = Sbuf::DefaultPool();
    if (block_ && block_->spaceSize() > 0)
        return true;
    if (!headDone_ && block_ && headStart_ < block_->size()) {
        // a head that does not fit its block: move its bytes to a bigger one
        // (the one permitted copy, bounded by reply_header_max_size, which
        // the parser enforces)
        const auto pending = block_->view().substr(headStart_);
        size_t capacity = std::max(limits_.readSizer.size(), pending.size() * 2);
        capacity = std::min(capacity, Sbuf::BlockPool::MaxBlockSize);
        if (capacity <= pending.size())
            return false;
        auto fresh = Sbuf::MemBlob::Make(pool, capacity);
        fresh->append(pending);
        block_ = fresh;
        headStart_ = 0;
        parser_.reset();
        return true;
    }
    block_ = Sbuf::MemBlob::Make(pool, limits_.readSizer.size());
    headStart_ = 0;
    return true;
}

void Server::Forwarder::readMore()
{
    if (reading_ || stage_ != Stage::Exchanging)
        return;
    reading_ = true;
    unsigned fills = 0;
    while (stage_ == Stage::Exchanging) {
        if (headDone_ && !reply_->canProduce()) {
            paused_ = true; // resumeProducing() goes on when the slowest reader catches up
            break;
        }
        if (auto* pipe = headDone_ ? reply_->pipe() : nullptr) {
            if (!spliceMore(*pipe, fills))
                break;
            continue;
        }
        if (!makeReadSpace()) {
            fail(Failure::ReplyTooBig, "reply head too large");
            break;
        }
        const auto space = block_->reserveSpace();
        const ssize_t n = connection_->read(space.data(), space.size());
        if (n > 0) {
            const size_t got = size_t(n);
            const size_t from = block_->size();
            // over TLS an end may wait behind the bytes (process() may give the connection back)
            const bool endWaits = connection_->tls() && connection_->tls()->hasPendingEnd();
            block_->commit(got);
            limits_.readSizer.noteRead(space.size(), got);
            context_.bytesIn += got;
            ++context_.readsBySize[std::min<size_t>(63 - __builtin_clzll(space.size() | 1),
                                                    context_.readsBySize.size() - 1)];
            activity_ = context_.loop.now();
            replyBytes_ += got;
            // the readers hear of all this read brought at once (a head and its body: one write)
            Store::Entry::NotificationHold hold(*reply_);
            process(from, got);
            hold.release();
            if (spliceUndecided_) {
                // the client has heard of the head now: it decided on storage
                // and started its reply (what the rest of the body may take)
                spliceUndecided_ = false;
                if (stage_ == Stage::Exchanging && maySplice())
                    startSplicing();
            }
            charge();
            // a short read drained the socket, unless its FIN came with it
            if (got < space.size() && !peerClosed_ && !endWaits)
                break;
            continue;
        }
        if (n == 0) {
            onEof();
            break;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            break;
        onReadError(errno);
        break;
    }
    reading_ = false;
}

bool Server::Forwarder::maySplice() const
{
    // doc/design.md "Splice": the one place that decides. The body must pass
    // through unchanged (Content-Length, or close-delimited; chunked framing
    // is decoded and re-framed), nobody may keep it (not stored: no memory
    // or disk copy) and exactly one client reads it, which says whether it
    // can take it as it is (raw framing to a plain socket, no Range, no
    // reply_body_max_size to count against); no TLS to the origin.
    using Framing = Http::ReplyParser::Framing;
    if (limits_.spliceMinSize == 0 || connection_->tls() || reply_->isKept())
        return false;
    if (framing_ == Framing::Length) {
        // the bytes that came with the head went as slices: splicing pays for the rest only
        if (bodyLeft_ < limits_.spliceMinSize)
            return false;
    } else if (framing_ != Framing::Close) {
        return false;
    }
    return reply_->soleReaderTakesPipe();
}

void Server::Forwarder::startSplicing()
{
    auto pipe = Sbuf::Pipe::Make();
    if (!pipe) {
        const int error = errno;
        debugs(11, 3, "no pipe for a reply (" << std::strerror(error) << "): reading into blocks");
        return;
    }
    reply_->setPipe(std::move(pipe));
    ++context_.splicedReplies;
}

bool Server::Forwarder::spliceMore(Sbuf::Pipe& pipe, unsigned& fills)
{
    // the pipe is the buffer (Store::Entry::canProduce() is its room), and
    // Content-Length is counted exactly: no byte past the body leaves the
    // socket, so the connection can go back to the pool
    const bool wasEmpty = pipe.isEmpty();
    uint64_t max = pipe.room();
    if (framing_ == Http::ReplyParser::Framing::Length)
        max = std::min(max, bodyLeft_);
    const ssize_t n = pipe.fillFrom(connection_->fd(), size_t(max));
    if (n > 0) {
        const size_t got = size_t(n);
        context_.bytesIn += got;
        context_.bytesSpliced += got;
        activity_ = context_.loop.now();
        replyBytes_ += got;
        // bulk traffic: a second fill in one go
        if (++fills >= 2 && !pipe.isGrown())
            pipe.grow();
        if (framing_ == Http::ReplyParser::Framing::Length)
            bodyLeft_ -= got;
        reply_->notePiped(); // the client drains it (its noteConsumed() may call us back: reading_)
        if (framing_ == Http::ReplyParser::Framing::Length && bodyLeft_ == 0) {
            finish();
            return false;
        }
        return true;
    }
    if (n == 0) {
        onEof();
        return false;
    }
    if (errno == EINTR)
        return true;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
        // into an empty pipe: the socket is drained, its next edge resumes;
        // into a pipe with bytes, the pipe's slots may be full (Sbuf::Pipe):
        // try again when the client has taken some (resumeProducing())
        if (!wasEmpty)
            paused_ = true;
        return false;
    }
    onReadError(errno);
    return false;
}

void Server::Forwarder::process(size_t from, size_t n)
{
    if (headDone_) {
        processBody(from, n);
        return;
    }
    if (parseHead()) {
        const size_t bodyStart = headStart_;
        if (bodyStart < from + n)
            processBody(bodyStart, from + n - bodyStart);
    }
}

bool Server::Forwarder::parseHead()
{
    for (;;) {
        const auto view = block_->view().substr(headStart_);
        const auto result = parser_.parse(view);
        if (result == Http::ParseResult::NeedMore)
            return false;
        if (result == Http::ParseResult::Error) {
            if (parser_.error() == Http::ReplyError::TooLarge)
                fail(Failure::ReplyTooBig, parser_.errorText());
            else
                fail(Failure::InvalidReply, parser_.errorText());
            return false;
        }
        const int status = parser_.statusCode();
        if (mayReforward(status)) {
            reforward(status);
            return false;
        }
        if (status >= 100 && status < 200) {
            if (status == 101) {
                // a 101 is never forwarded: cuttle did not ask for an upgrade
                fail(Failure::InvalidReply, "101 Switching Protocols");
                return false;
            }
            if (interimHandler_)
                interimHandler_(parser_);
            if (stage_ != Stage::Exchanging)
                return false;                 // the client went away when told
            headStart_ += parser_.headSize(); // an interim reply: skip it
            parser_.reset();
            continue;
        }
        auto reply = std::make_unique<Store::Reply>();
        reply->block = block_;
        reply->head = view.substr(0, parser_.headSize());
        reply->status = status;
        reply->setReason(parser_.reason());
        reply->versionMajor = parser_.versionMajor();
        reply->versionMinor = parser_.versionMinor();
        reply->setFields(parser_.fields());
        reply->requestTime = requestTime_;
        reply->responseTime = ::time(nullptr);
        framing_ = parser_.framing(request_.method == Http::Method::Head, false);
        if (framing_ != Http::ReplyParser::Framing::None && parser_.transferCodings().isPresent() &&
            !parser_.transferCodings().isChunkedOnly()) {
            // a coding cuttle cannot decode: passing it on without its field
            // would change the body silently (Squid 5.7 answers 502 too)
            fail(Failure::InvalidReply, "a transfer coding other than chunked");
            return false;
        }
        reply->hasBody = framing_ != Http::ReplyParser::Framing::None;
        if (framing_ == Http::ReplyParser::Framing::Length) {
            bodyLeft_ = parser_.contentLength().value_or(0);
            reply->contentLength = bodyLeft_;
        }
        if (parser_.wantsClose())
            reusable_ = false;
        headStart_ += parser_.headSize();
        headDone_ = true;
        reply_->setReply(std::move(reply)); // told when readMore()'s hold ends
        if (framing_ == Http::ReplyParser::Framing::None ||
            (framing_ == Http::ReplyParser::Framing::Length && bodyLeft_ == 0)) {
            if (headStart_ < block_->size())
                reusable_ = false; // bytes nobody asked for
            finish();
            return false;
        }
        spliceUndecided_ = true;
        return true;
    }
}

void Server::Forwarder::processBody(size_t from, size_t n)
{
    using Framing = Http::ReplyParser::Framing;
    switch (framing_) {
    case Framing::None:
        reusable_ = false;
        return;
    case Framing::Close:
        appendBody(from, n);
        return;
    case Framing::Length: {
        const size_t take = size_t(std::min<uint64_t>(n, bodyLeft_));
        appendBody(from, take);
        bodyLeft_ -= take;
        if (take < n)
            reusable_ = false; // bytes after the body: the connection is out of step
        if (bodyLeft_ == 0)
            finish();
        return;
    }
    case Framing::Chunked: {
        size_t pos = from;
        const size_t end = from + n;
        while (pos < end && stage_ == Stage::Exchanging) {
            const auto piece = decoder_.next(block_->view().substr(pos, end - pos));
            using Kind = Http::ChunkedDecoder::Piece::Kind;
            switch (piece.kind) {
            case Kind::Payload:
                appendBody(pos, piece.length);
                pos += piece.length;
                break;
            case Kind::Framing:
                pos += piece.length;
                break;
            case Kind::NeedMore:
                pos = end;
                break;
            case Kind::Done:
                pos += piece.length;
                if (pos < end)
                    reusable_ = false;
                finish();
                return;
            case Kind::Error:
                fail(Failure::InvalidReply, decoder_.errorText());
                return;
            }
        }
        return;
    }
    }
}

void Server::Forwarder::appendBody(size_t from, size_t n)
{
    if (n == 0)
        return;
    reply_->append(Sbuf::Slice(block_, from, n));
}

void Server::Forwarder::onEof()
{
    if (!headDone_) {
        if (replyBytes_ == 0) {
            if (mayRetry()) {
                retry();
                return;
            }
            fail(Failure::ZeroSize, "the origin closed the connection without replying");
            return;
        }
        fail(Failure::InvalidReply, "the origin closed the connection inside the reply head");
        return;
    }
    if (framing_ == Http::ReplyParser::Framing::Close) {
        reusable_ = false;
        finish();
        return;
    }
    fail(Failure::ReadError, "the origin closed the connection before the end of the reply");
}

void Server::Forwarder::onReadError(int error)
{
    if (!headDone_ && replyBytes_ == 0 && mayRetry()) {
        retry();
        return;
    }
    fail(Failure::ReadError, std::strerror(error), error);
}

bool Server::Forwarder::mayRetry() const
{
    // the retry rule (doc/design.md "The origin side"): once, on a reused
    // persistent connection, before any reply byte, for an idempotent method
    // whose body (if any) is still held whole
    return reused_ && !retried_ && replyBytes_ == 0 && Http::IsIdempotent(request_.method) &&
           body_->body().startOffset() == 0 &&
           (request_.bodyFraming == Store::BodyWriter::Framing::None ||
            (body_->isComplete() && sender_.bodyBytesWritten() == 0));
}

void Server::Forwarder::retry()
{
    debugs(11, 2,
           "retrying " << request_.host << ":" << request_.port
                       << " on a new connection: the persistent one was closed by the origin");
    retried_ = true;
    ++context_.retries;
    restartExchange();
    dial();
}

bool Server::Forwarder::mayReforward(int status) const
{
    // Squid 5.7's FwdState::reforward(): a gateway error (502, 504) always,
    // 403, 500, 501 and 503 with retry_on_error, while another destination
    // may be tried and the request body (if any) is still held whole
    switch (status) {
    case 502:
    case 504:
        break;
    case 403:
    case 500:
    case 501:
    case 503:
        if (!limits_.retryOnError)
            return false;
        break;
    default:
        return false;
    }
    return mayTryNext() && body_->body().startOffset() == 0 &&
           (request_.bodyFraming == Store::BodyWriter::Framing::None || body_->isComplete());
}

void Server::Forwarder::reforward(int status)
{
    debugs(17, 2,
           "forwarding to " << request_.host << ":" << request_.port << ": " << status << " from "
                            << (current_.peer ? current_.peer->name() : peerHost_)
                            << "; trying the next destination");
    restartExchange();
    nextDestination();
}

void Server::Forwarder::restartExchange()
{
    // the connection goes (a reply was not read to its end, or none came)
    releaseConnection(false);
    requestSent_ = false;
    sendBlocked_ = false;
    peerClosed_ = false;
    parser_.reset();
    block_ = nullptr;
    headStart_ = 0;
    replyBytes_ = 0;
}

void Server::Forwarder::finish()
{
    if (stage_ == Stage::Done)
        return;
    stage_ = Stage::Done;
    timer_.cancel();
    // pooled before the reply says it is complete: the client connection,
    // told so, may read its next request at once and ask the pool for this
    // very connection. A half-read block is not kept for the next reply:
    // each reply starts fresh.
    releaseConnection(limits_.persistent && reusable_ && requestSent_ && !peerClosed_);
    reply_->complete();
    charge();
    noteDone();
}

void Server::Forwarder::fail(Failure why, const std::string& text, int error)
{
    if (stage_ == Stage::Done)
        return;
    debugs(11, 2, "forwarding to " << request_.host << ":" << request_.port << " failed: " << text);
    if (why != Failure::Aborted)
        ++context_.errors;
    failure_ = why;
    failureText_ = text;
    failureErrno_ = error;
    stage_ = Stage::Done;
    timer_.cancel();
    dialer_.reset(); // no callback after this, even from inside it
    releaseConnection(false);
    reply_->fail(text);
    charge();
    noteDone();
}

void Server::Forwarder::setDoneHandler(DoneHandler handler)
{
    doneHandler_ = std::move(handler);
    if (isDone())
        noteDone();
}

void Server::Forwarder::noteDone()
{
    if (!doneHandler_)
        return;
    const auto handler = std::move(doneHandler_);
    doneHandler_ = nullptr;
    handler();
}

void Server::Forwarder::releaseConnection(bool reusable)
{
    if (!connection_)
        return;
    connection_->setUser(nullptr);
    if (reusable) {
        context_.pool.put(poolKey(), std::move(connection_));
        return;
    }
    // closed after this callback: its handleIo() may be on the stack
    auto doomed = std::make_shared<OriginConnectionPtr>(std::move(connection_));
    context_.loop.callSoon([doomed] {});
}

void Server::Forwarder::armTimeout()
{
    if (limits_.readTimeout <= Comm::Milliseconds(0))
        return;
    // lazily re-armed: reads only note the time, and the timer, when it
    // fires, checks whether anything moved since (no timer churn per read)
    const auto due = activity_ + limits_.readTimeout;
    const auto delay = std::chrono::duration_cast<Comm::Milliseconds>(due - context_.loop.now());
    timer_ = context_.loop.schedule(
        std::max(delay, Comm::Milliseconds(1)), [this] { checkTimeout(); }, this);
}

void Server::Forwarder::checkTimeout()
{
    if (stage_ != Stage::Exchanging)
        return;
    if (paused_ || context_.loop.now() - activity_ < limits_.readTimeout) {
        if (paused_)
            activity_ = context_.loop.now();
        armTimeout();
        return;
    }
    fail(Failure::ReadTimeout, "read_timeout");
}
