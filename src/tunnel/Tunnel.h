/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Tunnel::Tunnel: the CONNECT byte tunnel between a client and a server socket.
///
/// Layout: two directions, each a source socket, a pipe and a sink socket.
///
///                 client-to-server direction (up_)
///     client fd --splice--> [pipe: up to 1 MB] --splice--> server fd
///     client fd <--splice-- [pipe: up to 1 MB] <--splice-- server fd
///                 server-to-client direction (down_)
///
/// - Bytes never enter user space: splice(2) moves pages from the source
///   socket into the direction's pipe and from the pipe into the sink socket.
///   Only when a pipe cannot be made (EMFILE, ENFILE) does that direction read
///   into a pooled block (Sbuf::MemBlob) and write from it; every such read is
///   counted in Sbuf::DefaultPool().copyStats(). The bytes the client sent
///   after its CONNECT head (start()'s clientPending) go to the server first,
///   written straight from the caller's buffer; only a part the server socket
///   does not take at once is copied (and counted) to be held.
/// - The pipe is the buffer, and the only one: a direction reads its source
///   only when its pipe is empty, so when the sink is slow (a write returned
///   EAGAIN) the direction stops reading and the source's TCP window closes.
///   The sink's writable event resumes it by calling the transfer directly;
///   nothing ever calls epoll_ctl after the one registration per socket.
/// - Pipes (Sbuf::Pipe) are made lazily, on the first readable event of
///   their source, at the kernel's default size (64 KB, little kernel memory
///   for a quiet tunnel), and grown toward 1 MB (Pipe::grow()) once a
///   direction shows bulk traffic: a second read with data right after the
///   first one's bytes went out (no EAGAIN between).
///   A pipe is closed as soon as its direction has ended.
/// - Edge-triggered rules (comm/Loop.h): a source is read until EAGAIN (it is
///   then "not ready" until its next readable event); a sink's writable event
///   is acted on only after a write to it returned EAGAIN. One call moves at
///   most a few megabytes per direction and then yields to the loop with a
///   deferred call (Loop::defer(): it runs after the next iteration's I/O),
///   so that a fast tunnel cannot starve other connections.
///
/// Half-close: when a source reads EOF (a FIN), its direction first moves what
/// is still in its pipe (or block), then shutdown(SHUT_WR)s the sink, so that
/// the far peer sees the FIN after the last byte; the other direction goes on.
/// The tunnel ends cleanly when both directions have ended this way. It ends
/// with an error when a read or write fails (ECONNRESET, EPIPE, a socket
/// error reported by epoll) on either side, or when no byte moved in either
/// direction for idleTimeout. Either way both sockets are closed at once (the
/// peer of the healthy side sees the close) and the done callback runs from a
/// deferred call: exactly once, never from start() or the destructor.
///
/// Ownership: the Tunnel owns both sockets (Comm::Descriptor) and both pipes
/// (Sbuf::Pipe), their registrations and its timers; the destructor
/// cancels and closes them all, at any point of the transfer, without calling
/// done. The owner (normally the client connection that got the CONNECT) may
/// destroy the Tunnel from inside the done callback. The process must ignore
/// SIGPIPE (main does): splice(2) into a socket whose peer has gone raises it.
///
/// Threading: a Tunnel belongs to the thread of its Loop.

#pragma once

#include "comm/Descriptor.h"
#include "comm/Loop.h"
#include "sbuf/MemBlob.h"
#include "sbuf/Pipe.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace Tunnel {

/// Moves bytes both ways between two connected, non-blocking sockets until
/// both directions are done (see the file comment).
class Tunnel {
public:
    /// what the tunnel moved
    struct Stats {
        uint64_t clientToServer = 0; ///< bytes written to the server (start()'s clientPending included)
        uint64_t serverToClient = 0; ///< bytes written to the client
        bool spliced = false;        ///< a pipe carried bytes and none took the read/write fallback
    };
    /// Called once when the tunnel has ended; error is empty on a clean end
    /// (both directions reached EOF and drained) and says which side failed
    /// otherwise. The callee may destroy the Tunnel.
    using DoneCallback = std::function<void(const Stats&, const std::string& error)>;

    /// Takes both connected sockets (made non-blocking by the caller). An
    /// idleTimeout <= 0 means no idle timer (squid.conf read_timeout).
    Tunnel(Comm::Loop& loop, Comm::Descriptor&& client, Comm::Descriptor&& server,
           Comm::Milliseconds idleTimeout, DoneCallback done);
    /// closes both sockets and pipes, cancels registrations and timers; never
    /// calls done
    ~Tunnel();
    Tunnel(const Tunnel&) = delete;
    Tunnel& operator=(const Tunnel&) = delete;

    /// Registers both sockets and starts the idle timer. clientPending: bytes
    /// the client sent after its CONNECT head; they reach the server before
    /// any other client byte. Call once. Never calls done synchronously.
    void start(std::string_view clientPending = {});

    /// what has been moved so far
    const Stats& stats() const { return stats_; }
    /// whether the tunnel has ended (its sockets are closed; done is called,
    /// or about to be, from the loop)
    bool hasEnded() const { return ended_; }

private:
    /// which of the two sockets
    enum class SideId { Client, Server };

    /// the IoHandler of one socket; forwards its events to the Tunnel
    class Side final : public Comm::IoHandler {
    public:
        /// the handler of socket id of tunnel
        Side(Tunnel& tunnel, SideId id) : tunnel_(tunnel), id_(id) {}
        /// passes the events on, saying which socket they are for
        void handleIo(const Comm::IoEvents& events) override { tunnel_.handleIo(id_, events); }
        /// a callback of the tunnel threw: the tunnel ends
        void handleBug(const std::exception& e) noexcept override { tunnel_.handleBug(e); }

    private:
        Tunnel& tunnel_; ///< the owner
        SideId id_;      ///< which socket
    };

    /// one way of the tunnel: source socket -> pipe (or block) -> sink socket
    struct Direction {
        /// the direction from one socket to the other
        Direction(SideId from, SideId to) : source(from), sink(to) {}

        SideId source;                    ///< the socket read from
        SideId sink;                      ///< the socket written to
        std::unique_ptr<Sbuf::Pipe> pipe; ///< lazily made; null when none
        bool pipeFailed = false;          ///< pipe2() failed this burst: use block
        Sbuf::MemBlobRef block;           ///< user-space bytes to write first (pending bytes, or fallback)
        size_t blockOffset = 0;           ///< bytes of block already written
        bool sourceReady = false;         ///< the source may have bytes (no EAGAIN since its last event)
        bool sourceEof = false;           ///< the source read returned 0
        bool sinkBlocked = false;         ///< a write to the sink returned EAGAIN
        bool ended = false;               ///< EOF seen, everything written, sink shut down
        Comm::Timer resume;               ///< continues a transfer that used up its turn
    };

    /// what one transfer step did
    enum class Step { Moved, Wait, Stop };

    /// socket id is ready: resumes the directions it feeds and drains
    void handleIo(SideId id, const Comm::IoEvents& events);
    /// one of our callbacks threw: ends the tunnel with the error
    void handleBug(const std::exception& e) noexcept;
    /// moves bytes of d until its source is drained, its sink is blocked,
    /// its turn is used up, or it ends
    void pump(Direction& d);
    /// writes from d.block to the sink
    Step writeBlock(Direction& d);
    /// splices from d's pipe to the sink
    Step writePipe(Direction& d);
    /// splices from the source into d's (empty) pipe
    Step readIntoPipe(Direction& d, uint64_t& readBytes);
    /// reads from the source into a fresh pooled block (no pipe)
    Step readIntoBlock(Direction& d, uint64_t& readBytes);
    /// makes d's pipe; false when the system refuses (EMFILE, ENFILE)
    bool makePipe(Direction& d);
    /// d's source reached EOF and everything went out: shuts the sink down
    void endDirection(Direction& d);
    /// writes start()'s bytes to the server, holding what it does not take
    void writePending(std::string_view pending);
    /// counts n bytes written by d and notes the time
    void noteMoved(Direction& d, size_t n);
    /// (re)schedules the idle check after delay, if there is an idle timeout
    void armIdleTimer(Comm::Milliseconds delay);
    /// ends the tunnel when nothing moved for idleTimeout_, else re-arms
    void checkIdle();
    /// ends the tunnel because an operation on side failed with error (errno)
    void fail(SideId side, const char* operation, int error);
    /// closes everything and schedules done_; error empty on a clean end
    void end(const std::string& error);
    /// the done timer's callback: calls done_ once
    void callDone();

    /// the socket of side id
    Comm::Descriptor& socket(SideId id) { return id == SideId::Client ? client_ : server_; }
    /// the name of side id in error texts
    static const char* Name(SideId id) { return id == SideId::Client ? "client" : "server"; }

    Comm::Loop& loop_;                               ///< must outlive the Tunnel
    Comm::Descriptor client_;                        ///< the client socket; owned
    Comm::Descriptor server_;                        ///< the server socket; owned
    Direction up_{SideId::Client, SideId::Server};   ///< client to server
    Direction down_{SideId::Server, SideId::Client}; ///< server to client
    Side clientSide_{*this, SideId::Client};         ///< handles client_ events
    Side serverSide_{*this, SideId::Server};         ///< handles server_ events
    Comm::Registration clientRegistration_;          ///< after client_: cancelled first
    Comm::Registration serverRegistration_;          ///< after server_: cancelled first
    Comm::Milliseconds idleTimeout_;                 ///< <= 0: none
    Comm::Timer idleTimer_;                          ///< ends an idle tunnel
    Comm::Timer doneTimer_;                          ///< calls done_ from the loop
    Comm::Clock::time_point lastMove_;               ///< when a byte last moved
    DoneCallback done_;                              ///< emptied when called
    Stats stats_;                                    ///< what moved so far
    std::string error_;                              ///< why the tunnel ended; empty on a clean end
    bool started_ = false;                           ///< start() was called
    bool ended_ = false;                             ///< sockets closed, done scheduled
    bool usedPipe_ = false;                          ///< a byte went through a pipe
    bool usedCopy_ = false;                          ///< a byte went through a block (a user-space copy)
};

} // namespace Tunnel
