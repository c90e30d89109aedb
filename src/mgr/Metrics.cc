/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "mgr/Pages.h"

#include <cstdio>

namespace {

/// one metric family in the OpenMetrics text format
void Family(std::string& out, const char* name, const char* type, const char* help, double value)
{
    char number[64];
    std::snprintf(number, sizeof(number), "%.17g", value);
    out += std::string("# TYPE ") + name + " " + type + "\n";
    out += std::string("# HELP ") + name + " " + help + "\n";
    // a counter's sample is NAME_total (OpenMetrics 1.0, section "Counter")
    out += std::string(name) + (std::string(type) == "counter" ? "_total " : " ") + number + "\n";
}

void Counter(std::string& out, const char* name, const char* help, uint64_t value)
{
    Family(out, name, "counter", help, static_cast<double>(value));
}

void Gauge(std::string& out, const char* name, const char* help, double value)
{
    Family(out, name, "gauge", help, value);
}

} // namespace

std::string Mgr::RenderMetrics(const Figures& f)
{
    const Counters& c = f.counters;
    std::string out;
    Counter(out, "squid_client_http_requests", "Client HTTP requests (client_http.requests).",
            c.clientRequests);
    Counter(out, "squid_client_http_hits", "Client HTTP requests answered from the cache (client_http.hits).",
            c.clientHits);
    Counter(out, "squid_client_http_errors",
            "Client HTTP requests answered with an error (client_http.errors).", c.clientErrors);
    Counter(out, "squid_client_http_in_bytes", "Bytes of client requests read.", c.clientBytesIn);
    Counter(out, "squid_client_http_out_bytes", "Bytes of replies written to clients.", c.clientBytesOut);
    Counter(out, "squid_client_http_hit_out_bytes", "Bytes of cache hits written to clients.",
            c.clientHitBytesOut);
    Counter(out, "squid_server_all_requests", "Requests forwarded to origin servers (server.all.requests).",
            c.serverRequests);
    Counter(out, "squid_server_all_errors", "Forwarded requests that failed (server.all.errors).",
            c.serverErrors);
    Counter(out, "squid_server_all_in_bytes", "Bytes read from origin servers.", c.serverBytesIn);
    Counter(out, "squid_server_all_out_bytes", "Bytes sent to origin servers.", c.serverBytesOut);
    Counter(out, "squid_aborted_requests", "Client transactions that ended before their reply did.",
            c.abortedRequests);
    Counter(out, "squid_select_loops", "Event loop iterations (select_loops).", c.selectLoops);
    Counter(out, "squid_page_faults", "Page faults with physical I/O.", c.pageFaults);
    Counter(out, "squid_sock_accepts", "Client connections accepted.", c.acceptedConnections);
    Counter(out, "squid_dns_queries", "DNS queries sent.", c.dnsQueries);
    Counter(out, "squid_icp_queries_sent", "ICP queries sent to peers (icp.queries_sent).", c.icpQueriesSent);
    Counter(out, "squid_icp_replies_received", "ICP replies received from peers (icp.replies_recv).",
            c.icpRepliesReceived);
    Counter(out, "squid_icp_queries_received", "ICP queries received from peers (icp.queries_recv).",
            c.icpQueriesReceived);
    Counter(out, "squid_icp_replies_sent", "ICP replies sent to peers (icp.replies_sent).", c.icpRepliesSent);
    Counter(out, "squid_icp_query_timeouts", "ICP pings whose wait timed out (icp.query_timeouts).",
            c.icpQueryTimeouts);
    Counter(out, "squid_icp_sent_bytes", "Bytes of ICP datagrams sent.", c.icpBytesSent);
    Counter(out, "squid_icp_received_bytes", "Bytes of ICP datagrams received.", c.icpBytesReceived);
    Family(out, "squid_cpu_seconds", "counter", "CPU time used, user and system, in seconds.", c.cpuTime);
    Gauge(out, "squid_uptime_seconds", "Seconds since the proxy started.", f.now - f.startTime);
    Gauge(out, "squid_client_connections", "Client connections open.",
          static_cast<double>(f.clientConnections));
    Gauge(out, "squid_clients", "Client addresses seen.", static_cast<double>(f.clients.size()));
    Gauge(out, "squid_store_mem_bytes", "Bytes held by the memory cache.", static_cast<double>(f.cacheBytes));
    Gauge(out, "squid_store_mem_capacity_bytes", "cache_mem in bytes.", static_cast<double>(f.cacheBudget));
    Gauge(out, "squid_store_entries", "Objects in the memory cache.", static_cast<double>(f.cacheObjects));
    Gauge(out, "squid_max_resident_bytes", "The largest resident set size, in bytes.",
          static_cast<double>(f.maxRssKb) * 1024.0);
    Gauge(out, "squid_file_descriptors_open", "File descriptors open.", static_cast<double>(f.fdInUse));
    Gauge(out, "squid_file_descriptors_max", "The file descriptor limit.", static_cast<double>(f.fdMax));
    Counter(out, "cuttle_store_evictions", "Objects evicted from the memory cache for room.",
            f.cacheEvictions);
    for (const auto& figure : f.own) {
        const std::string name = std::string("cuttle_") + figure.name;
        const std::string help = std::string("cuttle's ") + figure.name + " (the mem page).";
        Family(out, name.c_str(), figure.counter ? "counter" : "gauge", help.c_str(),
               static_cast<double>(figure.value));
    }
    out += "# EOF\n";
    return out;
}
