/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "comm/SystemdNotify.h"
#include "comm/Descriptor.h"

#include <cstddef>
#include <cstdlib>
#include <cstring>

#include <sys/socket.h>
#include <sys/un.h>

bool Comm::NotifySystemd(std::string_view state)
{
    const char* path = std::getenv("NOTIFY_SOCKET");
    if (!path || !*path)
        return false;
    const size_t length = std::strlen(path);
    sockaddr_un address{};
    if ((path[0] != '/' && path[0] != '@') || length >= sizeof(address.sun_path))
        return false;
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, path, length);
    if (path[0] == '@')
        address.sun_path[0] = '\0'; // an abstract socket name
    const auto addressLength = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + length);

    const Descriptor socket(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!socket.isOpen())
        return false;
    const ssize_t sent = ::sendto(socket.get(), state.data(), state.size(), MSG_NOSIGNAL,
                                  reinterpret_cast<const sockaddr*>(&address), addressLength);
    return sent == static_cast<ssize_t>(state.size());
}
