/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file The handlers of the disk cache's directives (Squid 5.7's syntax):
/// cache_dir, store_dir_select_algorithm, cache_swap_low/high and
/// memory_cache_mode. Every cache_dir type is served by the one disk store
/// (doc/caching.md "The disk cache").

#include "cuttle.h"
#include "config/Handlers.h"

#include <cctype>
#include <cstdint>
#include <limits>

using namespace Config;
using namespace Config::Handlers;

namespace {

/// The value of an OPTION=VALUE word whose name is `name`, or nullptr.
const char* OptionValue(const std::string& word, const char* name)
{
    const std::string prefix = std::string(name) + "=";
    return word.compare(0, prefix.size(), prefix) == 0 ? word.c_str() + prefix.size() : nullptr;
}

/// A size option's value: digits, then an optional unit in the same word
/// (`4MB`, `512KB`, `100bytes`), bytes without one, as Squid reads
/// max-size= and min-size=.
bool ParseSizeOption(const std::string& text, uint64_t& bytes)
{
    size_t digits = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
        ++digits;
    if (digits == 0 || digits > 15)
        return false;
    uint64_t unit = 1;
    if (digits < text.size()) {
        unit = Units::SizeUnit(text.substr(digits));
        if (!unit)
            return false;
    }
    bytes = std::stoull(text.substr(0, digits)) * unit;
    return true;
}

/// Whether word is a count (ParseCount) greater than 0.
bool ParsePositive(const std::string& word, unsigned& value)
{
    return ParseCount(word, value) && value > 0;
}

/// The options of a cache_dir line from words[i] on, into dir; false after an error.
bool ParseCacheDirOptions(const DirectiveCall& call, size_t i, CacheDir& dir)
{
    const auto& w = call.line.words;
    const bool rock = dir.type == "rock";
    for (; i < w.size(); ++i) {
        const std::string& opt = w[i];
        const char* value = nullptr;
        unsigned count = 0;
        if (opt == "no-store") {
            dir.noStore = true;
        } else if (opt == "read-only") {
            call.warning("cache_dir option 'read-only' is Squid's older name of 'no-store'; taking it as "
                         "no-store, as Squid does");
            dir.noStore = true;
        } else if ((value = OptionValue(opt, "max-size"))) {
            uint64_t bytes = 0;
            if (!ParseSizeOption(value, bytes)) {
                call.error("bad cache_dir max-size '" + std::string(value) +
                           "': use bytes, or a size with "
                           "its unit in the same word (4MB)");
                return false;
            }
            dir.maxSize = bytes;
        } else if ((value = OptionValue(opt, "min-size"))) {
            if (!ParseSizeOption(value, dir.minSize)) {
                call.error("bad cache_dir min-size '" + std::string(value) +
                           "': use bytes, or a size with "
                           "its unit in the same word (4KB)");
                return false;
            }
        } else if (rock && (value = OptionValue(opt, "slot-size"))) {
            if (!ParsePositive(value, count) || count > 32768) {
                call.error("bad cache_dir rock slot-size '" + std::string(value) +
                           "': use bytes from 1 to 32768, as Squid does");
                return false;
            }
            dir.slotSize = count;
        } else if (rock && (value = OptionValue(opt, "swap-timeout"))) {
            if (!ParseCount(value, dir.swapTimeoutMs)) {
                call.error("bad cache_dir rock swap-timeout '" + std::string(value) + "': use milliseconds");
                return false;
            }
        } else if (rock && (value = OptionValue(opt, "max-swap-rate"))) {
            if (!ParseCount(value, dir.maxSwapRate)) {
                call.error("bad cache_dir rock max-swap-rate '" + std::string(value) +
                           "': use swaps per second");
                return false;
            }
        } else if (dir.type == "diskd" && (OptionValue(opt, "Q1") || OptionValue(opt, "Q2"))) {
            if (!ParseCount(opt.substr(3), count)) {
                call.error("bad cache_dir diskd option '" + opt + "': use a count");
                return false;
            }
            // diskd's queue limits: cuttle's I/O threads have no diskd process to queue for
        } else {
            call.error("unknown cache_dir " + dir.type + " option '" + opt +
                       "': use no-store, min-size=, max-size=" +
                       (rock ? ", slot-size=, swap-timeout=, max-swap-rate=" : "") +
                       (dir.type == "diskd" ? ", Q1=, Q2=" : ""));
            return false;
        }
    }
    if (dir.maxSize && *dir.maxSize < dir.minSize) {
        call.error("cache_dir " + dir.path + ": max-size is below min-size");
        return false;
    }
    return true;
}

} // namespace

/// `cache_dir TYPE DIR MBYTES [L1 L2] [OPTION...]`, as Squid 5.7 reads it:
/// ufs, aufs and diskd take L1 and L2, rock does not.
void Config::Handlers::CacheDirHandler(DirectiveCall& call)
{
    const auto& w = call.line.words;
    if (!NeedArgs(call, 3))
        return;
    CacheDir dir;
    dir.type = w[1];
    const bool rock = dir.type == "rock";
    if (!rock && dir.type != "ufs" && dir.type != "aufs" && dir.type != "diskd") {
        call.error("unknown cache_dir type '" + dir.type + "': use ufs, aufs, diskd or rock");
        return;
    }
    dir.path = w[2];
    unsigned megabytes = 0;
    if (!ParsePositive(w[3], megabytes)) {
        call.error("bad cache_dir size '" + w[3] + "': use a whole number of megabytes, more than 0");
        return;
    }
    dir.maxBytes = uint64_t(megabytes) << 20;
    size_t i = 4;
    if (!rock) {
        if (w.size() < 6) {
            call.error("cache_dir " + dir.type + " needs DIR MBYTES L1 L2 [OPTION...]");
            return;
        }
        if (!ParsePositive(w[4], dir.l1) || dir.l1 > 256) {
            call.error("bad cache_dir first-level directory count '" + w[4] + "': use 1 to 256");
            return;
        }
        if (!ParsePositive(w[5], dir.l2) || dir.l2 > 256) {
            call.error("bad cache_dir second-level directory count '" + w[5] + "': use 1 to 256");
            return;
        }
        i = 6;
    }
    if (!ParseCacheDirOptions(call, i, dir))
        return;
    for (const auto& other : call.settings.cacheDirs) {
        if (other.path == dir.path) {
            call.error("cache_dir " + dir.path + " is already used by the cache_dir at " + other.origin);
            return;
        }
    }
    dir.origin = call.line.file + ":" + std::to_string(call.line.line);
    dir.policy = call.settings.cacheReplacementPolicy;
    call.settings.cacheDirs.push_back(std::move(dir));
}

void Config::Handlers::StoreDirSelectHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    const auto& word = call.line.words[1];
    if (word == "least-load")
        call.settings.storeDirSelect = StoreDirSelect::LeastLoad;
    else if (word == "round-robin")
        call.settings.storeDirSelect = StoreDirSelect::RoundRobin;
    else {
        call.error("unknown store_dir_select_algorithm '" + word + "': use least-load or round-robin");
        return;
    }
    WarnExtra(call, 2);
}

/// cache_swap_low and cache_swap_high: a percentage of each cache_dir's size.
void Config::Handlers::CacheSwapHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    std::string word = call.line.words[1];
    if (!word.empty() && word.back() == '%')
        word.pop_back();
    unsigned percent = 0;
    if (!ParseCount(word, percent) || percent > 100) {
        call.error("bad " + Name(call) + " value '" + call.line.words[1] +
                   "': use a percentage from 0 to 100");
        return;
    }
    WarnExtra(call, 2);
    auto& s = call.settings;
    (Name(call) == "cache_swap_low" ? s.cacheSwapLow : s.cacheSwapHigh) = percent;
}

void Config::Handlers::MemoryCacheModeHandler(DirectiveCall& call)
{
    if (!NeedArgs(call, 1))
        return;
    const auto& word = call.line.words[1];
    if (word == "always")
        call.settings.memoryCacheMode = MemoryCacheMode::Always;
    else if (word == "disk")
        call.settings.memoryCacheMode = MemoryCacheMode::Disk;
    else if (word == "network")
        call.settings.memoryCacheMode = MemoryCacheMode::Network;
    else {
        call.error("unknown memory_cache_mode '" + word + "': use always, disk or network");
        return;
    }
    WarnExtra(call, 2);
}
