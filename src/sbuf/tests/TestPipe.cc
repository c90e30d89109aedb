/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "sbuf/Pipe.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cerrno>
#include <string>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

/// a connected pair of non-blocking stream sockets, closed at the end
struct SocketPair {
    int fds[2] = {-1, -1};
    SocketPair()
    {
        CPPUNIT_ASSERT_EQUAL(0, ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds));
    }
    ~SocketPair()
    {
        ::close(fds[0]);
        ::close(fds[1]);
    }
};

/// writes all of bytes to fd (a socket with room for them)
void WriteAll(int fd, const std::string& bytes)
{
    CPPUNIT_ASSERT_EQUAL(ssize_t(bytes.size()), ::write(fd, bytes.data(), bytes.size()));
}

/// what fd holds now, read until EAGAIN
std::string ReadAll(int fd)
{
    std::string out;
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof(buffer));
        if (n <= 0)
            break;
        out.append(buffer, size_t(n));
    }
    return out;
}

} // namespace

/// Tests of Sbuf::Pipe: bytes from one socket to another through the
/// kernel, counted by the pipe (size(), room()), never past max.
class TestPipe : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestPipe);
    CPPUNIT_TEST(bytesGoThroughInOrderAndAreCounted);
    CPPUNIT_TEST(fillTakesAtMostMax);
    CPPUNIT_TEST(emptySourceIsEagainAndEofIsZero);
    CPPUNIT_TEST(drainOfAnEmptyPipeMovesNothing);
    CPPUNIT_TEST(growRaisesTheCapacityOnceWithBytesInside);
    CPPUNIT_TEST_SUITE_END();

public:
    void bytesGoThroughInOrderAndAreCounted()
    {
        SocketPair source, sink;
        auto pipe = Sbuf::Pipe::Make();
        CPPUNIT_ASSERT(pipe);
        CPPUNIT_ASSERT(pipe->isEmpty());
        CPPUNIT_ASSERT(pipe->capacity() >= 4096);
        CPPUNIT_ASSERT_EQUAL(pipe->capacity(), pipe->room());
        std::string bytes;
        for (int i = 0; i < 3000; ++i)
            bytes += std::to_string(i) + ",";
        WriteAll(source.fds[1], bytes);
        CPPUNIT_ASSERT_EQUAL(ssize_t(bytes.size()), pipe->fillFrom(source.fds[0], pipe->room()));
        CPPUNIT_ASSERT_EQUAL(bytes.size(), pipe->size());
        CPPUNIT_ASSERT_EQUAL(pipe->capacity() - bytes.size(), pipe->room());
        // in two drains: the second takes what is left
        CPPUNIT_ASSERT_EQUAL(ssize_t(1000), pipe->drainTo(sink.fds[0], 1000));
        CPPUNIT_ASSERT_EQUAL(bytes.size() - 1000, pipe->size());
        CPPUNIT_ASSERT_EQUAL(ssize_t(bytes.size() - 1000), pipe->drainTo(sink.fds[0], 1 << 20));
        CPPUNIT_ASSERT(pipe->isEmpty());
        CPPUNIT_ASSERT_EQUAL(bytes, ReadAll(sink.fds[1]));
    }

    void fillTakesAtMostMax()
    {
        SocketPair source, sink;
        auto pipe = Sbuf::Pipe::Make();
        WriteAll(source.fds[1], std::string(5000, 'x'));
        CPPUNIT_ASSERT_EQUAL(ssize_t(1234), pipe->fillFrom(source.fds[0], 1234));
        CPPUNIT_ASSERT_EQUAL(size_t(1234), pipe->size());
        // the rest is still in the source socket
        CPPUNIT_ASSERT_EQUAL(std::string(5000 - 1234, 'x'), ReadAll(source.fds[0]));
    }

    void emptySourceIsEagainAndEofIsZero()
    {
        SocketPair source;
        auto pipe = Sbuf::Pipe::Make();
        errno = 0;
        CPPUNIT_ASSERT_EQUAL(ssize_t(-1), pipe->fillFrom(source.fds[0], 4096));
        CPPUNIT_ASSERT(errno == EAGAIN || errno == EWOULDBLOCK);
        CPPUNIT_ASSERT(pipe->isEmpty());
        CPPUNIT_ASSERT_EQUAL(0, ::shutdown(source.fds[1], SHUT_WR));
        CPPUNIT_ASSERT_EQUAL(ssize_t(0), pipe->fillFrom(source.fds[0], 4096));
    }

    void drainOfAnEmptyPipeMovesNothing()
    {
        SocketPair sink;
        auto pipe = Sbuf::Pipe::Make();
        // at most size() bytes are asked for: none, and no byte reaches the sink
        CPPUNIT_ASSERT(pipe->drainTo(sink.fds[0], 4096) <= 0);
        CPPUNIT_ASSERT(pipe->isEmpty());
        CPPUNIT_ASSERT(ReadAll(sink.fds[1]).empty());
    }

    void growRaisesTheCapacityOnceWithBytesInside()
    {
        SocketPair source, sink;
        auto pipe = Sbuf::Pipe::Make();
        const size_t before = pipe->capacity();
        WriteAll(source.fds[1], "kept across the resize");
        CPPUNIT_ASSERT(pipe->fillFrom(source.fds[0], 100) > 0);
        CPPUNIT_ASSERT(!pipe->isGrown());
        pipe->grow();
        CPPUNIT_ASSERT(pipe->isGrown());
        // the system may refuse a larger pipe (pipe-user-pages-soft): never smaller
        CPPUNIT_ASSERT(pipe->capacity() >= before);
        CPPUNIT_ASSERT(pipe->capacity() <= Sbuf::Pipe::BulkSize);
        CPPUNIT_ASSERT_EQUAL(size_t(22), pipe->size());
        CPPUNIT_ASSERT_EQUAL(ssize_t(22), pipe->drainTo(sink.fds[0], 100));
        CPPUNIT_ASSERT_EQUAL(std::string("kept across the resize"), ReadAll(sink.fds[1]));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestPipe);
