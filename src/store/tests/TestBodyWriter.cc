/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/BodyWriter.h"
#include "base/TextException.h"
#include "sbuf/BlockPool.h"
#include "sbuf/MemBlob.h"
#include "store/Entry.h"

#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

namespace {

/// a reader that only holds the writer's cursor for the entry
class WriterReader : public Store::Reader {
public:
    explicit WriterReader(const Store::BodyWriter& w) : writer(w) {}
    void noteDataAvailable() override {}
    const Sbuf::Cursor& cursor() const override { return writer.cursor(); }
    const Store::BodyWriter& writer;
};

/// a non-blocking socket pair with small buffers, so that writes are partial
struct Pair {
    Pair()
    {
        int fds[2];
        CPPUNIT_ASSERT_EQUAL(0, ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds));
        a = fds[0];
        b = fds[1];
        int small = 4096;
        ::setsockopt(a, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
        ::setsockopt(b, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
    }
    ~Pair()
    {
        ::close(a);
        ::close(b);
    }
    /// reads what is there
    void drain(std::string& out) const
    {
        char buf[65536];
        for (;;) {
            const ssize_t n = ::read(b, buf, sizeof(buf));
            if (n <= 0)
                return;
            out.append(buf, size_t(n));
        }
    }
    int a = -1; ///< written by the writer
    int b = -1; ///< read by the test
};

/// decodes a chunked body that the test trusts to be well formed
std::string dechunk(const std::string& in, bool& sawLast)
{
    std::string out;
    size_t pos = 0;
    sawLast = false;
    while (pos < in.size()) {
        const size_t eol = in.find("\r\n", pos);
        CPPUNIT_ASSERT(eol != std::string::npos);
        const size_t size = std::strtoul(in.substr(pos, eol - pos).c_str(), nullptr, 16);
        pos = eol + 2;
        if (size == 0) {
            CPPUNIT_ASSERT_EQUAL(std::string("\r\n"), in.substr(pos));
            sawLast = true;
            return out;
        }
        CPPUNIT_ASSERT(size > 0);
        out += in.substr(pos, size);
        pos += size;
        CPPUNIT_ASSERT_EQUAL(std::string("\r\n"), in.substr(pos, 2));
        pos += 2;
    }
    return out;
}

/// appends n bytes of a pattern starting at absolute offset off, in one block
void appendPattern(Sbuf::BlockPool& pool, Store::Entry& e, size_t n)
{
    const uint64_t off = e.body().endOffset();
    auto blob = Sbuf::MemBlob::Make(pool, n);
    for (size_t i = 0; i < n; ++i)
        blob->space()[i] = char('a' + (off + i) % 23);
    blob->commit(n);
    e.append(Sbuf::Slice(blob));
}

std::string pattern(size_t n)
{
    std::string s;
    for (size_t i = 0; i < n; ++i)
        s += char('a' + i % 23);
    return s;
}

} // namespace

/// a temporary file holding `prefix` then `body`, removed when it goes
struct TempFile {
    /// in dir ("/tmp" by default)
    TempFile(const std::string& prefix, const std::string& body, const std::string& dir = "/tmp")
    {
        std::string name = dir + "/cuttle-bodywriter.XXXXXX";
        fd = ::mkstemp(name.data());
        CPPUNIT_ASSERT(fd >= 0);
        ::unlink(name.c_str());
        const std::string all = prefix + body;
        CPPUNIT_ASSERT_EQUAL(ssize_t(all.size()), ::write(fd, all.data(), all.size()));
    }
    ~TempFile() { ::close(fd); }
    int fd = -1;
};

/// Tests of Store::BodyWriter: heads, raw and chunked bodies, partial writes.
class TestBodyWriter : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestBodyWriter);
    CPPUNIT_TEST(headOnly);
    CPPUNIT_TEST(rawBodyThroughPartialWrites);
    CPPUNIT_TEST(chunkedBodyThroughPartialWrites);
    CPPUNIT_TEST(chunkedEmptyBodyIsLastChunkOnly);
    CPPUNIT_TEST(sinkGetsTheBlocksThemselves);
    CPPUNIT_TEST(failedEntryIsAnError);
    CPPUNIT_TEST(bodyEndStopsRawAndChunkedBodies);
    CPPUNIT_TEST(segmentsInterleaveTextAndBodyRanges);
    CPPUNIT_TEST(segmentsOfABodyInFlightWaitAndLeadTheCursor);
    CPPUNIT_TEST(segmentsPastAShortBodyAreAnError);
    CPPUNIT_TEST(eachWriteCarriesAtMostTheDefaultBound);
    CPPUNIT_TEST(segmentWritesCarryAtMostTheBound);
    CPPUNIT_TEST(copiedBodyBytesAreCounted);
    CPPUNIT_TEST(reenteredWriteThrows);
    CPPUNIT_TEST(fileBodyGoesBySendfileThroughPartialWrites);
    CPPUNIT_TEST(fileSegmentsAreSentByOffset);
    CPPUNIT_TEST(coldFileBodyAsksToBeWarmed);
    CPPUNIT_TEST_SUITE_END();

public:
    void headOnly()
    {
        Pair p;
        auto e = MakeRef<Store::Entry>(1 << 20);
        Store::BodyWriter w;
        w.start("HTTP/1.1 204 No Content\r\n\r\n", Store::BodyWriter::Framing::None, *e);
        CPPUNIT_ASSERT(w.write(p.a, *e) == Store::BodyWriter::Result::Done);
        std::string got;
        p.drain(got);
        CPPUNIT_ASSERT_EQUAL(std::string("HTTP/1.1 204 No Content\r\n\r\n"), got);
    }

    /// a sink that takes everything at once (a regular file), so that only
    /// the writer bounds a writev; its contents afterwards
    struct FileSink {
        FileSink()
        {
            char name[] = "/tmp/cuttle-bodywriter.XXXXXX";
            fd = ::mkstemp(name);
            CPPUNIT_ASSERT(fd >= 0);
            ::unlink(name);
        }
        ~FileSink() { ::close(fd); }
        std::string contents() const
        {
            std::string out(size_t(::lseek(fd, 0, SEEK_END)), '\0');
            CPPUNIT_ASSERT_EQUAL(ssize_t(out.size()), ::pread(fd, out.data(), out.size(), 0));
            return out;
        }
        int fd = -1;
    };

    /// a complete 3 MiB + 5 body in 1 MiB blocks goes out in writes of at
    /// most DefaultMaxBytesPerWrite body bytes: 4 of them, not one
    void eachWriteCarriesAtMostTheDefaultBound()
    {
        static_assert(Store::BodyWriter::DefaultMaxBytesPerWrite == 1024 * 1024);
        Sbuf::BlockPool pool;
        auto e = MakeRef<Store::Entry>(1 << 30);
        e->setKept(true);
        for (int i = 0; i < 3; ++i)
            appendPattern(pool, *e, 1024 * 1024);
        appendPattern(pool, *e, 5);
        e->complete();
        for (const size_t bound : {size_t(0), Store::BodyWriter::DefaultMaxBytesPerWrite}) {
            FileSink sink;
            Store::BodyWriter w;
            w.start("H\r\n\r\n", Store::BodyWriter::Framing::Raw, *e);
            if (!bound)
                w.setMaxBytesPerWrite(0); // no bound: one writev
            CPPUNIT_ASSERT(w.write(sink.fd, *e) == Store::BodyWriter::Result::Done);
            CPPUNIT_ASSERT_EQUAL(uint64_t(bound ? 4 : 1), w.writeCount());
            CPPUNIT_ASSERT(sink.contents() == "H\r\n\r\n" + pattern(3 * 1024 * 1024 + 5));
        }
    }

    /// a Range reply's pieces obey the same bound, a piece spanning writes
    void segmentWritesCarryAtMostTheBound()
    {
        Sbuf::BlockPool pool;
        auto e = MakeRef<Store::Entry>(1 << 30);
        e->setKept(true);
        for (int i = 0; i < 10; ++i)
            appendPattern(pool, *e, 10000);
        e->complete();
        FileSink sink;
        Store::BodyWriter w;
        w.startSegments("H\r\n\r\n", {{"", 5000, 60000}, {"--x\r\n", 0, 0}, {"", 90000, 10000}}, *e);
        w.setMaxBytesPerWrite(25000);
        CPPUNIT_ASSERT(w.write(sink.fd, *e) == Store::BodyWriter::Result::Done);
        // 70,000 body bytes, 25,000 a write at most: 3 writes
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), w.writeCount());
        const auto all = pattern(100000);
        CPPUNIT_ASSERT(sink.contents() ==
                       "H\r\n\r\n" + all.substr(5000, 60000) + "--x\r\n" + all.substr(90000));
    }

    /// body bytes that reached their block by MemBlob::append (a user-space
    /// copy) are counted as they are sent, by every framing; read ones
    /// (commit) are not, nor is a head copied into the same block before them
    void copiedBodyBytesAreCounted()
    {
        for (const auto framing : {Store::BodyWriter::Framing::Raw, Store::BodyWriter::Framing::Chunked}) {
            for (const bool segments : {false, true}) {
                if (segments && framing == Store::BodyWriter::Framing::Chunked)
                    continue;
                Sbuf::BlockPool pool;
                auto e = MakeRef<Store::Entry>(1 << 30);
                e->setKept(true);
                appendPattern(pool, *e, 3000); // read: not counted
                auto copy = Sbuf::MemBlob::MakeCopy(pool, pattern(700));
                e->append(Sbuf::Slice(copy)); // copied: 700 bytes
                auto mixed = Sbuf::MemBlob::Make(pool, 1000);
                mixed->append("HEAD"); // a copied head, then read body bytes after it
                std::memcpy(mixed->space(), "abcdef", 6);
                mixed->commit(6);
                e->append(Sbuf::Slice(mixed, 4, 6));
                e->complete();
                const auto before = Sbuf::DefaultPool().copyStats().bodyBytesCopied;
                FileSink sink;
                Store::BodyWriter w;
                if (segments)
                    w.startSegments("H\r\n\r\n", {{"", 0, 3706}}, *e);
                else
                    w.start("H\r\n\r\n", framing, *e);
                CPPUNIT_ASSERT(w.write(sink.fd, *e) == Store::BodyWriter::Result::Done);
                CPPUNIT_ASSERT_EQUAL(uint64_t(700), Sbuf::DefaultPool().copyStats().bodyBytesCopied - before);
            }
        }
    }

    /// store/Entry.h's re-entrancy rule, enforced: a producer that writes
    /// with the same writer from inside the write that resumed it breaks it
    /// setFileBody(): the body goes from the file with sendfile, through
    /// partial writes (Blocked until the reader drains), ending Done
    void fileBodyGoesBySendfileThroughPartialWrites()
    {
        Pair p;
        const std::string body = pattern(200000);
        TempFile file("header-bytes-", body);
        auto e = MakeRef<Store::Entry>(1);
        e->complete();
        Store::BodyWriter w;
        w.start("HTTP/1.1 200 OK\r\n\r\n", Store::BodyWriter::Framing::Raw, *e);
        w.setFileBody(file.fd, 13, body.size());
        std::string got;
        auto r = Store::BodyWriter::Result::Blocked;
        for (int i = 0; i < 10000 && r == Store::BodyWriter::Result::Blocked; ++i) {
            r = w.write(p.a, *e);
            p.drain(got);
        }
        CPPUNIT_ASSERT(r == Store::BodyWriter::Result::Done);
        CPPUNIT_ASSERT(got == "HTTP/1.1 200 OK\r\n\r\n" + body);
        CPPUNIT_ASSERT_EQUAL(uint64_t(body.size()), w.bodyBytesWritten());
        CPPUNIT_ASSERT(w.sendfileCount() > 1); // partial: the socket buffer is small
        // a file shorter than it was said to be is an error, not a hang
        Store::BodyWriter shortFile;
        shortFile.start("", Store::BodyWriter::Framing::Raw, *e);
        shortFile.setFileBody(file.fd, 13, body.size() + 10);
        for (int i = 0; i < 10000 && r != Store::BodyWriter::Result::Error; ++i) {
            r = shortFile.write(p.a, *e);
            p.drain(got);
        }
        CPPUNIT_ASSERT(r == Store::BodyWriter::Result::Error);
    }

    /// a file body whose next bytes are not in the page cache is Cold, with
    /// the range to warm (at most WarmWindow); once warmed it is sent
    void coldFileBodyAsksToBeWarmed()
    {
        const std::string body = pattern(5 * 1024 * 1024);
        // in the working directory (the build tree): the pages of a tmpfs
        // file cannot be dropped
        TempFile file("xx", body, ".");
        // the first sendfile() probes the first window's last byte: its page
        // must have left the page cache. Asked with mincore(), which (unlike a
        // RWF_NOWAIT read) starts no readahead; the kernel may keep a page
        // that another CPU's LRU batch still holds, so it is asked again
        const size_t probe = 2 + Store::BodyWriter::WarmWindow - 1;
        const size_t page = size_t(::sysconf(_SC_PAGESIZE));
        void* map = ::mmap(nullptr, body.size() + 2, PROT_READ, MAP_SHARED, file.fd, 0);
        CPPUNIT_ASSERT(map != MAP_FAILED);
        unsigned char resident = 1;
        for (int i = 0; i < 5 && (resident & 1); ++i) {
            CPPUNIT_ASSERT_EQUAL(0, ::fsync(file.fd));
            CPPUNIT_ASSERT_EQUAL(0, ::posix_fadvise(file.fd, 0, 0, POSIX_FADV_DONTNEED));
            CPPUNIT_ASSERT_EQUAL(0, ::mincore(static_cast<char*>(map) + probe / page * page, 1, &resident));
        }
        ::munmap(map, body.size() + 2);
        if (resident & 1) {
            std::cerr << " (this file system keeps the file's pages: Cold not checked) ";
            return;
        }
        Pair p;
        auto e = MakeRef<Store::Entry>(1);
        e->complete();
        Store::BodyWriter w;
        w.start("H\r\n\r\n", Store::BodyWriter::Framing::Raw, *e);
        w.setFileBody(file.fd, 2, body.size());
        std::string got;
        CPPUNIT_ASSERT(w.write(p.a, *e) == Store::BodyWriter::Result::Cold);
        p.drain(got);
        CPPUNIT_ASSERT_EQUAL(std::string("H\r\n\r\n"), got); // the head, and no body byte yet
        CPPUNIT_ASSERT(w.coldRange() == std::make_pair(uint64_t(2), Store::BodyWriter::WarmWindow));
        int colds = 0;
        auto r = Store::BodyWriter::Result::Cold;
        for (int i = 0; i < 100000 && r != Store::BodyWriter::Result::Done; ++i) {
            if (r == Store::BodyWriter::Result::Cold) {
                ++colds;
                // what DiskTier::warm() does on an I/O thread
                const auto [offset, length] = w.coldRange();
                std::string scratch(length, '\0');
                CPPUNIT_ASSERT_EQUAL(ssize_t(length),
                                     ::pread(file.fd, scratch.data(), length, off_t(offset)));
                w.noteWarmed();
            }
            r = w.write(p.a, *e);
            p.drain(got);
        }
        CPPUNIT_ASSERT(r == Store::BodyWriter::Result::Done);
        CPPUNIT_ASSERT(got == "H\r\n\r\n" + body);
        CPPUNIT_ASSERT(colds >= 1);
    }

    void fileSegmentsAreSentByOffset()
    {
        Pair p;
        const std::string body = pattern(5000);
        TempFile file("xx", body);
        auto e = MakeRef<Store::Entry>(1);
        e->complete();
        Store::BodyWriter w;
        w.startSegments("H\r\n\r\n", {{"--a\r\n", 0, 0}, {"", 10, 20}, {"--b\r\n", 0, 0}, {"", 4990, 10}},
                        *e);
        w.setFileBody(file.fd, 2, body.size());
        CPPUNIT_ASSERT(w.write(p.a, *e) == Store::BodyWriter::Result::Done);
        std::string got;
        p.drain(got);
        CPPUNIT_ASSERT_EQUAL("H\r\n\r\n--a\r\n" + body.substr(10, 20) + "--b\r\n" + body.substr(4990), got);
    }

    void reenteredWriteThrows()
    {
        struct Reentering : Store::Producer {
            void resumeProducing() override
            {
                ++calls;
                (void)writer->write(fd, *entry);
            }
            Store::BodyWriter* writer = nullptr;
            Store::Entry* entry = nullptr;
            int fd = -1;
            int calls = 0;
        };
        Sbuf::BlockPool pool;
        auto e = MakeRef<Store::Entry>(4096);
        Store::BodyWriter w;
        WriterReader reader(w);
        e->addReader(reader);
        FileSink sink;
        Reentering producer;
        producer.writer = &w;
        producer.entry = e.getRaw();
        producer.fd = sink.fd;
        e->setProducer(&producer);
        appendPattern(pool, *e, 8192); // past the gap: the write makes room and resumes it
        w.start("H\r\n\r\n", Store::BodyWriter::Framing::Raw, *e);
        CPPUNIT_ASSERT_THROW(w.write(sink.fd, *e), TextException);
        CPPUNIT_ASSERT_EQUAL(1, producer.calls);
        e->setProducer(nullptr);
        e->removeReader(reader);
    }

    void rawBodyThroughPartialWrites() { streamThrough(Store::BodyWriter::Framing::Raw); }

    void chunkedBodyThroughPartialWrites() { streamThrough(Store::BodyWriter::Framing::Chunked); }

    /// A sink (a TLS connection) that takes at most 7 bytes a call and
    /// blocks every other call: the whole chunked message arrives, and every
    /// body byte it is offered is in the entry's own block (no copy on the way).
    void sinkGetsTheBlocksThemselves()
    {
        struct Stingy : Store::BodyWriter::Sink {
            ssize_t writev(const iovec* iov, int count) override
            {
                if ((calls++ % 2) == 1) {
                    errno = EAGAIN;
                    return -1;
                }
                size_t taken = 0;
                for (int i = 0; i < count && taken < 7; ++i) {
                    const auto* base = static_cast<const char*>(iov[i].iov_base);
                    if (base >= block.data() && base < block.data() + block.size())
                        bodyFromBlock += std::min(iov[i].iov_len, 7 - taken);
                    const size_t n = std::min(iov[i].iov_len, 7 - taken);
                    out.append(base, n);
                    taken += n;
                }
                return ssize_t(taken);
            }
            std::string_view block;
            std::string out;
            size_t bodyFromBlock = 0;
            unsigned calls = 0;
        } sink;
        Sbuf::BlockPool pool;
        auto e = MakeRef<Store::Entry>(1 << 20);
        Store::BodyWriter w;
        WriterReader reader(w);
        e->addReader(reader);
        w.start("H\r\n\r\n", Store::BodyWriter::Framing::Chunked, *e);
        appendPattern(pool, *e, 100);
        e->complete();
        sink.block = e->body().slice(e->body().firstSequence()).view();
        auto result = Store::BodyWriter::Result::Blocked;
        for (int i = 0; i < 200 && result != Store::BodyWriter::Result::Done; ++i)
            result = w.write(sink, *e);
        CPPUNIT_ASSERT(result == Store::BodyWriter::Result::Done);
        bool sawLast = false;
        CPPUNIT_ASSERT_EQUAL(std::string("H\r\n\r\n"), sink.out.substr(0, 5));
        CPPUNIT_ASSERT_EQUAL(pattern(100), dechunk(sink.out.substr(5), sawLast));
        CPPUNIT_ASSERT(sawLast);
        CPPUNIT_ASSERT_EQUAL(size_t(100), sink.bodyFromBlock);
        e->removeReader(reader);
    }

    void chunkedEmptyBodyIsLastChunkOnly()
    {
        Pair p;
        auto e = MakeRef<Store::Entry>(1 << 20);
        Store::BodyWriter w;
        w.start("H\r\n\r\n", Store::BodyWriter::Framing::Chunked, *e);
        CPPUNIT_ASSERT(w.write(p.a, *e) == Store::BodyWriter::Result::Caught);
        e->complete();
        CPPUNIT_ASSERT(w.write(p.a, *e) == Store::BodyWriter::Result::Done);
        std::string got;
        p.drain(got);
        CPPUNIT_ASSERT_EQUAL(std::string("H\r\n\r\n0\r\n\r\n"), got);
    }

    void failedEntryIsAnError()
    {
        Pair p;
        Sbuf::BlockPool pool;
        auto e = MakeRef<Store::Entry>(1 << 20);
        Store::BodyWriter w;
        w.start("", Store::BodyWriter::Framing::Raw, *e);
        appendPattern(pool, *e, 100);
        CPPUNIT_ASSERT(w.write(p.a, *e) == Store::BodyWriter::Result::Caught);
        e->fail("origin reset");
        CPPUNIT_ASSERT(w.write(p.a, *e) == Store::BodyWriter::Result::Error);
    }

    /// setBodyEnd(): no body byte at or past the end goes out, raw or
    /// chunked, and write() reports Caught there even once the entry is complete
    void bodyEndStopsRawAndChunkedBodies()
    {
        Sbuf::BlockPool pool;
        for (const auto framing : {Store::BodyWriter::Framing::Raw, Store::BodyWriter::Framing::Chunked}) {
            FileSink sink;
            auto e = MakeRef<Store::Entry>(1 << 20);
            Store::BodyWriter w;
            w.start("H\r\n\r\n", framing, *e);
            WriterReader reader(w);
            e->addReader(reader);
            appendPattern(pool, *e, 3000);
            w.setBodyEnd(5000);
            CPPUNIT_ASSERT(w.write(sink.fd, *e) == Store::BodyWriter::Result::Caught);
            CPPUNIT_ASSERT_EQUAL(uint64_t(3000), w.bodyBytesWritten());
            appendPattern(pool, *e, 3000);
            e->complete();
            CPPUNIT_ASSERT(w.write(sink.fd, *e) == Store::BodyWriter::Result::Caught);
            CPPUNIT_ASSERT(w.write(sink.fd, *e) == Store::BodyWriter::Result::Caught);
            CPPUNIT_ASSERT_EQUAL(uint64_t(5000), w.bodyBytesWritten());
            const auto out = sink.contents();
            CPPUNIT_ASSERT_EQUAL(std::string("H\r\n\r\n"), out.substr(0, 5));
            std::string body = out.substr(5);
            if (framing == Store::BodyWriter::Framing::Chunked) {
                bool sawLast = true;
                body = dechunk(body, sawLast);
                CPPUNIT_ASSERT(!sawLast);
            }
            CPPUNIT_ASSERT(body == pattern(5000));
            e->removeReader(reader);
        }
    }

    void segmentsInterleaveTextAndBodyRanges()
    {
        // a multipart/byteranges reply: framing text between ranges of a
        // stored body spread over several blocks, through partial writes
        Pair p;
        Sbuf::BlockPool pool;
        auto e = MakeRef<Store::Entry>(1 << 30);
        e->setKept(true);
        for (int i = 0; i < 40; ++i)
            appendPattern(pool, *e, 10000);
        e->complete();
        const std::string all = pattern(400000);
        std::vector<Store::BodyWriter::Segment> segments = {
            {"--A\r\n", 0, 0}, {"", 5, 30000}, {"\r\n--B\r\n", 0, 0}, {"", 399990, 10}, {"--end", 0, 0}};
        Store::BodyWriter w;
        w.startSegments("H\r\n\r\n", segments, *e);
        std::string got;
        Store::BodyWriter::Result r = Store::BodyWriter::Result::Blocked;
        for (int i = 0; i < 100000 && r == Store::BodyWriter::Result::Blocked; ++i) {
            r = w.write(p.a, *e);
            p.drain(got);
        }
        CPPUNIT_ASSERT(r == Store::BodyWriter::Result::Done);
        p.drain(got);
        const std::string expected =
            "H\r\n\r\n--A\r\n" + all.substr(5, 30000) + "\r\n--B\r\n" + all.substr(399990, 10) + "--end";
        CPPUNIT_ASSERT_EQUAL(expected.size(), got.size());
        CPPUNIT_ASSERT(expected == got);
        CPPUNIT_ASSERT_EQUAL(uint64_t(30010), w.bodyBytesWritten());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.copyStats().bodyCopies);
    }

    void segmentsOfABodyInFlightWaitAndLeadTheCursor()
    {
        // ranges of an object still arriving (range_offset_limit): the writer
        // waits (Caught) for bytes not yet there, its cursor stays at the
        // first byte still needed, so a streaming entry releases what is
        // behind it and its producer is not held back by bytes before the ranges
        Pair p;
        Sbuf::BlockPool pool;
        const uint64_t gap = 20000;
        auto e = MakeRef<Store::Entry>(gap);
        Store::BodyWriter w;
        WriterReader reader(w);
        e->addReader(reader);
        std::vector<Store::BodyWriter::Segment> segments = {{"", 50000, 100}, {"|", 0, 0}, {"", 90000, 10}};
        w.startSegments("H:", segments, *e);
        std::string got;
        CPPUNIT_ASSERT(w.write(p.a, *e) == Store::BodyWriter::Result::Caught); // the head only
        p.drain(got);
        CPPUNIT_ASSERT_EQUAL(std::string("H:"), got);
        uint64_t maxHeld = 0;
        for (int i = 0; i < 10 && e->canProduce(); ++i) {
            appendPattern(pool, *e, 10000);
            maxHeld = std::max(maxHeld, e->body().length());
            // done once the last range is written, before the body ends
            const auto expected = i < 9 ? Store::BodyWriter::Result::Caught : Store::BodyWriter::Result::Done;
            CPPUNIT_ASSERT(w.write(p.a, *e) == expected);
            p.drain(got);
            // the cursor is at what has arrived, or at the first byte needed
            // (past the ranges: at the end)
            const uint64_t needed = i < 5 ? 50000 : i < 9 ? 90000 : UINT64_MAX;
            CPPUNIT_ASSERT_EQUAL(std::min<uint64_t>(e->body().endOffset(), needed), w.cursor().offset());
        }
        CPPUNIT_ASSERT_EQUAL(uint64_t(100000), e->body().endOffset()); // never stalled by the gap
        CPPUNIT_ASSERT(maxHeld <= gap + 10000);                        // released behind the cursor
        e->complete();
        CPPUNIT_ASSERT(w.write(p.a, *e) == Store::BodyWriter::Result::Done);
        p.drain(got);
        const std::string all = pattern(100000);
        CPPUNIT_ASSERT(got == "H:" + all.substr(50000, 100) + "|" + all.substr(90000, 10));
        e->removeReader(reader);
    }

    void segmentsPastAShortBodyAreAnError()
    {
        Pair p;
        Sbuf::BlockPool pool;
        auto e = MakeRef<Store::Entry>(1 << 20);
        Store::BodyWriter w;
        w.startSegments("", {{"", 500, 10}}, *e);
        appendPattern(pool, *e, 100);
        CPPUNIT_ASSERT(w.write(p.a, *e) == Store::BodyWriter::Result::Caught);
        e->complete(); // the body ended before the range
        CPPUNIT_ASSERT(w.write(p.a, *e) == Store::BodyWriter::Result::Error);
    }

private:
    /// a producer appending blocks of varied sizes under a small gap while
    /// the writer writes into a small socket buffer and the test reads
    void streamThrough(Store::BodyWriter::Framing framing)
    {
        Pair p;
        Sbuf::BlockPool pool;
        const uint64_t total = 3 * 1024 * 1024 + 17;
        const uint64_t gap = 64 * 1024;
        auto e = MakeRef<Store::Entry>(gap);
        Store::BodyWriter w;
        WriterReader reader(w);
        e->addReader(reader);
        w.start("HEAD\r\n\r\n", framing, *e);
        std::string got;
        size_t sizes[] = {1, 4096, 65536, 1000, 33333};
        size_t round = 0;
        Store::BodyWriter::Result r = Store::BodyWriter::Result::Caught;
        while (r != Store::BodyWriter::Result::Done) {
            CPPUNIT_ASSERT(round < 1000000);
            while (e->canProduce() && e->body().endOffset() < total)
                appendPattern(pool, *e,
                              std::min<uint64_t>(sizes[round++ % 5], total - e->body().endOffset()));
            if (e->body().endOffset() == total)
                e->complete();
            // a slow reader of a streamed entry holds at most the gap plus
            // two blocks: the one it is in and the last one read
            CPPUNIT_ASSERT(e->body().length() <= gap + 2 * 65536);
            CPPUNIT_ASSERT(e->body().endOffset() - w.cursor().offset() <= gap + 65536);
            r = w.write(p.a, *e);
            CPPUNIT_ASSERT(r != Store::BodyWriter::Result::Error);
            p.drain(got);
        }
        CPPUNIT_ASSERT_EQUAL(std::string("HEAD\r\n\r\n"), got.substr(0, 8));
        std::string body = got.substr(8);
        if (framing == Store::BodyWriter::Framing::Chunked) {
            bool sawLast = false;
            body = dechunk(body, sawLast);
            CPPUNIT_ASSERT(sawLast);
        }
        CPPUNIT_ASSERT_EQUAL(size_t(total), body.size());
        CPPUNIT_ASSERT(body == pattern(total));
        CPPUNIT_ASSERT_EQUAL(total, w.bodyBytesWritten());
        CPPUNIT_ASSERT_EQUAL(uint64_t(got.size()), w.bytesWritten());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pool.copyStats().bodyCopies);
        e->removeReader(reader);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestBodyWriter);
