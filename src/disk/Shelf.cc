/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "disk/Shelf.h"
#include "disk/Cache.h"

#include <algorithm>

Disk::Shelf::Dir::Dir(const Config::CacheDir& line)
    : config(line), layout(line), index(PolicyKindOf(line.policy))
{}

std::string Disk::Shelf::KeyOf(const std::vector<Config::CacheDir>& lines)
{
    std::string key;
    for (const auto& line : lines)
        key.append(line.origin).append(1, '\0').append(line.path).append(1, '\n');
    return key;
}

void Disk::Shelf::PartObject::addSpan(uint64_t first, uint64_t end)
{
    if (first >= end)
        return;
    auto it = spans.upper_bound(first);
    if (it != spans.begin() && std::prev(it)->second >= first)
        --it;
    while (it != spans.end() && it->first <= end) {
        first = std::min(first, it->first);
        end = std::max(end, it->second);
        it = spans.erase(it);
    }
    spans.emplace(first, end);
}
