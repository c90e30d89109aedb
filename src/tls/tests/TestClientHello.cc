/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "tls/ClientHello.h"
#include "tls/Ptr.h"

#include <cppunit/extensions/HelperMacros.h>

#include <string>

namespace {

using Status = Tls::ClientHello::Status;

/// the first flight of an OpenSSL client asking for sni (none when empty)
std::string OpenSslHello(const std::string& sni)
{
    Tls::CtxPtr ctx(SSL_CTX_new(TLS_client_method()));
    Tls::SslPtr ssl(SSL_new(ctx.get()));
    BIO* in = BIO_new(BIO_s_mem());
    BIO* out = BIO_new(BIO_s_mem());
    SSL_set_bio(ssl.get(), in, out);
    if (!sni.empty())
        SSL_set_tlsext_host_name(ssl.get(), sni.c_str());
    CPPUNIT_ASSERT(SSL_connect(ssl.get()) <= 0); // waits for the server
    char* data = nullptr;
    const long size = BIO_get_mem_data(out, &data);
    return std::string(data, size_t(size));
}

/// the same handshake bytes cut into records of at most `each` bytes
std::string Rerecord(const std::string& flight, size_t each)
{
    const std::string body = flight.substr(5);
    std::string out;
    for (size_t at = 0; at < body.size(); at += each) {
        const size_t n = std::min(each, body.size() - at);
        out += flight.substr(0, 3);
        out += char(n >> 8);
        out += char(n & 0xff);
        out += body.substr(at, n);
    }
    return out;
}

} // namespace

/// Tls::ParseClientHello(): SNI from real hellos, whole or in pieces, and
/// every bad input refused without reading past it.
class TestClientHello : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestClientHello);
    CPPUNIT_TEST(wholeHelloGivesItsServerName);
    CPPUNIT_TEST(everyPrefixNeedsMore);
    CPPUNIT_TEST(helloAcrossRecordsIsWhole);
    CPPUNIT_TEST(helloWithoutSniIsDoneWithNoName);
    CPPUNIT_TEST(plainHttpIsNotTls);
    CPPUNIT_TEST(brokenLengthsAreMalformed);
    CPPUNIT_TEST(endlessHelloIsBounded);
    CPPUNIT_TEST_SUITE_END();

public:
    void wholeHelloGivesItsServerName()
    {
        const auto hello = Tls::ParseClientHello(OpenSslHello("WWW.Example.test"));
        CPPUNIT_ASSERT(hello.status == Status::Done);
        CPPUNIT_ASSERT_EQUAL(std::string("www.example.test"), hello.serverName);
    }

    void everyPrefixNeedsMore()
    {
        const auto flight = OpenSslHello("split.test");
        for (size_t n = 0; n < flight.size(); ++n) {
            const auto hello = Tls::ParseClientHello(std::string_view(flight).substr(0, n));
            CPPUNIT_ASSERT_MESSAGE(std::to_string(n), hello.status == Status::NeedMore);
        }
        CPPUNIT_ASSERT(Tls::ParseClientHello(flight).status == Status::Done);
    }

    void helloAcrossRecordsIsWhole()
    {
        const auto flight = Rerecord(OpenSslHello("records.test"), 7);
        const auto hello = Tls::ParseClientHello(flight);
        CPPUNIT_ASSERT(hello.status == Status::Done);
        CPPUNIT_ASSERT_EQUAL(std::string("records.test"), hello.serverName);
        for (size_t n = 0; n < flight.size(); n += 3)
            CPPUNIT_ASSERT(Tls::ParseClientHello(std::string_view(flight).substr(0, n)).status ==
                           Status::NeedMore);
    }

    void helloWithoutSniIsDoneWithNoName()
    {
        const auto hello = Tls::ParseClientHello(OpenSslHello(""));
        CPPUNIT_ASSERT(hello.status == Status::Done);
        CPPUNIT_ASSERT(hello.serverName.empty());
    }

    void plainHttpIsNotTls()
    {
        CPPUNIT_ASSERT(Tls::ParseClientHello("GET / HTTP/1.1\r\n").status == Status::NotTls);
        CPPUNIT_ASSERT(Tls::ParseClientHello("G").status == Status::NotTls);
        CPPUNIT_ASSERT(Tls::ParseClientHello(std::string("\x80\x2e\x01\x00\x02", 5)).status ==
                       Status::NotTls);
    }

    void brokenLengthsAreMalformed()
    {
        auto flight = OpenSslHello("broken.test");
        // a handshake message that is no ClientHello
        auto other = flight;
        other[5] = 2;
        CPPUNIT_ASSERT(Tls::ParseClientHello(other).status == Status::Malformed);
        // an empty record
        CPPUNIT_ASSERT(Tls::ParseClientHello(std::string("\x16\x03\x01\x00\x00", 5)).status ==
                       Status::Malformed);
        // the session id's length runs past the message
        auto longId = flight;
        longId[5 + 4 + 2 + 32] = char(0xff);
        CPPUNIT_ASSERT(Tls::ParseClientHello(longId).status == Status::Malformed);
        // after the hello, a record of another type
        auto alert = Rerecord(flight, 50);
        alert[5 + 50] = 21;
        CPPUNIT_ASSERT(Tls::ParseClientHello(alert).status == Status::Malformed);
    }

    void endlessHelloIsBounded()
    {
        // a hello that says it is 16 MB long is refused at once
        std::string huge("\x16\x03\x01\x00\x04\x01\xff\xff\xff", 9);
        CPPUNIT_ASSERT(Tls::ParseClientHello(huge).status == Status::Malformed);
        // one of 60 KB in full records is read to its end, then parsed
        std::string big("\x01\x00\xf0\x00", 4);
        big += std::string(0xf000, '\0');
        std::string records;
        for (size_t at = 0; at < big.size(); at += 16384) {
            const size_t n = std::min<size_t>(16384, big.size() - at);
            records += std::string("\x16\x03\x01", 3) + char(n >> 8) + char(n & 0xff) + big.substr(at, n);
        }
        CPPUNIT_ASSERT(Tls::ParseClientHello(records.substr(0, records.size() - 1)).status ==
                       Status::NeedMore);
        CPPUNIT_ASSERT(Tls::ParseClientHello(records).status == Status::Done);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestClientHello);
