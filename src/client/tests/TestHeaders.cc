/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "client/Headers.h"
#include "http/ReplyParser.h"
#include "http/RequestParser.h"
#include "store/Entry.h"

#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

/// Client::BuildOriginRequest, Client::BuildClientReply and
/// Client::IsHopByHop on heads parsed by the real parsers: hop-by-hop
/// fields never cross, framing is recomputed per hop, Via, X-Forwarded-For,
/// X-Cache and Connection are as squid.conf and the client say.
class TestHeaders : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestHeaders);
    CPPUNIT_TEST(isHopByHopMatchesListedTokensExactly);
    CPPUNIT_TEST(originRequestDropsEveryHopByHopField);
    CPPUNIT_TEST(originRequestRecomputesFraming);
    CPPUNIT_TEST(originRequestLineAndHostComeFromSpec);
    CPPUNIT_TEST(originRequestViaIsAppended);
    CPPUNIT_TEST(originRequestForwardedForModes);
    CPPUNIT_TEST(clientReplyKeepsKnownContentLength);
    CPPUNIT_TEST(clientReplyIsChunkedForUnknownLengthToHttp11);
    CPPUNIT_TEST(clientReplyIsCloseDelimitedForUnknownLengthToHttp10);
    CPPUNIT_TEST(clientReplyWithoutBodyKeepsOriginContentLength);
    CPPUNIT_TEST(clientReplyDropsHopByHopFields);
    CPPUNIT_TEST(clientReplyXCacheFields);
    CPPUNIT_TEST(clientReplyConnectionFollowsKeepAlive);
    CPPUNIT_TEST(clientReplyStatusLineIsHttp11);
    CPPUNIT_TEST_SUITE_END();

public:
    void isHopByHopMatchesListedTokensExactly();
    void originRequestDropsEveryHopByHopField();
    void originRequestRecomputesFraming();
    void originRequestLineAndHostComeFromSpec();
    void originRequestViaIsAppended();
    void originRequestForwardedForModes();
    void clientReplyKeepsKnownContentLength();
    void clientReplyIsChunkedForUnknownLengthToHttp11();
    void clientReplyIsCloseDelimitedForUnknownLengthToHttp10();
    void clientReplyWithoutBodyKeepsOriginContentLength();
    void clientReplyDropsHopByHopFields();
    void clientReplyXCacheFields();
    void clientReplyConnectionFollowsKeepAlive();
    void clientReplyStatusLineIsHttp11();
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestHeaders);

namespace {

using Framing = Store::BodyWriter::Framing;

constexpr const char* ClientAddress = "192.0.2.7";
constexpr const char* ViaName = "proxy.test (cuttle/1.0)";

/// A built head, split into its start line and fields (checks the syntax on the way).
struct Head {
    std::string startLine;
    std::vector<std::pair<std::string, std::string>> fields;

    /// fields named name (case-insensitive)
    size_t count(std::string_view name) const
    {
        size_t n = 0;
        for (const auto& f : fields)
            n += Http::EqualsIgnoreCase(f.first, name);
        return n;
    }
    /// the value of the only field named name; fails the test when there are several
    std::optional<std::string> value(std::string_view name) const
    {
        CPPUNIT_ASSERT(count(name) <= 1);
        for (const auto& f : fields) {
            if (Http::EqualsIgnoreCase(f.first, name))
                return f.second;
        }
        return std::nullopt;
    }
    /// the field names in order
    std::vector<std::string> names() const
    {
        std::vector<std::string> out;
        for (const auto& f : fields)
            out.push_back(f.first);
        return out;
    }
};

/// splits a built head; it must be CRLF lines ending with one empty line
Head Split(const std::string& text)
{
    CPPUNIT_ASSERT(text.ends_with("\r\n\r\n"));
    CPPUNIT_ASSERT_EQUAL(text.size() - 4, text.find("\r\n\r\n"));
    Head head;
    size_t pos = text.find("\r\n");
    head.startLine = text.substr(0, pos);
    pos += 2;
    while (pos < text.size() - 2) {
        const size_t eol = text.find("\r\n", pos);
        const std::string line = text.substr(pos, eol - pos);
        const size_t colon = line.find(": ");
        CPPUNIT_ASSERT_MESSAGE(line, colon != std::string::npos && colon > 0);
        CPPUNIT_ASSERT_EQUAL(std::string::npos, line.find_first_of("\r\n"));
        head.fields.emplace_back(line.substr(0, colon), line.substr(colon + 2));
        pos = eol + 2;
    }
    return head;
}

/// A client request head parsed by the real parser (the buffer outlives the field views).
struct ParsedRequest {
    explicit ParsedRequest(std::string text) : buffer(std::move(text)), parser(64 * 1024)
    {
        CPPUNIT_ASSERT_EQUAL(int(Http::ParseResult::Done), int(parser.parse(buffer)));
    }
    ParsedRequest(const ParsedRequest&) = delete;
    ParsedRequest& operator=(const ParsedRequest&) = delete;

    /// a spec for forwarding this request as a GET of /path to origin.test
    Client::OriginRequestSpec spec() const
    {
        Client::OriginRequestSpec s;
        s.method = parser.methodToken();
        s.path = "/path";
        s.hostField = "origin.test";
        s.fields = &parser.fields();
        s.clientAddress = ClientAddress;
        s.viaName = ViaName;
        return s;
    }

    const std::string buffer;
    Http::RequestParser parser;
};

/// An origin reply head parsed by the real parser into a Store::Reply, as
/// the Forwarder fills it (the reply holds views into buffer).
struct ParsedReply {
    explicit ParsedReply(std::string text, bool requestWasHead = false)
        : buffer(std::move(text)), parser(64 * 1024)
    {
        CPPUNIT_ASSERT_EQUAL(int(Http::ParseResult::Done), int(parser.parse(buffer)));
        reply.head = std::string_view(buffer).substr(0, parser.headSize());
        reply.status = parser.statusCode();
        reply.setReason(parser.reason());
        reply.versionMajor = parser.versionMajor();
        reply.versionMinor = parser.versionMinor();
        reply.setFields(parser.fields());
        const auto framing = parser.framing(requestWasHead, false);
        reply.hasBody = framing != Http::ReplyParser::Framing::None;
        if (framing == Http::ReplyParser::Framing::Length)
            reply.contentLength = parser.contentLength().value_or(0);
    }
    ParsedReply(const ParsedReply&) = delete;
    ParsedReply& operator=(const ParsedReply&) = delete;

    /// a spec for a keep-alive HTTP/1.1 client
    Client::ClientReplySpec spec() const
    {
        Client::ClientReplySpec s;
        s.reply = &reply;
        s.viaName = ViaName;
        return s;
    }

    const std::string buffer;
    Http::ReplyParser parser;
    Store::Reply reply;
};

/// a request of the given extra field lines
std::string RequestWith(std::string_view fields)
{
    return "GET http://origin.test/path HTTP/1.1\r\nHost: origin.test\r\n" + std::string(fields) + "\r\n";
}

} // namespace

void TestHeaders::isHopByHopMatchesListedTokensExactly()
{
    const std::vector<Http::HeaderField> none;
    for (const char* name :
         {"Connection", "keep-alive", "PROXY-CONNECTION", "te", "Trailer", "Upgrade", "Proxy-Authorization",
          "proxy-authenticate", "Transfer-Encoding", "content-length"})
        CPPUNIT_ASSERT_MESSAGE(name, Client::IsHopByHop(name, none));
    for (const char* name :
         {"Cache-Control", "Via", "Host", "Content-Type", "TE2", "X-Connection", "Trailers"})
        CPPUNIT_ASSERT_MESSAGE(name, !Client::IsHopByHop(name, none));

    // names a Connection (or Proxy-Connection) field lists, whole tokens only, any case
    const std::vector<Http::HeaderField> listed = {
        {"connection", " ,x-a ,\tX-B,, close"},
        {"Proxy-Connection", "X-Proxy-Only"},
        {"Cache-Control", "X-Not-A-Connection-Token"},
    };
    for (const char* name : {"X-A", "x-b", "X-PROXY-ONLY", "Close"})
        CPPUNIT_ASSERT_MESSAGE(name, Client::IsHopByHop(name, listed));
    for (const char* name : {"X-AB", "X", "X-Not-A-Connection-Token", "Cache-Control"})
        CPPUNIT_ASSERT_MESSAGE(name, !Client::IsHopByHop(name, listed));
}

void TestHeaders::originRequestDropsEveryHopByHopField()
{
    const ParsedRequest request(RequestWith("Accept: */*\r\n"
                                            "Connection: keep-alive, X-Private, x-other\r\n"
                                            "X-Private: secret\r\n"
                                            "User-Agent: curl/7.88\r\n"
                                            "X-OTHER: also\r\n"
                                            "Keep-Alive: timeout=5\r\n"
                                            "Proxy-Connection: keep-alive, X-Proxy-Hint\r\n"
                                            "X-Proxy-Hint: 1\r\n"
                                            "TE: trailers\r\n"
                                            "Trailer: X-Sum\r\n"
                                            "Upgrade: h2c\r\n"
                                            "Proxy-Authorization: Basic dTpw\r\n"
                                            "Proxy-Authenticate: Basic\r\n"
                                            "Cookie: a=b\r\n"
                                            "Expect: 100-continue\r\n"
                                            "Content-Length: 7\r\n"
                                            "X-Keep: kept\r\n"));
    auto spec = request.spec();
    const auto head = Split(Client::BuildOriginRequest(spec));

    for (const char* gone : {"X-Private", "X-Other", "Keep-Alive", "Proxy-Connection", "X-Proxy-Hint", "TE",
                             "Trailer", "Upgrade", "Proxy-Authorization", "Proxy-Authenticate",
                             "Transfer-Encoding", "Content-Length", "Expect"})
        CPPUNIT_ASSERT_EQUAL_MESSAGE(gone, size_t(0), head.count(gone));
    // this hop's own Connection field: one, naming nothing of the client's
    CPPUNIT_ASSERT(head.value("Connection") == std::string("keep-alive"));

    // end-to-end fields go on as they were, in their order
    const std::vector<std::string> expected = {"Host",   "Accept", "User-Agent",      "Cookie",
                                               "X-Keep", "Via",    "X-Forwarded-For", "Connection"};
    CPPUNIT_ASSERT(head.names() == expected);
    CPPUNIT_ASSERT(head.value("User-Agent") == std::string("curl/7.88"));
    CPPUNIT_ASSERT(head.value("Cookie") == std::string("a=b"));
    CPPUNIT_ASSERT(head.value("X-Keep") == std::string("kept"));
}

void TestHeaders::originRequestRecomputesFraming()
{
    // the client's framing never crosses: the spec says how the body goes
    const ParsedRequest chunkedClient(RequestWith("Transfer-Encoding: chunked\r\n"));
    auto spec = chunkedClient.spec();
    spec.bodyFraming = Framing::Raw;
    spec.contentLength = 42;
    auto head = Split(Client::BuildOriginRequest(spec));
    CPPUNIT_ASSERT(head.value("Content-Length") == std::string("42"));
    CPPUNIT_ASSERT_EQUAL(size_t(0), head.count("Transfer-Encoding"));

    const ParsedRequest lengthClient(RequestWith("Content-Length: 10\r\n"));
    spec = lengthClient.spec();
    spec.bodyFraming = Framing::Chunked;
    head = Split(Client::BuildOriginRequest(spec));
    CPPUNIT_ASSERT(head.value("Transfer-Encoding") == std::string("chunked"));
    CPPUNIT_ASSERT_EQUAL(size_t(0), head.count("Content-Length"));

    spec.bodyFraming = Framing::None;
    head = Split(Client::BuildOriginRequest(spec));
    CPPUNIT_ASSERT_EQUAL(size_t(0), head.count("Transfer-Encoding"));
    CPPUNIT_ASSERT_EQUAL(size_t(0), head.count("Content-Length"));

    // an empty body still says so
    spec.bodyFraming = Framing::Raw;
    spec.contentLength = 0;
    head = Split(Client::BuildOriginRequest(spec));
    CPPUNIT_ASSERT(head.value("Content-Length") == std::string("0"));
    // the framing field comes once, before this hop's Connection
    CPPUNIT_ASSERT_EQUAL(std::string("Connection"), head.fields.back().first);
}

void TestHeaders::originRequestLineAndHostComeFromSpec()
{
    const ParsedRequest request("POST http://origin.test:8080/a?b=c HTTP/1.1\r\n"
                                "host: elsewhere.test\r\n" // (a second Host is a 400 of the parser)
                                "Content-Type: text/plain\r\n\r\n");
    auto spec = request.spec();
    spec.path = "/a?b=c";
    spec.hostField = "origin.test:8080";
    const std::string text = Client::BuildOriginRequest(spec);
    const auto head = Split(text);
    CPPUNIT_ASSERT_EQUAL(std::string("POST /a?b=c HTTP/1.1"), head.startLine);
    // one Host, first, from the URL (the client's Host fields are not trusted)
    CPPUNIT_ASSERT_EQUAL(size_t(1), head.count("Host"));
    CPPUNIT_ASSERT_EQUAL(std::string("Host"), head.fields.front().first);
    CPPUNIT_ASSERT_EQUAL(std::string("origin.test:8080"), head.fields.front().second);
    CPPUNIT_ASSERT(head.value("Content-Type") == std::string("text/plain"));
    CPPUNIT_ASSERT(text.starts_with("POST /a?b=c HTTP/1.1\r\nHost: origin.test:8080\r\n"));
}

void TestHeaders::originRequestViaIsAppended()
{
    const ParsedRequest viaTwice(
        RequestWith("Via: 1.0 first\r\nAccept: */*\r\nvia: 1.1 second, 1.1 third\r\n"));
    auto spec = viaTwice.spec();
    auto head = Split(Client::BuildOriginRequest(spec));
    CPPUNIT_ASSERT(head.value("Via") ==
                   std::string("1.0 first, 1.1 second, 1.1 third, 1.1 proxy.test (cuttle/1.0)"));

    // `via off`: the client's Via goes on untouched
    spec.viaName = {};
    head = Split(Client::BuildOriginRequest(spec));
    CPPUNIT_ASSERT(head.value("Via") == std::string("1.0 first, 1.1 second, 1.1 third"));

    const ParsedRequest noVia(RequestWith(""));
    spec = noVia.spec();
    head = Split(Client::BuildOriginRequest(spec));
    CPPUNIT_ASSERT(head.value("Via") == std::string("1.1 proxy.test (cuttle/1.0)"));
    spec.viaName = {};
    head = Split(Client::BuildOriginRequest(spec));
    CPPUNIT_ASSERT_EQUAL(size_t(0), head.count("Via"));
}

void TestHeaders::originRequestForwardedForModes()
{
    using Mode = Config::ForwardedFor;
    struct Case {
        Mode mode;
        std::optional<std::string> withExisting; ///< when the client sent two X-Forwarded-For fields
        std::optional<std::string> withNone;     ///< when it sent none
    };
    const Case cases[] = {
        {Mode::On, "203.0.113.1, 198.51.100.2, 192.0.2.7", "192.0.2.7"},
        {Mode::Off, "203.0.113.1, 198.51.100.2, unknown", "unknown"},
        {Mode::Transparent, "203.0.113.1, 198.51.100.2", std::nullopt},
        {Mode::Truncate, "192.0.2.7", "192.0.2.7"},
        {Mode::Delete, std::nullopt, std::nullopt},
    };
    const ParsedRequest existing(
        RequestWith("X-Forwarded-For: 203.0.113.1\r\nAccept: */*\r\nx-forwarded-for: 198.51.100.2\r\n"));
    const ParsedRequest none(RequestWith("Accept: */*\r\n"));
    for (const auto& c : cases) {
        const std::string mode = std::to_string(int(c.mode));
        auto spec = existing.spec();
        spec.forwardedFor = c.mode;
        auto head = Split(Client::BuildOriginRequest(spec));
        CPPUNIT_ASSERT_MESSAGE(mode, head.value("X-Forwarded-For") == c.withExisting);

        spec = none.spec();
        spec.forwardedFor = c.mode;
        head = Split(Client::BuildOriginRequest(spec));
        CPPUNIT_ASSERT_MESSAGE(mode, head.value("X-Forwarded-For") == c.withNone);
    }
}

void TestHeaders::clientReplyKeepsKnownContentLength()
{
    // copies of one length, as the origin may send them, become one field
    const ParsedReply origin("HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\nContent-Type: text/plain\r\n"
                             "Content-Length: 5\r\n\r\n");
    for (const bool http11 : {true, false}) {
        auto spec = origin.spec();
        spec.clientIsHttp11 = http11;
        const auto built = Client::BuildClientReply(spec);
        const auto head = Split(built.head);
        CPPUNIT_ASSERT(head.value("Content-Length") == std::string("5"));
        CPPUNIT_ASSERT_EQUAL(size_t(0), head.count("Transfer-Encoding"));
        CPPUNIT_ASSERT_EQUAL(int(Framing::Raw), int(built.framing));
        CPPUNIT_ASSERT(!built.closeAfter); // a known length needs no close, even for HTTP/1.0
        CPPUNIT_ASSERT(head.value("Connection") == std::string("keep-alive"));
        CPPUNIT_ASSERT(head.value("Content-Type") == std::string("text/plain"));
    }

    const ParsedReply empty("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
    const auto built = Client::BuildClientReply(empty.spec());
    CPPUNIT_ASSERT(Split(built.head).value("Content-Length") == std::string("0"));
    CPPUNIT_ASSERT_EQUAL(int(Framing::Raw), int(built.framing));
}

void TestHeaders::clientReplyIsChunkedForUnknownLengthToHttp11()
{
    for (const char* text : {"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n",
                             "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                             "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
                             // both: Transfer-Encoding wins and Content-Length must not cross (RFC 9112 6.3)
                             "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nTransfer-Encoding: chunked\r\n\r\n"}) {
        const ParsedReply origin(text);
        const auto built = Client::BuildClientReply(origin.spec());
        const auto head = Split(built.head);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(text, int(Framing::Chunked), int(built.framing));
        CPPUNIT_ASSERT_MESSAGE(text, head.value("Transfer-Encoding") == std::string("chunked"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(text, size_t(0), head.count("Content-Length"));
        CPPUNIT_ASSERT_MESSAGE(text, !built.closeAfter);
        CPPUNIT_ASSERT_MESSAGE(text, head.value("Connection") == std::string("keep-alive"));
    }
}

void TestHeaders::clientReplyIsCloseDelimitedForUnknownLengthToHttp10()
{
    for (const char* text :
         {"HTTP/1.0 200 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"}) {
        const ParsedReply origin(text);
        auto spec = origin.spec();
        spec.clientIsHttp11 = false;
        const auto built = Client::BuildClientReply(spec);
        const auto head = Split(built.head);
        // an HTTP/1.0 client never gets chunked: the close ends the body
        CPPUNIT_ASSERT_EQUAL_MESSAGE(text, int(Framing::Raw), int(built.framing));
        CPPUNIT_ASSERT_MESSAGE(text, built.closeAfter);
        CPPUNIT_ASSERT_MESSAGE(text, head.value("Connection") == std::string("close"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(text, size_t(0), head.count("Transfer-Encoding"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(text, size_t(0), head.count("Content-Length"));
    }
}

void TestHeaders::clientReplyWithoutBodyKeepsOriginContentLength()
{
    struct Case {
        const char* text;
        bool head;                         ///< the request was HEAD
        std::optional<std::string> length; ///< the Content-Length the client gets
    };
    const Case cases[] = {
        {"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", true, "1000"},
        {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", true, std::nullopt},
        {"HTTP/1.1 304 Not Modified\r\nContent-Length: 1234\r\nETag: \"v1\"\r\n\r\n", false, "1234"},
        {"HTTP/1.1 204 No Content\r\n\r\n", false, std::nullopt},
    };
    for (const auto& c : cases) {
        const ParsedReply origin(c.text, c.head);
        CPPUNIT_ASSERT(!origin.reply.hasBody);
        for (const bool http11 : {true, false}) {
            auto spec = origin.spec();
            spec.requestWasHead = c.head;
            spec.clientIsHttp11 = http11;
            const auto built = Client::BuildClientReply(spec);
            const auto head = Split(built.head);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(c.text, int(Framing::None), int(built.framing));
            CPPUNIT_ASSERT_MESSAGE(c.text, head.value("Content-Length") == c.length);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(c.text, size_t(0), head.count("Transfer-Encoding"));
            // nothing to delimit: the connection stays open
            CPPUNIT_ASSERT_MESSAGE(c.text, !built.closeAfter);
            CPPUNIT_ASSERT_MESSAGE(c.text, head.value("Connection") == std::string("keep-alive"));
        }
    }
}

void TestHeaders::clientReplyDropsHopByHopFields()
{
    const ParsedReply origin("HTTP/1.1 200 OK\r\n"
                             "Connection: close, X-Hop\r\n"
                             "Cache-Control: max-age=60\r\n"
                             "X-Hop: 1\r\n"
                             "Set-Cookie: a=1\r\n"
                             "Keep-Alive: timeout=5\r\n"
                             "Proxy-Authenticate: Basic realm=x\r\n"
                             "Upgrade: h2c\r\n"
                             "Trailer: X-Sum\r\n"
                             "Proxy-Connection: keep-alive\r\n"
                             "Set-Cookie: b=2\r\n"
                             "Via: 1.1 origin-cache\r\n"
                             "Content-Length: 3\r\n"
                             "ETag: \"e\"\r\n\r\n");
    const auto built = Client::BuildClientReply(origin.spec());
    const auto head = Split(built.head);
    for (const char* gone :
         {"X-Hop", "Keep-Alive", "Proxy-Authenticate", "Upgrade", "Trailer", "Proxy-Connection"})
        CPPUNIT_ASSERT_EQUAL_MESSAGE(gone, size_t(0), head.count(gone));
    // the origin's close is its own hop's business
    CPPUNIT_ASSERT(head.value("Connection") == std::string("keep-alive"));
    CPPUNIT_ASSERT(!built.closeAfter);
    // end-to-end fields in their order; repeated ones stay apart
    const std::vector<std::string> expected = {"Cache-Control", "Set-Cookie",     "Set-Cookie", "ETag",
                                               "Via",           "Content-Length", "Connection"};
    CPPUNIT_ASSERT(head.names() == expected);
    CPPUNIT_ASSERT_EQUAL(std::string("a=1"), head.fields[1].second);
    CPPUNIT_ASSERT_EQUAL(std::string("b=2"), head.fields[2].second);
    CPPUNIT_ASSERT(head.value("Via") == std::string("1.1 origin-cache, 1.1 proxy.test (cuttle/1.0)"));
}

void TestHeaders::clientReplyXCacheFields()
{
    const ParsedReply origin("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n");
    auto spec = origin.spec();
    spec.cacheName = "proxy.test";
    spec.cachePort = 3128;
    auto head = Split(Client::BuildClientReply(spec).head);
    CPPUNIT_ASSERT(head.value("X-Cache") == std::string("MISS from proxy.test"));
    CPPUNIT_ASSERT(head.value("X-Cache-Lookup") == std::string("MISS from proxy.test:3128"));

    spec.cacheName = {};
    head = Split(Client::BuildClientReply(spec).head);
    CPPUNIT_ASSERT_EQUAL(size_t(0), head.count("X-Cache"));
    CPPUNIT_ASSERT_EQUAL(size_t(0), head.count("X-Cache-Lookup"));
}

void TestHeaders::clientReplyConnectionFollowsKeepAlive()
{
    const ParsedReply origin("HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\n");
    auto spec = origin.spec();
    auto built = Client::BuildClientReply(spec);
    CPPUNIT_ASSERT(!built.closeAfter);
    CPPUNIT_ASSERT(Split(built.head).value("Connection") == std::string("keep-alive"));

    spec.keepAlive = false; // the client asked to close, or cuttle is shutting down
    built = Client::BuildClientReply(spec);
    CPPUNIT_ASSERT(built.closeAfter);
    CPPUNIT_ASSERT(Split(built.head).value("Connection") == std::string("close"));
    CPPUNIT_ASSERT_EQUAL(int(Framing::Raw), int(built.framing)); // the length still frames it
    CPPUNIT_ASSERT(Split(built.head).value("Content-Length") == std::string("1"));
}

void TestHeaders::clientReplyStatusLineIsHttp11()
{
    const ParsedReply old("HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n");
    CPPUNIT_ASSERT_EQUAL(std::string("HTTP/1.1 404 Not Found"),
                         Split(Client::BuildClientReply(old.spec()).head).startLine);
    // a reason the origin left out is filled in
    const ParsedReply bare("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n");
    CPPUNIT_ASSERT_EQUAL(std::string("HTTP/1.1 200 OK"),
                         Split(Client::BuildClientReply(bare.spec()).head).startLine);
    // the origin's own reason is kept
    const ParsedReply custom("HTTP/1.1 200 Fine Thanks\r\nContent-Length: 0\r\n\r\n");
    CPPUNIT_ASSERT_EQUAL(std::string("HTTP/1.1 200 Fine Thanks"),
                         Split(Client::BuildClientReply(custom.spec()).head).startLine);
}
