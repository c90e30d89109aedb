/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Scripted replies for `/s/ID` and the log of what the origin received there.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Origin {

/// The scripts set by `PUT /_script/ID` and the `/_seen/ID` logs, by ID.
/// Every connection thread shares one store; each method takes its lock.
class ScriptStore {
public:
    /// the most a seen log keeps; later requests are not logged
    static constexpr size_t MaxSeenLog = 64u << 20;

    /// The reply lines of a script text: its non-blank lines, without their
    /// line ends and surrounding blanks (CRLF or LF ends).
    static std::vector<std::string> splitLines(std::string_view text);

    /// Replaces the script of id with lines (none removes it) and clears its seen log.
    void setScript(const std::string& id, std::vector<std::string> lines);

    /// The reply line for the next request to /s/id: the next line of the
    /// script, the last one once all were used; nothing without a script.
    std::optional<std::string> nextLine(const std::string& id);

    /// Appends a request head (request line, header lines, empty line) to the seen log of id.
    void recordSeen(const std::string& id, std::string_view head);

    /// Every request head recorded for id since its last script, in order.
    std::string seen(const std::string& id) const;

private:
    /// one ID's script and log
    struct Entry {
        std::vector<std::string> lines; ///< one reply each
        size_t next = 0;                ///< the line the next request gets
        std::string seen;               ///< the recorded request heads
    };

    mutable std::mutex mutex_;             ///< guards entries_
    std::map<std::string, Entry> entries_; ///< by ID
};

} // namespace Origin
