/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Tunnel::ParentConnect: opens a CONNECT tunnel through a parent
/// proxy on a socket already connected to it (doc/design.md "CONNECT"), as
/// Squid 5.7's Http::Tunneler does:
///
///     start() --> write the CONNECT request (the caller's head, as is)
///             --> read the reply head (Http::ReplyParser, reply_header_max_size)
///                   200 ............ Established: the socket, and any bytes the
///                                    parent sent after its head (for the client)
///                   other status ... Refused: the reply to relay to the client,
///                                    its body read whole (by Content-Length, to
///                                    the last chunk, or until the parent closes;
///                                    at most MaxRelayedBody bytes), hop-by-hop
///                                    fields dropped, `Connection: close`
///             --> a write or read error, a close before the head, a bad head, or
///                 no progress within the timeout: Failed
///
/// Reads follow comm/Loop.h's rule: until EAGAIN (the parent may send its
/// whole reply, and more, before the first event). The callback runs once,
/// never inside start() and never after destruction; it may destroy this.
/// The socket is watched while the exchange lasts; the Established socket is
/// handed over watched by no one.

#pragma once

#include "comm/Descriptor.h"
#include "comm/Loop.h"
#include "http/ChunkedDecoder.h"
#include "http/ReplyParser.h"

#include <functional>
#include <string>

namespace Tunnel {

/// One CONNECT exchange with a parent (see the file comment).
class ParentConnect final : public Comm::IoHandler {
public:
    /// the most body bytes of a refusal that are relayed
    static constexpr size_t MaxRelayedBody = 64 * 1024;

    /// how the exchange ended
    enum class Outcome {
        Established, ///< 200: the tunnel is open
        Refused,     ///< another status: relay reply
        Failed       ///< no usable reply: see error
    };
    /// what the callback gets
    struct Result {
        Outcome outcome = Outcome::Failed; ///< see Outcome
        Comm::Descriptor fd;               ///< Established: the socket, now a tunnel
        std::string leftover;              ///< Established: bytes after the parent's 200 head
        int status = 0;                    ///< the parent's status code; 0: none parsed
        std::string reply;                 ///< Refused: the reply to send to the client
        std::string error;                 ///< Failed: why
    };
    using Callback = std::function<void(Result&& result)>;

    /// request: the whole CONNECT head; timeout: for the whole exchange
    ParentConnect(Comm::Loop& loop, Comm::Descriptor&& fd, std::string request, Comm::Milliseconds timeout,
                  size_t maxHeadSize, Callback done);
    ~ParentConnect() override;
    ParentConnect(const ParentConnect&) = delete;
    ParentConnect& operator=(const ParentConnect&) = delete;

    /// sends the request; the callback comes later, from the loop
    void start();

    /* IoHandler API */
    void handleIo(const Comm::IoEvents& events) override;
    void handleBug(const std::exception& e) noexcept override;

private:
    void send();
    void receive();
    bool onHead();
    void fail(const std::string& why);
    void finish(Result&& result);

    Comm::Loop& loop_;
    Comm::Descriptor fd_;
    Comm::Registration registration_; ///< fd_'s (after fd_: goes first)
    Comm::Timer timer_;               ///< the exchange's timeout
    std::string request_;             ///< the CONNECT head
    size_t sent_ = 0;                 ///< bytes of request_ written
    std::string buffer_;              ///< the bytes read
    Http::ReplyParser parser_;        ///< the reply head
    bool headDone_ = false;           ///< a refusal's head is parsed: reading its body
    std::string relayHead_;           ///< the refusal's head as it goes to the client
    size_t bodyStart_ = 0;            ///< where the refusal's body starts in buffer_
    size_t bodyWanted_ = 0;           ///< its body bytes to read (MaxRelayedBody at most)
    bool untilClose_ = false;         ///< its body ends when the parent closes
    bool chunked_ = false;            ///< its body ends with its last chunk
    Http::ChunkedDecoder chunks_;     ///< finds that last chunk
    size_t chunksEnd_ = 0;            ///< where in buffer_ the decoder has looked up to
    bool chunksOver_ = false;         ///< the last chunk was seen, or the framing is bad
    Callback done_;
};

} // namespace Tunnel
