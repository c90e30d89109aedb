/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "comm/Descriptor.h"
#include "comm/SystemdNotify.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/// Comm::NotifySystemd speaks sd_notify's datagram protocol.
class TestSystemdNotify : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestSystemdNotify);
    CPPUNIT_TEST(withoutSocketReportsFalse);
    CPPUNIT_TEST(sendsStateToPathSocket);
    CPPUNIT_TEST(sendsStateToAbstractSocket);
    CPPUNIT_TEST(refusesRelativeName);
    CPPUNIT_TEST_SUITE_END();

public:
    void tearDown() override { ::unsetenv("NOTIFY_SOCKET"); }

    void withoutSocketReportsFalse()
    {
        ::unsetenv("NOTIFY_SOCKET");
        CPPUNIT_ASSERT(!Comm::NotifySystemd("READY=1"));
    }

    void sendsStateToPathSocket()
    {
        const std::string path = "/tmp/cuttle-notify-" + std::to_string(::getpid());
        ::unlink(path.c_str());
        const Comm::Descriptor receiver = bindReceiver(path, false);
        ::setenv("NOTIFY_SOCKET", path.c_str(), 1);
        CPPUNIT_ASSERT(Comm::NotifySystemd("READY=1\nSTATUS=serving"));
        CPPUNIT_ASSERT_EQUAL(std::string("READY=1\nSTATUS=serving"), receive(receiver));
        ::unlink(path.c_str());
    }

    void sendsStateToAbstractSocket()
    {
        const std::string name = "@cuttle-notify-test-" + std::to_string(::getpid());
        const Comm::Descriptor receiver = bindReceiver(name, true);
        ::setenv("NOTIFY_SOCKET", name.c_str(), 1);
        CPPUNIT_ASSERT(Comm::NotifySystemd("STOPPING=1"));
        CPPUNIT_ASSERT_EQUAL(std::string("STOPPING=1"), receive(receiver));
    }

    void refusesRelativeName()
    {
        ::setenv("NOTIFY_SOCKET", "relative/socket", 1);
        CPPUNIT_ASSERT(!Comm::NotifySystemd("READY=1"));
    }

private:
    static Comm::Descriptor bindReceiver(const std::string& name, bool abstract)
    {
        Comm::Descriptor fd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
        CPPUNIT_ASSERT(fd.isOpen());
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::memcpy(address.sun_path, name.data(), name.size());
        if (abstract)
            address.sun_path[0] = '\0';
        const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size());
        CPPUNIT_ASSERT_EQUAL(0, ::bind(fd.get(), reinterpret_cast<const sockaddr*>(&address), length));
        return fd;
    }

    static std::string receive(const Comm::Descriptor& fd)
    {
        char buffer[256];
        const ssize_t n = ::recv(fd.get(), buffer, sizeof(buffer), MSG_DONTWAIT);
        CPPUNIT_ASSERT(n > 0);
        return std::string(buffer, static_cast<size_t>(n));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestSystemdNotify);
