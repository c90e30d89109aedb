/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "server/Forwarder.h"
#include "comm/Descriptor.h"
#include "comm/Loop.h"
#include "sbuf/BlockPool.h"
#include "sbuf/MemBlob.h"
#include "server/Pool.h"
#include "store/Entry.h"

#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

/// Server::Forwarder against an origin played by the test on a loopback
/// socket: framings, interim replies, failures, read_ahead_gap, reuse, the
/// retry rule, request bodies, and zero body copies.
class TestForwarder : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestForwarder);
    CPPUNIT_TEST(lengthReplyArrivesWhole);
    CPPUNIT_TEST(chunkedPayloadArrivesWithoutFraming);
    CPPUNIT_TEST(chunkedReplyByteByByteGivesSamePayload);
    CPPUNIT_TEST(closeDelimitedReplyCompletesAtEof);
    CPPUNIT_TEST(interimRepliesAreSkipped);
    CPPUNIT_TEST(headRequestGetsNoBody);
    CPPUNIT_TEST(notModifiedAndNoContentHaveNoBody);
    CPPUNIT_TEST(headStraddlingReadBlocksParses);
    CPPUNIT_TEST(oversizedHeadFailsReplyTooBig);
    CPPUNIT_TEST(garbageFailsInvalidReply);
    CPPUNIT_TEST(badFramingFailsInvalidReply);
    CPPUNIT_TEST(eofBeforeAnyByteFailsZeroSize);
    CPPUNIT_TEST(eofInsideReplyFails);
    CPPUNIT_TEST(refusedPortFailsConnectFail);
    CPPUNIT_TEST(unansweredConnectFailsAtConnectTimeout);
    CPPUNIT_TEST(nameWithoutResolverFailsDnsFail);
    CPPUNIT_TEST(silentOriginFailsReadTimeout);
    CPPUNIT_TEST(slowReaderStopsReadsAtGap);
    CPPUNIT_TEST(keepAliveConnectionIsReused);
    CPPUNIT_TEST(connectionIsPooledBeforeTheReplyCompletes);
    CPPUNIT_TEST(closingOriginConnectionIsNotPooled);
    CPPUNIT_TEST(reusedConnectionClosedBeforeReplyIsRetriedForGet);
    CPPUNIT_TEST(retryHappensAtMostOnce);
    CPPUNIT_TEST(postWithBodyIsNeverRetried);
    CPPUNIT_TEST(bodilessPostIsNeverRetried);
    CPPUNIT_TEST(requestBodyStreamsRaw);
    CPPUNIT_TEST(requestBodyStreamsChunked);
    CPPUNIT_TEST(readerLeavingAbortsAndClosesConnection);
    CPPUNIT_TEST(bodyBytesAreNeverCopied);
    CPPUNIT_TEST(doneHandlerIsToldOnce);
    CPPUNIT_TEST(uploadPastTheGapFromInsideTheSend);
    CPPUNIT_TEST_SUITE_END();

public:
    void setUp() override;

    void lengthReplyArrivesWhole();
    void chunkedPayloadArrivesWithoutFraming();
    void chunkedReplyByteByByteGivesSamePayload();
    void closeDelimitedReplyCompletesAtEof();
    void interimRepliesAreSkipped();
    void headRequestGetsNoBody();
    void notModifiedAndNoContentHaveNoBody();
    void headStraddlingReadBlocksParses();
    void oversizedHeadFailsReplyTooBig();
    void garbageFailsInvalidReply();
    void badFramingFailsInvalidReply();
    void eofBeforeAnyByteFailsZeroSize();
    void eofInsideReplyFails();
    void refusedPortFailsConnectFail();
    void unansweredConnectFailsAtConnectTimeout();
    void nameWithoutResolverFailsDnsFail();
    void silentOriginFailsReadTimeout();
    void slowReaderStopsReadsAtGap();
    void keepAliveConnectionIsReused();
    void connectionIsPooledBeforeTheReplyCompletes();
    void closingOriginConnectionIsNotPooled();
    void reusedConnectionClosedBeforeReplyIsRetriedForGet();
    void retryHappensAtMostOnce();
    void postWithBodyIsNeverRetried();
    void bodilessPostIsNeverRetried();
    void requestBodyStreamsRaw();
    void requestBodyStreamsChunked();
    void readerLeavingAbortsAndClosesConnection();
    void bodyBytesAreNeverCopied();
    void doneHandlerIsToldOnce();
    void uploadPastTheGapFromInsideTheSend();

private:
    /// fails when a test copied body bytes in user space
    void checkNoBodyCopies() const;

    uint64_t copiesBefore_ = 0; ///< the body copy counter when the test started
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestForwarder);

namespace {

using Comm::Milliseconds;
using Server::Failure;

/// the byte at offset of a checkable body: letters only (never CR, LF or a
/// chunk-size line), with a period that is not a power of two
char PatternByte(uint64_t offset)
{
    static constexpr char Letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    return Letters[(offset + offset / 997) % 52];
}

/// n pattern bytes from offset
std::string Pattern(uint64_t offset, size_t n)
{
    std::string out(n, '\0');
    for (size_t i = 0; i < n; ++i)
        out[i] = PatternByte(offset + i);
    return out;
}

/// a printable name of a failure, for assertion messages
const char* FailureName(Failure f)
{
    switch (f) {
    case Failure::None:
        return "None";
    case Failure::DnsFail:
        return "DnsFail";
    case Failure::ConnectFail:
        return "ConnectFail";
    case Failure::ReadTimeout:
        return "ReadTimeout";
    case Failure::ReadError:
        return "ReadError";
    case Failure::WriteError:
        return "WriteError";
    case Failure::InvalidReply:
        return "InvalidReply";
    case Failure::ZeroSize:
        return "ZeroSize";
    case Failure::ReplyTooBig:
        return "ReplyTooBig";
    case Failure::SecureConnectFail:
        return "SecureConnectFail";
    case Failure::Aborted:
        return "Aborted";
    }
    return "?";
}

#define ASSERT_FAILURE(expected, forwarder)                                                                  \
    CPPUNIT_ASSERT_EQUAL(std::string(FailureName(expected)), std::string(FailureName((forwarder).failure())))

/// A reader of the reply entry that consumes with its cursor, as a client
/// writer does with writev: greedy ones take everything as it arrives,
/// others only when the test says so.
class TestReader : public Store::Reader {
public:
    TestReader(Store::EntryRef e, bool isGreedy) : entry(std::move(e)), greedy(isGreedy)
    {
        entry->addReader(*this);
    }
    ~TestReader() override { entry->removeReader(*this); }
    TestReader(const TestReader&) = delete;
    TestReader& operator=(const TestReader&) = delete;

    void noteDataAvailable() override
    {
        ++notes;
        if (greedy)
            consume();
    }
    const Sbuf::Cursor& cursor() const override { return cur; }

    /// reads up to max bytes after the cursor (gathered as a writev would)
    /// into text, moves the cursor and tells the entry; returns bytes read
    size_t consume(size_t max = SIZE_MAX)
    {
        size_t total = 0;
        while (total < max) {
            iovec iov[IOV_MAX];
            size_t bytes = 0;
            const size_t count = cur.gather(entry->body(), iov, IOV_MAX, max - total, &bytes);
            if (count == 0)
                break;
            for (size_t i = 0; i < count; ++i)
                text.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
            cur.advance(entry->body(), bytes);
            total += bytes;
        }
        if (total)
            entry->noteConsumed();
        return total;
    }

    Store::EntryRef entry;
    Sbuf::Cursor cur;
    std::string text; ///< what was consumed
    bool greedy;
    int notes = 0;
};

/// sets TCP_NODELAY and O_NONBLOCK: the test origin's small writes go out at once
void PrepareOriginSocket(int fd)
{
    const int one = 1;
    CPPUNIT_ASSERT_EQUAL(0, ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)));
    const int flags = ::fcntl(fd, F_GETFL);
    CPPUNIT_ASSERT_EQUAL(0, ::fcntl(fd, F_SETFL, flags | O_NONBLOCK));
}

/// A loop, a pool, a context and an origin listening on 127.0.0.1:0 that the
/// test accepts and answers by hand between loop iterations.
/// an empty reply entry
Store::EntryRef NewReply()
{
    return MakeRef<Store::Entry>(1024 * 1024);
}

/// a request body entry holding text whole (complete), put in its block as
/// a read would (commit(), so that it does not count as a copied body)
Store::EntryRef BodyEntry(std::string_view text)
{
    auto e = MakeRef<Store::Entry>(64 * 1024);
    auto blob = Sbuf::MemBlob::Make(Sbuf::DefaultPool(), text.size());
    std::memcpy(blob->space(), text.data(), text.size());
    blob->commit(text.size());
    e->append(Sbuf::Slice(blob));
    e->complete();
    return e;
}

struct Rig {
    Comm::Loop loop; ///< first: outlives everything on it
    Server::Pool pool{loop};
    Server::Context context{loop, nullptr, pool};
    Server::Limits limits;
    Comm::Descriptor listener; ///< the test origin
    uint16_t port = 0;         ///< where it listens

    Rig()
    {
        listener.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
        CPPUNIT_ASSERT(listener.isOpen());
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        CPPUNIT_ASSERT_EQUAL(0, ::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)));
        CPPUNIT_ASSERT_EQUAL(0, ::listen(listener.get(), 16));
        socklen_t len = sizeof(addr);
        CPPUNIT_ASSERT_EQUAL(0, ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len));
        port = ntohs(addr.sin_port);
        limits.readSizer = Sbuf::ReadSizer::Fixed(16 * 1024);
        limits.readAheadGap = 1024 * 1024;
        limits.connectTimeout = Milliseconds(2000);
        limits.readTimeout = Milliseconds(5000);
    }

    ~Rig()
    {
        pool.closeAll();
        loop.runOnce(Milliseconds(0)); // deferred closes
    }

    /// the head of a request for path
    std::string headFor(std::string_view method, std::string_view path, std::string_view extra = {}) const
    {
        return std::string(method) + " " + std::string(path) +
               " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\n" + std::string(extra) + "\r\n";
    }

    /// a GET of path from the test origin
    Server::Request get(std::string_view path = "/") const
    {
        Server::Request r;
        r.method = Http::Method::Get;
        r.host = "127.0.0.1";
        r.port = port;
        r.head = headFor("GET", path);
        return r;
    }

    /// a POST of path with the extra head fields and body (none when empty)
    Server::Request post(std::string_view path, std::string_view extra, const std::string& body = {}) const
    {
        Server::Request r;
        r.method = Http::Method::Post;
        r.host = "127.0.0.1";
        r.port = port;
        r.head = headFor("POST", path, extra);
        if (!body.empty()) {
            r.body = BodyEntry(body);
            r.bodyFraming = Store::BodyWriter::Framing::Raw;
        }
        return r;
    }

    /// a started forwarder of request into reply
    std::unique_ptr<Server::Forwarder> start(Server::Request&& request, const Store::EntryRef& reply)
    {
        auto f = std::make_unique<Server::Forwarder>(context, limits, std::move(request), reply);
        f->start();
        // start() never calls back from inside
        CPPUNIT_ASSERT(!f->isDone());
        CPPUNIT_ASSERT_EQUAL(Store::Entry::State::Streaming, reply->state());
        return f;
    }

    /// one iteration
    size_t turn(Milliseconds wait = Milliseconds(1)) { return loop.runOnce(wait); }

    /// iterates until pred() or the deadline; returns pred()
    template <class Pred>
    bool runUntil(Pred pred, Milliseconds limit = Milliseconds(3000))
    {
        const auto deadline = Comm::Clock::now() + limit;
        while (!pred() && Comm::Clock::now() < deadline)
            turn();
        return pred();
    }

    /// iterates for about d
    void runFor(Milliseconds d)
    {
        const auto deadline = Comm::Clock::now() + d;
        while (Comm::Clock::now() < deadline)
            turn();
    }

    /// a connection the origin accepted, or an empty descriptor
    Comm::Descriptor tryAccept()
    {
        Comm::Descriptor fd(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
        if (fd.isOpen())
            PrepareOriginSocket(fd.get());
        return fd;
    }

    /// the next connection to the origin (the loop runs while waiting)
    Comm::Descriptor accept()
    {
        Comm::Descriptor fd;
        CPPUNIT_ASSERT(runUntil([&] {
            if (!fd.isOpen()) // runUntil() asks once more after success
                fd = tryAccept();
            return fd.isOpen();
        }));
        return fd;
    }

    /// what the origin reads from fd until the text holds a head and bodyBytes after it
    std::string readRequest(int fd, size_t bodyBytes = 0)
    {
        std::string text;
        const auto done = [&] {
            const auto end = text.find("\r\n\r\n");
            return end != std::string::npos && text.size() >= end + 4 + bodyBytes;
        };
        CPPUNIT_ASSERT(runUntil([&] {
            readSome(fd, text);
            return done();
        }));
        return text;
    }

    /// what the origin reads from fd until the text ends with tail
    std::string readUntilEnd(int fd, std::string_view tail)
    {
        std::string text;
        CPPUNIT_ASSERT(runUntil([&] {
            readSome(fd, text);
            return text.size() >= tail.size() &&
                   std::string_view(text).substr(text.size() - tail.size()) == tail;
        }));
        return text;
    }

    /// reads what fd holds now into text; returns false at EOF or error
    static bool readSome(int fd, std::string& text)
    {
        char buffer[64 * 1024];
        for (;;) {
            const ssize_t n = ::recv(fd, buffer, sizeof(buffer), 0);
            if (n > 0) {
                text.append(buffer, size_t(n));
                continue;
            }
            return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
        }
    }

    /// the origin writes all of bytes to fd (turning the loop when the socket is full)
    void send(int fd, std::string_view bytes)
    {
        CPPUNIT_ASSERT(runUntil([&] {
            while (!bytes.empty()) {
                const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
                if (n <= 0)
                    break;
                bytes.remove_prefix(size_t(n));
            }
            return bytes.empty();
        }));
    }

    /// a GET answered on a new connection that is now idle in the pool;
    /// returns the origin's side of it
    Comm::Descriptor pooledConnection()
    {
        auto first = NewReply();
        TestReader firstReader(first, true);
        auto f1 = start(get("/one"), first);
        auto origin = accept();
        readRequest(origin.get());
        send(origin.get(), "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");
        CPPUNIT_ASSERT(runUntil([&] { return f1->isDone(); }));
        CPPUNIT_ASSERT(!f1->reusedConnection());
        CPPUNIT_ASSERT_EQUAL(std::string("hello"), firstReader.text);
        return origin;
    }

    /// the origin writes bytes, and one iteration waits for the forwarder to
    /// read them (so that each call is one read); returns the callbacks made
    size_t deliver(int fd, std::string_view bytes)
    {
        send(fd, bytes);
        const size_t calls = turn(Milliseconds(1000));
        turn(Milliseconds(0));
        return calls;
    }
};

/// appends n pattern bytes from offset to e in one fresh block
void AppendPattern(Store::Entry& e, uint64_t offset, size_t n)
{
    auto blob = Sbuf::MemBlob::Make(Sbuf::DefaultPool(), n);
    for (size_t i = 0; i < n; ++i)
        blob->space()[i] = PatternByte(offset + i);
    blob->commit(n);
    e.append(Sbuf::Slice(blob));
}

/// decodes a chunked body strictly (the test's own decoder); fails the test on bad framing
std::string Dechunk(std::string_view in)
{
    std::string out;
    for (;;) {
        const auto eol = in.find("\r\n");
        CPPUNIT_ASSERT(eol != std::string_view::npos && eol > 0);
        const std::string sizeLine(in.substr(0, eol));
        CPPUNIT_ASSERT_EQUAL(std::string::npos, sizeLine.find_first_not_of("0123456789abcdefABCDEF"));
        const size_t size = std::stoul(sizeLine, nullptr, 16);
        in.remove_prefix(eol + 2);
        if (size == 0) {
            CPPUNIT_ASSERT_EQUAL(std::string("\r\n"), std::string(in)); // no trailer, nothing after
            return out;
        }
        CPPUNIT_ASSERT(in.size() >= size + 2);
        out.append(in.substr(0, size));
        CPPUNIT_ASSERT_EQUAL(std::string("\r\n"), std::string(in.substr(size, 2)));
        in.remove_prefix(size + 2);
    }
}

} // namespace

void TestForwarder::setUp()
{
    copiesBefore_ = Sbuf::DefaultPool().copyStats().bodyCopies;
}

void TestForwarder::checkNoBodyCopies() const
{
    CPPUNIT_ASSERT_EQUAL(copiesBefore_, Sbuf::DefaultPool().copyStats().bodyCopies);
}

void TestForwarder::lengthReplyArrivesWhole()
{
    Rig rig;
    auto reply = NewReply();
    TestReader reader(reply, true);
    auto request = rig.get("/whole");
    const std::string sentHead = request.head;
    auto f = rig.start(std::move(request), reply);

    auto origin = rig.accept();
    CPPUNIT_ASSERT_EQUAL(sentHead, rig.readRequest(origin.get()));
    const size_t size = 100 * 1000; // several read blocks
    rig.send(origin.get(),
             "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(size) + "\r\nX-A: b\r\n\r\n");
    rig.send(origin.get(), Pattern(0, size));
    CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }));

    ASSERT_FAILURE(Failure::None, *f);
    CPPUNIT_ASSERT(reply->isComplete());
    CPPUNIT_ASSERT(reply->reply());
    CPPUNIT_ASSERT_EQUAL(200, reply->reply()->status);
    CPPUNIT_ASSERT(reply->reply()->hasBody);
    CPPUNIT_ASSERT(reply->reply()->contentLength == uint64_t(size));
    CPPUNIT_ASSERT(reply->reply()->findField("x-a") == std::string_view("b"));
    CPPUNIT_ASSERT_EQUAL(size, reader.text.size());
    CPPUNIT_ASSERT(reader.text == Pattern(0, size));
    CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), f->peerHost());
    CPPUNIT_ASSERT(!f->reusedConnection());
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), rig.context.connectionsOpened);
    // delimited and persistent: the connection waits in the pool
    CPPUNIT_ASSERT_EQUAL(size_t(1), rig.pool.idleCount());
    checkNoBodyCopies();
}

void TestForwarder::chunkedPayloadArrivesWithoutFraming()
{
    Rig rig;
    auto reply = NewReply();
    TestReader reader(reply, false); // reads at the end, to look at the slices
    auto f = rig.start(rig.get("/chunked"), reply);
    auto origin = rig.accept();
    rig.readRequest(origin.get());

    // each piece is one read; the boundaries fall inside a size line, inside
    // a chunk, between CR and LF, and inside the last-chunk and trailer
    const std::vector<std::string> pieces = {
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
        "1",
        "a;name=value\r\n",
        "abcdefghij",
        "klmnopqrstuvwxyz\r",
        "\n5\r\nHELLO\r\n1",
        "0\r\nQRSTUVWXYZqrstuv\r\n0\r",
        "\nX-Trailer: v\r\n\r\n",
    };
    for (size_t i = 0; i < pieces.size(); ++i) {
        CPPUNIT_ASSERT(rig.deliver(origin.get(), pieces[i]) > 0);
        if (i + 1 < pieces.size())
            CPPUNIT_ASSERT(!f->isDone());
    }
    CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }));
    ASSERT_FAILURE(Failure::None, *f);
    CPPUNIT_ASSERT(reply->isComplete());
    CPPUNIT_ASSERT(reply->reply()->hasBody);
    CPPUNIT_ASSERT(!reply->reply()->contentLength);

    // the payload slices point into the read block the head was parsed in (no copy)
    const auto* block = reply->reply()->block.getRaw();
    iovec iov[IOV_MAX];
    const size_t count = reader.cur.gather(reply->body(), iov, IOV_MAX, SIZE_MAX);
    CPPUNIT_ASSERT(count >= 3); // at least one slice per read that carried payload
    for (size_t i = 0; i < count; ++i) {
        const char* base = static_cast<const char*>(iov[i].iov_base);
        CPPUNIT_ASSERT(base >= block->data() && base + iov[i].iov_len <= block->data() + block->size());
    }

    reader.consume();
    const std::string expected = "abcdefghijklmnopqrstuvwxyzHELLOQRSTUVWXYZqrstuv";
    CPPUNIT_ASSERT_EQUAL(expected, reader.text);
    CPPUNIT_ASSERT_EQUAL(std::string::npos, reader.text.find_first_of("\r\n;0123456789"));
    CPPUNIT_ASSERT_EQUAL(size_t(1), rig.pool.idleCount());
    checkNoBodyCopies();
}

void TestForwarder::chunkedReplyByteByByteGivesSamePayload()
{
    Rig rig;
    auto reply = NewReply();
    TestReader reader(reply, true);
    auto f = rig.start(rig.get("/bytes"), reply);
    auto origin = rig.accept();
    rig.readRequest(origin.get());

    const std::string body = Pattern(0, 300);
    std::string wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    wire += "12c\r\n" + body + "\r\n0\r\n\r\n";
    for (size_t i = 0; i < wire.size(); ++i) {
        CPPUNIT_ASSERT(!f->isDone());
        rig.deliver(origin.get(), wire.substr(i, 1));
    }
    CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }));
    ASSERT_FAILURE(Failure::None, *f);
    CPPUNIT_ASSERT(reply->isComplete());
    CPPUNIT_ASSERT_EQUAL(body, reader.text);
    checkNoBodyCopies();
}

void TestForwarder::closeDelimitedReplyCompletesAtEof()
{
    Rig rig;
    for (const std::string statusLine : {"HTTP/1.1 200 OK\r\nConnection: close\r\n", "HTTP/1.0 200 OK\r\n"}) {
        auto reply = NewReply();
        TestReader reader(reply, true);
        auto f = rig.start(rig.get("/close"), reply);
        auto origin = rig.accept();
        rig.readRequest(origin.get());
        const size_t size = 50 * 1000;
        rig.send(origin.get(), statusLine + "Content-Type: text/plain\r\n\r\n" + Pattern(0, size));
        CPPUNIT_ASSERT(rig.runUntil([&] { return reader.text.size() == size; }));
        // only the close says where the body ends
        rig.runFor(Milliseconds(20));
        CPPUNIT_ASSERT(!f->isDone());
        CPPUNIT_ASSERT_EQUAL(Store::Entry::State::Streaming, reply->state());

        origin.reset();
        CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }));
        ASSERT_FAILURE(Failure::None, *f);
        CPPUNIT_ASSERT(reply->isComplete());
        CPPUNIT_ASSERT(!reply->reply()->contentLength);
        CPPUNIT_ASSERT(reader.text == Pattern(0, size));
        CPPUNIT_ASSERT_EQUAL(size_t(0), rig.pool.idleCount());
    }
    checkNoBodyCopies();
}

void TestForwarder::interimRepliesAreSkipped()
{
    Rig rig;
    auto reply = NewReply();
    TestReader reader(reply, true);
    auto f = rig.start(rig.get("/interim"), reply);
    auto origin = rig.accept();
    rig.readRequest(origin.get());

    rig.deliver(origin.get(), "HTTP/1.1 100 Continue\r\n\r\n");
    CPPUNIT_ASSERT(!reply->reply());
    CPPUNIT_ASSERT(!f->isDone());
    // a second interim reply and the final one in the same read
    rig.deliver(origin.get(), "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
                              "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }));
    ASSERT_FAILURE(Failure::None, *f);
    CPPUNIT_ASSERT_EQUAL(200, reply->reply()->status);
    CPPUNIT_ASSERT(!reply->reply()->findField("Link"));
    CPPUNIT_ASSERT(reply->reply()->head.starts_with("HTTP/1.1 200 OK\r\n"));
    CPPUNIT_ASSERT_EQUAL(std::string("ok"), reader.text);
    CPPUNIT_ASSERT_EQUAL(size_t(1), rig.pool.idleCount());
}

void TestForwarder::headRequestGetsNoBody()
{
    Rig rig;
    auto reply = NewReply();
    TestReader reader(reply, true);
    auto request = rig.get("/head");
    request.method = Http::Method::Head;
    request.head = rig.headFor("HEAD", "/head");
    auto f = rig.start(std::move(request), reply);
    auto origin = rig.accept();
    rig.readRequest(origin.get());

    // the length of the body a GET would get; no body follows
    rig.deliver(origin.get(), "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n");
    CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }, Milliseconds(500)));
    ASSERT_FAILURE(Failure::None, *f);
    CPPUNIT_ASSERT(reply->isComplete());
    CPPUNIT_ASSERT(!reply->reply()->hasBody);
    CPPUNIT_ASSERT(reply->reply()->findField("Content-Length") == std::string_view("1000"));
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), reply->body().endOffset());
    CPPUNIT_ASSERT(reader.text.empty());
    CPPUNIT_ASSERT_EQUAL(size_t(1), rig.pool.idleCount());
}

void TestForwarder::notModifiedAndNoContentHaveNoBody()
{
    Rig rig;
    Comm::Descriptor origin; // the second round reuses the first one's connection
    for (const std::string statusLine :
         {"HTTP/1.1 304 Not Modified\r\nContent-Length: 1234\r\n", "HTTP/1.1 204 No Content\r\n"}) {
        auto reply = NewReply();
        TestReader reader(reply, true);
        auto f = rig.start(rig.get("/nobody"), reply);
        if (!f->reusedConnection())
            origin = rig.accept();
        rig.readRequest(origin.get());
        rig.deliver(origin.get(), statusLine + "ETag: \"x\"\r\n\r\n");
        CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }, Milliseconds(500)));
        ASSERT_FAILURE(Failure::None, *f);
        CPPUNIT_ASSERT(reply->isComplete());
        CPPUNIT_ASSERT(!reply->reply()->hasBody);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), reply->body().endOffset());
        CPPUNIT_ASSERT_EQUAL(size_t(1), rig.pool.idleCount());
        if (statusLine.find("204") != std::string::npos)
            origin.reset();
    }
}

void TestForwarder::headStraddlingReadBlocksParses()
{
    Rig rig;
    rig.limits.readSizer = Sbuf::ReadSizer::Fixed(512);
    auto reply = NewReply();
    TestReader reader(reply, true);
    auto f = rig.start(rig.get("/long-head"), reply);
    auto origin = rig.accept();
    rig.readRequest(origin.get());

    std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 3000\r\n";
    for (int i = 0; i < 40; ++i)
        head += "X-Filler-" + std::to_string(i) + ": " + std::string(30, 'v') + "\r\n";
    head += "\r\n";
    CPPUNIT_ASSERT(head.size() > 3 * 512);
    // in small writes, so that the head fills several 512-byte read blocks
    for (size_t at = 0; at < head.size(); at += 200)
        rig.deliver(origin.get(), std::string_view(head).substr(at, 200));
    rig.send(origin.get(), Pattern(0, 3000));
    CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }));
    ASSERT_FAILURE(Failure::None, *f);
    CPPUNIT_ASSERT_EQUAL(size_t(41), reply->reply()->fields().size());
    CPPUNIT_ASSERT(reply->reply()->findField("X-Filler-39") == std::string_view(std::string(30, 'v')));
    CPPUNIT_ASSERT_EQUAL(head.size(), reply->reply()->head.size());
    CPPUNIT_ASSERT(reader.text == Pattern(0, 3000));
    // moving the head to a bigger block is a head copy, not a body copy
    checkNoBodyCopies();
}

void TestForwarder::oversizedHeadFailsReplyTooBig()
{
    for (const size_t readSize : {size_t(512), size_t(16 * 1024)}) {
        Rig rig;
        rig.limits.readSizer = Sbuf::ReadSizer::Fixed(readSize);
        rig.limits.replyHeaderMaxSize = 2048;
        auto reply = NewReply();
        TestReader reader(reply, true);
        auto f = rig.start(rig.get("/huge-head"), reply);
        auto origin = rig.accept();
        rig.readRequest(origin.get());

        std::string head = "HTTP/1.1 200 OK\r\n";
        while (head.size() < 8000)
            head += "X-Filler: " + std::string(60, 'v') + "\r\n";
        rig.send(origin.get(), head); // and never an end
        CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }));
        ASSERT_FAILURE(Failure::ReplyTooBig, *f);
        CPPUNIT_ASSERT(reply->hasFailed());
        CPPUNIT_ASSERT(!reply->reply());
        CPPUNIT_ASSERT_EQUAL(size_t(0), rig.pool.idleCount());
    }
}

void TestForwarder::garbageFailsInvalidReply()
{
    Rig rig;
    for (const std::string garbage : {"SSH-2.0-OpenSSH_9.2p1\r\n", "\x16\x03\x01\x02\x01\x01\xfc\x03\x03",
                                      "HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 101 Switching Protocols\r\n\r\n"}) {
        auto reply = NewReply();
        TestReader reader(reply, true);
        auto f = rig.start(rig.get("/garbage"), reply);
        auto origin = rig.accept();
        rig.readRequest(origin.get());
        rig.send(origin.get(), garbage);
        CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }));
        ASSERT_FAILURE(Failure::InvalidReply, *f);
        CPPUNIT_ASSERT(reply->hasFailed());
        CPPUNIT_ASSERT(!reply->failure().empty());
        CPPUNIT_ASSERT_EQUAL(size_t(0), rig.pool.idleCount());
    }
}

void TestForwarder::badFramingFailsInvalidReply()
{
    Rig rig;
    for (const std::string bad : {"HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n",
                                  "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
                                  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"}) {
        auto reply = NewReply();
        TestReader reader(reply, true);
        auto f = rig.start(rig.get("/framing"), reply);
        auto origin = rig.accept();
        rig.readRequest(origin.get());
        rig.send(origin.get(), bad);
        CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }));
        ASSERT_FAILURE(Failure::InvalidReply, *f);
        CPPUNIT_ASSERT(reply->hasFailed());
        CPPUNIT_ASSERT_EQUAL(size_t(0), rig.pool.idleCount());
    }
}

namespace {

/// a client side that appends body bytes whenever the entry has room, from
/// inside resumeProducing() (as Client::Connection's body reader does): the
/// forwarder's send is then called back from inside its own write
struct EagerUploader : Store::Producer {
    EagerUploader(Store::Entry& e, size_t size) : entry(e), total(size) { entry.setProducer(this); }
    ~EagerUploader() override { entry.setProducer(nullptr); }
    void resumeProducing() override { fill(); }
    void fill()
    {
        while (appended < total && entry.canProduce()) {
            const size_t n = std::min<size_t>(7 * 1024 + 13, total - appended);
            AppendPattern(entry, appended, n);
            appended += n;
            if (appended == total)
                entry.complete();
        }
    }
    Store::Entry& entry;
    size_t total;
    uint64_t appended = 0;
};

} // namespace

void TestForwarder::uploadPastTheGapFromInsideTheSend()
{
    // store/Entry.h's re-entrancy rule: an upload larger than read_ahead_gap
    // resumes the client from inside the forwarder's write, which appends and
    // tells the forwarder again; the write in progress must take those bytes
    // (BodyWriter::write() throws if re-entered)
    Rig rig;
    const size_t size = 1024 * 1024;
    auto body = MakeRef<Store::Entry>(16 * 1024);
    EagerUploader client(*body, size);
    client.fill();
    auto reply = NewReply();
    TestReader reader(reply, true);
    Server::Request put;
    put.method = Http::Method::Put;
    put.host = "127.0.0.1";
    put.port = rig.port;
    put.head = rig.headFor("PUT", "/eager", "Content-Length: " + std::to_string(size) + "\r\n");
    put.body = body;
    put.bodyFraming = Store::BodyWriter::Framing::Raw;
    auto f = rig.start(std::move(put), reply);
    auto origin = rig.accept();
    std::string received;
    CPPUNIT_ASSERT(rig.runUntil([&] {
        Rig::readSome(origin.get(), received);
        const auto end = received.find("\r\n\r\n");
        return f->isDone() || (end != std::string::npos && received.size() - end - 4 >= size);
    }));
    ASSERT_FAILURE(Failure::None, *f); // not ended by a broken invariant
    const auto end = received.find("\r\n\r\n");
    CPPUNIT_ASSERT(received.substr(end + 4) == Pattern(0, size));
    rig.send(origin.get(), "HTTP/1.1 204 No Content\r\n\r\n");
    CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }));
    ASSERT_FAILURE(Failure::None, *f);
}

void TestForwarder::doneHandlerIsToldOnce()
{
    // whoever owns a forwarder no client reads learns that it is done when
    // it is, success or failure, once; set on a done forwarder, at once
    Rig rig;
    // the failure first: the success would leave its connection pooled
    for (const bool succeed : {false, true}) {
        auto reply = NewReply();
        TestReader reader(reply, true);
        auto f = rig.start(rig.get(succeed ? "/done" : "/broken"), reply);
        int told = 0;
        f->setDoneHandler([&] {
            CPPUNIT_ASSERT(f->isDone());
            ++told;
        });
        auto origin = rig.accept();
        rig.readRequest(origin.get());
        CPPUNIT_ASSERT_EQUAL(0, told);
        if (succeed)
            rig.send(origin.get(), "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc");
        else
            origin.reset();
        CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }));
        CPPUNIT_ASSERT_EQUAL(1, told);
        CPPUNIT_ASSERT_EQUAL(succeed, !reply->hasFailed());
        f->setDoneHandler([&] { told += 10; });
        CPPUNIT_ASSERT_EQUAL(11, told);
    }
}

void TestForwarder::eofBeforeAnyByteFailsZeroSize()
{
    Rig rig;
    auto reply = NewReply();
    TestReader reader(reply, true);
    auto f = rig.start(rig.get("/empty"), reply);
    auto origin = rig.accept();
    rig.readRequest(origin.get());
    origin.reset();
    CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }));
    // a fresh connection is never retried
    ASSERT_FAILURE(Failure::ZeroSize, *f);
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), rig.context.retries);
    CPPUNIT_ASSERT(reply->hasFailed());
    CPPUNIT_ASSERT(!rig.tryAccept().isOpen());
}

void TestForwarder::eofInsideReplyFails()
{
    Rig rig;
    struct Case {
        std::string bytes;
        Failure expected;
    };
    const Case cases[] = {
        {"HTTP/1.1 200 OK\r\nContent-Le", Failure::InvalidReply},                   // inside the head
        {"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345", Failure::ReadError}, // inside a Length body
        {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
         Failure::ReadError}, // inside a chunk
    };
    for (const auto& c : cases) {
        auto reply = NewReply();
        TestReader reader(reply, true);
        auto f = rig.start(rig.get("/cut"), reply);
        auto origin = rig.accept();
        rig.readRequest(origin.get());
        rig.send(origin.get(), c.bytes);
        origin.reset();
        CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }));
        ASSERT_FAILURE(c.expected, *f);
        CPPUNIT_ASSERT(reply->hasFailed());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), rig.context.retries);
    }
}

void TestForwarder::refusedPortFailsConnectFail()
{
    Rig rig;
    // a bound port nobody listens on: connecting is refused
    Comm::Descriptor bound(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CPPUNIT_ASSERT_EQUAL(0, ::bind(bound.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)));
    socklen_t len = sizeof(addr);
    CPPUNIT_ASSERT_EQUAL(0, ::getsockname(bound.get(), reinterpret_cast<sockaddr*>(&addr), &len));

    auto reply = NewReply();
    TestReader reader(reply, true);
    auto request = rig.get("/refused");
    request.port = ntohs(addr.sin_port);
    auto f = rig.start(std::move(request), reply);
    CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }));
    ASSERT_FAILURE(Failure::ConnectFail, *f);
    CPPUNIT_ASSERT_EQUAL(ECONNREFUSED, f->failureErrno());         // for the error page's %E
    CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), f->peerHost()); // the address tried, for %<a
    CPPUNIT_ASSERT(reply->hasFailed());
    CPPUNIT_ASSERT_EQUAL(size_t(0), rig.pool.idleCount());
}

void TestForwarder::unansweredConnectFailsAtConnectTimeout()
{
    Rig rig;
    rig.limits.connectTimeout = Milliseconds(100);
    // a listener whose accept queue is full: Linux drops further SYNs, so a
    // connect stays in progress until the forwarder gives up
    Comm::Descriptor full(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CPPUNIT_ASSERT_EQUAL(0, ::bind(full.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)));
    CPPUNIT_ASSERT_EQUAL(0, ::listen(full.get(), 0));
    socklen_t len = sizeof(addr);
    CPPUNIT_ASSERT_EQUAL(0, ::getsockname(full.get(), reinterpret_cast<sockaddr*>(&addr), &len));
    std::vector<Comm::Descriptor> queued;
    for (int i = 0; i < 2; ++i) {
        queued.emplace_back(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
        (void)::connect(queued.back().get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    }
    rig.runFor(Milliseconds(20));

    auto reply = NewReply();
    TestReader reader(reply, true);
    auto request = rig.get("/unanswered");
    request.port = ntohs(addr.sin_port);
    const auto started = Comm::Clock::now();
    auto f = rig.start(std::move(request), reply);
    CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }));
    const auto took = Comm::Clock::now() - started;
    ASSERT_FAILURE(Failure::ConnectFail, *f);
    CPPUNIT_ASSERT(reply->hasFailed());
    CPPUNIT_ASSERT(took >= Milliseconds(100));
    CPPUNIT_ASSERT(took < Milliseconds(2000));
}

void TestForwarder::nameWithoutResolverFailsDnsFail()
{
    Rig rig;
    auto reply = NewReply();
    TestReader reader(reply, true);
    auto request = rig.get("/name");
    request.host = "origin.test"; // not a literal, and the context has no resolver
    auto f = rig.start(std::move(request), reply);
    CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }));
    ASSERT_FAILURE(Failure::DnsFail, *f);
    CPPUNIT_ASSERT(reply->hasFailed());
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), rig.context.connectionsOpened);
}

void TestForwarder::silentOriginFailsReadTimeout()
{
    Rig rig;
    rig.limits.readTimeout = Milliseconds(100);
    auto reply = NewReply();
    TestReader reader(reply, true);
    const auto started = Comm::Clock::now();
    auto f = rig.start(rig.get("/silent"), reply);
    auto origin = rig.accept();
    rig.readRequest(origin.get());
    // half a reply, then silence: the timer counts from the last byte
    rig.deliver(origin.get(), "HTTP/1.1 200 OK\r\n");
    CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }));
    const auto took = Comm::Clock::now() - started;
    ASSERT_FAILURE(Failure::ReadTimeout, *f);
    CPPUNIT_ASSERT(reply->hasFailed());
    CPPUNIT_ASSERT(took >= Milliseconds(100));
    CPPUNIT_ASSERT(took < Milliseconds(2000));
    CPPUNIT_ASSERT_EQUAL(size_t(0), rig.pool.idleCount());
    // the origin sees the connection closed
    std::string rest;
    CPPUNIT_ASSERT(rig.runUntil([&] { return !Rig::readSome(origin.get(), rest); }));
}

void TestForwarder::slowReaderStopsReadsAtGap()
{
    Rig rig;
    const uint64_t gap = 64 * 1024;
    const uint64_t block = 16 * 1024;
    rig.limits.readAheadGap = gap;
    rig.limits.readSizer = Sbuf::ReadSizer::Fixed(block);
    rig.limits.readTimeout = Milliseconds(100); // waiting for the reader is not the origin's fault
    auto reply = NewReply();
    TestReader reader(reply, false);
    auto f = rig.start(rig.get("/big"), reply);
    auto origin = rig.accept();
    rig.readRequest(origin.get());

    const uint64_t size = 4 * 1024 * 1024;
    const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(size) + "\r\n\r\n";
    rig.send(origin.get(), head);
    uint64_t sent = 0;
    const auto feed = [&] {
        while (sent < size) {
            const std::string chunk = Pattern(sent, size_t(std::min<uint64_t>(64 * 1024, size - sent)));
            const ssize_t n = ::send(origin.get(), chunk.data(), chunk.size(), MSG_NOSIGNAL);
            if (n <= 0)
                break;
            sent += uint64_t(n);
        }
    };

    // the reader consumes nothing: reads stop once the gap is ahead
    feed();
    rig.runFor(Milliseconds(300)); // three read timeouts: a paused read does not time out
    CPPUNIT_ASSERT(!f->isDone());
    const uint64_t appended = reply->body().endOffset();
    CPPUNIT_ASSERT(appended >= gap);
    CPPUNIT_ASSERT(appended <= gap + block);
    CPPUNIT_ASSERT(sent > appended + block); // the origin had more to give
    rig.runFor(Milliseconds(20));
    CPPUNIT_ASSERT_EQUAL(appended, reply->body().endOffset());

    // consuming resumes reading at once (the kernel still holds bytes)
    CPPUNIT_ASSERT_EQUAL(size_t(32 * 1024), reader.consume(32 * 1024));
    CPPUNIT_ASSERT(reply->body().endOffset() > appended);
    CPPUNIT_ASSERT(reply->body().endOffset() - reader.cur.offset() <= gap + block);

    // and so on to the end, never more than the gap and a block ahead
    CPPUNIT_ASSERT(rig.runUntil(
        [&] {
            CPPUNIT_ASSERT(reply->body().endOffset() - reader.cur.offset() <= gap + block);
            // released behind the reader (Entry.h: the gap plus two blocks)
            CPPUNIT_ASSERT(reply->body().length() <= gap + 2 * block);
            feed();
            reader.consume(48 * 1024);
            return f->isDone();
        },
        Milliseconds(8000)));
    reader.consume();
    ASSERT_FAILURE(Failure::None, *f);
    CPPUNIT_ASSERT(reply->isComplete());
    CPPUNIT_ASSERT_EQUAL(size_t(size), reader.text.size());
    CPPUNIT_ASSERT(reader.text == Pattern(0, size_t(size)));
    checkNoBodyCopies();
}

void TestForwarder::keepAliveConnectionIsReused()
{
    Rig rig;
    auto origin = rig.pooledConnection();
    CPPUNIT_ASSERT_EQUAL(size_t(1), rig.pool.idleCount());

    auto second = NewReply();
    TestReader secondReader(second, true);
    auto request = rig.get("/two");
    const std::string head = request.head;
    auto f2 = rig.start(std::move(request), second);
    CPPUNIT_ASSERT(f2->reusedConnection());
    CPPUNIT_ASSERT_EQUAL(size_t(0), rig.pool.idleCount());
    // the second request comes over the first connection
    CPPUNIT_ASSERT_EQUAL(head, rig.readRequest(origin.get()));
    rig.send(origin.get(), "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nworld");
    CPPUNIT_ASSERT(rig.runUntil([&] { return f2->isDone(); }));
    ASSERT_FAILURE(Failure::None, *f2);
    CPPUNIT_ASSERT_EQUAL(std::string("world"), secondReader.text);
    // one accept, one connection opened
    CPPUNIT_ASSERT(!rig.tryAccept().isOpen());
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), rig.context.connectionsOpened);
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), rig.context.retries);
    CPPUNIT_ASSERT_EQUAL(size_t(1), rig.pool.idleCount());
}

void TestForwarder::connectionIsPooledBeforeTheReplyCompletes()
{
    // a client connection told that its reply is complete may start its next
    // request at once, from inside the note: the origin connection must
    // already be in the pool then, or that request opens a second one. A
    // spliced body is the case where no NotificationHold delays the note.
    Rig rig;
    rig.limits.spliceMinSize = 1;
    struct PipeReader : TestReader {
        PipeReader(Store::EntryRef e, Server::Pool& p) : TestReader(std::move(e), true), pool(p)
        {
            int fds[2];
            CPPUNIT_ASSERT_EQUAL(0,
                                 ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds));
            in.reset(fds[0]);
            out.reset(fds[1]);
        }
        bool takesPipe() const override { return true; }
        void noteDataAvailable() override
        {
            TestReader::noteDataAvailable();
            if (auto* pipe = entry->pipe()) {
                while (!pipe->isEmpty() && pipe->drainTo(in.get(), pipe->size()) > 0) {
                }
                Rig::readSome(out.get(), piped);
                entry->noteConsumed();
            }
            if (entry->isComplete() && idleAtCompletion < 0)
                idleAtCompletion = int(pool.idleCount());
        }
        Server::Pool& pool;
        Comm::Descriptor in, out; ///< the pipe drains into in; the test reads out
        std::string piped;
        int idleAtCompletion = -1;
    };
    auto reply = NewReply();
    PipeReader reader(reply, rig.pool);
    auto f = rig.start(rig.get("/"), reply);
    auto origin = rig.accept();
    rig.readRequest(origin.get());
    rig.send(origin.get(), "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n");
    CPPUNIT_ASSERT(rig.runUntil([&] { return reply->pipe() != nullptr; }));
    rig.send(origin.get(), "hello");
    CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }));
    ASSERT_FAILURE(Failure::None, *f);
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), rig.context.splicedReplies);
    CPPUNIT_ASSERT_EQUAL(std::string("hello"), reader.piped);
    CPPUNIT_ASSERT_EQUAL(1, reader.idleAtCompletion);
}

void TestForwarder::closingOriginConnectionIsNotPooled()
{
    Rig rig;
    // Connection: close, an HTTP/1.0 reply without keep-alive, and stray bytes after the body
    for (const std::string wire : {"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
                                   "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
                                   "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA"}) {
        auto reply = NewReply();
        TestReader reader(reply, true);
        auto f = rig.start(rig.get("/once"), reply);
        CPPUNIT_ASSERT(!f->reusedConnection());
        auto origin = rig.accept();
        rig.readRequest(origin.get());
        rig.send(origin.get(), wire);
        CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }));
        ASSERT_FAILURE(Failure::None, *f);
        CPPUNIT_ASSERT_EQUAL(std::string("ok"), reader.text);
        CPPUNIT_ASSERT_EQUAL(size_t(0), rig.pool.idleCount());
        std::string rest;
        CPPUNIT_ASSERT(rig.runUntil([&] { return !Rig::readSome(origin.get(), rest); }));
    }
}

void TestForwarder::reusedConnectionClosedBeforeReplyIsRetriedForGet()
{
    Rig rig;
    auto origin = rig.pooledConnection();
    CPPUNIT_ASSERT_EQUAL(size_t(1), rig.pool.idleCount());

    auto second = NewReply();
    TestReader secondReader(second, true);
    auto request = rig.get("/two");
    const std::string head = request.head;
    auto f2 = rig.start(std::move(request), second);
    CPPUNIT_ASSERT(f2->reusedConnection());
    // the origin's idle timeout: it reads the request and closes without a byte
    CPPUNIT_ASSERT_EQUAL(head, rig.readRequest(origin.get()));
    origin.reset();

    auto fresh = rig.accept(); // the retry, on a new connection
    CPPUNIT_ASSERT_EQUAL(head, rig.readRequest(fresh.get()));
    rig.send(fresh.get(), "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nworld");
    CPPUNIT_ASSERT(rig.runUntil([&] { return f2->isDone(); }));
    ASSERT_FAILURE(Failure::None, *f2);
    CPPUNIT_ASSERT(second->isComplete());
    CPPUNIT_ASSERT_EQUAL(std::string("world"), secondReader.text);
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), rig.context.retries);
    CPPUNIT_ASSERT_EQUAL(uint64_t(2), rig.context.connectionsOpened);
    CPPUNIT_ASSERT(!f2->reusedConnection());
}

void TestForwarder::retryHappensAtMostOnce()
{
    Rig rig;
    auto origin = rig.pooledConnection();

    auto second = NewReply();
    TestReader secondReader(second, true);
    auto f2 = rig.start(rig.get("/two"), second);
    CPPUNIT_ASSERT(f2->reusedConnection());
    rig.readRequest(origin.get());
    origin.reset();
    auto fresh = rig.accept();
    rig.readRequest(fresh.get());
    fresh.reset(); // the retry fails the same way: no second retry
    CPPUNIT_ASSERT(rig.runUntil([&] { return f2->isDone(); }));
    ASSERT_FAILURE(Failure::ZeroSize, *f2);
    CPPUNIT_ASSERT(second->hasFailed());
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), rig.context.retries);
    rig.runFor(Milliseconds(20));
    CPPUNIT_ASSERT(!rig.tryAccept().isOpen());
}

void TestForwarder::postWithBodyIsNeverRetried()
{
    Rig rig;
    auto origin = rig.pooledConnection();

    auto second = NewReply();
    TestReader secondReader(second, true);
    auto f2 = rig.start(rig.post("/form", "Content-Length: 7\r\n", "a=1&b=2"), second);
    CPPUNIT_ASSERT(f2->reusedConnection());
    const std::string got = rig.readRequest(origin.get(), 7);
    CPPUNIT_ASSERT(got.ends_with("\r\n\r\na=1&b=2"));
    origin.reset(); // closed before replying: the origin may have acted on it

    CPPUNIT_ASSERT(rig.runUntil([&] { return f2->isDone(); }));
    CPPUNIT_ASSERT_MESSAGE(FailureName(f2->failure()),
                           f2->failure() == Failure::ZeroSize || f2->failure() == Failure::ReadError);
    CPPUNIT_ASSERT(second->hasFailed());
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), rig.context.retries);
    rig.runFor(Milliseconds(20));
    CPPUNIT_ASSERT(!rig.tryAccept().isOpen());
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), rig.context.connectionsOpened);
}

void TestForwarder::bodilessPostIsNeverRetried()
{
    // no body to hold whole: only the method forbids the retry
    Rig rig;
    auto origin = rig.pooledConnection();

    auto second = NewReply();
    TestReader secondReader(second, true);
    auto f2 = rig.start(rig.post("/action", "Content-Length: 0\r\n"), second);
    CPPUNIT_ASSERT(f2->reusedConnection());
    rig.readRequest(origin.get());
    origin.reset();
    CPPUNIT_ASSERT(rig.runUntil([&] { return f2->isDone(); }));
    ASSERT_FAILURE(Failure::ZeroSize, *f2);
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), rig.context.retries);
    rig.runFor(Milliseconds(20));
    CPPUNIT_ASSERT(!rig.tryAccept().isOpen());
}

namespace {

/// streams a 100 KB request body through a Forwarder with framing and
/// returns what the origin received after the head
std::string StreamUpload(Rig& rig, Store::BodyWriter::Framing framing, size_t size, std::string& originHead)
{
    auto body = MakeRef<Store::Entry>(32 * 1024);
    auto reply = NewReply();
    TestReader reader(reply, true);
    Server::Request put;
    put.method = Http::Method::Put;
    put.host = "127.0.0.1";
    put.port = rig.port;
    put.head = rig.headFor("PUT", "/upload",
                           framing == Store::BodyWriter::Framing::Raw
                               ? "Content-Length: " + std::to_string(size) + "\r\n"
                               : std::string("Transfer-Encoding: chunked\r\n"));
    put.body = body;
    put.bodyFraming = framing;
    const std::string head = put.head;
    auto f = rig.start(std::move(put), reply);
    auto origin = rig.accept();

    // the client side appends as its reads arrive and as the gap allows;
    // the origin reads in between
    std::string received;
    uint64_t appended = 0;
    CPPUNIT_ASSERT(rig.runUntil([&] {
        if (appended < size && body->canProduce()) {
            const size_t n = std::min<size_t>(7 * 1024 + 13, size - appended);
            AppendPattern(*body, appended, n);
            appended += n;
            if (appended == size)
                body->complete();
        }
        Rig::readSome(origin.get(), received);
        const auto end = received.find("\r\n\r\n");
        if (end == std::string::npos)
            return false;
        const std::string_view rest = std::string_view(received).substr(end + 4);
        return framing == Store::BodyWriter::Framing::Raw ? rest.size() >= size
                                                          : rest.ends_with("\r\n0\r\n\r\n");
    }));
    CPPUNIT_ASSERT_EQUAL(uint64_t(size), appended);
    const auto end = received.find("\r\n\r\n");
    originHead = received.substr(0, end + 4);
    CPPUNIT_ASSERT_EQUAL(head, originHead);
    rig.send(origin.get(), "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok");
    CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }));
    ASSERT_FAILURE(Failure::None, *f);
    CPPUNIT_ASSERT_EQUAL(201, reply->reply()->status);
    CPPUNIT_ASSERT_EQUAL(std::string("ok"), reader.text);
    // the sender released what it wrote: an upload is not stored
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), body->body().length());
    return received.substr(end + 4);
}

} // namespace

void TestForwarder::requestBodyStreamsRaw()
{
    Rig rig;
    const size_t size = 100 * 1000;
    std::string head;
    const std::string got = StreamUpload(rig, Store::BodyWriter::Framing::Raw, size, head);
    CPPUNIT_ASSERT_EQUAL(size, got.size());
    CPPUNIT_ASSERT(got == Pattern(0, size));
    checkNoBodyCopies();
}

void TestForwarder::requestBodyStreamsChunked()
{
    Rig rig;
    const size_t size = 100 * 1000;
    std::string head;
    const std::string got = StreamUpload(rig, Store::BodyWriter::Framing::Chunked, size, head);
    CPPUNIT_ASSERT(got.size() > size); // framing was added
    const std::string payload = Dechunk(got);
    CPPUNIT_ASSERT_EQUAL(size, payload.size());
    CPPUNIT_ASSERT(payload == Pattern(0, size));
    checkNoBodyCopies();
}

void TestForwarder::readerLeavingAbortsAndClosesConnection()
{
    Rig rig;
    auto reply = NewReply();
    auto reader = std::make_unique<TestReader>(reply, true);
    auto f = rig.start(rig.get("/abandoned"), reply);
    auto origin = rig.accept();
    rig.readRequest(origin.get());
    rig.send(origin.get(), "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + Pattern(0, 1000));
    CPPUNIT_ASSERT(rig.runUntil([&] { return reader->text.size() == 1000; }));
    reader.reset(); // the client went away
    CPPUNIT_ASSERT(f->isDone());
    ASSERT_FAILURE(Failure::Aborted, *f);
    CPPUNIT_ASSERT_EQUAL(size_t(0), rig.pool.idleCount());
    std::string rest;
    CPPUNIT_ASSERT(rig.runUntil([&] { return !Rig::readSome(origin.get(), rest); }));
}

void TestForwarder::bodyBytesAreNeverCopied()
{
    // the whole server side, from recv(2) into the store to the entry's
    // slices, and from a request body entry to writev(2), copies no body byte
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), Sbuf::DefaultPool().copyStats().bodyCopies);
    Rig rig;
    Comm::Descriptor origin; // the second round reuses the first one's connection
    for (const bool chunked : {false, true}) {
        auto reply = NewReply();
        TestReader reader(reply, true);
        auto f = rig.start(rig.get("/copies"), reply);
        if (!f->reusedConnection())
            origin = rig.accept();
        rig.readRequest(origin.get());
        const std::string body = Pattern(0, 70000);
        if (chunked)
            rig.send(origin.get(), "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n11170\r\n" + body +
                                       "\r\n0\r\n\r\n");
        else
            rig.send(origin.get(), "HTTP/1.1 200 OK\r\nContent-Length: 70000\r\n\r\n" + body);
        CPPUNIT_ASSERT(rig.runUntil([&] { return f->isDone(); }));
        ASSERT_FAILURE(Failure::None, *f);
        CPPUNIT_ASSERT(reader.text == body);
    }
    rig.pool.closeAll(); // the upload opens a connection of its own
    std::string head;
    StreamUpload(rig, Store::BodyWriter::Framing::Chunked, 50000, head);
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), Sbuf::DefaultPool().copyStats().bodyCopies);
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), Sbuf::DefaultPool().copyStats().bodyBytesCopied);
}
