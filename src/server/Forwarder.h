/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Server::Forwarder: one request forwarded to its origin or a parent,
/// and the reply read from it into a store entry.
///
///     start --> for each destination (Request::destinations: parents, the
///               origin; doc/design.md "Peers") until one connects:
///           --> dial (Comm::Connector: resolve, then each address in turn,
///                     connect_timeout each), unless a pooled connection
///           --> TLS handshake, for an https:// origin (doc/design.md "TLS")
///           --> send the head, then the request body from its entry  ----+
///           --> read: the reply head, parsed in place in the read block   |
///                     (each 1xx told to the interim handler, if any, and  | at once
///                     skipped), then the body                             |
///           --> complete: the connection goes back to the Pool when the   |
///               reply was delimited and the origin keeps it open      <---+
///
/// The data path (doc/design.md "The path of a body byte"): each read goes into the tail of a block from
/// the pool (reserve/commit), of request_buffer_size bytes (Sbuf::ReadSizer,
/// fixed or auto); the head is parsed in place and the reply's field views
/// keep that block alive; the body's bytes are appended to the reply entry
/// as slices of the same blocks, chunk framing walked over and left out.
/// Reads stop while the entry's producer room is exhausted (read_ahead_gap
/// ahead of the slowest reader) and resume from Store::Producer::resumeProducing().
/// A reply that nobody keeps and one client reads may go on through a pipe
/// instead, origin socket to client socket with splice(2): maySplice() decides
/// (doc/design.md "Splice").
///
/// Failures are told through the entry (Entry::fail) and failure(), which
/// picks the client's error page; before any reply byte arrived on a reused
/// persistent connection, an idempotent request whose body is held whole is
/// retried once on a new connection (the retry rule, doc/design.md "The origin side").
///
/// Ownership: the client side owns the Forwarder; the Forwarder owns its
/// origin connection (until it gives it back to the Pool), its timers and
/// its dialer (Comm::Connector), and holds references to both entries.
#pragma once

#include "comm/Address.h"
#include "comm/Connector.h"
#include "comm/Loop.h"
#include "comm/Resolver.h"
#include "http/ChunkedDecoder.h"
#include "http/Method.h"
#include "http/ReplyParser.h"
#include "sbuf/MemBlob.h"
#include "sbuf/ReadSizer.h"
#include "server/Peers.h"
#include "server/Pool.h"
#include "store/BodyWriter.h"
#include "store/Entry.h"
#include "store/Admission.h"
#include "tls/ClientContext.h"
#include "tls/Connection.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace Server {

/// why forwarding failed; picks the error page (as Squid 5.7 does)
enum class Failure {
    None,
    DnsFail,      ///< 503 ERR_DNS_FAIL
    ConnectFail,  ///< 503 ERR_CONNECT_FAIL (refused, unreachable, connect_timeout)
    ReadTimeout,  ///< 504 ERR_READ_TIMEOUT
    ReadError,    ///< 502 ERR_READ_ERROR (reset, or closed mid-reply)
    WriteError,   ///< 502 ERR_WRITE_ERROR
    InvalidReply, ///< 502 ERR_INVALID_RESP
    ZeroSize,     ///< 502 ERR_ZERO_SIZE_OBJECT (closed without a byte)
    ReplyTooBig,  ///< 502 ERR_TOO_BIG (reply head over reply_header_max_size)
    /// 503 ERR_SECURE_CONNECT_FAIL: the TLS handshake with an https:// origin
    /// failed, or its certificate did not verify (Forwarder::tlsFailure() says why)
    SecureConnectFail,
    Aborted ///< the client went away
};

/// What the daemon gives every forwarder.
struct Context {
    Comm::Loop& loop;               ///< the event loop
    Comm::Resolver* resolver;       ///< DNS; null: IP literals only
    Pool& pool;                     ///< idle origin and peer connections
    Peers* peers = nullptr;         ///< cache_peer parents; null: none
    Tls::ClientContextRef tls{};    ///< TLS to https:// origins (tls_outgoing_options); null: none
    uint64_t retries = 0;           ///< requests retried on a new connection
    uint64_t connectionsOpened = 0; ///< origin connections opened
    // the cache manager's server.all.* counters (doc/design.md "The cache manager")
    uint64_t requests = 0; ///< requests sent (each exchange begun on a connection)
    uint64_t errors = 0;   ///< forwardings that failed (the client leaving is not one)
    uint64_t bytesIn = 0;  ///< bytes read from origins
    uint64_t bytesOut = 0; ///< bytes sent to origins
    /// reads from origins by the space offered: [k] counts sizes in [2^k, 2^(k+1)) (request_buffer_size auto)
    std::array<uint64_t, 24> readsBySize{};
    uint64_t splicedReplies = 0; ///< replies whose body went on through a pipe (doc/design.md "Splice")
    uint64_t bytesSpliced = 0;   ///< body bytes spliced from origins into those pipes
};

/// The knobs of one forwarding, from squid.conf.
struct Limits {
    Sbuf::ReadSizer readSizer;                ///< request_buffer_size
    uint64_t readAheadGap = 16 * 1024;        ///< read_ahead_gap
    size_t replyHeaderMaxSize = 64 * 1024;    ///< reply_header_max_size
    Comm::Milliseconds connectTimeout{60000}; ///< connect_timeout
    Comm::Milliseconds readTimeout{900000};   ///< read_timeout
    int64_t quickAbortMin = 16 * 1024;        ///< quick_abort_min, bytes (< 0: always finish a stored object)
    uint64_t quickAbortMax = 16 * 1024;       ///< quick_abort_max, bytes
    unsigned quickAbortPct = 95;              ///< quick_abort_pct
    unsigned forwardMaxTries = 25;            ///< forward_max_tries: destinations tried
    unsigned connectRetries = 0;              ///< connect_retries
    Comm::Milliseconds spareDelay{250};       ///< happy_eyeballs_connect_timeout
    bool persistent = true;                   ///< server_persistent_connections: pool connections
    bool retryOnError = false;                ///< retry_on_error: 403, 500, 501, 503 try the next destination
    /// splice_min_size: a reply body with at least this many bytes still to
    /// read after its head (or close-delimited) may be spliced (doc/design.md
    /// "Splice"); 0: never
    uint64_t spliceMinSize = 0;
};

/// What to forward.
struct Request {
    Http::Method method = Http::Method::Get; ///< for idempotence and HEAD
    std::string host;                        ///< origin host (name or literal, no brackets)
    uint16_t port = 80;                      ///< origin port
    std::string head;                        ///< the request head to send, already serialized
    Store::EntryRef body;                    ///< the request body, or null
    Store::BodyWriter::Framing bodyFraming = Store::BodyWriter::Framing::None; ///< how to send it
    /// where to send it, in order (Peers::select()); empty: direct to host:port
    std::vector<Destination> destinations;
    std::string url;                    ///< the absolute URL: the request-target to a parent
    std::string proxyAuthorization;     ///< the client's Proxy-Authorization, for login=PASS...
    std::string user;                   ///< the client's user name, for login=*:suffix
    Comm::Connector::Outgoing outgoing; ///< source address and TOS of its connections (tcp_outgoing_*)
    /// an https:// URL: TLS to the origin (a parent gets the URL over plain HTTP)
    bool tls = false;
    /// with tls: the name sent as SNI and that the origin's certificate
    /// must carry; empty: host (an intercepted bumped request goes to an
    /// address, for a name)
    std::string tlsName;
    /// sslproxy_cert_error: which certificate errors may pass; empty: none
    Tls::Connection::AllowError allowCertError;
};

/// The name request's origin sends as SNI and its certificate must carry:
/// its tlsName, else its host
const std::string& OriginTlsName(const Request& request);
/// The TLS session cache's key of request's origin, whatever address it resolved to
std::string OriginSessionKey(const Request& request);
/// The key of a connection straight to request's origin in the Pool: a TLS
/// one is for the name its certificate was verified for; one made from
/// another source address or with another TOS for the requests that ask
/// for the same
std::string OriginPoolKey(const Request& request);

/// The head to send to a parent (doc/design.md "Peers"): `head` (origin-form,
/// as to the origin) with the URL as its request-target unless the peer is
/// an originserver, and the credentials its login= says (Squid's
/// httpFixupAuthentication()).
std::string HeadForPeer(const Request& request, const Config::CachePeer& peer);

/// One forwarded request; see the file comment.
class Forwarder final : public Comm::IoHandler, public Store::Producer, public Store::Reader {
public:
    /// a forwarder of request whose reply goes into reply
    Forwarder(Context& context, const Limits& limits, Request&& request, Store::EntryRef reply);
    ~Forwarder() override;
    Forwarder(const Forwarder&) = delete;
    Forwarder& operator=(const Forwarder&) = delete;

    /// starts dialing (or takes a pooled connection); never calls back from inside
    void start();
    /// why it failed (None while it has not)
    Failure failure() const { return failure_; }
    /// the system error behind the failure (ECONNREFUSED, ECONNRESET...), or 0
    int failureErrno() const { return failureErrno_; }
    /// with Failure::SecureConnectFail: the TLS error and its detail (%x, %D)
    const Tls::VerifyFailure& tlsFailure() const { return tlsFailure_; }
    /// the origin's address once connected ("-" before), for %<a
    std::string peerHost() const;
    /// whether the reply is complete or forwarding failed
    bool isDone() const { return stage_ == Stage::Done; }
    /// whether every client left and the forwarder goes on storing the
    /// object (quick_abort_*): its owner hands it to the daemon
    bool isFinishingAlone() const { return finishingAlone_ && stage_ != Stage::Done; }
    /// the hierarchy code of the destination used (or last tried), for %Sh
    Hierarchy hierarchy() const { return current_.code; }
    /// whether the ICP wait before the choice timed out (access.log's TIMEOUT_ prefix)
    bool pingTimedOut() const { return current_.pingTimedOut; }
    /// the parent used (or last tried); null when direct
    const Peer* peer() const { return current_.peer.getRaw(); }
    /// whether the reply came over a pooled connection (for tests and logs)
    bool reusedConnection() const { return reused_; }
    /// Called with the parsed head of each interim (1xx but 101) reply, valid
    /// during the call only, before it is skipped: RFC 9110 section 15.2
    /// asks a proxy to forward them. Interim replies are never stored.
    using InterimHandler = std::function<void(const Http::ReplyParser& interim)>;
    /// sets (or, with an empty handler, clears) who gets the interim replies
    void setInterimHandler(InterimHandler handler) { interimHandler_ = std::move(handler); }
    /// Called once when the forwarder is done (isDone() turns true), from
    /// inside it: the handler must not destroy the forwarder (its owner
    /// defers that to the loop). Set on a forwarder that is done already, it
    /// is called at once.
    using DoneHandler = std::function<void()>;
    void setDoneHandler(DoneHandler handler);
    /// the reply was stored (Store::Admit()): its growth is charged as it
    /// arrives (Store::Charge::update(), after each append and at the end)
    void chargeTo(Store::Charge&& charge);

    /* Comm::IoHandler API */
    void handleIo(const Comm::IoEvents& events) override;
    void handleBug(const std::exception& e) noexcept override;
    /* Store::Producer API (the reply entry) */
    void resumeProducing() override;
    void noteReadersGone() override;
    /* Store::Reader API (the request body entry) */
    void noteDataAvailable() override;
    const Sbuf::Cursor& cursor() const override { return sender_.cursor(); }

private:
    enum class Stage { Idle, Connecting, Handshaking, Exchanging, Done };

    void nextDestination();
    bool mayTryNext() const;
    std::string poolKey() const;
    void dial();
    void onDialed(Comm::Connector::Result&& result);
    void startHandshake();
    void continueHandshake();
    /// sends the request; reads at once when mayHaveReply (an event that
    /// said readable was taken before, or the TLS handshake read ahead)
    void onConnected(bool mayHaveReply);
    void sendMore();
    void readMore();
    bool maySplice() const;
    void startSplicing();
    bool spliceMore(Sbuf::Pipe& pipe, unsigned& fills);
    bool makeReadSpace();
    void process(size_t from, size_t n);
    bool parseHead();
    void processBody(size_t from, size_t n);
    void appendBody(size_t from, size_t n);
    void onEof();
    void onReadError(int error);
    void finish();
    void fail(Failure why, const std::string& text, int error = 0);
    bool mayRetry() const;
    bool mayReforward(int status) const;
    bool shouldFinishAlone() const;
    void retry();
    void reforward(int status);
    void restartExchange();
    void releaseConnection(bool reusable);
    void armTimeout();
    void checkTimeout();

    Context& context_;
    Limits limits_;
    Request request_;
    Store::EntryRef reply_;
    Store::EntryRef body_; ///< request body (an empty complete entry when none)

    Stage stage_ = Stage::Idle;
    Failure failure_ = Failure::None;
    int failureErrno_ = 0;
    std::string failureText_;
    Tls::VerifyFailure tlsFailure_;

    std::unique_ptr<Comm::Connector> dialer_; ///< while a new connection is dialed
    OriginConnectionPtr connection_;
    bool reused_ = false;         ///< connection_ came from the Pool
    bool finishingAlone_ = false; ///< no reader left; storing the object anyway (quick_abort)
    bool retried_ = false;        ///< the one retry was spent
    std::string peerHost_;        ///< the address last connected to (or tried), for %<a
    Destination current_;         ///< where this try goes
    size_t nextDestination_ = 0;  ///< the next of request_.destinations to try
    unsigned tries_ = 0;          ///< destinations tried (forward_max_tries)
    std::string peerHead_;        ///< the head for a parent (HeadForPeer()); empty: request_.head

    Store::BodyWriter sender_; ///< the request head and body
    bool sendBlocked_ = false; ///< the last write hit a full socket
    bool requestSent_ = false; ///< head and body are all written

    Sbuf::MemBlobRef block_; ///< the read block being filled
    size_t headStart_ = 0;   ///< where the reply head starts in block_ (while parsing it)
    Http::ReplyParser parser_;
    Http::ChunkedDecoder decoder_;
    bool headDone_ = false;
    bool spliceUndecided_ = false; ///< the head came in this read: maySplice() once the client heard of it
    Http::ReplyParser::Framing framing_ = Http::ReplyParser::Framing::Close;
    uint64_t bodyLeft_ = 0;   ///< Framing::Length: bytes still due
    uint64_t replyBytes_ = 0; ///< bytes read from the origin for this reply
    bool reusable_ = true;    ///< no stray bytes after the reply
    bool reading_ = false;    ///< inside readMore()
    bool sending_ = false;    ///< inside sendMore()
    bool paused_ = false;     ///< reads stopped at read_ahead_gap
    bool peerClosed_ = false; ///< EPOLLRDHUP seen

    Store::Charge charge_;   ///< the stored reply's charge to the cache (none when not stored)
    time_t requestTime_ = 0; ///< when the request went out (RFC 9111 request_time)
    /// charges the reply's growth (charge_)
    void charge() { charge_.update(*reply_); }

    /// tells the done handler, once (see setDoneHandler())
    void noteDone();

    InterimHandler interimHandler_;    ///< who forwards 1xx replies (the owning client), or empty
    DoneHandler doneHandler_;          ///< who is told when the forwarder is done, or empty
    Comm::Timer timer_;                ///< connect_timeout, then read_timeout (lazily re-armed)
    Comm::Clock::time_point activity_; ///< the last byte moved to or from the origin
};

} // namespace Server
