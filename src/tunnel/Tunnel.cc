/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "tunnel/Tunnel.h"
#include "base/TextException.h"
#include "log/CacheLog.h"
#include "sbuf/BlockPool.h"

#include <cerrno>
#include <cstring>

#include <sys/socket.h>
#include <unistd.h>

namespace {

/// cache.log section of tunnels (Squid's)
constexpr int DebugSection = 26;

/// the read block of a direction without a pipe
constexpr size_t CopyBlockSize = 64 * 1024;

/// bytes one call may read in one direction before it yields to the loop
constexpr uint64_t MaxBytesPerTurn = 4 * 1024 * 1024;

bool IsWouldBlock(int error)
{
    return error == EAGAIN || error == EWOULDBLOCK;
}

} // namespace

Tunnel::Tunnel::Tunnel(Comm::Loop& loop, Comm::Descriptor&& client, Comm::Descriptor&& server,
                       Comm::Milliseconds idleTimeout, DoneCallback done)
    : loop_(loop), client_(std::move(client)), server_(std::move(server)), idleTimeout_(idleTimeout),
      done_(std::move(done))
{
    Must(client_.isOpen() && server_.isOpen());
}

Tunnel::Tunnel::~Tunnel()
{
    // registrations and timers go before the descriptors they refer to
    doneTimer_.cancel();
    idleTimer_.cancel();
    up_.resume.cancel();
    down_.resume.cancel();
    clientRegistration_.cancel();
    serverRegistration_.cancel();
}

void Tunnel::Tunnel::start(std::string_view clientPending)
{
    Must(!started_);
    started_ = true;
    lastMove_ = Comm::Clock::now();
    clientRegistration_ = loop_.watch(client_.get(), clientSide_);
    serverRegistration_ = loop_.watch(server_.get(), serverSide_);
    // The registrations report the sockets' current readiness at the next
    // iteration (EPOLL_CTL_ADD is an edge), so nothing is read here: a quiet
    // direction makes no pipe.
    armIdleTimer(idleTimeout_);
    if (!clientPending.empty())
        writePending(clientPending);
}

void Tunnel::Tunnel::writePending(std::string_view pending)
{
    // Written from the caller's buffer, so normally never copied: a freshly
    // connected server socket takes a request buffer's worth at once.
    auto& d = up_;
    while (!pending.empty()) {
        const ssize_t n = ::send(server_.get(), pending.data(), pending.size(), MSG_NOSIGNAL);
        if (n > 0) {
            noteMoved(d, static_cast<size_t>(n));
            pending.remove_prefix(static_cast<size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && IsWouldBlock(errno)) {
            d.sinkBlocked = true;
            break;
        }
        fail(SideId::Server, "write", n < 0 ? errno : EPIPE);
        return;
    }
    if (pending.empty())
        return;
    // the server did not take it all: hold the rest (bounded by the
    // client's request buffer, which is at most one pool block)
    d.block = Sbuf::MemBlob::MakeCopy(Sbuf::DefaultPool(), pending);
    d.blockOffset = 0;
    Sbuf::DefaultPool().copyStats().countBodyCopy(pending.size());
    usedCopy_ = true;
}

void Tunnel::Tunnel::handleIo(SideId id, const Comm::IoEvents& events)
{
    if (ended_)
        return;
    if (events.error) {
        int error = 0;
        socklen_t len = sizeof(error);
        if (::getsockopt(socket(id).get(), SOL_SOCKET, SO_ERROR, &error, &len) == 0 && error != 0) {
            fail(id, "socket error", error);
            return;
        }
    }
    // the direction this socket feeds first: draining a pipe may make room
    // for the other direction's source
    auto& outgoing = id == SideId::Client ? down_ : up_;
    auto& incoming = id == SideId::Client ? up_ : down_;
    if (events.writable && outgoing.sinkBlocked) {
        outgoing.sinkBlocked = false;
        pump(outgoing);
    }
    if (ended_)
        return;
    if (events.readable && !incoming.sourceEof) {
        incoming.sourceReady = true;
        pump(incoming);
    }
}

void Tunnel::Tunnel::handleBug(const std::exception& e) noexcept
{
    try {
        if (!ended_)
            end(std::string("bug: ") + e.what());
    } catch (...) {
        // nothing more can be done; the destructor still closes everything
    }
}

void Tunnel::Tunnel::pump(Direction& d)
{
    uint64_t readBytes = 0;
    int readsInARow = 0;
    while (!ended_ && !d.ended) {
        Step step;
        if (d.block && d.blockOffset < d.block->size()) {
            step = writeBlock(d);
        } else if (d.pipe && !d.pipe->isEmpty()) {
            step = writePipe(d);
        } else {
            // everything read so far is out: the block can go back to the pool
            d.block = nullptr;
            d.blockOffset = 0;
            if (d.sourceEof) {
                endDirection(d);
                return;
            }
            if (!d.sourceReady)
                return; // the next readable event resumes
            if (readBytes >= MaxBytesPerTurn) {
                // the source is not drained, so no event will come: resume
                // ourselves after the loop has served the others
                if (!d.resume.isPending())
                    d.resume = loop_.defer([this, &d] { pump(d); }, &clientSide_);
                return;
            }
            if (!d.pipe && !d.pipeFailed && !makePipe(d))
                d.pipeFailed = true;
            const uint64_t before = readBytes;
            step = d.pipe ? readIntoPipe(d, readBytes) : readIntoBlock(d, readBytes);
            // bulk traffic: the source had more after a whole read went out
            if (readBytes > before && ++readsInARow >= 2 && d.pipe && !d.pipe->isGrown()) {
                d.pipe->grow();
                debugs(DebugSection, 5, "tunnel pipe size " << d.pipe->capacity());
            }
        }
        if (step != Step::Moved)
            return;
    }
}

Tunnel::Tunnel::Step Tunnel::Tunnel::writeBlock(Direction& d)
{
    const auto bytes = d.block->view().substr(d.blockOffset);
    const ssize_t n = ::send(socket(d.sink).get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
        d.blockOffset += static_cast<size_t>(n);
        noteMoved(d, static_cast<size_t>(n));
        return Step::Moved;
    }
    if (n < 0 && errno == EINTR)
        return Step::Moved;
    if (n < 0 && IsWouldBlock(errno)) {
        d.sinkBlocked = true;
        return Step::Wait;
    }
    fail(d.sink, "write", n < 0 ? errno : EPIPE);
    return Step::Stop;
}

Tunnel::Tunnel::Step Tunnel::Tunnel::writePipe(Direction& d)
{
    const ssize_t n = d.pipe->drainTo(socket(d.sink).get(), d.pipe->size());
    if (n > 0) {
        usedPipe_ = true;
        noteMoved(d, static_cast<size_t>(n));
        return Step::Moved;
    }
    if (n < 0 && errno == EINTR)
        return Step::Moved;
    if (n < 0 && IsWouldBlock(errno)) {
        d.sinkBlocked = true;
        return Step::Wait;
    }
    // 0 would mean an empty pipe, which its count says it is not
    fail(d.sink, "splice to socket", n < 0 ? errno : EIO);
    return Step::Stop;
}

Tunnel::Tunnel::Step Tunnel::Tunnel::readIntoPipe(Direction& d, uint64_t& readBytes)
{
    // The pipe is empty here (pump() reads only then), so EAGAIN means the
    // source is drained, never that the pipe is full.
    const ssize_t n = d.pipe->fillFrom(socket(d.source).get(), d.pipe->capacity());
    if (n > 0) {
        readBytes += static_cast<uint64_t>(n);
        lastMove_ = loop_.now();
        return Step::Moved;
    }
    if (n == 0) {
        d.sourceEof = true;
        d.sourceReady = false;
        return Step::Moved;
    }
    if (errno == EINTR)
        return Step::Moved;
    if (IsWouldBlock(errno)) {
        d.sourceReady = false;
        return Step::Wait;
    }
    fail(d.source, "splice from socket", errno);
    return Step::Stop;
}

Tunnel::Tunnel::Step Tunnel::Tunnel::readIntoBlock(Direction& d, uint64_t& readBytes)
{
    auto& pool = Sbuf::DefaultPool();
    d.block = Sbuf::MemBlob::Make(pool, CopyBlockSize);
    d.blockOffset = 0;
    const auto space = d.block->reserveSpace();
    const ssize_t n = ::recv(socket(d.source).get(), space.data(), space.size(), 0);
    if (n > 0) {
        d.block->commit(static_cast<size_t>(n));
        readBytes += static_cast<uint64_t>(n);
        // the bytes cross user space on their way: one copy each
        pool.copyStats().countBodyCopy(static_cast<size_t>(n));
        usedCopy_ = true;
        lastMove_ = loop_.now();
        return Step::Moved;
    }
    d.block = nullptr; // an idle direction holds no block
    if (n == 0) {
        d.sourceEof = true;
        d.sourceReady = false;
        return Step::Moved;
    }
    if (errno == EINTR)
        return Step::Moved;
    if (IsWouldBlock(errno)) {
        d.sourceReady = false;
        d.pipeFailed = false; // try for a pipe again at the next burst
        return Step::Wait;
    }
    fail(d.source, "read", errno);
    return Step::Stop;
}

bool Tunnel::Tunnel::makePipe(Direction& d)
{
    d.pipe = Sbuf::Pipe::Make();
    if (d.pipe)
        return true;
    const int error = errno;
    debugs(DebugSection, 2,
           "no pipe for a tunnel (" << std::strerror(error) << "): copying through user space");
    return false;
}

void Tunnel::Tunnel::endDirection(Direction& d)
{
    // RFC 9110 section 9.3.6: the tunnel relays each side's close; the far
    // peer sees our FIN only after the last byte of this direction
    if (::shutdown(socket(d.sink).get(), SHUT_WR) != 0)
        debugs(DebugSection, 3,
               "tunnel shutdown of the " << Name(d.sink) << " side: " << std::strerror(errno));
    d.ended = true;
    d.sourceReady = false;
    d.resume.cancel();
    d.pipe.reset();
    d.block = nullptr;
    if (up_.ended && down_.ended)
        end(std::string());
}

void Tunnel::Tunnel::noteMoved(Direction& d, size_t n)
{
    if (&d == &up_)
        stats_.clientToServer += n;
    else
        stats_.serverToClient += n;
    lastMove_ = loop_.now();
}

void Tunnel::Tunnel::armIdleTimer(Comm::Milliseconds delay)
{
    if (idleTimeout_ <= Comm::Milliseconds(0))
        return;
    idleTimer_ = loop_.schedule(
        delay, [this] { checkIdle(); }, &clientSide_);
}

void Tunnel::Tunnel::checkIdle()
{
    // Moves only note the time; the timer checks it when due and re-arms for
    // the rest, instead of being rescheduled on every splice.
    const auto quiet = std::chrono::duration_cast<Comm::Milliseconds>(Comm::Clock::now() - lastMove_);
    if (quiet < idleTimeout_) {
        armIdleTimer(idleTimeout_ - quiet);
        return;
    }
    debugs(DebugSection, 3, "tunnel idle for " << quiet.count() << " ms");
    end("idle timeout: nothing moved for " + std::to_string(quiet.count()) + " ms");
}

void Tunnel::Tunnel::fail(SideId side, const char* operation, int error)
{
    std::string text = Name(side);
    text += ' ';
    text += operation;
    text += ": ";
    text += std::strerror(error);
    debugs(DebugSection, 3, "tunnel ends: " << text);
    end(text);
}

void Tunnel::Tunnel::end(const std::string& error)
{
    if (ended_)
        return;
    ended_ = true;
    error_ = error;
    stats_.spliced = usedPipe_ && !usedCopy_;
    idleTimer_.cancel();
    up_.resume.cancel();
    down_.resume.cancel();
    clientRegistration_.cancel();
    serverRegistration_.cancel();
    // on an error the healthy side's peer sees the close at once
    client_.reset();
    server_.reset();
    for (auto* d : {&up_, &down_}) {
        d->pipe.reset();
        d->block = nullptr;
    }
    // never synchronously: the caller (start(), an I/O callback) is still on
    // the stack, and the done callback may destroy this Tunnel
    doneTimer_ = loop_.defer([this] { callDone(); });
}

void Tunnel::Tunnel::callDone()
{
    auto done = std::move(done_);
    done_ = nullptr;
    // copies: the callee may destroy this Tunnel while it looks at them
    const Stats stats = stats_;
    const std::string error = error_;
    if (done)
        done(stats, error);
}
