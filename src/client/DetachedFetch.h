/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Client::DetachedFetch: a fetch that no client owns, whose reply is
/// decided on its head alone: a stored object revalidated in the background
/// while its stale copy is served (RFC 5861 stale-while-revalidate), or a
/// fetch whose client left before its head while others wait for it
/// (collapsed_forwarding). Also Client::StoreFetched(), which stores a
/// fetched reply when Store::Admit() (the one admission decision) allows it,
/// for the client side too. What a revalidation's reply means is
/// Store::Revalidate()'s.
///
///     client --TCP_STALE_HIT--> stale stored object (served at once)
///        \-- DetachedFetch: conditional request (stored ETag / Last-Modified)
///     client --(resets before the head)--> its fetch, which joiners read
///        \-- DetachedFetch: takes the client's place among the readers
///              304 to a revalidation --> Store::Revalidate() freshened the stored head
///              5xx the stale object may answer (stale-if-error, max_stale) --> nothing changes
///              storable (StoreFetched)  --> stored (replacing a stale object); the forwarder
///                                          goes on for the readers or alone (quick_abort_*)
///              otherwise                --> nothing changes
///
/// Ownership: Proxy::Instance (Client::Services) owns every DetachedFetch and destroys
/// it once isDone(); a DetachedFetch owns its Forwarder and holds references
/// to the stale entry (if any) and to the entry its reply goes into.
#pragma once

#include "client/forward.h"
#include "server/forward.h"
#include "store/Admission.h"
#include "store/Entry.h"
#include "store/Freshness.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace Acl {
struct Checklist;
}
namespace Config {
struct Settings;
}
namespace Server {
struct Request;
}

namespace Client {

/// Whether the stored object `stale` (null: none) may answer a 5xx or a
/// failed validation for this request (StaleUse::OnError: stale-if-error,
/// and max_stale from settings), now.
bool StaleMayAnswerErrors(const Config::Settings& settings, const Store::Entry* stale,
                          const Store::RequestFacts& request, const Store::RefreshRule& rule);

/// squid.conf's limits of what memory keeps (negative_ttl, the object size
/// limits, memory_cache_mode)
Store::AdmissionLimits AdmissionLimitsOf(const Config::Settings& settings);

/// whether the reply forwarder fetched is the peer's to keep, not cuttle's
/// (cache_peer proxy-only); no forwarder: no
bool PeerKeepsIt(const Server::Forwarder* forwarder);

/// Stores the reply whose head entry holds when store_miss (with
/// storeFacts: the request's acl facts; null with store_miss rules: not
/// stored) and Store::Admit() allow it, with squid.conf's negative_ttl and
/// object size limits, and has forwarder (when given) charge cache_mem for
/// it as its body arrives. Returns the full key, or nothing when the reply
/// is not stored.
std::optional<std::string> StoreFetched(Services& services, const Store::FetchSpec& spec,
                                        const Store::EntryRef& entry, Server::Forwarder* forwarder,
                                        const Acl::Checklist* storeFacts);

/// One fetch that no client owns; see the file comment.
class DetachedFetch final : public Store::Reader {
public:
    /// a background revalidation of spec.stale: sends request (with the
    /// validators) when started; a replacement worth storing is finished
    /// without a client
    DetachedFetch(Services& services, Store::FetchSpec&& spec, Server::Request&& request);
    /// takes over forwarder, which fills reply and has not sent its head to
    /// owner yet: this fetch takes owner's place among reply's readers
    /// (owner is no longer told anything), so it decides before them
    DetachedFetch(Services& services, Store::FetchSpec&& spec, Server::ForwarderPtr&& forwarder,
                  const Store::EntryRef& reply, Store::Reader& owner);
    ~DetachedFetch() override;
    DetachedFetch(const DetachedFetch&) = delete;
    DetachedFetch& operator=(const DetachedFetch&) = delete;

    /// sends the request of a background revalidation (never calls back
    /// from inside); a fetch taken over is under way already
    void start();
    /// whether nothing is left to do
    bool isDone() const;
    /// store_miss decides with a copy of these facts (their lookups and
    /// header fields dropped: the client's are gone); without them a reply
    /// is not stored when store_miss has rules
    void setStoreFacts(const Acl::Checklist& facts);
    /// who is told once when isDone() turns true, from inside the fetch (so
    /// it must not destroy it; Proxy::Instance defers that); called at once
    /// when the fetch is done already
    void setDoneHandler(std::function<void()> handler);
    /// the cache key it fetches
    const std::string& cacheKey() const { return spec_.cacheKey; }

    /* Store::Reader API (the fetch's reply) */
    void noteDataAvailable() override;
    const Sbuf::Cursor& cursor() const override { return cursor_; }

private:
    void decide();
    /// tells the done handler once the fetch is done
    void noteMaybeDone();

    Services& services_;                         ///< owns this fetch; its cache and settings
    Store::FetchSpec spec_;                      ///< what decides whether the reply is stored
    Store::EntryRef reply_;                      ///< where the origin's answer goes
    Server::ForwarderPtr forwarder_;             ///< the origin request (null only in unit tests)
    Sbuf::Cursor cursor_;                        ///< stays at the start: the reply is decided on its head
    bool started_ = false;                       ///< the request is sent (or was, by the client taken over)
    bool decided_ = false;                       ///< the reply head (or the failure) was seen
    std::function<void()> doneHandler_;          ///< see setDoneHandler()
    std::unique_ptr<Acl::Checklist> storeFacts_; ///< see setStoreFacts()
};

} // namespace Client
