/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Proxy::Collapsing: collapsed forwarding across workers
/// (doc/design.md "Workers"). A worker's pending fetch (a miss or a
/// revalidation whose reply head has not arrived, Store::InFlight) is
/// announced on the Proxy::Board under its remote key; another worker that
/// gets a request for it, and has no fetch of its own to join, joins it
/// through a mirror: a local entry, registered in its Store::InFlight as a
/// pending fetch (so its later requests join the mirror), that the owner's
/// worker feeds.
///
///     worker A (owner)                              worker B (mirror)
///     fetch's entry <- Relay (a Store::Reader)      mirror entry <- Feed (its Store::Producer)
///        copies the head and the body's bytes  -->  Pipe (mutex)  --> drain(): copies them into
///        into the Pipe, at most PipeBytes queued                      B's blocks, appends, completes
///        resume() <-- posted when B drained what stopped A, or B's clients left
///
/// A miss shares only a reply the owner stores (its entry kept), as within
/// a worker; a revalidation's reply goes over whatever it is, kept or not,
/// for its joiners to judge (Client::Connection::joinedRevalidationIsUsable()).
/// An unstored miss, or an owner's fetch that failed or was gone before the
/// mirror asked, fails the mirror before its head and its clients fetch on
/// their own (Client::Connection::fetchAlone()). Blocks never cross
/// threads: each side copies into or out of its own, and only strings and
/// flags cross, under the Pipe's mutex; calls cross by Board::postTo().
///
/// A worker that stops lets go of its relays (the fetches go on for its own
/// clients, or stop) and of its mirrors (their producer gone).
///
/// Threading: each Collapsing is its worker's, on its loop; a Pipe is the
/// two workers', its fields under its mutex but for relay (the owner's
/// thread) and feed (the mirror's thread).

#pragma once

#include "comm/Loop.h"
#include "store/InFlight.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace Proxy {

class Board;
class Instance;

/// Collapsed forwarding across workers; see the file comment.
class Collapsing final : public Store::RemoteFetches {
public:
    /// What an owner's fetch sends to a mirror; see the file comment.
    struct Pipe;

    /// bytes the owner's Relay queues in a Pipe before it waits for the mirror
    static constexpr size_t PipeBytes = 256 * 1024;

    /// the collapsing of worker `number` of board, for instance (its inFlight())
    Collapsing(Instance& instance, Board& board, unsigned number);
    /// lets go of every relay and feed (their entries stay)
    ~Collapsing() override;
    Collapsing(const Collapsing&) = delete;
    Collapsing& operator=(const Collapsing&) = delete;

    void notePending(const std::string& remoteKey) override;
    void noteForgotten(const std::string& remoteKey) override;
    Store::EntryRef mirror(const std::string& remoteKey, const std::string& cacheKey,
                           const std::string& staleKey) override;

    /// (the owner's loop) a mirror asks for the fetch this worker offers under pipe's key
    void relay(const std::shared_ptr<Pipe>& pipe);
    /// (the mirror's loop) the owner sent something
    void drain(const std::shared_ptr<Pipe>& pipe);
    /// (the owner's loop) the mirror took what stopped the relay, or its clients left
    void resume(const std::shared_ptr<Pipe>& pipe);

private:
    class Relay;
    class Feed;

    /// has the mirror's worker drain() pipe
    void postDrain(const std::shared_ptr<Pipe>& pipe);
    /// removes the relays and feeds that are done, from the loop
    void sweepSoon();

    Instance& instance_;
    Board& board_;
    const unsigned number_;
    std::vector<std::unique_ptr<Relay>> relaying_; ///< this worker's fetches other workers joined
    std::vector<std::unique_ptr<Feed>> feeding_;   ///< this worker's mirrors of other workers' fetches
    Comm::Timer sweep_;                            ///< the sweep to come (cancelled with this)
};

} // namespace Proxy
