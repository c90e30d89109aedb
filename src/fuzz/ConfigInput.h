/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file What the squid.conf harnesses share: the rule that keeps a fuzzed
/// configuration from reading the machine's files, and the empty directory
/// its relative paths resolve against.
///
/// `include PATTERN` and quoted "file" values read files, and a fuzzer that
/// found `include /proc/k*` would block on /proc/kmsg. So an input with a
/// '/' is skipped (the harness returns -1, and libFuzzer keeps it out of the
/// corpus): every path is then relative to an empty directory made for the
/// run, where a glob matches nothing and `..` or `.` are directories (read
/// as nothing, with a warning). Macros cannot make a '/' either: their
/// values are "cuttle" and "1".

#pragma once

#include <cstdlib>
#include <string>
#include <string_view>
#include <unistd.h>

namespace Fuzz {

/// Whether the config harnesses may parse text (see the file comment).
inline bool IsConfinedConfig(std::string_view text)
{
    return text.find('/') == std::string_view::npos;
}

/// How many physical lines text has (a last line without LF counts).
inline unsigned PhysicalLines(std::string_view text)
{
    unsigned lines = 1;
    for (const char c : text)
        lines += c == '\n';
    return lines;
}

/// An empty directory made once per process (removed at exit): the base of
/// relative paths.
inline const std::string& EmptyDirectory()
{
    static const std::string dir = [] {
        char pattern[] = "/tmp/cuttle-fuzz-XXXXXX";
        const char* made = mkdtemp(pattern);
        if (!made)
            std::abort();
        static std::string path;
        path = made;
        std::atexit([] { rmdir(path.c_str()); });
        return path;
    }();
    return dir;
}

} // namespace Fuzz
