/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Log::File: one buffered, append-only log file.
///
/// Both logs write through this class. Lines are appended to an in-memory
/// buffer; flush() hands the whole buffer to write(2) (no fsync, ever). A full
/// buffer (past BufferLimit) is flushed at once, so memory stays bounded even
/// when nobody calls flush(). The descriptor is opened O_APPEND|O_CLOEXEC, so
/// several writers of one file never overwrite each other's lines.
///
/// Rotation follows Squid: with a count N > 0, PATH.N-2 .. PATH.0 are shifted
/// up by one and PATH is renamed to PATH.0 before reopening; with N == 0 the
/// file is only reopened (an outside tool such as logrotate renamed it).
///
/// Errors: open() throws; a failed write is reported once (see lastError())
/// and the buffered bytes are dropped so a full disk cannot grow memory.
/// Not thread-safe: one event-loop thread owns every File.

#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace Log {

/// One buffered append-only log file (see the file comment).
class File {
public:
    /// A buffer this large is written out at once, without waiting for flush(),
    /// unless setBufferLimit() says otherwise (access_log buffer-size=).
    static constexpr size_t BufferLimit = 64 * 1024;

    /// A closed file: writes are buffered and dropped at close().
    File() = default;
    /// Flushes and closes.
    ~File();
    File(const File&) = delete;
    File& operator=(const File&) = delete;

    /// Opens PATH for appending (mode 0644), creating missing parent
    /// directories (mode 0755). Throws std::system_error naming the path.
    void open(const std::string& path);
    /// Flushes, closes and opens the same path again (after an outside rename).
    /// Returns false (and remembers the reason in lastError()) on failure;
    /// later writes are then dropped until a reopen succeeds.
    bool reopen();
    /// Squid-style rotation with COUNT kept copies (see the file comment), then reopen().
    bool rotate(int count);
    /// Flushes and closes; the path is forgotten.
    void close();

    /// Sets the buffer size past which append() writes at once.
    void setBufferLimit(size_t bytes) { bufferLimit_ = bytes; }
    /// Appends bytes to the buffer (flushing first when the buffer is full).
    void append(std::string_view bytes);
    /// Writes every buffered byte now. Returns false when a write failed.
    bool flush();

    /// Whether a descriptor is open.
    bool isOpen() const { return fd_ >= 0; }
    /// The path given to open(); empty when never opened.
    const std::string& path() const { return path_; }
    /// Bytes waiting in the buffer.
    size_t buffered() const { return buffer_.size(); }
    /// The first write or reopen error since the last successful one, or "".
    const std::string& lastError() const { return lastError_; }
    /// Returns true once per error episode: the caller reports that error and
    /// then stays quiet until a write succeeds again.
    bool takeErrorReport();

private:
    bool openFd();

    int fd_ = -1;                      ///< descriptor, -1 when closed
    std::string path_;                 ///< the file's path
    std::string buffer_;               ///< bytes not yet written
    std::string lastError_;            ///< reason of the current error episode
    bool errorReported_ = false;       ///< the current episode was already reported
    size_t bufferLimit_ = BufferLimit; ///< see setBufferLimit()
};

} // namespace Log
