/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "sbuf/PageReserve.h"
#include "sbuf/tests/Residency.h"

#include <cppunit/extensions/HelperMacros.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <dirent.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using Sbuf::PageReserve;
using SbufTest::isResident;
constexpr size_t MB = 1024 * 1024;

/// polls check every 5 ms for up to 10 s; whether it came true
bool eventually(const std::function<bool()>& check)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!check()) {
        if (std::chrono::steady_clock::now() > deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

/// the thread ids of this process
std::vector<std::string> threadIds()
{
    std::vector<std::string> ids;
    if (DIR* d = ::opendir("/proc/self/task")) {
        while (const dirent* e = ::readdir(d)) {
            if (e->d_name[0] != '.')
                ids.emplace_back(e->d_name);
        }
        ::closedir(d);
    }
    return ids;
}

/// the SigBlk mask of one of this process's threads, as /proc shows it
std::string blockedSignals(const std::string& tid)
{
    std::ifstream status("/proc/self/task/" + tid + "/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("SigBlk:", 0) == 0)
            return line.substr(line.find_first_not_of(" \t", 7));
    }
    return "";
}

/// the scheduling policy of one of this process's threads (field 41 of its stat)
int schedulingPolicy(const std::string& tid)
{
    std::ifstream stat("/proc/self/task/" + tid + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    std::istringstream fields(text.substr(text.rfind(')') + 2));
    std::string field;
    for (int i = 3; i <= 41 && fields >> field; ++i) {
        if (i == 41)
            return std::stoi(field);
    }
    return -1;
}

/// the id of the thread that appeared since before
std::string newThread(const std::vector<std::string>& before)
{
    for (const auto& tid : threadIds()) {
        bool known = false;
        for (const auto& b : before)
            known = known || b == tid;
        if (!known)
            return tid;
    }
    return "";
}

} // namespace

/// Tests of Sbuf::PageReserve.
class TestPageReserve : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestPageReserve);
    CPPUNIT_TEST(sizeIsWholeChunks);
    CPPUNIT_TEST(noThreadBeforeStart);
    CPPUNIT_TEST(startFillsToTheTarget);
    CPPUNIT_TEST(takenChunkIsPopulated);
    CPPUNIT_TEST(nothingIsMadeWhileTaking);
    CPPUNIT_TEST(roomBoundsTheReadyChunks);
    CPPUNIT_TEST(helperBlocksEverySignal);
    CPPUNIT_TEST(helperRunsAtIdlePriority);
    CPPUNIT_TEST(destructorEndsTheHelper);
    CPPUNIT_TEST(refusedThreadGivesNothing);
    CPPUNIT_TEST_SUITE_END();

public:
    /// the target is rounded up to whole chunks, one at least
    void sizeIsWholeChunks()
    {
        CPPUNIT_ASSERT_EQUAL(PageReserve::ChunkSize, PageReserve(0, 0).bytes());
        CPPUNIT_ASSERT_EQUAL(PageReserve::ChunkSize, PageReserve(1, 0).bytes());
        CPPUNIT_ASSERT_EQUAL(4 * PageReserve::ChunkSize, PageReserve(16 * MB, 0).bytes());
        CPPUNIT_ASSERT_EQUAL(5 * PageReserve::ChunkSize, PageReserve(16 * MB + 1, 0).bytes());
    }

    /// a reserve not started has no thread and no memory, and take() gives
    /// nothing
    void noThreadBeforeStart()
    {
        const size_t threads = threadIds().size();
        PageReserve reserve(8 * MB, 64 * MB);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        CPPUNIT_ASSERT_EQUAL(threads, threadIds().size());
        CPPUNIT_ASSERT(!reserve.isRunning());
        CPPUNIT_ASSERT(reserve.take() == nullptr);
        const auto st = reserve.stats();
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), st.chunksMade);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), st.readyBytes);
    }

    /// start() makes the helper, which fills the reserve to its target at
    /// once (no take() came yet: the loop is quiet) and no further
    void startFillsToTheTarget()
    {
        const size_t threads = threadIds().size();
        PageReserve reserve(8 * MB, 64 * MB);
        reserve.start();
        CPPUNIT_ASSERT(reserve.isRunning());
        CPPUNIT_ASSERT_EQUAL(threads + 1, threadIds().size());
        CPPUNIT_ASSERT(eventually([&] { return reserve.stats().readyBytes == 8 * MB; }));
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        const auto st = reserve.stats();
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), st.chunksMade);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), st.chunksTaken + st.takesMissed);
    }

    /// a taken chunk is ChunkSize bytes whose every page is resident
    /// already, writable, and the caller's to unmap in pieces
    void takenChunkIsPopulated()
    {
        PageReserve reserve(4 * MB, 64 * MB);
        reserve.start();
        CPPUNIT_ASSERT(eventually([&] { return reserve.stats().readyBytes == 4 * MB; }));
        char* chunk = reserve.take();
        CPPUNIT_ASSERT(chunk != nullptr);
        CPPUNIT_ASSERT(isResident(chunk, PageReserve::ChunkSize));
        std::memset(chunk, 'x', PageReserve::ChunkSize);
        CPPUNIT_ASSERT_EQUAL(0, ::munmap(chunk, MB));
        CPPUNIT_ASSERT_EQUAL(0, ::munmap(chunk + MB, PageReserve::ChunkSize - MB));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), reserve.stats().chunksTaken);
    }

    /// after a take() the helper makes nothing for the quiet time (a large
    /// object is arriving: making pages would race it for the CPU), then
    /// makes the reserve whole again
    void nothingIsMadeWhileTaking()
    {
        const unsigned quiet = 400;
        PageReserve reserve(8 * MB, 64 * MB, quiet);
        reserve.start();
        CPPUNIT_ASSERT(eventually([&] { return reserve.stats().readyBytes == 8 * MB; }));
        const auto takenAt = std::chrono::steady_clock::now();
        char* chunk = reserve.take();
        CPPUNIT_ASSERT(chunk != nullptr);
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        const auto st = reserve.stats();
        // a machine slower than the quiet time proves nothing either way
        if (std::chrono::steady_clock::now() - takenAt < std::chrono::milliseconds(quiet)) {
            CPPUNIT_ASSERT_EQUAL(uint64_t(2), st.chunksMade);
            CPPUNIT_ASSERT_EQUAL(uint64_t(4 * MB), st.readyBytes);
        }
        CPPUNIT_ASSERT(eventually([&] { return reserve.stats().readyBytes == 8 * MB; }));
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), reserve.stats().chunksMade);
        (void)::munmap(chunk, PageReserve::ChunkSize);
    }

    /// setRoom() bounds the ready chunks: the helper gives back what is over
    /// it and makes more when it grows, never past the target
    void roomBoundsTheReadyChunks()
    {
        PageReserve reserve(16 * MB, 8 * MB + MB); // room: two whole chunks
        reserve.start();
        CPPUNIT_ASSERT(eventually([&] { return reserve.stats().readyBytes == 8 * MB; }));
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), reserve.stats().chunksMade);
        reserve.setRoom(4 * MB);
        CPPUNIT_ASSERT(eventually([&] { return reserve.stats().readyBytes == 4 * MB; }));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), reserve.stats().chunksDropped);
        reserve.setRoom(64 * MB);
        CPPUNIT_ASSERT(eventually([&] { return reserve.stats().readyBytes == 16 * MB; }));
        reserve.setRoom(0);
        CPPUNIT_ASSERT(eventually([&] { return reserve.stats().readyBytes == 0; }));
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), reserve.stats().chunksDropped);
    }

    /// the helper blocks every signal, so the loop's signalfd gets them all;
    /// the caller's own mask is what it was
    void helperBlocksEverySignal()
    {
        const auto before = threadIds();
        const std::string mine = blockedSignals(std::to_string(::gettid()));
        PageReserve reserve(4 * MB, 64 * MB);
        reserve.start();
        const std::string helper = newThread(before);
        CPPUNIT_ASSERT(!helper.empty());
        const std::string mask = blockedSignals(helper);
        // every signal the kernel lets a thread block (SIGKILL and SIGSTOP
        // are never blocked); the glibc-internal ones vary, SIGINT..SIGTERM do not
        CPPUNIT_ASSERT_MESSAGE(mask, mask.size() == 16);
        const unsigned long bits = std::stoul(mask, nullptr, 16);
        for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGCHLD})
            CPPUNIT_ASSERT_MESSAGE(mask, bits & (1UL << (sig - 1)));
        CPPUNIT_ASSERT_EQUAL(mine, blockedSignals(std::to_string(::gettid())));
    }

    /// the helper runs at SCHED_IDLE: it only gets CPU no other thread wants
    void helperRunsAtIdlePriority()
    {
        const auto before = threadIds();
        PageReserve reserve(4 * MB, 64 * MB);
        reserve.start();
        const std::string helper = newThread(before);
        CPPUNIT_ASSERT(!helper.empty());
        CPPUNIT_ASSERT(eventually([&] { return schedulingPolicy(helper) == SCHED_IDLE; }));
        CPPUNIT_ASSERT(schedulingPolicy(std::to_string(::gettid())) != SCHED_IDLE);
    }

    /// destroying a reserve whose helper is filling ends the thread and
    /// leaves no thread behind
    void destructorEndsTheHelper()
    {
        const size_t threads = threadIds().size();
        {
            PageReserve reserve(64 * MB, 64 * MB);
            reserve.start();
        }
        CPPUNIT_ASSERT_EQUAL(threads, threadIds().size());
    }

    /// when the system refuses the thread (RLIMIT_NPROC here), start() and
    /// take() throw nothing and take() gives nothing; checked in a child
    /// process
    void refusedThreadGivesNothing()
    {
        const pid_t child = ::fork();
        CPPUNIT_ASSERT(child >= 0);
        if (child == 0) {
            if (::geteuid() == 0 && ::setuid(65534) != 0) // root's capabilities ignore the limit
                ::_exit(4);
            struct rlimit zero = {0, 0};
            if (::setrlimit(RLIMIT_NPROC, &zero) != 0)
                ::_exit(3);
            try {
                PageReserve reserve(4 * MB, 64 * MB);
                reserve.start();
                if (reserve.isRunning())
                    ::_exit(6);
                for (int i = 0; i < 3; ++i) {
                    if (reserve.take() != nullptr)
                        ::_exit(1);
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                ::_exit(reserve.stats().chunksMade == 0 ? 0 : 2);
            } catch (...) {
                ::_exit(5);
            }
        }
        int status = 0;
        CPPUNIT_ASSERT_EQUAL(child, ::waitpid(child, &status, 0));
        CPPUNIT_ASSERT(WIFEXITED(status));
        CPPUNIT_ASSERT_EQUAL(0, WEXITSTATUS(status));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestPageReserve);
