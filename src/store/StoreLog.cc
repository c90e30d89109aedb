/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "store/StoreLog.h"
#include "http/Date.h"
#include "store/Entry.h"

#include <cinttypes>
#include <cstdio>

namespace {

/// a date field of the reply as Squid's (int) cast of it prints: -1 when absent or unparsable
long long DateOf(const Store::Reply& reply, std::string_view name)
{
    const auto value = reply.findField(name);
    if (!value)
        return -1;
    const auto when = Http::ParseCacheDate(*value, reply.responseTime);
    return when ? static_cast<long long>(*when) : -1;
}

} // namespace

std::string Store::KeyDigest(const KeyHash& hash)
{
    char text[33];
    std::snprintf(text, sizeof(text), "%016llX%016llX", static_cast<unsigned long long>(hash.a),
                  static_cast<unsigned long long>(hash.b));
    return text;
}

std::string Store::KeyDigest(std::string_view key)
{
    return KeyDigest(HashKey(key));
}

std::string Store::StoreLogLine(const timeval& now, std::string_view action, std::string_view keyDigest,
                                const Entry& entry, std::string_view method, std::string_view url, int dir,
                                uint32_t fileNumber)
{
    // Squid 5.7's storeLog(): "%9d.%03d %-7s %02d %08X %s %4d %9d %9d %9d %s %lld/%lld %s %s\n"
    // (a memory object: swap_dirn -1, swap_filen -1)
    char stamp[64];
    std::snprintf(stamp, sizeof(stamp), "%9lld.%03d %-7.*s %02d %08X ", static_cast<long long>(now.tv_sec),
                  static_cast<int>(now.tv_usec / 1000), static_cast<int>(action.size()), action.data(), dir,
                  fileNumber);
    std::string line = stamp;
    line += keyDigest;
    const Reply* reply = entry.reply();
    if (!reply) {
        line += "   ?         ?         ?         ? ?/? ?/? ? ?\n";
        return line;
    }
    char figures[96];
    std::snprintf(figures, sizeof(figures), " %4d %9lld %9lld %9lld ", reply->status, DateOf(*reply, "Date"),
                  DateOf(*reply, "Last-Modified"), DateOf(*reply, "Expires"));
    line += figures;
    const auto type = reply->findField("Content-Type");
    line += type && !type->empty() ? *type : std::string_view("unknown");
    std::snprintf(figures, sizeof(figures), " %lld/%llu ",
                  reply->contentLength ? static_cast<long long>(*reply->contentLength) : -1LL,
                  static_cast<unsigned long long>(entry.body().endOffset()));
    line += figures;
    line += method;
    line += ' ';
    line += url;
    line += '\n';
    return line;
}
