/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file One client connection of the test origin.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <sys/uio.h>

namespace Origin {

class Server;
struct ReplySpec;

/// One accepted connection, served by a thread of its own with a blocking
/// socket: reads each request (pipelined ones in order, with their bodies),
/// answers it, and goes on until the client closes, a reply ends the
/// connection or the server stops. Owns the socket: the destructor closes it.
class Connection {
public:
    /// takes fd, a connected socket; id is its X-Origin-Conn
    Connection(Server& server, int fd, uint64_t id);
    ~Connection();
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    /// Serves requests until the connection ends.
    void serve();

    /// the shared server state
    Server& server() { return server_; }

private:
    struct Request; ///< a parsed request and what its body was (Connection.cc)
    struct Body;    ///< what a reply carries: text, the pattern or a file (Connection.cc)
    /// how a reply leaves the connection
    enum class Ending {
        KeepAlive, ///< ready for the next request
        Close,     ///< a graceful close: FIN, then drain the client's bytes for a while
        Reset,     ///< close with SO_LINGER 0: a TCP reset
        Abort      ///< close at once (an I/O error, or the client is gone)
    };
    using Clock = std::chrono::steady_clock;

    /// The pacing of a body (`rate=`): the bytes sent after the head leave in
    /// steps of rate / PacingSteps bytes (at least one byte), and the step from
    /// offset X is sent no earlier than X / rate seconds after start.
    struct Pacing {
        uint64_t rate = 0;         ///< bytes per second; 0: not pacing (the head, other replies)
        Clock::time_point start{}; ///< when the head had been sent
        uint64_t sent = 0;         ///< bytes sent since start (chunk framing included)
    };

    /// what readHead() got: a request, the end of the connection, or bytes to refuse
    enum class HeadResult { Ok, Eof, Bad };
    /// Reads and parses the next request head; on Bad, status and why say what to answer.
    HeadResult readHead(Request& request, int& status, std::string& why);
    /// Parses request.head (request line, target, framing fields); false: status and why.
    bool parseHead(Request& request, int& status, std::string& why);
    /// Reads the body, if any, hashing it; false: answer status (0: just close) and why.
    bool readBody(Request& request, int& status, std::string& why);
    /// Takes one line (without its CRLF or LF) from the input; false on EOF or past maxLength.
    bool readLine(std::string& line, size_t maxLength);
    /// Appends what one recv() returns to in_; false on EOF or an error.
    bool fill();

    /// Answers a request: the special paths, a script line or the query.
    Ending handle(const Request& request, Clock::time_point started);
    /// ranges=1: makes spec and body a 206 of the one byte range that a
    /// request's Range value asks for, when it lies within the body
    static void applyRange(std::string_view range, ReplySpec& spec, Body& body);
    /// Answers with status and a text/plain body.
    Ending simpleReply(const Request& request, int status, std::string text, Clock::time_point started);
    /// Sends the reply spec and body describe, failures included.
    Ending reply(const Request& request, const ReplySpec& spec, Body& body, Clock::time_point started);
    /// The reply head, hsize= filler included.
    std::string buildHead(const Request& request, const ReplySpec& spec, const Body& body, bool hasBody,
                          bool keepAlive, Clock::time_point started) const;
    /// Sends head and the first limit body bytes as they are (Content-Length or close-delimited).
    bool sendIdentity(std::string_view head, const Body& body, uint64_t limit);
    /// Sends head and the first limit body bytes in chunks, and the last chunk when complete.
    bool sendChunked(std::string_view head, const Body& body, uint64_t limit, bool complete);
    /// Sends every byte of iov (which it changes), paced while pacing_ is on; false on an error.
    bool sendAll(iovec* iov, size_t count, int flags = 0);
    /// Sends every byte; false on an error.
    bool sendAll(std::string_view bytes, int flags = 0);
    /// Sends length bytes of file from offset with sendfile(2), paced while pacing_ is on; false on an error.
    bool sendFile(int file, uint64_t offset, uint64_t length);
    /// Sleeps until the next paced byte is due (at once when not pacing); false when the server stops.
    bool waitForPace();
    /// the most bytes one send may take: a pacing step's worth, or max when not pacing
    uint64_t stepLimit(uint64_t max) const;
    /// Waits (bounded) until the client acknowledged every byte sent.
    void waitUntilSent();
    /// Sends nothing and drops what arrives until the client closes or the server stops.
    void stall();
    /// Ends the connection as ending says; the destructor closes the socket.
    void end(Ending ending);
    /// the request body read buffer
    char* scratch();

    Server& server_;                  ///< the shared state
    const int fd_;                    ///< the socket
    const uint64_t id_;               ///< X-Origin-Conn
    bool attached_ = false;           ///< whether server_ may shut fd_ down
    std::string in_;                  ///< received bytes not consumed yet
    std::unique_ptr<char[]> scratch_; ///< a big read buffer for request bodies, made on first use
    Pacing pacing_;                   ///< the pacing of the body being sent, if any
};

} // namespace Origin
