/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "ScriptStore.h"

#include <utility>

std::vector<std::string> Origin::ScriptStore::splitLines(std::string_view text)
{
    std::vector<std::string> lines;
    while (!text.empty()) {
        const auto eol = text.find('\n');
        auto line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
            line.remove_suffix(1);
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t'))
            line.remove_prefix(1);
        if (!line.empty())
            lines.emplace_back(line);
    }
    return lines;
}

void Origin::ScriptStore::setScript(const std::string& id, std::vector<std::string> lines)
{
    const std::lock_guard<std::mutex> lock(mutex_);
    auto& entry = entries_[id];
    entry.lines = std::move(lines);
    entry.next = 0;
    entry.seen.clear();
}

std::optional<std::string> Origin::ScriptStore::nextLine(const std::string& id)
{
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = entries_.find(id);
    if (it == entries_.end() || it->second.lines.empty())
        return std::nullopt;
    auto& entry = it->second;
    const auto& line = entry.lines[entry.next];
    if (entry.next + 1 < entry.lines.size())
        ++entry.next;
    return line;
}

void Origin::ScriptStore::recordSeen(const std::string& id, std::string_view head)
{
    const std::lock_guard<std::mutex> lock(mutex_);
    auto& seen = entries_[id].seen;
    if (seen.size() + head.size() <= MaxSeenLog)
        seen.append(head);
}

std::string Origin::ScriptStore::seen(const std::string& id) const
{
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = entries_.find(id);
    return it == entries_.end() ? std::string() : it->second.seen;
}
