/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "disk/Shelf.h"
#include "disk/Cache.h"

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
