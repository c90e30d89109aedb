/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Server::IcpMessage: one ICP version 2 datagram (RFC 2186), as
/// Squid 5.7 sends and takes it (doc/design.md "Siblings and ICP").
///
///     0        8        16               31
///     +--------+--------+-----------------+
///     | opcode | version| message length  |   length: the whole datagram
///     +--------+--------+-----------------+
///     |          request number           |   a reply carries the query's
///     +-----------------------------------+
///     |              options              |   flags (0x80000000 HIT_OBJ,
///     +-----------------------------------+          0x40000000 SRC_RTT)
///     |            option data            |
///     +-----------------------------------+
///     |       sender host address         |   Squid sends 0
///     +-----------------------------------+
///     | [QUERY: requester host address]   |
///     | URL, NUL-terminated ...           |
///
/// ParseIcp() takes untrusted bytes: it reads nothing past the datagram and
/// refuses any length that does not add up.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace Server {

/// RFC 2186 section 1.2's opcodes, with Squid's MISS_NOFETCH and DENIED.
enum class IcpOpcode : uint8_t {
    Invalid = 0,
    Query = 1,
    Hit = 2,
    Miss = 3,
    Err = 4,
    SourceEcho = 10,
    DecoyEcho = 11,
    MissNoFetch = 21,
    Denied = 22,
    HitObj = 23,
};

/// "ICP_QUERY", "ICP_HIT"...
const char* IcpOpcodeName(IcpOpcode opcode);

/// One ICP message; see the file comment.
struct IcpMessage {
    /// the fixed header's size
    static constexpr size_t HeaderSize = 20;
    /// the longest datagram read or sent (Squid's MAX_URL of 8 KiB fits)
    static constexpr size_t MaxSize = 16384;

    IcpOpcode opcode = IcpOpcode::Invalid; ///< what it is
    uint8_t version = 2;                   ///< 2, or 3 (Squid's, taken as 2)
    uint32_t reqnum = 0;                   ///< matches a reply to its query
    uint32_t flags = 0;                    ///< options
    uint32_t optionData = 0;               ///< option data
    uint32_t senderAddress = 0;            ///< sender host address (network order)
    uint32_t requesterAddress = 0;         ///< a query's requester host address (network order)
    std::string url;                       ///< the URL, without its NUL
};

/// the datagram's message, or none when it is not one: shorter than the
/// header, a length field other than the datagram's size, a version other
/// than 2 or 3, an opcode cuttle does not take (HIT_OBJ included), a query
/// without its requester address, a URL that is empty, not NUL-terminated at
/// the message's end, or holding a NUL
std::optional<IcpMessage> ParseIcp(std::string_view datagram);

/// the datagram of `message` (its length field computed); empty when the URL
/// would not fit in IcpMessage::MaxSize or holds a NUL
std::string BuildIcp(const IcpMessage& message);

} // namespace Server
