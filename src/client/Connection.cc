/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "client/Connection.h"
#include "client/Bumping.h"
#include "acl/AccessList.h"
#include "client/AclFields.h"
#include "client/Counters.h"
#include "acl/Address.h"
#include "base/TextException.h"
#include "client/Headers.h"
#include "client/Services.h"
#include "comm/Connector.h"
#include "comm/Loop.h"
#include "config/Settings.h"
#include "log/AccessLog.h"
#include "server/Forwarder.h"
#include "store/InFlight.h"
#include "store/Index.h"
#include "errors/Page.h"
#include "errors/PageContext.h"
#include "http/Head.h"
#include "http/Url.h"
#include "log/AccessRecord.h"
#include "log/CacheLog.h"
#include "mgr/Request.h"
#include "sbuf/BlockPool.h"
#include "sbuf/MemBlob.h"
#include "server/Forwarder.h"
#include "tunnel/Tunnel.h"

#include <cerrno>
#include <cstring>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>

namespace {

/// the first read block of a request: most heads fit in 1 KB, and a
/// partial head then costs one small block (doc/design.md "Budgets": <= 2 kB per connection)
constexpr size_t FirstBlockSize = 1024;

/// how long a connection we close after an error keeps draining what the
/// client still sends, so that closing with unread bytes does not reset the
/// connection before the client has read our reply
constexpr Comm::Milliseconds LingerTime{2000};

timeval Now()
{
    timeval tv;
    ::gettimeofday(&tv, nullptr);
    return tv;
}

} // namespace

Client::Connection::Connection(Services& services, Comm::Descriptor&& fd, const Comm::Address& peer,
                               const Comm::Address& local, std::string portName)
    : services_(services), fd_(std::move(fd)), peerHost_(peer.host()), localHost_(local.host()),
      localPort_(local.port()), peerPort_(peer.port()), portName_(std::move(portName)),
      parser_(services.settings().requestHeaderMaxSize)
{
    if (const auto a = Acl::Address::Parse(peerHost_))
        peerAddress_ = *a;
    if (const auto a = Acl::Address::Parse(localHost_))
        localAddress_ = *a;
}

Client::Connection::~Connection()
{
    timer_.cancel();
    kick_.cancel();
    reaper_.cancel();
    registration_.cancel();
    stopForwarding();
    retired_.clear();
    if (pendingLog_) {
        try {
            logTransaction();
        } catch (...) {
        }
    }
}

void Client::Connection::start()
{
    // a reply head and its body may go out in two writes (the body was not
    // read yet): without TCP_NODELAY the second waits for the client's
    // delayed ACK, 40 ms per small reply (the benchmark saw 1,100 req/s)
    const int one = 1;
    (void)::setsockopt(fd_.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    registration_ = services_.loop().watch(fd_.get(), *this);
    armTimer(services_.settings().requestTimeout);
    if (intercepted_ && bump_ && bump_->ca)
        fakeConnect();
    drive();
}

bool Client::Connection::isIdle() const
{
    return state_ == State::ReadingHead && !requestStarted_;
}

void Client::Connection::setTls(SSL_CTX* context)
{
    tls_ = std::make_unique<Tls::Accepted>(context, fd_.get());
}

ssize_t Client::Connection::receive(char* buffer, size_t size)
{
    return tls_ ? tls_->read(buffer, size) : ::recv(fd_.get(), buffer, size, 0);
}

ssize_t Client::Connection::transmit(std::string_view bytes)
{
    if (!tls_)
        return ::send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
    iovec iov{const_cast<char*>(bytes.data()), bytes.size()};
    return tls_->writev(&iov, 1);
}

ssize_t Client::Connection::writev(const iovec* iov, int count)
{
    return tls_->writev(iov, count);
}

void Client::Connection::handleIo(const Comm::IoEvents& socketEvents)
{
    auto events = socketEvents;
    if (tls_) {
        // OpenSSL's reads may wait for a write and its writes for a read
        // (tls/Channel.h): the socket's event is the one the other waits for
        if (socketEvents.writable && tls_->readWantsWrite())
            events.readable = true;
        if (socketEvents.readable && tls_->writeWantsRead())
            events.writable = true;
    }
    if (events.hangup)
        peerClosed_ = true; // edge-triggered: this is the only report of it
    if (events.readable || events.hangup)
        socketDrained_ = false;
    switch (state_) {
    case State::ReadingHead:
    case State::Lingering:
        if (events.readable)
            drive();
        return;
    case State::Writing:
        // only reached after a write returned EAGAIN (or the socket failed)
        if (events.writable)
            drive();
        return;
    case State::Forwarding:
    case State::Streaming:
        if (events.error) {
            // a reset from the client: nobody is left to answer
            debugs(33, 3, "client " << peerHost_ << " reset the connection");
            if (pendingLog_)
                pendingLog_->resultCode = "TCP_MISS_ABORTED";
            close();
            return;
        }
        // bytes after the request (a pipelined request, or a FIN) wait in
        // the socket until the reply is written; only a body is read now
        if ((events.readable || events.hangup) && readingBody_ && !bodyPaused_)
            readBody();
        if (state_ == State::Streaming && (events.writable || events.error) && writeBlocked_) {
            writeBlocked_ = false;
            streamSome();
        }
        return;
    case State::Checking:
        // the client left while its credentials were being checked
        if (events.error)
            close();
        return;
    case State::Peeking:
        if (events.error)
            close();
        else if (events.readable || events.hangup)
            peekHello();
        return;
    case State::Tunneling:
    case State::Closed:
        return;
    }
}

void Client::Connection::handleBug(const std::exception&) noexcept
{
    try {
        close();
    } catch (...) {
        // nothing more can be done for this connection
    }
}

void Client::Connection::drive()
{
    for (;;) {
        switch (state_) {
        case State::ReadingHead: {
            processBuffered();
            if (state_ != State::ReadingHead)
                continue;
            if (hostLookup_.isPending())
                return; // an intercepted Host is being resolved: its verdict resumes
            if (socketDrained_ && !peerClosed_) {
                // after a reply: nothing came since the last read (no event
                // said so), so wait for the next request's event
                dropBufferIfConsumed();
                return;
            }
            const auto outcome = readSome();
            if (outcome == ReadResult::Wait || outcome == ReadResult::Closed)
                return;
            if (outcome == ReadResult::Drained) {
                // a short read drained the socket: parse, and wait if nothing
                // changed -- unless the peer's FIN came with these bytes: no
                // new event will report it, so read on to see the EOF
                processBuffered();
                if (state_ == State::ReadingHead && !peerClosed_)
                    return;
            }
            continue;
        }
        case State::Writing:
            if (!writeSome())
                return;
            continue;
        case State::Lingering:
            lingerRead();
            return;
        case State::Forwarding:
        case State::Streaming:
            // body bytes may be in the socket already, and no new edge will
            // announce them (comm/Loop.h: the rule for every reader): the
            // head came with part of a body in a read that filled its block,
            // or they came while the head waited for a check (handleIo()
            // then only noted that the socket is no longer drained)
            if (readingBody_ && !bodyPaused_ && !socketDrained_)
                readBody();
            return;
        case State::Peeking:
            peekHello(); // the hello may have come with the CONNECT: no edge announces it
            return;
        case State::Checking: // the head is handled again when the check is done
        case State::Tunneling:
        case State::Closed:
            return;
        }
    }
}

bool Client::Connection::makeReadSpace()
{
    auto& pool = Sbuf::DefaultPool();
    if (!buffer_) {
        buffer_ = Sbuf::MemBlob::Make(pool, FirstBlockSize);
        parsedOffset_ = 0;
        return true;
    }
    if (buffer_->spaceSize() > 0)
        return true;
    // The block is full and its unparsed tail is an unfinished head (the
    // parser has checked it is within request_header_max_size): move the
    // tail to a block with room. This is the one copy of head bytes, bounded
    // by the limit; the parser's views pointed into the old block, so it
    // starts over on the new one.
    const auto pending = buffer_->view().substr(parsedOffset_);
    size_t capacity = buffer_->capacity();
    if (pending.size() * 2 > capacity)
        capacity *= 2;
    auto fresh = Sbuf::MemBlob::Make(pool, capacity);
    fresh->append(pending);
    buffer_ = fresh;
    parsedOffset_ = 0;
    parser_.reset();
    return true;
}

Client::Connection::ReadResult Client::Connection::readSome()
{
    for (;;) {
        makeReadSpace();
        const auto space = buffer_->reserveSpace();
        const ssize_t n = receive(space.data(), space.size());
        if (n > 0) {
            if (!requestStarted_) {
                requestStarted_ = true;
                requestStart_ = Now();
                armTimer(services_.settings().requestTimeout);
            }
            buffer_->commit(static_cast<size_t>(n));
            readFilled_ = static_cast<size_t>(n) == space.size();
            socketDrained_ = !readFilled_;
            return readFilled_ ? ReadResult::Some : ReadResult::Drained;
        }
        if (n == 0) {
            debugs(33, 3, "client " << peerHost_ << " closed the connection");
            close();
            return ReadResult::Closed;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            readFilled_ = false;
            socketDrained_ = true;
            dropBufferIfConsumed();
            return ReadResult::Wait;
        }
        debugs(33, 2, "read from client " << peerHost_ << ": " << std::strerror(errno));
        close();
        return ReadResult::Closed;
    }
}

void Client::Connection::dropBufferIfConsumed()
{
    if (buffer_ && parsedOffset_ >= buffer_->size()) {
        buffer_ = nullptr; // back to the pool: an idle connection holds no block
        parsedOffset_ = 0;
    }
}

void Client::Connection::processBuffered()
{
    while (state_ == State::ReadingHead && buffer_ && parsedOffset_ < buffer_->size()) {
        if (!requestStarted_) {
            // pipelined bytes that arrived with an earlier request
            requestStarted_ = true;
            requestStart_ = Now();
            armTimer(services_.settings().requestTimeout);
        }
        const auto view = buffer_->view().substr(parsedOffset_);
        const auto result = parser_.parse(view);
        if (result == Http::ParseResult::NeedMore)
            return;
        if (result == Http::ParseResult::Error) {
            handleParseError();
            return;
        }
        if (!hostCheckReady()) {
            parser_.reset(); // parsed again once Host is resolved
            return;
        }
        handleHead(view.substr(0, parser_.headSize()));
        if (state_ == State::Closed)
            return;
        if (state_ == State::Checking) {
            // not consumed: parsed and handled again once the check is done
            parser_.reset();
            return;
        }
        parsedOffset_ += parser_.headSize();
        services_.counters().bytesIn += parser_.headSize();
        parser_.reset();
        helperAnswers_.reset(); // they were about this head
        dstAnswer_.reset();
        digestPassed_.reset(); // the head is done with (Authenticate.cc)
        if (readingBody_)
            consumeBody(); // body bytes that came with the head
        if (state_ == State::Closed)
            return;
        if (!readingBody_)
            dropBufferIfConsumed();
        if (state_ == State::Tunneling)
            return;
    }
}

void Client::Connection::handleHead(std::string_view head)
{
    const auto& settings = services_.settings();
    const auto target = parser_.target();

    pendingLog_ = std::make_unique<Log::AccessRecord>();
    auto& record = *pendingLog_;
    record.start = requestStart_;
    record.clientAddress = peerHost_;
    record.method = std::string(parser_.methodToken());
    record.url = std::string(target);
    record.requestHeadSize = head.size();
    const auto& needs = services_.accessLog().needs();
    if (needs.requestHead) {
        // the field lines: after the request line, without the empty line
        const size_t first = head.find('\n');
        const std::string_view fields =
            first == std::string_view::npos ? std::string_view() : head.substr(first + 1);
        record.requestHead = fields.substr(0, fields.size() >= 2 ? fields.size() - 2 : 0);
    }
    record.httpVersion =
        std::to_string(parser_.versionMajor()) + "." + std::to_string(parser_.versionMinor());
    if (const auto v = parser_.findField("Referer"))
        record.referer = std::string(*v);
    if (const auto v = parser_.findField("User-Agent"))
        record.userAgent = std::string(*v);

    // a body that is not forwarded would be taken for the next request
    closeAfterReply_ = parser_.wantsClose() || parser_.hasBody() || !settings.clientPersistentConnections;
    clientIsHttp11_ =
        parser_.versionMajor() > 1 || (parser_.versionMajor() == 1 && parser_.versionMinor() >= 1);
    requestIsHead_ = parser_.method() == Http::Method::Head;
    sentContinue_ = false;

    Errors::PageContext context;
    context.url = record.url;
    context.method = record.method;
    context.request = std::string(head);
    if (const auto v = parser_.findField("Accept-Language"))
        context.acceptLanguage = std::string(*v);

    Http::Url url;
    bool urlOk = false;
    bool isManager = false;
    if (parser_.method() == Http::Method::Connect) {
        // authority-form (RFC 9112 section 3.2.3): host:port and nothing else
        // authority-form (RFC 9112 section 3.2.3): no userinfo either
        urlOk = url.parse("https://" + std::string(target)) && url.hasExplicitPort() && url.path() == "/" &&
                target.find_first_of("/@") == std::string_view::npos;
    } else if (bump_ && !bump_->authority.empty() && target.substr(0, 1) == "/") {
        // a bumped connection: an origin-form request is for the CONNECT's
        // origin, over TLS (doc/design.md "SSL bump"); an intercepted one's
        // CONNECT was made up, so its URL comes from Host as a plain
        // intercepted request's does (and Host is verified the same way)
        urlOk =
            url.parse(intercepted_ ? InterceptedUrl(target, parser_.findField("Host"),
                                                    *Comm::Address::Parse(localHost_, localPort_), "https")
                                   : "https://" + bump_->authority + std::string(target));
    } else if (intercepted_) {
        // Squid 5.7's prepareTransparentURL(): an origin-form target gets its
        // URL from Host (or the original destination); absolute-form stays.
        // No manager pages here: /squid-internal-mgr/ is the origin's path
        urlOk = url.parse(
            InterceptedUrl(target, parser_.findField("Host"), *Comm::Address::Parse(localHost_, localPort_)));
    } else if (target.rfind(Mgr::InternalPrefix, 0) == 0) {
        // an origin-form request for cuttle's own manager pages: Squid
        // serves and logs it as http://visible_hostname:port/squid-internal-mgr/NAME
        urlOk = url.parse("http://" + services_.visibleHostname() + ":" + std::to_string(localPort_) +
                          std::string(target));
        isManager = urlOk;
    } else {
        // a forward proxy needs absolute-form; origin-form ("/x") would need
        // an accelerator port, which cuttle does not have yet
        urlOk = url.parse(target);
        isManager = urlOk && isManagerUrl(url);
    }
    if (!urlOk) {
        closeAfterReply_ = true; // as Squid does
        reply(Http::StatusCode::BadRequest, "ERR_INVALID_URL", context);
        return;
    }
    // Squid logs and shows the canonical URL: no userinfo (a password in
    // the target must not reach access.log), lowercased, no default port
    if (parser_.method() != Http::Method::Connect)
        record.url = url.canonical();
    context.url = record.url;
    if (needs.requestUrl)
        record.requestUrl = record.url;
    // strip_query_terms: the log keeps the `?` and drops what follows, as Squid's does
    if (settings.stripQueryTerms) {
        if (const auto q = record.url.find('?'); q != std::string::npos)
            record.url.resize(q + 1);
    }
    context.protocol = url.scheme();
    context.serverHost = url.host();
    context.serverPort = url.port();
    if (bump_ && !bump_->denial.reply.empty()) {
        answerWithDenial(record);
        return;
    }

    if (requestBodyIsTooBig(context))
        return;
    // Host verification comes before http_access, as in Squid
    // (ClientHttpRequest::doCallouts); a Host that fails is refused with
    // host_verify_strict (a CONNECT always)
    const auto hostCheck = takeHostCheck(url, record.userAgent);
    if (hostCheck.failed() && (settings.hostVerifyStrict || parser_.method() == Http::Method::Connect)) {
        record.resultCode = "NONE_NONE";
        reply(Http::StatusCode::Conflict, "ERR_CONFLICT_HOST", context);
        return;
    }

    Acl::Checklist facts;
    facts.srcAddr = peerAddress_;
    facts.srcPort = peerPort_;
    facts.localAddr = localAddress_;
    facts.localPort = localPort_;
    facts.portName = portName_;
    facts.clientConnections = services_.connectionsFrom(peerHost_);
    facts.dstHost = url.host(); // an address literal is read as one; a name: destinationKnown()
    facts.dstPort = url.port();
    facts.method = record.method;
    const bool isConnect = parser_.method() == Http::Method::Connect;
    // Squid 5.7: a CONNECT has no scheme (proto NONE), no path, and its "URL" is host:port
    facts.urlScheme = isConnect ? std::string() : url.scheme();
    facts.urlPath = isConnect ? std::string() : url.path();
    facts.url = context.url; // the canonical URL (host:port for CONNECT), before strip_query_terms
    if (bump_)
        facts.tlsSni = bump_->sni; // ssl::server_name in a bumped connection's rules
    const AclFields requestFields(parser_.fields());
    facts.request = &requestFields;
    findIndirectClient(facts, record);
    if (!destinationKnown(url, facts))
        return; // resolving the origin for the dst acls: the head is handled again
    if (!admitted(checkAccess(settings.httpAccess, facts), facts, record, context))
        return;

    if (isManager) {
        serveManager(url, context);
        return;
    }
    if (parser_.method() != Http::Method::Connect && url.scheme() != "http" && url.scheme() != "https") {
        // Squid 5.7 answers schemes it cannot fetch (gopher://, ftp://) with ERR_UNSUP_REQ
        record.resultCode = "NONE_NONE";
        closeAfterReply_ = closeAfterReply_ || parser_.hasBody();
        reply(Http::StatusCode::NotImplemented, "ERR_UNSUP_REQ", context);
        return;
    }
    if (interceptedSelf_) {
        // sent to the intercept port itself: the original destination is
        // this port, and Squid's copy of the request comes back to it and
        // is denied as a forwarding loop
        record.resultCode = "TCP_MISS";
        reply(Http::StatusCode::Forbidden, "ERR_ACCESS_DENIED", context);
        return;
    }
    if (!rewriteUrl(url, record, context, facts))
        return; // asked the rewriter (the head is handled again), or answered
    // Squid's clientAccessCheck2, after the rewriter
    if (settings.adaptedHttpAccess.size() != 0 &&
        !admitted(checkAccess(settings.adaptedHttpAccess, facts), facts, record, context))
        return;
    std::string storeId;
    if (!askStoreId(url, record, facts, storeId))
        return; // asked the store-ID helper: the head is handled again
    tx_ = std::make_unique<Transaction>();
    tx_->storeId = std::move(storeId);
    tx_->pageContext =
        std::make_unique<Errors::PageContext>(std::move(context)); // the transaction's from here
    if (settings.httpReplyAccess.size() != 0 || !settings.replyBodyMaxSizes.empty() ||
        settings.storeMiss.size() != 0) {
        tx_->replyFacts = std::make_unique<Acl::Checklist>(facts);
        tx_->replyFacts->request = nullptr; // parsed again from the head's copy (replyIsDenied())
    }
    if (!settings.requestHeaderRules.isEmpty() || !settings.replyHeaderRules.isEmpty()) {
        tx_->headerFacts = std::make_unique<Acl::Checklist>(facts);
        tx_->headerFacts->request = nullptr; // set again where the fields are (HeaderEdits.cc)
    }
    tx_->method = parser_.method();
    if (tx_->method == Http::Method::Other)
        tx_->otherMethod = std::string(parser_.methodToken());
    if (parser_.methodToken() == "PURGE") {
        purge(url);
        return;
    }
    Store::EntryRef joinable;
    // Squid (HttpRequest::maybeCacheable): an intercepted request whose
    // Host was not verified (failed, or no Host) is neither looked up nor stored
    tx_->hostVerified = !intercepted_ || hostCheck.outcome == HostCheck::Outcome::Passed;
    if (tx_->hostVerified && lookupCache(url, facts, joinable))
        return;
    if (!isConnect && (loopDenied(*tx_->pageContext) || !missAllowed(facts, *tx_->pageContext)))
        return;
    if (!joinable && !tx_->stale) {
        tx_->wholeLimit = wholeFetchLimit(facts);
        tx_->wholeForRange = tx_->wholeLimit != 0;
    }
    forward(url, facts, joinable);
}

bool Client::Connection::admitted(Acl::Answer answer, Acl::Checklist& facts, Log::AccessRecord& record,
                                  Errors::PageContext& context)
{
    switch (answer) {
    case Acl::Answer::Allowed:
        record.user = facts.user;
        record.userFromAuth = facts.auth == Acl::AuthState::Valid;
        context.user = facts.user; // %a
        return true;
    case Acl::Answer::Pending:
        pendingLog_.reset(); // made again when the head is handled again
        return false;
    case Acl::Answer::AuthRequired:
        record.resultCode = "TCP_DENIED";
        reply(Http::StatusCode::ProxyAuthenticationRequired, "ERR_CACHE_ACCESS_DENIED", context,
              authChallenges());
        return false;
    case Acl::Answer::Denied:
        record.resultCode = "TCP_DENIED";
        record.user = facts.user;
        record.userFromAuth = facts.auth == Acl::AuthState::Valid;
        context.user = facts.user; // %a
        answerDenied(context, facts.lastAcl);
        return false;
    }
    return false;
}

Acl::Answer Client::Connection::checkAccess(const Acl::AccessList& rules, Acl::Checklist& facts)
{
    readCredentials(facts); // what the auth_param helper said of them, if it did (Authenticate.cc)
    lookups_.beginCheck(services_.lookups());
    facts.answers = &lookups_;
    auto& seen = services_.lookups().userAddresses();
    if (facts.auth == Acl::AuthState::Valid) // max_user_ip: Squid's Auth::User::addIp()
        seen.note(facts.user, facts.srcAddr.toString(), Client::Lookups::Clock::now());
    facts.userAddresses = &seen;
    const auto answer = rules.check(facts);
    if (answer == Acl::Answer::Pending) {
        state_ = State::Checking;
        if (facts.lookup.kind == Acl::Lookup::Kind::Credentials)
            checkCredentials();
        else
            lookups_.start(facts.lookup, [this] { resumeAfterCheck(); });
    }
    if (facts.auth != Acl::AuthState::Valid)
        facts.user = facts.noteValue("user"); // Squid's %un: else the external acl's user=
    return answer;
}

void Client::Connection::resumeAfterCheck()
{
    // the helper answered (its verdict is cached, or kept in helperAnswers_):
    // the head still in the buffer is handled again from the start
    if (state_ != State::Checking)
        return;
    state_ = State::ReadingHead;
    drive();
}

Client::OriginRequestSpec Client::Connection::originSpec(const Http::Url& url, std::string_view method) const
{
    const auto& settings = services_.settings();
    OriginRequestSpec spec;
    spec.method = method;
    spec.path = url.path();
    spec.hostField = url.authorityHost();
    if (url.hasExplicitPort() && !url.hasDefaultPort())
        spec.hostField += ":" + std::to_string(url.port());
    spec.fields = &parser_.fields();
    spec.clientAddress = peerHost_;
    if (settings.via)
        spec.viaName = services_.viaName();
    spec.forwardedFor = settings.forwardedFor;
    spec.keepAlive = settings.serverPersistentConnections;
    return spec;
}

void Client::Connection::forward(const Http::Url& url, const Acl::Checklist& facts,
                                 const Store::EntryRef& joinable)
{
    const auto& settings = services_.settings();
    Server::Request request;
    request.method = parser_.method();
    aimAtOrigin(request, url);
    aimOverTls(request, url, facts);
    switch (aimAtPeers(request, url, facts, !joinable)) {
    case Aim::Nowhere:
        answerCannotForward();
        return;
    case Aim::Waiting:
        return;
    case Aim::Go:
        break;
    }
    if (parser_.method() == Http::Method::Connect) {
        if (startBumping(url, request, facts))
            return;
        state_ = State::Forwarding;
        timer_.cancel(); // the dialer has its own timeouts now
        dialTunnel(url, std::move(request));
        return;
    }

    if (parser_.hasBody()) {
        tx_->body = std::make_unique<BodyIn>();
        auto& body = *tx_->body;
        body.chunked = !parser_.contentLength().has_value();
        body.left = parser_.contentLength().value_or(0);
        body.decoder = Http::ChunkedDecoder::ForRequestBody(); // CRLF only, see its header
        request.bodyFraming =
            body.chunked ? Store::BodyWriter::Framing::Chunked : Store::BodyWriter::Framing::Raw;
        body.entry = MakeRef<Store::Entry>(settings.readAheadGap);
        body.entry->setProducer(this);
        request.body = body.entry;
        readingBody_ = true;
        bodyPaused_ = false;
        closeAfterReply_ = parser_.wantsClose() || !settings.clientPersistentConnections;
        body.sizer = services_.forwardLimits().readSizer; // request_buffer_size, as for reply reads
    }
    auto spec = originSpec(url, parser_.methodToken());
    spec.dropRange = tx_->wholeForRange;
    spec.bodyFraming = request.bodyFraming;
    spec.contentLength = tx_->body ? tx_->body->left : 0;
    // `Content-Length: 0` is framing the origin may insist on (a POST without it can get 411)
    spec.hasZeroLength = !parser_.hasBody() && parser_.contentLength().has_value();
    if (const auto* stored = tx_->stale ? tx_->stale->reply() : nullptr) {
        AddValidators(spec, *stored);   // RFC 9111 4.3.1
        if (spec.extraFields.empty()) { // nothing to validate with: an ordinary miss
            tx_->stale = nullptr;
            tx_->stalePin = Store::EntryPin();
        }
    }
    request.head = BuildOriginRequest(spec);
    editRequestHead(request.head);

    state_ = State::Forwarding;
    timer_.cancel(); // the origin side has its own timeouts now
    if (joinable) {
        // collapsed_forwarding: read the fetch already under way; this
        // request goes out only if its reply cannot be shared
        tx_->deferred = std::make_unique<Server::Request>(std::move(request));
        joinMiss(joinable);
        return;
    }

    if (readingBody_) {
        // RFC 9110 section 10.1.1: the request is accepted, so let the body come
        // (cuttle answers for the origin: Expect is not forwarded)
        if (const auto expect = parser_.findField("Expect");
            clientIsHttp11_ && expect && Http::EqualsIgnoreCase(*expect, "100-continue")) {
            // RFC 9110 section 10.1.1: an HTTP/1.0 client's 100-continue MUST be ignored
            interim_ += "HTTP/1.1 100 Continue\r\n\r\n";
            sendInterim();
            sentContinue_ = true;
        }
    }
    startOwnFetch(std::move(request));
}

void Client::Connection::consumeBody()
{
    while (readingBody_ && buffer_ && parsedOffset_ < buffer_->size()) {
        const auto view = buffer_->view();
        const size_t avail = view.size() - parsedOffset_;
        if (!tx_->body->chunked) {
            const size_t take = size_t(std::min<uint64_t>(avail, tx_->body->left));
            tx_->body->entry->append(Sbuf::Slice(buffer_, parsedOffset_, take));
            parsedOffset_ += take;
            tx_->body->left -= take;
            if (tx_->body->left == 0)
                endRequestBody(true);
            continue;
        }
        const auto piece = tx_->body->decoder.next(view.substr(parsedOffset_));
        using Kind = Http::ChunkedDecoder::Piece::Kind;
        switch (piece.kind) {
        case Kind::Payload:
            tx_->body->entry->append(Sbuf::Slice(buffer_, parsedOffset_, piece.length));
            parsedOffset_ += piece.length;
            if (chunkedBodyIsTooBig())
                return;
            break;
        case Kind::Framing:
        case Kind::NeedMore:
            parsedOffset_ += piece.length;
            break;
        case Kind::Done:
            parsedOffset_ += piece.length;
            endRequestBody(true);
            break;
        case Kind::Error:
            debugs(33, 2,
                   "bad chunked request body from " << peerHost_ << ": " << tx_->body->decoder.errorText());
            endRequestBody(false);
            closeAfterReply_ = true;
            if (state_ == State::Forwarding) {
                // nothing was answered yet: the client gets a 400
                const auto context = std::move(tx_->pageContext);
                stopForwarding();
                if (pendingLog_)
                    pendingLog_->resultCode = "NONE_NONE";
                buffer_ = nullptr;
                parsedOffset_ = 0;
                reply(Http::StatusCode::BadRequest, "ERR_INVALID_REQ", *context);
                drive();
            } else {
                close();
            }
            return;
        }
    }
}

void Client::Connection::readBody()
{
    auto& pool = Sbuf::DefaultPool();
    while (readingBody_ && state_ != State::Closed) {
        if (!tx_->body->entry->canProduce()) {
            bodyPaused_ = true; // resumeProducing() goes on as the origin side takes the body
            return;
        }
        if (!buffer_ || buffer_->spaceSize() == 0) {
            buffer_ = Sbuf::MemBlob::Make(pool, tx_->body->sizer.size());
            parsedOffset_ = 0;
        }
        const auto space = buffer_->reserveSpace();
        const ssize_t n = receive(space.data(), space.size());
        if (n > 0) {
            buffer_->commit(size_t(n));
            tx_->body->sizer.noteRead(space.size(), size_t(n));
            readFilled_ = size_t(n) == space.size();
            socketDrained_ = !readFilled_;
            consumeBody();
            if (!readFilled_ && !peerClosed_)
                return;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            readFilled_ = false;
            socketDrained_ = true;
            return;
        }
        debugs(33, 2, "client " << peerHost_ << " closed the connection inside the request body");
        endRequestBody(false);
        if (pendingLog_)
            pendingLog_->resultCode = "TCP_MISS_ABORTED";
        close();
        return;
    }
}

void Client::Connection::endRequestBody(bool complete)
{
    if (!readingBody_)
        return;
    readingBody_ = false;
    bodyPaused_ = false;
    if (pendingLog_)
        pendingLog_->requestBodySize = tx_->body->entry->body().endOffset(); // %>st: without chunk framing
    if (complete)
        tx_->body->entry->complete();
    else
        tx_->body->entry->fail("the client's request body was cut short");
}

const Sbuf::Cursor& Client::Connection::cursor() const
{
    static const Sbuf::Cursor none;
    return tx_ ? tx_->writer.cursor() : none;
}

bool Client::Connection::takesPipe() const
{
    // the socket is a plain one and the writer writes to it (streamSome());
    // a body counted against reply_body_max_size is not
    return state_ == State::Streaming && !tls_ && tx_ && tx_->replyBodyLimit < 0 && tx_->writer.takesPipe();
}

void Client::Connection::resumeProducing()
{
    if (!bodyPaused_ || !tx_)
        return;
    bodyPaused_ = false;
    readBody();
}

void Client::Connection::noteDataAvailable()
{
    if (!tx_)
        return;
    if (state_ == State::Forwarding) {
        if (tx_->reply->reply()) {
            if (tx_->isJoiner && !joinedReplyIsUsable())
                return;
            startStreaming();
        } else if (tx_->reply->hasFailed() && tx_->isJoiner && tx_->requestFacts.cc.onlyIfCached) {
            refuseOnlyIfCached();
        } else if (tx_->reply->hasFailed() && tx_->isJoiner) {
            // the shared fetch failed before its head: a shared revalidation
            // serves the stale object where a lone one would; else try on our own
            if (!tx_->stale || !serveStaleOnError())
                fetchAlone();
        } else if (tx_->reply->hasFailed())
            forwardingFailed();
        return;
    }
    if (state_ == State::Streaming)
        streamSome();
}

void Client::Connection::forwardInterim(const Http::ReplyParser& interim)
{
    // the origin's own 100 is no news to a client cuttle already told to go on
    if (interim.statusCode() == 100 && sentContinue_)
        return;
    interim_ += BuildInterimReply(interim.statusCode(), interim.reason(), interim.fields());
    if (interim_.size() > services_.settings().replyHeaderMaxSize) {
        // an origin that sends 1xx after 1xx must not grow this without bound
        interim_.clear();
        return;
    }
    sendInterim();
}

void Client::Connection::sendInterim()
{
    const ssize_t n = transmit(interim_);
    if (n > 0)
        interim_.erase(0, size_t(n)); // the rest goes out before the final reply
}

void Client::Connection::prependInterim(std::string& head)
{
    head.insert(0, interim_);
    std::string().swap(interim_);
}

void Client::Connection::startStreaming()
{
    const auto& settings = services_.settings();
    const bool isOwner = tx_->forwarder && !tx_->isJoiner;
    if (isOwner && !tx_->cacheKey.empty() && !tx_->isDecided)
        decideStore(); // may switch to the stored reply (a revalidation)
    if (isOwner)
        invalidateAfterUnsafe();
    if (tx_->replyFacts && replyIsDenied(isOwner))
        return;
    // the ranges of the whole object fetched for them, or of the stored
    // object a revalidation (shared or not) chose to serve (the request's own
    // bytes may be gone: its fields are parsed again from its copy)
    const bool servesStale = tx_->stale && tx_->reply == tx_->stale && !tx_->notModified;
    if (((isOwner && tx_->wholeForRange) || servesStale) && !tx_->rangeStatus && !requestIsHead_) {
        Http::RequestParser again(tx_->requestHead.size() + 1);
        planRanges(*tx_->reply, requestFieldsCopy(again));
    }
    ClientReplySpec spec;
    spec.reply = tx_->reply->reply();
    spec.isHit = tx_->isHit || tx_->isJoiner;
    spec.age = tx_->age;
    spec.notModified = tx_->notModified;
    if (tx_->rangeStatus) {
        spec.status = tx_->rangeStatus;
        spec.bodyLength = tx_->rangeLength;
        spec.dropContentType = tx_->isMultipart;
        spec.extraFields = tx_->rangeFields;
    }
    spec.clientIsHttp11 = clientIsHttp11_;
    spec.requestWasHead = requestIsHead_;
    // a body the client is still sending when the reply is done would be
    // taken for the next request: such a connection closes after the reply
    spec.keepAlive = !closeAfterReply_ && !services_.isShuttingDown();
    if (settings.via)
        spec.viaName = services_.viaName();
    spec.cacheName = services_.visibleHostname();
    spec.cachePort = localPort_;
    auto out = BuildClientReply(spec);
    if (tx_->pageContext)
        editReplyHead(out.head, tx_->pageContext->request, spec.reply,
                      spec.notModified ? 304
                      : spec.status    ? spec.status
                                       : spec.reply->status);
    if (out.closeAfter)
        closeAfterReply_ = true;
    noteReplyHead(out.head);
    prependInterim(out.head);
    if (!tx_->segments.empty() && !requestIsHead_)
        tx_->writer.startSegments(std::move(out.head), std::move(tx_->segments), *tx_->reply);
    else if (!tx_->segments.empty())
        tx_->writer.startSegments(std::move(out.head), {Store::BodyWriter::Segment{}}, *tx_->reply);
    else
        tx_->writer.start(std::move(out.head), out.framing, *tx_->reply);
    if (tx_->file) // a disk hit: the body goes from its file with sendfile(2)
        tx_->writer.setFileBody(tx_->file->fd(), tx_->file->offset(), tx_->file->length());
    if (pendingLog_) {
        auto& record = *pendingLog_;
        record.resultCode = tx_->resultCode;
        record.httpStatus = spec.notModified ? 304 : spec.status ? spec.status : spec.reply->status;
        if (isOwner) {
            record.hierarchy = hierarchyCode();
            record.peerAddress = tx_->forwarder->peerHost();
            record.peerStatus = spec.reply->status;
        } else {
            record.hierarchy = "HIER_NONE";
        }
        if (const auto type = spec.reply->findField("Content-Type"))
            record.mimeType = std::string(*type);
    }
    state_ = State::Streaming;
    writeBlocked_ = false;
    streamSome();
}

void Client::Connection::streamSome()
{
    if (writing_ || state_ != State::Streaming || tx_->warming || replyGrewTooBig())
        return;
    writing_ = true;
    const auto result =
        tls_ ? tx_->writer.write(*this, *tx_->reply) : tx_->writer.write(fd_.get(), *tx_->reply);
    writing_ = false;
    if (pendingLog_)
        pendingLog_->bytesSent = tx_->writer.bytesWritten();
    switch (result) {
    case Store::BodyWriter::Result::Blocked:
        writeBlocked_ = true;
        return;
    case Store::BodyWriter::Result::Caught:
        (void)replyGrewTooBig(true);
        return;
    case Store::BodyWriter::Result::Done:
        endTransaction();
        return;
    case Store::BodyWriter::Result::Cold:
        warmFile();
        return;
    case Store::BodyWriter::Result::Error:
        if (tx_->reply->hasFailed())
            debugs(33, 2, "reply to " << peerHost_ << " broke off: " << tx_->reply->failure());
        else
            debugs(33, 2, "write to client " << peerHost_ << ": " << std::strerror(tx_->writer.error()));
        // Squid 5.7 logs an origin that broke off mid-body as TCP_MISS with
        // the bytes sent, and a client that went away as TCP_MISS_ABORTED
        if (pendingLog_ && !tx_->reply->hasFailed())
            pendingLog_->resultCode = "TCP_MISS_ABORTED";
        close();
        return;
    }
}

void Client::Connection::warmFile()
{
    // sendfile() from pages that are not cached would wait for the disk on
    // the loop (doc/design.md "The disk store")
    const auto [offset, length] = tx_->writer.coldRange();
    debugs(47, 3, "a disk hit's bytes " << offset << "+" << length << " are cold: warming them");
    tx_->warming = std::make_shared<bool>(true);
    services_.disk()->warm(tx_->file, offset, length, [this, token = std::weak_ptr<bool>(tx_->warming)] {
        const auto warming = token.lock();
        if (!warming || !tx_ || tx_->warming != warming)
            return; // the transaction (or the connection) is gone
        tx_->warming.reset();
        tx_->writer.noteWarmed();
        streamSome();
    });
}

void Client::Connection::forwardingFailed()
{
    const auto& forwarder = *tx_->forwarder;
    if (tx_->stale && forwarder.failure() != Server::Failure::Aborted && serveStaleOnError())
        return;
    answerFailure(forwarder.failure(), forwarder.peerHost(), forwarder.failureErrno(), tx_->reply->failure());
}

void Client::Connection::answerFailure(Server::Failure why, std::string peer, int xerrno,
                                       const std::string& text)
{
    Http::StatusCode status = Http::StatusCode::BadGateway;
    std::string templateName = "ERR_READ_ERROR";
    const auto contextHolder = std::move(tx_->pageContext);
    auto& context = *contextHolder;
    context.serverAddress = peer;
    context.xerrno = xerrno; // %E: "Connection refused", as Squid shows
    switch (why) {
    case Server::Failure::DnsFail:
        status = Http::StatusCode::ServiceUnavailable;
        templateName = "ERR_DNS_FAIL";
        context.dnsError = text;
        break;
    case Server::Failure::ConnectFail:
        status = Http::StatusCode::ServiceUnavailable;
        templateName = "ERR_CONNECT_FAIL";
        break;
    case Server::Failure::ReadTimeout:
        status = Http::StatusCode::GatewayTimeout;
        templateName = "ERR_READ_TIMEOUT";
        break;
    case Server::Failure::WriteError:
        templateName = "ERR_WRITE_ERROR";
        break;
    case Server::Failure::InvalidReply:
        templateName = "ERR_INVALID_RESP";
        break;
    case Server::Failure::ZeroSize:
        templateName = "ERR_ZERO_SIZE_OBJECT";
        break;
    case Server::Failure::ReplyTooBig:
        templateName = "ERR_TOO_BIG";
        break;
    case Server::Failure::SecureConnectFail:
        // Squid's Security::PeerConnector: 503, or 504 when the handshake timed out
        status =
            xerrno == ETIMEDOUT ? Http::StatusCode::GatewayTimeout : Http::StatusCode::ServiceUnavailable;
        templateName = "ERR_SECURE_CONNECT_FAIL";
        if (tx_->forwarder) {
            context.errorDetailName = tx_->forwarder->tlsFailure().name;
            context.errorDetail = tx_->forwarder->tlsFailure().detail;
        }
        break;
    case Server::Failure::Aborted:
        // the client's own body broke off: a miss the client abandoned, sent
        // to the origin if it was connected (Squid 5.7: TCP_MISS_ABORTED/000)
        if (pendingLog_) {
            pendingLog_->resultCode = "TCP_MISS_ABORTED";
            if (!context.serverAddress.empty()) {
                pendingLog_->hierarchy = hierarchyCode();
                pendingLog_->peerAddress = context.serverAddress;
            }
        }
        close();
        return;
    case Server::Failure::ReadError:
    case Server::Failure::None:
        break;
    }
    if (pendingLog_) {
        pendingLog_->resultCode = "TCP_MISS";
        pendingLog_->peerAddress = context.serverAddress;
    }
    if (tx_->stale) {
        // RFC 9111 4.2.4 and 5.2.2.2: a stored object that may not be served
        // stale while its origin cannot be reached gets a 504
        status = Http::StatusCode::GatewayTimeout;
        if (pendingLog_)
            pendingLog_->resultCode = "TCP_REFRESH_FAIL_ERR";
    }
    if (readingBody_) {
        // the rest of the body cannot be told from the next request
        endRequestBody(false);
        closeAfterReply_ = true;
    }
    stopForwarding();
    reply(status, templateName, context);
    if (pendingLog_ && !peer.empty())
        pendingLog_->hierarchy = hierarchyCode();
    // written from the loop, not from inside the forwarder that just failed
    kick_ = services_.loop().defer([this] { drive(); }, this);
}

void Client::Connection::endTransaction()
{
    if (readingBody_) {
        // the origin answered before the whole body arrived: the rest cannot
        // be told from the next request
        endRequestBody(false);
        closeAfterReply_ = true;
    }
    stopForwarding();
    afterReply();
    if (state_ == State::ReadingHead) {
        // the next request (pipelined, or still in the socket) is read from
        // the loop, not from inside the forwarder that just finished
        kick_ = services_.loop().defer([this] { drive(); }, this);
    }
}

void Client::Connection::stopForwarding()
{
    icpPing_.reset();
    if (!tx_)
        return;
    tx_->dialer.reset(); // a CONNECT's dial, if any: no callback after this
    tx_->parentConnect.reset();
    const bool handedOver = isHandedOver();
    // a fetched reply that was not stored goes with its transaction (one in
    // memory is let go by the index, which tells the store log itself)
    if (tx_->fetch && !tx_->fetch->isKept() && tx_->storedKey.empty() && !handedOver)
        services_.noteReleased(tx_->method == Http::Method::Other ? tx_->otherMethod
                                                                  : Http::MethodName(tx_->method),
                               tx_->url, *tx_->fetch);
    if (tx_->forwarder)
        tx_->forwarder->setInterimHandler({}); // whoever takes it over has no client to tell
    if (tx_->fetch && !handedOver)             // collapsed_forwarding: newcomers no longer wait for it
        services_.inFlight().forget(tx_->fetch, tx_->cacheKey, tx_->staleKey);
    if (handedOver) {
        // the reply is decided on its head without this client, for the
        // others (and newcomers, who may still join it): a DetachedFetch
        // takes this client's place among its readers
        auto fetch = std::make_unique<DetachedFetch>(services_, storeSpec(), std::move(tx_->forwarder),
                                                     tx_->fetch, *this);
        if (tx_->replyFacts)
            fetch->setStoreFacts(*tx_->replyFacts);
        services_.startDetached(std::move(fetch));
    } else if (tx_->reply) {
        tx_->reply->removeReader(*this); // the last reader gone stops the forwarder
    }
    // ... unless it finishes storing the object, or other clients wait for it
    if (tx_->forwarder && (tx_->forwarder->isFinishingAlone() ||
                           (!tx_->forwarder->isDone() && tx_->fetch && tx_->fetch->hasReaders())))
        services_.adoptFinishing(std::move(tx_->forwarder));
    // a small stored object leaves its read block for one that fits it
    if (tx_->reply && !tx_->storedKey.empty() && tx_->reply->isCompactable()) {
        auto& reply = *tx_->reply;
        (void)services_.cache().change(tx_->storedKey, reply, [&reply] { (void)reply.compactIfSmall(); });
    }
    if (tx_->body) {
        if (readingBody_)
            endRequestBody(false);
        tx_->body->entry->setProducer(nullptr);
    }
    writing_ = writeBlocked_ = false;
    // destroyed off the forwarder's call stack (deferred, or by the destructor)
    retired_.push_back(std::move(tx_));
    if (!reaper_.isPending())
        reaper_ = services_.loop().defer([this] { retired_.clear(); }, this);
}

bool Client::Connection::isHandedOver() const
{
    const auto& tx = *tx_;
    return tx.forwarder && !tx.isJoiner && tx.fetch && tx.reply == tx.fetch && !tx.fetch->reply() &&
           !tx.fetch->hasFailed() && !tx.fetch->isComplete() && tx.fetch->readerCount() > 1 && tx.mayStore &&
           !tx.cacheKey.empty() && !requestIsHead_;
}

void Client::Connection::handleParseError()
{
    // a head that fails after its request line still names its method
    requestIsHead_ = parser_.method() == Http::Method::Head && !parser_.methodToken().empty();
    const auto error = parser_.error();
    const auto status = parser_.errorStatus();
    debugs(33, 2, "bad request from " << peerHost_ << ": " << parser_.errorText());

    // Squid 5.7's choices, checked against it: garbage -> ERR_PROTOCOL_UNKNOWN
    // logged "WORD error:invalid-request"; too large -> 431 ERR_TOO_BIG
    // logged "METHOD error:request-too-large"; HTTP/2.0 -> 505
    // ERR_UNSUP_HTTPVERSION; a bad field -> ERR_INVALID_REQ with the URL.
    std::string templateName = "ERR_INVALID_REQ";
    std::string url;
    if (!parser_.target().empty())
        url = std::string(parser_.target());
    switch (error) {
    case Http::ParseError::BadRequestLine:
    case Http::ParseError::BadMethod: // Squid 5.7: a non-token method is no HTTP request line at all
        templateName = "ERR_PROTOCOL_UNKNOWN";
        url = "error:invalid-request";
        break;
    case Http::ParseError::TooLarge:
        templateName = "ERR_TOO_BIG";
        url = "error:request-too-large";
        break;
    case Http::ParseError::UnsupportedVersion:
        templateName = "ERR_UNSUP_HTTPVERSION";
        break;
    case Http::ParseError::UnsupportedTransferCoding:
        templateName = "ERR_UNSUP_REQ";
        break;
    default:
        break;
    }
    if (url.empty())
        url = "error:invalid-request";

    pendingLog_ = std::make_unique<Log::AccessRecord>();
    auto& record = *pendingLog_;
    record.start = requestStart_;
    record.clientAddress = peerHost_;
    // the method token once the request line parsed; before that the
    // leading token characters, as Squid logs them ("-" when there are none)
    record.method =
        parser_.methodToken().empty() ? std::string(parser_.firstWord()) : std::string(parser_.methodToken());
    record.url = url;

    Errors::PageContext context;
    context.url = url;
    context.method = record.method;

    closeAfterReply_ = true;
    buffer_ = nullptr; // nothing after a broken head can be trusted
    parsedOffset_ = 0;
    reply(status, templateName, context);
}

void Client::Connection::completePageContext(Errors::PageContext& context) const
{
    const auto& settings = services_.settings();
    context.clientAddress = peerHost_;
    context.visibleHostname = services_.visibleHostname();
    context.localAddress = localHost_;
    context.stripQueryTerms = settings.stripQueryTerms;
    context.adminEmail = settings.cacheMgr;
    context.emailErrorData = settings.emailErrData;
    context.htmlText = settings.errHtmlText;
}

void Client::Connection::reply(Http::StatusCode status, const std::string& templateName,
                               Errors::PageContext& context,
                               std::vector<std::pair<std::string, std::string>> extraFields)
{
    completePageContext(context);
    context.localPort = localPort_;
    context.requestStart = requestStart_.tv_sec;
    // an intercepted TLS client's made-up CONNECT: the page goes over the
    // bumped connection, which closes after it (deliverAfterBump())
    const bool afterBump = intercepted_ && bump_ && bump_->ca;
    if (afterBump)
        closeAfterReply_ = true;

    Errors::ReplyOptions options;
    options.close = closeAfterReply_;
    // RFC 9110 section 9.3.2: no content in a reply to HEAD. requestIsHead_,
    // not parser_: an origin's failure is answered after parser_ has moved on
    // to a pipelined request (a 502 body to a HEAD desynchronised the client)
    options.headOnly = requestIsHead_;
    const auto& host = services_.visibleHostname();
    options.extraFields = std::move(extraFields);
    options.extraFields.emplace_back("X-Cache", "MISS from " + host);
    const auto& settings = services_.settings();
    if (settings.httpdSuppressVersionString)
        context.software = SoftwareName(settings);
    if (settings.via)
        options.extraFields.emplace_back("Via", "1.1 " + services_.viaName());
    if (!closeAfterReply_)
        options.extraFields.emplace_back("Connection", "keep-alive");
    out_ = Errors::buildReply(Http::ToInt(status), templateName, context, services_.errorPages(), options);
    editReplyHead(out_, context.request, nullptr, Http::ToInt(status));
    noteReplyHead(out_);
    outOffset_ = 0;
    prependInterim(out_);

    if (pendingLog_) {
        pendingLog_->errorCode = templateName;
        pendingLog_->httpStatus = Http::ToInt(status);
        pendingLog_->mimeType = "text/html";
        pendingLog_->hierarchy = "HIER_NONE";
    }
    if (afterBump) {
        deliverAfterBump(Http::ToInt(status), templateName);
        return;
    }
    state_ = State::Writing;
    armTimer(services_.settings().readTimeout);
}

bool Client::Connection::writeSome()
{
    while (outOffset_ < out_.size()) {
        const ssize_t n = transmit(std::string_view(out_).substr(outOffset_));
        if (n > 0) {
            outOffset_ += static_cast<size_t>(n);
            if (pendingLog_)
                pendingLog_->bytesSent = outOffset_;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return false; // the next writable event resumes
        debugs(33, 2, "write to client " << peerHost_ << ": " << std::strerror(errno));
        close();
        return false;
    }
    afterReply();
    return true;
}

void Client::Connection::afterReply()
{
    ++requests_;
    logTransaction();
    stopForwarding();         // an answer made without the origin (a 504, PURGE) leaves its transaction too
    std::string().swap(out_); // give the reply's memory back
    outOffset_ = 0;
    requestStarted_ = false;
    if (closeAfterReply_ || services_.isShuttingDown()) {
        startLingering();
        return;
    }
    state_ = State::ReadingHead;
    if (buffer_ && parsedOffset_ < buffer_->size())
        return; // a pipelined request is waiting: processBuffered() times it
    // Idle until the next request: give back the parser's field index too
    // (reset() keeps its capacity, 32 bytes a field: 512 B for a 10-field
    // head, which doubled the cost of an idle kept-alive connection).
    parser_ = Http::RequestParser(services_.settings().requestHeaderMaxSize);
    armTimer(services_.settings().clientIdlePconnTimeout);
}

void Client::Connection::startLingering()
{
    buffer_ = nullptr;
    parsedOffset_ = 0;
    state_ = State::Lingering;
    if (tls_)
        tls_->closeNotify();
    (void)::shutdown(fd_.get(), SHUT_WR); // the client sees the end of our reply
    armTimer(LingerTime);
}

void Client::Connection::lingerRead()
{
    char sink[4096];
    for (;;) {
        const ssize_t n = receive(sink, sizeof(sink));
        if (n > 0)
            continue;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        close(); // EOF or error: the client is done
        return;
    }
}

void Client::Connection::armTimer(Comm::Milliseconds timeout)
{
    if (timeout <= Comm::Milliseconds(0)) {
        timer_.cancel();
        return;
    }
    timer_ = services_.loop().schedule(
        timeout, [this] { onTimeout(); }, this);
}

void Client::Connection::onTimeout()
{
    debugs(33, 3, "closing client " << peerHost_ << " after a timeout in state " << static_cast<int>(state_));
    close();
}

void Client::Connection::close()
{
    if (state_ == State::Closed)
        return;
    // Squid 5.7 logs a connection that ends before any request head as
    // NONE_NONE/000 error:transaction-end-before-headers; so does cuttle
    const bool endsBeforeHeaders = !pendingLog_ && requests_ == 0;
    state_ = State::Closed;
    timer_.cancel();
    kick_.cancel();
    authCheck_.cancel();
    helperCheck_.cancel();
    lookups_.cancel();
    dstLookup_.cancel();
    registration_.cancel();
    stopForwarding();
    tls_.reset(); // its close_notify first
    fd_.reset();
    buffer_ = nullptr;
    if (endsBeforeHeaders) {
        pendingLog_ = std::make_unique<Log::AccessRecord>();
        pendingLog_->start = requestStarted_ ? requestStart_ : Now();
        pendingLog_->clientAddress = peerHost_;
        pendingLog_->method = "-";
        pendingLog_->url = "error:transaction-end-before-headers";
    }
    if (pendingLog_)
        logTransaction(); // an aborted reply is logged too, with the bytes sent
    services_.release(*this);
}

void Client::Connection::noteReplyHead(std::string_view bytes)
{
    if (!pendingLog_)
        return;
    const size_t end = bytes.find("\r\n\r\n");
    const std::string_view head = bytes.substr(0, end == std::string_view::npos ? bytes.size() : end + 4);
    pendingLog_->replyHeadSize = head.size();
    if (services_.accessLog().needs().replyHead)
        pendingLog_->replyHead = head;
}

void Client::Connection::logTransaction()
{
    if (!pendingLog_)
        return;
    auto& record = *pendingLog_;
    record.finish(Now());
    record.clientPort = peerPort_;
    record.localAddress = localHost_;
    record.localPort = localPort_;
    services_.counters().count(record);
    services_.accessLog().log(record);
    pendingLog_.reset();
}
