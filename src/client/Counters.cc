/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "client/Counters.h"
#include "log/AccessRecord.h"

void Client::Counters::count(const Log::AccessRecord& record)
{
    const bool hit = record.resultCode.find("HIT") != std::string::npos;
    ++requests;
    bytesOut += record.bytesSent;
    if (hit) {
        ++hits;
        hitBytesOut += record.bytesSent;
        memHits += record.resultCode == "TCP_MEM_HIT" ? 1 : 0;
        diskHits += record.resultCode == "TCP_HIT" ? 1 : 0;
    }
    if (record.httpStatus >= 400)
        ++errors;
    if (record.httpStatus == 0 || record.resultCode.find("ABORTED") != std::string::npos)
        ++aborted;
    auto& client = perClient[record.clientAddress];
    ++client.requests;
    client.hits += hit ? 1 : 0;
    ++client.codes[record.resultCode];
}
