/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "server/Icp.h"
#include "log/CacheLog.h"

#include <cerrno>
#include <cstring>

#include <netinet/in.h>
#include <sys/socket.h>

Server::IcpSocket::IcpSocket(Comm::Loop& loop, ReplyHandler onReply, IcpCounters& counters)
    : loop_(loop), onReply_(std::move(onReply)), counters_(counters)
{}

Server::IcpSocket::~IcpSocket() = default;

bool Server::IcpSocket::open(const std::string& address, uint16_t port, std::string& error)
{
    const auto where = Comm::Address::Parse(address, port);
    if (!where) {
        error = "bad udp_incoming_address " + address;
        return false;
    }
    Comm::Descriptor fd(::socket(where->family(), SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd.isOpen() || ::bind(fd.get(), where->raw(), where->length()) != 0) {
        error = "cannot bind ICP port " + where->toString() + ": " + std::strerror(errno);
        return false;
    }
    sockaddr_storage bound{};
    socklen_t len = sizeof(bound);
    ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&bound), &len);
    registration_.cancel();
    fd_ = std::move(fd);
    local_ = Comm::Address::FromSockaddr(reinterpret_cast<sockaddr*>(&bound), len);
    registration_ = loop_.watch(fd_.get(), *this);
    debugs(12, 1, "Accepting ICP messages on " << local_.toString());
    return true;
}

void Server::IcpSocket::setAnswerer(Answerer answerer, QueryLogger logger)
{
    answerer_ = std::move(answerer);
    logger_ = std::move(logger);
}

void Server::IcpSocket::send(const Comm::Address& to, const std::string& datagram)
{
    if (!fd_.isOpen() || datagram.empty())
        return;
    if (::sendto(fd_.get(), datagram.data(), datagram.size(), 0, to.raw(), to.length()) < 0) {
        debugs(12, 2, "ICP send to " << to.toString() << " failed: " << std::strerror(errno));
        return;
    }
    // the first byte of a datagram is its opcode (RFC 2186 section 1.1)
    const bool isQuery = uint8_t(datagram[0]) == uint8_t(IcpOpcode::Query);
    ++counters_.packetsSent;
    ++(isQuery ? counters_.queriesSent : counters_.repliesSent);
    counters_.bytesSent += datagram.size();
    (isQuery ? counters_.queryBytesSent : counters_.replyBytesSent) += datagram.size();
}

void Server::IcpSocket::handleIo(const Comm::IoEvents& events)
{
    if (!events.readable && !events.error)
        return;
    // one more byte than the largest message: a datagram that fills it was cut
    char buffer[IcpMessage::MaxSize + 1];
    for (;;) {
        sockaddr_storage from{};
        socklen_t len = sizeof(from);
        const ssize_t n =
            ::recvfrom(fd_.get(), buffer, sizeof(buffer), 0, reinterpret_cast<sockaddr*>(&from), &len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            // ECONNREFUSED and the like report an earlier send's ICMP error
            // once: the next datagram may still be there; EAGAIN: drained
            if (errno == ECONNREFUSED || errno == EHOSTUNREACH || errno == ENETUNREACH)
                continue;
            return;
        }
        const auto sender = Comm::Address::FromSockaddr(reinterpret_cast<sockaddr*>(&from), len);
        const auto message = ParseIcp(std::string_view(buffer, size_t(n)));
        if (!message) {
            debugs(12, 2, "ignored a malformed ICP datagram of " << n << " bytes from " << sender.toString());
            continue;
        }
        const bool isQuery = message->opcode == IcpOpcode::Query;
        ++counters_.packetsReceived;
        ++(isQuery ? counters_.queriesReceived : counters_.repliesReceived);
        counters_.bytesReceived += size_t(n);
        (isQuery ? counters_.queryBytesReceived : counters_.replyBytesReceived) += size_t(n);
        if (isQuery)
            answer(sender, *message);
        else if (onReply_)
            onReply_(sender, *message);
    }
}

void Server::IcpSocket::answer(const Comm::Address& from, const IcpMessage& query)
{
    IcpMessage reply;
    reply.opcode = answerer_ ? answerer_(from, query.url) : IcpOpcode::Denied;
    reply.version = 2;
    reply.reqnum = query.reqnum;
    reply.url = query.url;
    const auto datagram = BuildIcp(reply);
    send(from, datagram);
    if (logger_)
        logger_(from, reply.opcode, datagram.size(), query.url);
}
