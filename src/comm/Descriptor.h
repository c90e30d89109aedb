/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Comm::Descriptor: the one owner of an open file descriptor.

#pragma once

namespace Comm {

/// Owns one open file descriptor and closes it in its destructor. Move-only:
/// a descriptor has exactly one owner at a time. An empty Descriptor holds -1.
class Descriptor {
public:
    /// an empty descriptor (owns nothing)
    Descriptor() = default;
    /// takes ownership of fd (which may be -1)
    explicit Descriptor(int fd) : fd_(fd) {}
    /// takes over the other descriptor; other becomes empty
    Descriptor(Descriptor&& other) noexcept : fd_(other.release()) {}
    /// closes the held descriptor, then takes over the other one
    Descriptor& operator=(Descriptor&& other) noexcept;
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    /// closes the held descriptor, if any
    ~Descriptor() { reset(); }

    /// the raw descriptor number, or -1; ownership stays here
    int get() const { return fd_; }
    /// whether a descriptor is held
    bool isOpen() const { return fd_ >= 0; }
    /// gives up ownership without closing; the caller now owns the result
    int release() noexcept
    {
        const int fd = fd_;
        fd_ = -1;
        return fd;
    }
    /// closes the held descriptor (if any) and takes fd instead
    void reset(int fd = -1) noexcept;

private:
    int fd_ = -1; ///< the owned descriptor or -1
};

} // namespace Comm
