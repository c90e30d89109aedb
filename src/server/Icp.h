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

#include <functional>
#include <string>

namespace Server {

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

    /// a closed socket on loop; replies go to onReply
    IcpSocket(Comm::Loop& loop, ReplyHandler onReply);
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
    Answerer answerer_;
    QueryLogger logger_;
    Comm::Address local_;
    Comm::Descriptor fd_;
    Comm::Registration registration_; ///< after fd_, so it goes first
};

} // namespace Server
