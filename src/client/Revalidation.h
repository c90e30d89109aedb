/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Client::Revalidation: a stored object revalidated in the background
/// while its stale copy is served (RFC 5861 stale-while-revalidate), and
/// Client::FreshenStored(), the RFC 9111 4.3.4 update of a stored head by a 304.
///
///     client --TCP_STALE_HIT--> stale stored object (served at once)
///        \-- Revalidation: conditional request (stored ETag / Last-Modified)
///              304         --> FreshenStored(): the stored head takes the new fields
///              storable 2xx --> replaces the stored object (the forwarder finishes it alone)
///              otherwise   --> nothing changes
///
/// Ownership: the client side's Server owns every Revalidation and destroys
/// it once isDone(); a Revalidation owns its Forwarder and holds references
/// to the stale entry and to the entry its reply goes into.
#pragma once

#include "client/forward.h"
#include "server/forward.h"
#include "store/Entry.h"
#include "store/Freshness.h"

#include <string>

namespace Server {
struct Request;
}

namespace Client {

/// Freshens a stored reply head with the fields of a 304 (RFC 9111 4.3.4):
/// every field the 304 sent replaces the stored ones of that name, never the
/// framing; the body is untouched.
void FreshenStored(Store::Entry& stored, const Store::Reply& notModified);

/// One background revalidation; see the file comment.
class Revalidation final : public Store::Reader {
public:
    /// what the stored object is and how to ask about it
    struct Spec {
        Store::EntryRef stale;      ///< the stored object
        std::string staleKey;       ///< its full key in the cache
        std::string cacheKey;       ///< Store::MakeKey of the URL
        std::string requestHead;    ///< the client's request head (Vary selects on it)
        Store::RequestFacts facts;  ///< the client's caching directives
        Store::RefreshRule rule;    ///< the refresh_pattern that matched the URL
        uint64_t maxObjectSize = 0; ///< maximum_object_size_in_memory
        uint64_t minObjectSize = 0; ///< minimum_object_size
    };
    /// a revalidation that sends request (with the validators) when started
    Revalidation(Server& server, Spec&& spec, ::Server::Request&& request);
    ~Revalidation() override;
    Revalidation(const Revalidation&) = delete;
    Revalidation& operator=(const Revalidation&) = delete;

    /// sends the request (never calls back from inside)
    void start();
    /// whether nothing is left to do
    bool isDone() const;
    /// the cache key it revalidates
    const std::string& cacheKey() const { return spec_.cacheKey; }

    /* Store::Reader API (the revalidation's reply) */
    void noteDataAvailable() override;
    const Sbuf::Cursor& cursor() const override { return cursor_; }

private:
    void decide();

    Server& server_;
    Spec spec_;
    Store::EntryRef reply_;            ///< where the origin's answer goes
    ::Server::ForwarderPtr forwarder_; ///< the conditional request
    Sbuf::Cursor cursor_;              ///< stays at the start: the reply is decided on its head
    bool decided_ = false;
};

} // namespace Client
