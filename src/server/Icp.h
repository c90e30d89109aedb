/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Server::IcpSocket: the icp_port UDP socket (doc/design.md
/// "Siblings and ICP"). It answers queries with what its answerer decides
/// (the client side: icp_access, then the cache) and hands replies to its
/// reply handler (Server::Peers, whose pings wait for them). Queries cuttle
/// sends leave from it too, so a peer's replies come back to it and a peer
/// that checks where they came from (Squid's whichPeer()) knows cuttle.
///
/// Reading: edge-triggered, so handleIo() reads datagrams until EAGAIN (each
/// recvfrom() takes one whole datagram; one longer than IcpMessage::MaxSize
/// is cut, so it fails to parse and is dropped).
#pragma once

#include "comm/Address.h"
#include "comm/Descriptor.h"
#include "comm/Loop.h"
#include "server/IcpPacket.h"

#include <cstdint>
#include <functional>
#include <string>

namespace Server {

/// ICP traffic as Squid 5.7 counts it (the icp.* lines of mgr:counters):
/// datagrams and bytes sent and received, queries and replies apart
struct IcpCounters {
    uint64_t packetsSent = 0;        ///< icp.pkts_sent
    uint64_t packetsReceived = 0;    ///< icp.pkts_recv (well-formed ones)
    uint64_t queriesSent = 0;        ///< icp.queries_sent
    uint64_t repliesSent = 0;        ///< icp.replies_sent
    uint64_t queriesReceived = 0;    ///< icp.queries_recv
    uint64_t repliesReceived = 0;    ///< icp.replies_recv
    uint64_t bytesSent = 0;          ///< icp.kbytes_sent, in bytes
    uint64_t bytesReceived = 0;      ///< icp.kbytes_recv, in bytes
    uint64_t queryBytesSent = 0;     ///< icp.q_kbytes_sent, in bytes
    uint64_t replyBytesSent = 0;     ///< icp.r_kbytes_sent, in bytes
    uint64_t queryBytesReceived = 0; ///< icp.q_kbytes_recv, in bytes
    uint64_t replyBytesReceived = 0; ///< icp.r_kbytes_recv, in bytes
    uint64_t queryTimeouts = 0;      ///< icp.query_timeouts: pings whose wait timed out (Server::Peers)
    uint64_t timesUsed = 0;          ///< icp.times_used: selections an ICP reply made (Server::Peers)
};

/// The icp_port socket; see the file comment.
class IcpSocket : public Comm::IoHandler {
public:
    /// the reply to a query from `from` about `url` (ICP_HIT, ICP_MISS,
    /// ICP_DENIED, ICP_ERR...)
    using Answerer = std::function<IcpOpcode(const Comm::Address& from, const std::string& url)>;
    /// told of an access.log line for a query answered: who asked, what it got, the reply's size
    using QueryLogger =
        std::function<void(const Comm::Address& from, IcpOpcode reply, size_t size, const std::string& url)>;
    /// told of each reply that arrives (ICP_HIT, ICP_MISS... from `from`)
    using ReplyHandler = std::function<void(const Comm::Address& from, const IcpMessage& reply)>;

    /// a closed socket on loop; replies go to onReply; its traffic is
    /// counted in counters, which must outlive it
    IcpSocket(Comm::Loop& loop, ReplyHandler onReply, IcpCounters& counters);
    ~IcpSocket() override;
    IcpSocket(const IcpSocket&) = delete;
    IcpSocket& operator=(const IcpSocket&) = delete;

    /// binds `address` (empty: every address) and `port`; false with `error` set when it cannot
    bool open(const std::string& address, uint16_t port, std::string& error);
    /// whether it is bound
    bool isOpen() const { return fd_.isOpen(); }
    /// the bound address and port (open() only)
    const Comm::Address& local() const { return local_; }
    /// what queries get, and who is told of them
    void setAnswerer(Answerer answerer, QueryLogger logger);
    /// sends one datagram (a lost one is lost: UDP)
    void send(const Comm::Address& to, const std::string& datagram);

    void handleIo(const Comm::IoEvents& events) override;

private:
    void answer(const Comm::Address& from, const IcpMessage& query);

    Comm::Loop& loop_;
    ReplyHandler onReply_;
    IcpCounters& counters_;
    Answerer answerer_;
    QueryLogger logger_;
    Comm::Address local_;
    Comm::Descriptor fd_;
    Comm::Registration registration_; ///< after fd_, so it goes first
};

} // namespace Server
