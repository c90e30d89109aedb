/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Client::Connection: the state machine of one client connection.
///
///     accept --> ReadingHead --(head parsed)--> Writing --(reply sent)--+
///                  ^   |                                                 |
///                  |   +--(bad head / client asked to close)--> Lingering --> closed
///                  +--------------(keep-alive: next request, pipelined or not)--+
///
/// Memory: an idle connection owns no read buffer. When bytes arrive a block
/// is taken from the sbuf pool (1 KB first, doubled up to
/// request_header_max_size while a head does not fit: the one bounded copy),
/// the head is parsed in place, and the block goes back to the pool as soon
/// as no unparsed byte is left in it. Pipelined bytes after a head stay in the
/// block and are parsed once the reply to the previous request has been
/// written, so replies go out in request order.
///
/// This proxy forwards nothing: a well-formed request that
/// http_access allows is answered `501 Not Implemented` with Squid's
/// ERR_UNSUP_REQ page (NONE_NONE/501 in access.log); a denied one gets 403
/// ERR_ACCESS_DENIED (TCP_DENIED/403). Error replies to malformed heads close
/// the connection, as Squid does: 400 ERR_PROTOCOL_UNKNOWN (garbage request
/// line), 400 ERR_INVALID_REQ (bad header), 400 ERR_INVALID_URL (origin-form
/// or bad URL), 431 ERR_TOO_BIG, 505 ERR_UNSUP_HTTPVERSION.
///
/// Timers: request_timeout while waiting for the first request or a partial
/// head, client_idle_pconn_timeout between requests; either closes the
/// connection silently. read_timeout bounds a stalled reply write.

#pragma once

#include "client/forward.h"
#include "comm/Address.h"
#include "comm/Descriptor.h"
#include "comm/Loop.h"
#include "http/RequestParser.h"
#include "http/StatusCode.h"
#include "sbuf/forward.h"
#include "base/RefCount.h"

#include <memory>
#include <string>

#include <sys/time.h>

namespace Errors {
struct PageContext;
}
namespace Log {
struct AccessRecord;
}

namespace Client {

/// One client connection (see the file comment).
class Connection : public Comm::IoHandler {
public:
    /// the states of the diagram in the file comment
    enum class State { ReadingHead, Writing, Lingering, Closed };

    /// takes the accepted descriptor; call start() next
    Connection(Server& server, Comm::Descriptor&& fd, const Comm::Address& peer, const Comm::Address& local);
    ~Connection() override;
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    /// registers with the loop, arms request_timeout and reads what is there
    void start();

    /// the state now
    State state() const { return state_; }
    /// whether nothing is in progress: no partial head, no reply being written
    bool isIdle() const;
    /// whether a read block is held (false for an idle connection)
    bool holdsReadBuffer() const { return bool(buffer_); }
    /// requests answered on this connection
    uint64_t requestCount() const { return requests_; }

    /// closes now (shutdown, tests); the Server destroys it after the callback
    void close();

    /* Comm::IoHandler API */
    void handleIo(const Comm::IoEvents& events) override;
    void handleBug(const std::exception& e) noexcept override;

private:
    /// what one readSome() call did
    enum class ReadResult { Some, Drained, Wait, Closed };

    void drive();
    bool makeReadSpace();
    ReadResult readSome();
    void processBuffered();
    void handleHead(std::string_view head);
    void handleParseError();
    void reply(Http::StatusCode status, const std::string& templateName, Errors::PageContext& context);
    bool writeSome();
    void afterReply();
    void startLingering();
    void lingerRead();
    void armTimer(Comm::Milliseconds timeout);
    void onTimeout();
    void logTransaction();
    void dropBufferIfConsumed();

    Server& server_;
    Comm::Descriptor fd_;             ///< the client socket
    Comm::Registration registration_; ///< after fd_: cancelled before it closes
    Comm::Timer timer_;               ///< the one timeout in force
    State state_ = State::ReadingHead;

    std::string peerHost_;   ///< client address literal, for logs and acls
    std::string localHost_;  ///< the listening address literal (%A)
    uint16_t localPort_ = 0; ///< the listening port (%b)

    Sbuf::MemBlobRef buffer_; ///< read block; null while idle
    size_t parsedOffset_ = 0; ///< where the current head starts in buffer_
    Http::RequestParser parser_;
    timeval requestStart_{}; ///< when the first byte of the current request arrived
    bool requestStarted_ = false;

    std::string out_;      ///< the reply being written (error pages only, this issue)
    size_t outOffset_ = 0; ///< bytes of out_ already written
    bool closeAfterReply_ = false;
    bool peerClosed_ = false;                       ///< EPOLLRDHUP seen: the client sent its FIN
    std::unique_ptr<Log::AccessRecord> pendingLog_; ///< logged when the reply is written
    uint64_t requests_ = 0;
};

} // namespace Client
