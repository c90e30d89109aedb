/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "server/IcpPacket.h"

namespace {

uint32_t Read32(std::string_view bytes, size_t at)
{
    return (uint32_t(uint8_t(bytes[at])) << 24) | (uint32_t(uint8_t(bytes[at + 1])) << 16) |
           (uint32_t(uint8_t(bytes[at + 2])) << 8) | uint32_t(uint8_t(bytes[at + 3]));
}

void Append32(std::string& out, uint32_t value)
{
    for (int shift = 24; shift >= 0; shift -= 8)
        out.push_back(char((value >> shift) & 0xff));
}

bool IsTaken(uint8_t opcode)
{
    switch (Server::IcpOpcode(opcode)) {
    case Server::IcpOpcode::Query:
    case Server::IcpOpcode::Hit:
    case Server::IcpOpcode::Miss:
    case Server::IcpOpcode::Err:
    case Server::IcpOpcode::SourceEcho:
    case Server::IcpOpcode::DecoyEcho:
    case Server::IcpOpcode::MissNoFetch:
    case Server::IcpOpcode::Denied:
        return true;
    case Server::IcpOpcode::Invalid:
    case Server::IcpOpcode::HitObj:
        return false;
    }
    return false;
}

} // namespace

const char* Server::IcpOpcodeName(IcpOpcode opcode)
{
    switch (opcode) {
    case IcpOpcode::Invalid:
        return "ICP_INVALID";
    case IcpOpcode::Query:
        return "ICP_QUERY";
    case IcpOpcode::Hit:
        return "ICP_HIT";
    case IcpOpcode::Miss:
        return "ICP_MISS";
    case IcpOpcode::Err:
        return "ICP_ERR";
    case IcpOpcode::SourceEcho:
        return "ICP_SECHO";
    case IcpOpcode::DecoyEcho:
        return "ICP_DECHO";
    case IcpOpcode::MissNoFetch:
        return "ICP_MISS_NOFETCH";
    case IcpOpcode::Denied:
        return "ICP_DENIED";
    case IcpOpcode::HitObj:
        return "ICP_HIT_OBJ";
    }
    return "ICP_INVALID";
}

std::optional<Server::IcpMessage> Server::ParseIcp(std::string_view datagram)
{
    if (datagram.size() < IcpMessage::HeaderSize || datagram.size() > IcpMessage::MaxSize)
        return std::nullopt;
    const auto opcode = uint8_t(datagram[0]);
    const auto version = uint8_t(datagram[1]);
    const size_t length = (size_t(uint8_t(datagram[2])) << 8) | uint8_t(datagram[3]);
    if (length != datagram.size() || (version != 2 && version != 3) || !IsTaken(opcode))
        return std::nullopt;
    IcpMessage m;
    m.opcode = IcpOpcode(opcode);
    m.version = version;
    m.reqnum = Read32(datagram, 4);
    m.flags = Read32(datagram, 8);
    m.optionData = Read32(datagram, 12);
    m.senderAddress = Read32(datagram, 16);
    size_t at = IcpMessage::HeaderSize;
    if (m.opcode == IcpOpcode::Query) {
        if (length < at + 4)
            return std::nullopt;
        m.requesterAddress = Read32(datagram, at);
        at += 4;
    }
    const auto url = datagram.substr(at);
    // the URL and its NUL fill the rest exactly: one NUL, the last byte
    if (url.size() < 2 || url.back() != '\0' || url.find('\0') != url.size() - 1)
        return std::nullopt;
    m.url.assign(url.data(), url.size() - 1);
    return m;
}

std::string Server::BuildIcp(const IcpMessage& message)
{
    const size_t length =
        IcpMessage::HeaderSize + (message.opcode == IcpOpcode::Query ? 4 : 0) + message.url.size() + 1;
    if (length > IcpMessage::MaxSize || message.url.find('\0') != std::string::npos)
        return std::string();
    std::string out;
    out.reserve(length);
    out.push_back(char(message.opcode));
    out.push_back(char(message.version));
    out.push_back(char((length >> 8) & 0xff));
    out.push_back(char(length & 0xff));
    Append32(out, message.reqnum);
    Append32(out, message.flags);
    Append32(out, message.optionData);
    Append32(out, message.senderAddress);
    if (message.opcode == IcpOpcode::Query)
        Append32(out, message.requesterAddress);
    out += message.url;
    out.push_back('\0');
    return out;
}
