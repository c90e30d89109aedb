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
    struct Request;
    struct Body;
    /// how a reply leaves the connection
    enum class Ending {
        KeepAlive, ///< ready for the next request
        Close,     ///< a graceful close: FIN, then drain the client's bytes for a while
        Reset,     ///< close with SO_LINGER 0: a TCP reset
        Abort      ///< close at once (an I/O error, or the client is gone)
    };
    using Clock = std::chrono::steady_clock;

    enum class HeadResult { Ok, Eof, Bad };
    HeadResult readHead(Request& request, int& status, std::string& why);
    bool parseHead(Request& request, int& status, std::string& why);
    bool readBody(Request& request, int& status, std::string& why);
    bool consumeBody(Request& request, uint64_t length);
    bool readLine(std::string& line, size_t maxLength);
    bool fill();

    Ending handle(const Request& request, Clock::time_point started);
    Ending simpleReply(const Request& request, int status, std::string text, Clock::time_point started);
    Ending reply(const Request& request, const ReplySpec& spec, Body& body, Clock::time_point started);
    std::string buildHead(const Request& request, const ReplySpec& spec, const Body& body, bool hasBody,
                          bool keepAlive, Clock::time_point started) const;
    bool sendIdentity(std::string_view head, const Body& body, uint64_t limit);
    bool sendChunked(std::string_view head, const Body& body, uint64_t limit, bool complete);
    bool sendAll(iovec* iov, size_t count, int flags = 0);
    bool sendAll(std::string_view bytes, int flags = 0);
    bool sendFile(int file, uint64_t offset, uint64_t length);
    void waitUntilSent();
    void stall();
    void end(Ending ending);
    char* scratch();

    Server& server_;                  ///< the shared state
    const int fd_;                    ///< the socket
    const uint64_t id_;               ///< X-Origin-Conn
    bool attached_ = false;           ///< whether server_ may shut fd_ down
    std::string in_;                  ///< received bytes not consumed yet
    std::unique_ptr<char[]> scratch_; ///< a big read buffer for request bodies, made on first use
};

} // namespace Origin
