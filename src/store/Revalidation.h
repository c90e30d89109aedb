/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Store::Revalidate(): what the origin's reply to a conditional
/// request about a stored object means (RFC 9111 sections 4.3.3 and 4.3.4).
/// One meaning for every requester: the client that asked
/// (Client::Connection::decideStore), the clients that joined its request
/// (collapsed_forwarding) and a background revalidation
/// (Client::DetachedFetch). What each does next (its log code, whether it
/// serves or asks again) is its own; what the reply means, and the update of
/// the stored object a 304 makes, are decided here only.
///
///     304, stored object still there --> Unmodified: its head freshened (once per 304)
///     5xx, the stored object may answer it (stale-if-error, max_stale) --> ServeStale
///     5xx otherwise                   --> Error: the error is the answer
///     anything else                   --> Modified: a new object is the answer
///
/// Error and Modified replies are stored, or not, as any fetched reply is
/// (the admission decision; storing one replaces the stale object).

#pragma once

#include "store/DiskTier.h"
#include "store/Entry.h"

#include <string>

namespace Store {

class Index;

/// the meaning of a reply to a conditional request (see the file comment)
enum class Revalidated {
    Unmodified, ///< 304: the freshened stored object answers
    ServeStale, ///< 5xx the stored object may answer (stale-if-error, max_stale)
    Error,      ///< 5xx the stored object may not answer: the error answers
    Modified    ///< a new object answers
};

/// The meaning of `reply`, the origin's answer to a conditional request
/// about `stale` (stored under staleKey in index, or in disk when disk is
/// given: a disk object). For a 304 it freshens stale's head
/// (FreshenStored) and touches it in index, or has disk replace the head
/// in its file (DiskTier::freshen()), unless this very 304 was applied
/// already (Reply::appliedToStored: a second requester of the same reply).
/// staleMayAnswerErrors: whether MayServeStale(StaleUse::OnError) allows the
/// stored object to answer this requester.
Revalidated Revalidate(Index& index, const std::string& staleKey, Entry& stale, const Reply& reply,
                       bool staleMayAnswerErrors, DiskTier* disk = nullptr);

/// Freshens a stored reply head with the fields of a 304 (RFC 9111 4.3.4):
/// every field the 304 sent replaces the stored ones of that name, never the
/// framing; the body is untouched. The merged head is a new small block (a
/// permitted header copy).
void FreshenStored(Entry& stored, const Reply& notModified);

} // namespace Store
