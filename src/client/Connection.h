/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Client::Connection: the state machine of one client connection.
///
///     accept --> ReadingHead --(head parsed, allowed)--> Forwarding --(reply head)--> Streaming --+
///                  ^   |  +--(a hit: the stored reply, nothing to forward)----------^         |
///                  |   |  |                                 |   (request body read alongside)   |
///                  |   |  +--(CONNECT allowed)--> Forwarding --(connected)--> Tunneling --> closed
///                  |   |  |    (ssl-bump port: peek/stare --> Peeking --> splice: Forwarding,
///                  |   |  |     bump: handed to a new Connection speaking TLS --> closed; Bumping.cc)
///                  |   +--(bad head, denied, error)--> Writing (error page) ----------------------+
///                  +--------------(keep-alive: next request, pipelined or not)-------------------+
///                                                         (or, to close: Lingering --> closed)
///
/// Memory: an idle connection owns no read buffer. When bytes arrive a block
/// is taken from the sbuf pool (1 KB first, doubled up to
/// request_header_max_size while a head does not fit: the one bounded copy),
/// the head is parsed in place, and the block goes back to the pool as soon
/// as no unparsed byte is left in it. Pipelined bytes after a head stay in the
/// block and are parsed once the reply to the previous request has been
/// written, so replies go out in request order.
///
/// Forwarding (doc/design.md "The path of a body byte"): an allowed request gets
/// a reply Store::Entry and a Server::Forwarder that fills it; this
/// connection is a Store::Reader of the entry and writes the reply head (its
/// own small block) and then the body slices with one writev per attempt
/// (Store::BodyWriter), re-framed for this client (Content-Length, chunked
/// for HTTP/1.1, close-delimited for HTTP/1.0). A request body is read into
/// blocks of request_buffer_size and appended to a request Store::Entry that
/// the forwarder reads from, under the same read_ahead_gap (this connection
/// is that entry's Store::Producer). CONNECT gets a Tunnel::Tunnel once the
/// origin is connected.
///
/// Errors before the reply head reach the client as Squid's error pages
/// (503 ERR_CONNECT_FAIL, 504 ERR_READ_TIMEOUT, ...); a reply that breaks off
/// after its head closes the connection (the client sees the truncation).
///
/// Timers: request_timeout while waiting for the first request or a partial
/// head, client_idle_pconn_timeout between requests; either closes the
/// connection silently. read_timeout bounds a stalled reply write.
///
/// TLS (an https_port's or a bumped connection: setTls()): every read and
/// write goes through the connection's Tls::Accepted (receive(),
/// transmit(), the writer's Sink), whose handshake runs in the first reads
/// under request_timeout; a CONNECT hands it to a Tls::Relay
/// (doc/design.md "TLS").
#pragma once

#include "client/DetachedFetch.h"
#include "config/Settings.h"
#include "client/Headers.h"
#include "client/HostVerification.h"
#include "client/Lookups.h"
#include "client/forward.h"
#include "acl/AccessList.h"
#include "helper/Pool.h"
#include "helper/Reply.h"
#include "comm/Address.h"
#include "comm/Connector.h"
#include "comm/Descriptor.h"
#include "comm/Loop.h"
#include "comm/Resolver.h"
#include "http/ChunkedDecoder.h"
#include "http/RequestParser.h"
#include "http/StatusCode.h"
#include "http/Url.h"
#include "sbuf/ReadSizer.h"
#include "sbuf/forward.h"
#include "server/forward.h"
#include "store/BodyWriter.h"
#include "store/DiskTier.h"
#include "store/Entry.h"
#include "store/Freshness.h"
#include "server/Forwarder.h"
#include "tunnel/ParentConnect.h"
#include "tls/Accepted.h"
#include "tunnel/forward.h"
#include "base/RefCount.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <sys/time.h>

namespace Errors {
struct PageContext;
}
namespace Mgr {
struct ActiveRequest;
}
namespace Log {
struct AccessRecord;
}
namespace Store {
struct Lookup;
}

namespace Client {

/// One client connection (see the file comment).
class Connection : public Comm::IoHandler,
                   public Store::Reader,
                   public Store::Producer,
                   public Store::BodyWriter::Sink {
public:
    /// the states of the diagram in the file comment
    enum class State {
        ReadingHead,
        Checking,
        Forwarding,
        Streaming,
        Tunneling,
        Peeking, ///< an ssl-bump port's CONNECT, answered: its ClientHello awaited (Bumping.cc)
        Writing,
        Lingering,
        Closed
    };

    /// takes the descriptor accepted on the http_port named `portName`; call start() next
    Connection(Services& services, Comm::Descriptor&& fd, const Comm::Address& peer,
               const Comm::Address& local, std::string portName);
    ~Connection() override;
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    /// registers with the loop, arms request_timeout and reads what is there
    void start();
    /// marks a connection accepted on an intercept port (before start()):
    /// `local` given to the constructor is its original destination, self
    /// the socket's own address (Interception.cc)
    void setIntercepted(const Comm::Address& self);
    /// gives a connection of an ssl-bump port, or a bumped one, its
    /// BumpState (before start(); Bumping.cc)
    void setBump(std::unique_ptr<BumpState>&& bump);
    /// the client speaks TLS with context's certificate (an https_port's,
    /// or one minted for a bumped connection; before start()): the
    /// handshake runs in the first reads, bounded by request_timeout
    void setTls(SSL_CTX* context);

    /// the state now
    State state() const { return state_; }
    /// the client's address literal (Comm::Address::host())
    const std::string& peerHost() const { return peerHost_; }
    /// whether nothing is in progress: no partial head, no reply being written
    bool isIdle() const;
    /// whether a read block is held (false for an idle connection)
    bool holdsReadBuffer() const { return bool(buffer_); }
    /// requests answered on this connection
    uint64_t requestCount() const { return requests_; }

    /// closes now (shutdown, tests); the Side destroys it after the callback
    void close();

    /// What the connection is doing, for the manager's active_requests page;
    /// false when it has no request in progress (Manager.cc).
    bool describe(Mgr::ActiveRequest& out) const;

    /* Comm::IoHandler API */
    void handleIo(const Comm::IoEvents& events) override;
    void handleBug(const std::exception& e) noexcept override;
    /* Store::Reader API (the reply entry) */
    void noteDataAvailable() override;
    const Sbuf::Cursor& cursor() const override;
    bool takesPipe() const override;
    /* Store::Producer API (the request body entry) */
    void resumeProducing() override;
    /* Store::BodyWriter::Sink API (the reply writer, over TLS) */
    ssize_t writev(const struct iovec* iov, int count) override;

private:
    /// what one readSome() call did
    enum class ReadResult { Some, Drained, Wait, Closed };

    void drive();
    /// recv(2)'s contract, through TLS when the client speaks it
    ssize_t receive(char* buffer, size_t size);
    /// send(2)'s contract (no SIGPIPE), through TLS when the client speaks it
    ssize_t transmit(std::string_view bytes);
    bool makeReadSpace();
    ReadResult readSome();
    void processBuffered();
    void handleHead(std::string_view head);
    void handleParseError();
    /// Fills CONTEXT's facts of this connection and of squid.conf (addresses,
    /// visible_hostname, cache_mgr, email_err_data, err_html_text, strip_query_terms).
    void completePageContext(Errors::PageContext& context) const;
    void reply(Http::StatusCode status, const std::string& templateName, Errors::PageContext& context,
               std::vector<std::pair<std::string, std::string>> extraFields = {});
    /// `rules` (http_access, adapted_http_access) on facts, after what the
    /// auth and lookups found; starts the lookup a Pending answer needs
    Acl::Answer checkAccess(const Acl::AccessList& rules, Acl::Checklist& facts);
    /// Whether `answer` of checkAccess() lets the request go on; otherwise
    /// answers it (403, 407, deny_info) or, when Pending, waits
    bool admitted(Acl::Answer answer, Acl::Checklist& facts, Log::AccessRecord& record,
                  Errors::PageContext& context);
    /// Whether the facts hold what the rules' dst acls read: the origin's
    /// addresses, resolved first when the host is a name (false: asked, the
    /// head is handled again with them) (Destination.cc)
    bool destinationKnown(const Http::Url& url, Acl::Checklist& facts);
    // proxy authentication (Authenticate.cc)
    /// sets facts.auth and facts.user from Proxy-Authorization and the scheme's cached verdict
    void readCredentials(Acl::Checklist& facts);
    /// asks the scheme's helper about the request's credentials (http_access waits for it)
    void checkCredentials();
    /// the Proxy-Authenticate fields of a 407, one per configured scheme
    std::vector<std::pair<std::string, std::string>> authChallenges();
    /// Asks url_rewrite_program about the URL; a rewrite changes url and the
    /// facts the later rules see (Rewrite.cc)
    bool rewriteUrl(Http::Url& url, Log::AccessRecord& record, Errors::PageContext& context,
                    Acl::Checklist& facts);
    bool askStoreId(const Http::Url& url, const Log::AccessRecord& record, const Acl::Checklist& facts,
                    std::string& storeId);
    /// A helper's answer about one URL of the head being handled.
    using HelperAnswer = std::optional<std::pair<std::string, Helper::Reply>>;
    /// The URL helpers' answers about the head being handled.
    struct HelperAnswers {
        HelperAnswer rewrite; ///< url_rewrite_program's
        HelperAnswer storeId; ///< store_id_program's
    };
    const Helper::Reply* askHelper(Helper::Pool& pool, HelperAnswer HelperAnswers::*which,
                                   const std::string& url, const Log::AccessRecord& record,
                                   const Acl::Checklist& facts);
    /// a redirect with no body (Rewrite.cc), with extraFields after Location and Content-Length
    void replyRedirect(int status, const std::string& location,
                       const std::vector<std::pair<std::string, std::string>>& extraFields = {});
    /// a denial: `page` (403), or the deny_info line for the last acl the
    /// rules evaluated (a page, a redirect, a reset) (Denial.cc)
    void answerDenied(Errors::PageContext& context, std::string_view lastAcl,
                      const char* page = "ERR_ACCESS_DENIED");
    /// whether miss_access lets the request be forwarded; otherwise answers it (Denial.cc)
    bool missAllowed(const Acl::Checklist& facts, Errors::PageContext& context);
    /// whether the request's Via names this cuttle (unique_hostname and
    /// software), which Squid 5.7 denies as a forwarding loop; answers it then (Denial.cc)
    bool loopDenied(Errors::PageContext& context);
    void resumeAfterCheck();
    bool writeSome();
    void afterReply();
    void startLingering();
    void lingerRead();
    void armTimer(Comm::Milliseconds timeout);
    void onTimeout();
    void logTransaction();
    void dropBufferIfConsumed();
    void forward(const Http::Url& url, const Acl::Checklist& facts, const Store::EntryRef& joinable);
    OriginRequestSpec originSpec(const Http::Url& url, std::string_view method) const;
    // the memory cache (Caching.cc)
    bool lookupCache(const Http::Url& url, const Acl::Checklist& facts, Store::EntryRef& joinable);
    void serveStored(const Store::EntryRef& entry, int64_t age, const char* hitCode = "TCP_MEM_HIT",
                     Store::StoredFileRef file = nullptr);
    /// whether send_hit keeps what the lookup found from answering this request
    bool hitIsBlocked(const Store::Lookup& found, const Acl::Checklist& facts) const;
    void joinMiss(const Store::EntryRef& entry);
    bool joinedReplyIsUsable();
    bool joinedRevalidationIsUsable();
    /// whether stale-if-error (RFC 5861) or max_stale lets the stale stored
    /// object answer this request now that its revalidation failed
    bool mayServeStaleOnError() const;
    /// serves the stale stored object instead of the fetch's reply, logged resultCode
    void switchToStale(const char* resultCode);
    void fetchAlone();
    int64_t wholeFetchLimit(const Acl::Checklist& facts) const;
    void refuseOnlyIfCached();
    void startOwnFetch(Server::Request&& request);
    bool decideStore();
    /// what decides whether this request's reply is stored (a copy of its facts)
    Store::FetchSpec storeSpec() const;
    /// the refresh_pattern line that matches the request's URL, matched once per request
    const Store::RefreshRule& refreshRule() const;
    /// whether the forwarder should go on without this client, which leaves
    /// before the reply head while others wait for its fetch (collapsed_forwarding)
    bool isHandedOver() const;
    bool serveStaleOnError();
    void planRanges(const Store::Entry& entry, Http::FieldsView requestFields);
    /// a 206 to this GET, a part of an object that could be stored whole:
    /// collected by Store::Parts (doc/caching.md "Partial objects")
    void collectPart();
    /// serves a Range miss from held parts that cover it; whether it did
    bool servePart(const Acl::Checklist& facts, time_t now);
    /// the disk store that holds the stale object being revalidated, or null
    /// (a memory object, or none)
    Store::DiskTier* staleDisk() const;
    /// RFC 5861: a DetachedFetch asks the origin about the stale `entry`
    /// (a disk object when onDisk) while this client is served from it
    void revalidateInBackground(const Http::Url& url, const Acl::Checklist& facts,
                                const Store::EntryRef& entry, const std::string& fullKey,
                                const Store::RefreshRule& rule, bool onDisk);
    void invalidateAfterUnsafe();
    void purge(const Http::Url& url);
    std::vector<Http::HeaderField> requestFieldsCopy(Http::RequestParser& parser) const;
    // the cache manager (Manager.cc)
    /// whether an absolute URL is for cuttle's manager: cache_object://, or
    /// http://visible_hostname:this-port/squid-internal-mgr/ (as Squid 5.7)
    bool isManagerUrl(const Http::Url& url) const;
    /// answers a manager request that http_access allowed: cachemgr_passwd
    /// (401, 404) or the page, or runs the command
    void serveManager(const Http::Url& url, Errors::PageContext& context);
    /// the rest of serveManager() once the page is made: at once, or from
    /// the loop (Checking until then; it writes the reply)
    void answerManager(const std::string& action, const std::string& requestHead,
                       std::optional<std::string> page);
    // limits on a transaction (Limits.cc)
    /// request_body_max_size against the Content-Length: answers 413 and returns true when over
    bool requestBodyIsTooBig(Errors::PageContext& context);
    /// request_body_max_size against a chunked body so far: resets the connection and returns true when over
    bool chunkedBodyIsTooBig();
    /// reply_body_max_size (ERR_TOO_BIG), then http_reply_access
    /// (ERR_ACCESS_DENIED): answers the 403 and returns true when denied
    bool replyIsDenied(bool isOwner);

    // squid.conf's header rules (HeaderEdits.cc); each does nothing without rules
    /// The acl facts the header rules see: the request's, or before they
    /// are gathered (an early error page) what the connection knows.
    Acl::Checklist headerFacts() const;
    /// What the %-codes of a header addition read, for a transaction with `facts`.
    Log::FormatFacts headerFormatFacts(const Acl::Checklist& facts) const;
    /// request_header_access, _replace and _add on a forwarded request head.
    void editRequestHead(std::string& head) const;
    /// reply_header_access, _replace and _add on a head to the client;
    /// `requestHead` is the request's head (its fields are parsed again),
    /// `reply` the origin's or stored reply (nullptr for an error page),
    /// `status` the status sent.
    void editReplyHead(std::string& head, const std::string& requestHead, const Store::Reply* reply,
                       int status) const;
    /// a reply of unknown length that grew past reply_body_max_size: stops
    /// its writer at the limit, and once the client has it, closes and
    /// returns true (`caught`: the writer caught up with the entry)
    bool replyGrewTooBig(bool caught = false);
    /// closes the connection with a TCP reset (Squid's comm_reset_close)
    void resetConnection();
    /// follow_x_forwarded_for: the indirect client, into the facts' src
    /// (acl_uses_indirect_client) and the log (log_uses_indirect_client) (IndirectClient.cc)
    void findIndirectClient(Acl::Checklist& facts, Log::AccessRecord& record);
    bool startRequestBody();
    void readBody();
    void consumeBody();
    void endRequestBody(bool complete);
    /// writes an interim reply of this client's fetch, or keeps it for the
    /// write of the final reply when the socket does not take it now
    void forwardInterim(const Http::ReplyParser& interim);
    /// writes what the socket takes of interim_ (a 100 Continue of ours,
    /// or the origin's interim replies); the rest goes before the final reply
    void sendInterim();
    /// puts the interim reply bytes the socket did not take yet in front of
    /// a final reply's head (they go first)
    void prependInterim(std::string& head);
    void startStreaming();
    void streamSome();
    /// A disk hit's next bytes are cold (BodyWriter::Result::Cold): has an
    /// I/O thread read them into the page cache, then streams on.
    void warmFile();
    /// A disk object's head is not in the page cache (Lookup::DiskCold):
    /// has an I/O thread read the file's front, then handles the head again.
    void warmDiskHead(const Store::StoredFileRef& front);
    /// the forwarder failed: its failure, or the stale object, answers
    void forwardingFailed();
    /// answers a failure to reach or read the origin with its error page
    /// (text: the DNS error for DnsFail) and logs it
    void answerFailure(Server::Failure why, std::string peer, int xerrno, const std::string& text);
    /// CONNECT: dials its destinations in turn, the origin or a parent (Tunneling.cc)
    void dialTunnel(const Http::Url& url, Server::Request&& request);
    /// CONNECT: dials the next destination (Comm::Connector)
    void dialNextHop();
    /// CONNECT: a dial ended: the tunnel, the parent's CONNECT, the next destination or an error page
    void onTunnelDialed(Comm::Connector::Result&& result);
    /// CONNECT through a parent: its answer opens the tunnel, is relayed, or fails
    void onParentAnswer(Tunnel::ParentConnect::Result&& answer, const std::string& parent);
    /// CONNECT through a parent: its refusal goes to the client, which is closed after it
    void relayParentReply(Tunnel::ParentConnect::Result&& answer, const std::string& parent);
    // SSL bump (Bumping.cc)
    /// ssl_bump's step 1 for an allowed CONNECT: false when it is spliced
    /// at once (dialTunnel() goes on); else it answered, or peeks next
    bool startBumping(const Http::Url& url, Server::Request& request, const Acl::Checklist& facts);
    /// an intercepted connection of an `https_port ... intercept ssl-bump`:
    /// puts a CONNECT to the original destination in the buffer, handled
    /// as if the client had sent it (Squid's fake CONNECT); the client's
    /// TLS stays in the socket for the peek
    void fakeConnect();
    /// the error reply just made for an intercepted TLS client's made-up
    /// CONNECT goes over the bumped connection instead (Bumping.cc)
    void deliverAfterBump(int status, const std::string& page);
    /// a bumped connection whose CONNECT was refused: its first request
    /// gets that error (BumpState::denial), and the connection closes
    void answerWithDenial(Log::AccessRecord& record);
    /// Peeking: reads the ClientHello (MSG_PEEK) and decides steps 2 and 3
    void peekHello();
    /// after peek or stare at step 2: connects to the origin and looks at its certificate
    void probeOrigin();
    /// ssl_bump's step 3, with the origin's certificate (null: none seen) and its errors
    void decideStepThree(Tls::X509Ptr&& certificate, std::vector<int>&& errors);
    /// step 3's ssl_bump decision (again once a lookup it waited for answered), then endBumping()
    void finishStepThree();
    /// DecideBump() at step with this connection's lookups: nothing while
    /// one its acls need is out (Bumping.cc); `resume` runs once it answered
    std::optional<Config::SslBumpRule::Action> decideBump(int step, std::function<void()> resume);
    /// carries out a decided action: the tunnel, the bump, or the end
    void endBumping(Config::SslBumpRule::Action action);
    /// the request a bumped connection's fetch makes of the origin (its
    /// host, port, TLS name), for the keys of the look at it (probeOrigin())
    Server::Request lookedAtOrigin() const;
    /// keeps the look at the origin's verified connection in the pool for the bumped requests
    void poolLookedAtOrigin();
    /// gives the socket to a new connection speaking TLS with a certificate for the client's name
    void handOverBumped();
    /// CONNECT: the 200 and the tunnel over the connected socket to peer;
    /// serverPending: bytes a parent sent after its own 200, for the client
    void startTunnel(Comm::Descriptor&& serverFd, const std::string& peer,
                     std::string_view serverPending = {});
    void endTransaction();
    /// access.log's facts of the reply about to be sent: `bytes` start with
    /// its head (an error page's body may follow, which is not noted)
    void noteReplyHead(std::string_view bytes);
    void stopForwarding();
    // interception and Host verification (Interception.cc)
    /// starts resolving an intercepted request's Host when its check needs
    /// it; false while the lookup runs (the head is parsed again after it)
    bool hostCheckReady();
    /// the verdict on the current request's Host (consumed), and the
    /// SECURITY ALERT Squid logs when it failed
    HostCheck takeHostCheck(const Http::Url& url, std::string_view userAgent);
    /// where the request goes: the original destination of an intercepted one
    void aimAtOrigin(Server::Request& request, const Http::Url& url) const;
    /// an https:// URL goes to its origin over TLS, with sslproxy_cert_error's rules (SecureOrigin.cc)
    void aimOverTls(Server::Request& request, const Http::Url& url, const Acl::Checklist& facts) const;
    /// %Sh of a forwarded request: the parent's code (FIRSTUP_PARENT...), else
    /// ORIGINAL_DST when intercepted, else HIER_DIRECT (Peering.cc)
    const char* hierarchyCode() const;
    /// what aimAtPeers() did
    enum class Aim {
        Go,      ///< the destinations are set
        Nowhere, ///< never_direct and no usable parent
        Waiting  ///< ICP queries left: the head is handled again when the wait is over
    };
    /// Peer selection for request (Peering.cc): its destinations, and what a
    /// parent needs (the URL, the client's credentials), after an ICP ping
    /// of the peers when one applies and mayPing; the source address and TOS
    /// of its connections too (outgoingFor())
    Aim aimAtPeers(Server::Request& request, const Http::Url& url, const Acl::Checklist& facts, bool mayPing);
    /// tcp_outgoing_address and tcp_outgoing_tos for a request (Peering.cc)
    Comm::Connector::Outgoing outgoingFor(const Acl::Checklist& facts) const;
    /// 503 ERR_CANNOT_FORWARD: the request may go nowhere
    void answerCannotForward();

    Services& services_;
    Comm::Descriptor fd_;             ///< the client socket
    Comm::Registration registration_; ///< after fd_: cancelled before it closes
    /// the client's TLS (https_port, bumped), or null; after fd_: its
    /// close_notify goes out before the socket closes
    Tls::AcceptedPtr tls_;
    Comm::Timer timer_; ///< the one timeout in force
    State state_ = State::ReadingHead;

    std::string peerHost_;  ///< client address literal, for logs and acls
    std::string localHost_; ///< the listening address literal (%A); intercepted: the original destination's
    Acl::Address peerAddress_;     ///< peerHost_ for the acls (parsed once per connection)
    Acl::Address localAddress_;    ///< localHost_ for the acls
    uint16_t localPort_ = 0;       ///< the listening port (%b); intercepted: the original destination's
    uint16_t peerPort_ = 0;        ///< the client's port (access.log's %>p, external_acl_type's %SRCPORT)
    std::string portName_;         ///< the http_port's name= (myportname)
    bool intercepted_ = false;     ///< accepted on an intercept port
    bool interceptedSelf_ = false; ///< intercepted, but its original destination is this socket: no NAT
    Comm::Address interceptPort_;  ///< intercepted: the intercept port's address (the socket's own)
    std::shared_ptr<void> managerPage_;    ///< a manager page being put together (Services::managerPage())
    std::unique_ptr<HostCheck> hostCheck_; ///< the current request's Host verdict, once known (on the heap:
                                           ///< intercepted connections only)
    Comm::Lookup hostLookup_;              ///< resolving the current request's Host
    Comm::Lookup dstLookup_;               ///< Checking: resolving the URL's host for dst acls
    /// the URL's host and its addresses, for the head being handled (Destination.cc)
    std::unique_ptr<std::pair<std::string, std::vector<Acl::Address>>> dstAnswer_;

    Sbuf::MemBlobRef buffer_; ///< read block; null while idle
    size_t parsedOffset_ = 0; ///< where the current head starts in buffer_
    Http::RequestParser parser_;
    timeval requestStart_{}; ///< when the first byte of the current request arrived
    bool requestStarted_ = false;

    std::string interim_; ///< interim (1xx) reply bytes the socket did not take yet: go before the reply
    bool sentContinue_ = false; ///< cuttle answered the request's Expect: 100-continue itself
    std::string out_;           ///< the reply being written (error pages only)
    size_t outOffset_ = 0;      ///< bytes of out_ already written
    bool closeAfterReply_ = false;
    bool peerClosed_ = false; ///< EPOLLRDHUP seen: the client sent its FIN
    /// the last read of the socket filled the space it was offered: more
    /// bytes may wait there with no new edge to announce them
    bool readFilled_ = false;
    /// the last read of a head came up short (or found nothing) and no event
    /// has said readable since: a read now would find nothing (a fresh
    /// connection starts false: its bytes may predate the watch)
    bool socketDrained_ = false;
    /// while a disk object's head is warmed (warmDiskHead()): its callback holds it weakly
    std::shared_ptr<bool> diskHeadWarming_;
    /// the head being handled again had its disk object's head warmed:
    /// the next lookup may read it from the disk (once)
    bool diskHeadWarmed_ = false;
    std::unique_ptr<Log::AccessRecord> pendingLog_; ///< logged when the reply is written
    uint64_t requests_ = 0;

    /// A request body on its way to the origin (allocated only for a
    /// request that has one).
    struct BodyIn {
        Store::EntryRef entry;        ///< the body's bytes, which the forwarder writes from
        Http::ChunkedDecoder decoder; ///< its chunk framing
        Sbuf::ReadSizer sizer;        ///< request_buffer_size for its reads
        uint64_t left = 0;            ///< Content-Length bytes not yet read
        bool chunked = false;         ///< it is chunked
    };

    /// The state of one request, a hit or a miss: allocated when it starts
    /// and given up when it ends, so that an idle connection does not carry
    /// it. What only some requests need is allocated apart, when they need
    /// it: the forwarder (a miss), the request body, a joiner's own request,
    /// a CONNECT's dialer.
    struct Transaction {
        Server::ForwarderPtr forwarder;                       ///< the origin side
        std::unique_ptr<Comm::Connector> dialer;              ///< CONNECT: the origin or parent being dialed
        std::unique_ptr<Tunnel::ParentConnect> parentConnect; ///< CONNECT: the parent's answer awaited
        Server::Request tunnelRoute;   ///< CONNECT: its destinations and the head for a parent
        size_t tunnelNext = 0;         ///< CONNECT: the next destination of tunnelRoute
        Server::Destination tunnelVia; ///< CONNECT: the destination dialed or used
        bool hostVerified = true;      ///< not intercepted, or its Host was verified
        Store::EntryRef reply;         ///< the reply, being streamed from
        Store::BodyWriter writer;      ///< writes the reply head and body
        std::unique_ptr<BodyIn> body;  ///< the request body on its way, or null
        std::unique_ptr<Errors::PageContext> pageContext; ///< the request's error page facts
        /// for http_reply_access, reply_body_max_size and store_miss; null without their rules
        std::unique_ptr<Acl::Checklist> replyFacts;
        std::unique_ptr<Acl::Checklist> headerFacts; ///< for the header rules; null without them
        int64_t replyBodyLimit = -1; ///< reply_body_max_size of a reply streamed out; -1: none

        // the memory cache (Caching.cc)
        std::string url;                         ///< the canonical URL
        std::string storeId;                     ///< store_id_program's key for it; empty: the URL
        Http::Method method = Http::Method::Get; ///< the request method
        std::string otherMethod;                 ///< its token when method is Other
        std::string
            cacheKey; ///< Store::MakeKey of a GET/HEAD that may use the cache; empty: none (a POST too)
        Store::RequestFacts requestFacts;       ///< the request's caching directives
        std::optional<Store::RefreshRule> rule; ///< the refresh_pattern that matches url (see refreshRule())
        Store::StoredFileRef staleFile;         ///< the body's file of `stale` when it is a disk object
        bool mayStore =
            false; ///< the reply may be stored (cache rules allow, no request no-store; a POST's: 9.3.3)
        std::string requestHead;   ///< a copy of the request head (Vary selects on its fields later)
        Store::EntryRef stale;     ///< a stored object being revalidated, or null
        Store::EntryPin stalePin;  ///< keeps stale's body whole until it is served
        Store::StoredFileRef file; ///< a disk hit: the body's file (tx.reply has no body bytes)
        /// set while an I/O thread warms the file's next bytes (warmFile());
        /// its callback holds it weakly, so it outlives neither
        std::shared_ptr<bool> warming;
        std::string staleKey;  ///< its full key
        std::string storedKey; ///< the full key of the stored object this client reads
        Store::EntryRef fetch; ///< what this client's forwarder fills (reply may move off it)
        std::unique_ptr<Server::Request>
            deferred;               ///< a joiner's own request, sent if the shared reply is unusable
        bool isJoiner = false;      ///< reading another client's in-flight fetch (collapsed_forwarding)
        bool isHit = false;         ///< served from the store
        bool notModified = false;   ///< a 304 made from the stored reply
        std::optional<int64_t> age; ///< the Age to send
        std::string resultCode = "TCP_MISS"; ///< Squid's %Ss
        bool isDecided = false;              ///< the store decision is made (a stale object is being served)
        // a Range request answered from a stored object, or from the whole
        // object fetched for it (range_offset_limit)
        bool wholeForRange = false; ///< the Range was left out of the origin request: served from the whole
        int64_t wholeLimit = 0;     ///< the range_offset_limit that decided it (-1: none)
        std::vector<Store::BodyWriter::Segment>
            segments;                        ///< the 206/416 body's pieces; empty: the whole body
        int rangeStatus = 0;                 ///< 206 or 416
        std::optional<uint64_t> rangeLength; ///< the Content-Length of the range reply
        std::vector<std::pair<std::string, std::string>> rangeFields; ///< Content-Range or Content-Type
        /// a hit on held parts (Store::Parts::Cover): the object offset
        /// of the reply entry's first body byte
        std::optional<uint64_t> partOffset;
        bool isMultipart = false; ///< multipart/byteranges
    };

    bool clientIsHttp11_ = true;                        ///< the current request's version is 1.1 or later
    bool requestIsHead_ = false;                        ///< the current request is HEAD
    bool readingBody_ = false;                          ///< request body bytes are still due
    bool bodyPaused_ = false;                           ///< body reads stopped at read_ahead_gap
    bool writing_ = false;                              ///< inside streamSome()
    bool writeBlocked_ = false;                         ///< the last reply write hit a full socket
    std::unique_ptr<Transaction> tx_;                   ///< the request being forwarded, or null
    std::unique_ptr<Server::IcpPing> icpPing_;          ///< the request's ICP queries (Peering.cc), or null
    std::vector<std::unique_ptr<Transaction>> retired_; ///< ended, destroyed off the forwarder's stack
    std::unique_ptr<Tunnel::Tunnel> tunnel_;            ///< CONNECT
    std::unique_ptr<BumpState> bump_; ///< an ssl-bump port's or a bumped connection's (Bumping.h); else null
    Comm::Timer kick_;   ///< resumes reading after a streamed reply (deferred: off the forwarder's stack)
    Comm::Timer reaper_; ///< destroys retired_ (deferred)
    Helper::Ticket authCheck_; ///< Checking: the credentials' check by the auth_param helper
    bool staleNonce_ = false;  ///< the request's digest nonce is no longer good: the 407 says stale=true
    /// the Proxy-Authorization value that Auth::Digest passed for the head
    /// being handled again, and its user: a request takes one nonce use, however
    /// often a helper (rewriter, external acl) makes its head handled again
    std::unique_ptr<std::pair<std::string, std::string>> digestPassed_; ///< (on the heap: digest auth only)
    LookupAnswers lookups_;      ///< the acl lookups of the request (Checking: the one asked)
    Helper::Ticket helperCheck_; ///< Checking: the URL's rewriter or store-ID helper request
    /// the helpers' answers about the head being handled, kept until it is
    /// consumed (Rewrite.cc: askHelper())
    std::unique_ptr<HelperAnswers> helperAnswers_;
};

} // namespace Client
