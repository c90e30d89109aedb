/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Sbuf::Pipe: a kernel pipe used as a byte buffer between two sockets.
///
///     source socket --fillFrom(): splice--> [pipe: 64 KB .. 1 MB] --drainTo(): splice--> sink socket
///
/// Bytes moved through a Pipe never enter user space: splice(2) moves the
/// pages of the source socket's receive queue into the pipe and from the pipe
/// into the sink socket's send queue. The pipe is the only buffer, so a
/// reader of the source that fills it only when it has room keeps a slow
/// sink's cost at the pipe's size (the source's TCP window closes behind it).
/// Users: the CONNECT tunnel (doc/design.md "CONNECT") and uncached replies
/// (doc/design.md "The path of a body byte", "Splice").
///
/// - Made at the kernel's default size (64 KB: little kernel memory for a
///   quiet or small transfer) and grown once with grow() toward BulkSize (1
///   MB, as far as /proc/sys/fs/pipe-max-size and pipe-user-pages-soft
///   allow) when its user sees bulk traffic.
/// - Both ends are non-blocking. A fill that returns EAGAIN while the pipe
///   holds bytes does not say that the source is drained: a pipe counts
///   buffers, not bytes, and many small socket fragments fill its slots before
///   its byte capacity. Only an EAGAIN into an empty pipe means the source
///   has nothing (the edge-triggered rule, comm/Loop.h): users fill an empty
///   pipe, or remember to try again once it has drained.
/// - size() counts the bytes filled and not yet drained; the pipe's own
///   count (FIONREAD) is never asked.
///
/// Ownership: a Pipe owns both of its descriptors and closes them in its
/// destructor; bytes still in it are dropped. Threading: one thread.
#pragma once

#include <cstddef>
#include <memory>

#include <sys/types.h>

namespace Sbuf {

/// A kernel pipe between two sockets; see the file comment.
class Pipe {
public:
    /// the size grow() asks for: pipe-max-size's default, and enough for a
    /// 10 Gb/s link at about 1 ms of latency per round of splices
    static constexpr size_t BulkSize = 1024 * 1024;

    /// a new empty pipe, or null when the system refuses one (EMFILE,
    /// ENFILE: errno says which)
    static std::unique_ptr<Pipe> Make();
    /// closes both ends
    ~Pipe();
    Pipe(const Pipe&) = delete;
    Pipe& operator=(const Pipe&) = delete;

    /// bytes in the pipe (filled, not yet drained)
    size_t size() const { return held_; }
    /// whether no byte is in the pipe
    bool isEmpty() const { return held_ == 0; }
    /// the pipe's size (F_GETPIPE_SZ)
    size_t capacity() const { return capacity_; }
    /// bytes the pipe may still take (by its byte count; see the file comment)
    size_t room() const { return capacity_ > held_ ? capacity_ - held_ : 0; }
    /// whether grow() was called
    bool isGrown() const { return grown_; }
    /// raises the size toward BulkSize (or the fallback sizes the system
    /// allows), once; the pipe may hold bytes
    void grow();

    /// splice(2) of at most max bytes from the socket fd into the pipe:
    /// the bytes moved, 0 at the source's EOF, or -1 with errno (EAGAIN: the
    /// source has nothing, when the pipe was empty)
    ssize_t fillFrom(int fd, size_t max);
    /// splice(2) of at most max bytes from the pipe into the socket fd: the
    /// bytes moved, or -1 with errno (EAGAIN: the socket is full)
    ssize_t drainTo(int fd, size_t max);

private:
    /// takes the two ends pipe2() made
    Pipe(int readEnd, int writeEnd);

    int readEnd_;         ///< the pipe's read end; owned
    int writeEnd_;        ///< the pipe's write end; owned
    size_t capacity_ = 0; ///< see capacity()
    size_t held_ = 0;     ///< see size()
    bool grown_ = false;  ///< see isGrown()
};

} // namespace Sbuf
