/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/Fields.h"
#include "http/Head.h"
#include "tunnel/ParentConnect.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <sys/socket.h>

namespace {

/// how much one recv() asks for
constexpr size_t ReadChunk = 16 * 1024;

} // namespace

Tunnel::ParentConnect::ParentConnect(Comm::Loop& loop, Comm::Descriptor&& fd, std::string request,
                                     Comm::Milliseconds timeout, size_t maxHeadSize, Callback done)
    : loop_(loop), fd_(std::move(fd)), request_(std::move(request)), parser_(maxHeadSize),
      done_(std::move(done))
{
    timer_ = loop_.schedule(
        timeout, [this] { fail("no reply from the parent in time"); }, this);
}

Tunnel::ParentConnect::~ParentConnect() = default;

void Tunnel::ParentConnect::start()
{
    // a fresh socket is writable: its first event (from the loop) sends
    registration_ = loop_.watch(fd_.get(), *this);
}

void Tunnel::ParentConnect::handleIo(const Comm::IoEvents& events)
{
    if (sent_ < request_.size() && (events.writable || events.error)) {
        send();
        return; // the reply comes after the request: a later event reads it
    }
    if (events.readable || events.hangup || events.error)
        receive();
}

void Tunnel::ParentConnect::handleBug(const std::exception& e) noexcept
{
    try {
        fail(std::string("internal error: ") + e.what());
    } catch (...) {
    }
}

void Tunnel::ParentConnect::send()
{
    while (sent_ < request_.size()) {
        const ssize_t n = ::send(fd_.get(), request_.data() + sent_, request_.size() - sent_, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return; // the next writable event goes on
        if (n < 0) {
            fail(std::string("writing the CONNECT request: ") + std::strerror(errno));
            return;
        }
        sent_ += size_t(n);
    }
    receive(); // the parent may have answered already
}

void Tunnel::ParentConnect::receive()
{
    bool closed = false;
    for (;;) {
        const size_t old = buffer_.size();
        buffer_.resize(old + ReadChunk);
        const ssize_t n = ::recv(fd_.get(), buffer_.data() + old, ReadChunk, 0);
        buffer_.resize(old + std::max<ssize_t>(n, 0));
        if (n > 0)
            continue;
        if (n == 0) {
            closed = true;
            break;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN)
            break;
        fail(std::string("reading the parent's reply: ") + std::strerror(errno));
        return;
    }
    if (!headDone_) {
        switch (parser_.parse(buffer_)) {
        case Http::ParseResult::NeedMore:
            if (closed)
                fail("the parent closed the connection before its reply head ended");
            return;
        case Http::ParseResult::Error:
            fail(std::string("bad reply from the parent: ") + parser_.errorText());
            return;
        case Http::ParseResult::Done:
            if (!onHead())
                return; // established
            break;
        }
    }
    const size_t body = buffer_.size() - bodyStart_;
    size_t relayed = 0; // body bytes that go to the client, once the reply is whole
    if (chunked_) {
        while (!chunksOver_ && chunksEnd_ < buffer_.size()) {
            const auto piece = chunks_.next(std::string_view(buffer_).substr(chunksEnd_));
            chunksEnd_ += piece.length;
            using Kind = Http::ChunkedDecoder::Piece::Kind;
            chunksOver_ = piece.kind == Kind::Done || piece.kind == Kind::Error;
            if (piece.kind == Kind::NeedMore)
                break;
        }
        if (!chunksOver_ && !closed && body < MaxRelayedBody)
            return;
        relayed = std::min(chunks_.isDone() ? chunksEnd_ - bodyStart_ : body, MaxRelayedBody);
    } else if (untilClose_) {
        if (!closed && body < MaxRelayedBody)
            return;
        relayed = std::min(body, MaxRelayedBody);
    } else {
        if (body < bodyWanted_ && !closed)
            return;
        relayed = std::min(body, bodyWanted_);
    }
    Result r;
    r.outcome = Outcome::Refused;
    r.status = parser_.statusCode();
    r.reply = relayHead_;
    r.reply.append(buffer_, bodyStart_, relayed);
    finish(std::move(r));
}

bool Tunnel::ParentConnect::onHead()
{
    // Squid 5.7 (Http::Tunneler::handleResponse): only a 200 opens the tunnel
    if (parser_.statusCode() == 200) {
        registration_.cancel(); // the tunnel watches it
        Result r;
        r.outcome = Outcome::Established;
        r.status = 200;
        r.leftover = buffer_.substr(parser_.headSize());
        r.fd = std::move(fd_);
        finish(std::move(r));
        return false;
    }
    headDone_ = true;
    bodyStart_ = parser_.headSize();
    switch (parser_.framing(false, true)) {
    case Http::ReplyParser::Framing::None:
        break;
    case Http::ReplyParser::Framing::Length:
        bodyWanted_ = size_t(std::min<uint64_t>(parser_.contentLength().value_or(0), MaxRelayedBody));
        break;
    case Http::ReplyParser::Framing::Chunked:
        chunked_ = true;
        chunksEnd_ = bodyStart_;
        break;
    case Http::ReplyParser::Framing::Close:
        untilClose_ = true;
        break;
    }
    // the head as the parent sent it, less its hop-by-hop fields; the
    // client connection ends after it (the parent's ends here too)
    relayHead_ =
        "HTTP/1.1 " + std::to_string(parser_.statusCode()) + " " + std::string(parser_.reason()) + "\r\n";
    for (const auto& field : parser_.fields()) {
        if (Http::EqualsIgnoreCase(field.name, "Connection") ||
            Http::EqualsIgnoreCase(field.name, "Keep-Alive") ||
            Http::EqualsIgnoreCase(field.name, "Proxy-Connection") || parser_.hasConnectionToken(field.name))
            continue;
        Http::AppendField(relayHead_, field.name, field.value);
    }
    Http::AppendField(relayHead_, "Connection", "close");
    relayHead_ += "\r\n";
    return true;
}

void Tunnel::ParentConnect::fail(const std::string& why)
{
    Result r;
    r.outcome = Outcome::Failed;
    r.status = headDone_ ? parser_.statusCode() : 0;
    r.error = why;
    finish(std::move(r));
}

void Tunnel::ParentConnect::finish(Result&& result)
{
    timer_.cancel();
    registration_.cancel();
    fd_.reset();
    const auto done = std::move(done_);
    done_ = nullptr;
    if (done)
        done(std::move(result)); // may destroy this: nothing after it
}
