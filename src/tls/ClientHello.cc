/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "tls/ClientHello.h"

#include <cctype>
#include <cstdint>

namespace {

using Status = Tls::ClientHello::Status;

constexpr uint8_t HandshakeRecord = 22;    // RFC 8446 section 5.1, ContentType handshake
constexpr uint8_t ClientHelloType = 1;     // section 4, HandshakeType client_hello
constexpr uint16_t ServerNameType = 0;     // RFC 6066 section 3, ExtensionType server_name
constexpr uint8_t HostNameType = 0;        // RFC 6066 section 3, NameType host_name
constexpr size_t MaxRecordPayload = 18432; // 2^14 + 2048, the most TLSCiphertext may carry

/// reads big-endian numbers from a bounded view; a read past the end sets short_
class Reader {
public:
    explicit Reader(std::string_view bytes) : bytes_(bytes) {}
    size_t left() const { return bytes_.size() - at_; }
    bool isShort() const { return short_; }
    uint32_t number(size_t width)
    {
        if (left() < width) {
            short_ = true;
            at_ = bytes_.size();
            return 0;
        }
        uint32_t n = 0;
        for (size_t i = 0; i < width; ++i)
            n = (n << 8) | uint8_t(bytes_[at_++]);
        return n;
    }
    std::string_view take(size_t size)
    {
        if (left() < size) {
            short_ = true;
            at_ = bytes_.size();
            return {};
        }
        const auto part = bytes_.substr(at_, size);
        at_ += size;
        return part;
    }
    /// a vector with a length prefix of `width` bytes (RFC 8446 section 3.4)
    std::string_view vector(size_t width) { return take(number(width)); }

private:
    std::string_view bytes_;
    size_t at_ = 0;
    bool short_ = false;
};

/// the host_name of a server_name extension's data, lowercased; empty: none or bad
std::string HostName(std::string_view data)
{
    Reader list(data);
    Reader names(list.vector(2));
    while (!names.isShort() && names.left() > 0) {
        const auto type = names.number(1);
        const auto name = names.vector(2);
        if (names.isShort() || type != HostNameType)
            continue;
        std::string host;
        for (const char c : name) {
            // RFC 6066: ASCII, no trailing dot; anything else is no name we can use
            const auto u = static_cast<unsigned char>(c);
            if (u <= ' ' || u >= 0x7f)
                return {};
            host += static_cast<char>(std::tolower(u));
        }
        return host;
    }
    return {};
}

/// the parse of a whole ClientHello message body (RFC 8446 section 4.1.2)
Tls::ClientHello ParseBody(std::string_view body)
{
    Tls::ClientHello hello;
    hello.status = Status::Malformed;
    Reader r(body);
    (void)r.number(2); // legacy_version
    (void)r.take(32);  // random
    (void)r.vector(1); // legacy_session_id
    (void)r.vector(2); // cipher_suites
    (void)r.vector(1); // legacy_compression_methods
    if (r.isShort())
        return hello;
    hello.status = Status::Done;
    if (r.left() == 0)
        return hello; // no extensions (TLS 1.2 allows it): no SNI
    Reader extensions(r.vector(2));
    if (r.isShort())
        return Tls::ClientHello{Status::Malformed, {}};
    while (extensions.left() > 0) {
        const auto type = extensions.number(2);
        const auto data = extensions.vector(2);
        if (extensions.isShort())
            return Tls::ClientHello{Status::Malformed, {}};
        if (type == ServerNameType && hello.serverName.empty())
            hello.serverName = HostName(data);
    }
    return hello;
}

} // namespace

Tls::ClientHello Tls::ParseClientHello(std::string_view bytes)
{
    if (bytes.size() > MaxHelloBytes)
        bytes = bytes.substr(0, MaxHelloBytes);
    // the handshake bytes, gathered from the records that carry them
    std::string handshake;
    size_t at = 0;
    while (true) {
        if (bytes.size() - at < 5) {
            if (at == 0 && !bytes.empty() && uint8_t(bytes[0]) != HandshakeRecord)
                return ClientHello{Status::NotTls, {}};
            break;
        }
        Reader header(bytes.substr(at, 5));
        const auto type = header.number(1);
        const auto major = header.number(1);
        (void)header.number(1); // the minor version varies (1.0 in many first records)
        const auto length = header.number(2);
        if (type != HandshakeRecord || major != 3)
            return ClientHello{at == 0 ? Status::NotTls : Status::Malformed, {}};
        if (length == 0 || length > MaxRecordPayload)
            return ClientHello{Status::Malformed, {}};
        if (bytes.size() - at - 5 < length) {
            handshake.append(bytes.substr(at + 5));
            at = bytes.size();
            break;
        }
        handshake.append(bytes.substr(at + 5, length));
        at += 5 + length;
        if (handshake.size() >= 4) {
            const size_t need = 4 + ((size_t(uint8_t(handshake[1])) << 16) |
                                     (size_t(uint8_t(handshake[2])) << 8) | uint8_t(handshake[3]));
            if (handshake.size() >= need)
                break;
        }
    }
    if (handshake.empty())
        return ClientHello{};
    if (uint8_t(handshake[0]) != ClientHelloType)
        return ClientHello{Status::Malformed, {}};
    if (handshake.size() < 4)
        return bytes.size() >= MaxHelloBytes ? ClientHello{Status::Malformed, {}} : ClientHello{};
    const size_t length =
        (size_t(uint8_t(handshake[1])) << 16) | (size_t(uint8_t(handshake[2])) << 8) | uint8_t(handshake[3]);
    if (length + 4 > MaxHelloBytes)
        return ClientHello{Status::Malformed, {}};
    if (handshake.size() < length + 4)
        return bytes.size() >= MaxHelloBytes ? ClientHello{Status::Malformed, {}} : ClientHello{};
    return ParseBody(std::string_view(handshake).substr(4, length));
}
