/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Store::Policy: the replacement policies of memory_replacement_policy
/// (`lru`, `heap GDSF`, `heap LFUDA`, `heap LRU`), which pick the cached
/// object to evict next.
///
/// Layout: intrusive. Each cached object embeds a PolicyNode (40 bytes), and
/// a policy links those nodes; it allocates nothing per object, except the
/// heap policies' array of node pointers (8 bytes per object, up to 16 while
/// the vector's spare capacity lasts).
///
///     lru (a doubly linked list, O(1) for every operation)
///
///         head (most recent)                            tail (victim)
///         [node] <-> [node] <-> [node] <-> ... <-> [node]
///
///     heap GDSF | heap LFUDA | heap LRU (a binary min-heap on (key, lastReference))
///
///         heap_: [ 0 ][ 1 ][ 2 ][ 3 ][ 4 ] ...      node.links.heap.index = its slot
///                  |    children of i: 2i+1, 2i+2    node.links.heap.key   = its key
///                  v
///                victim                              add/touch/remove: O(log n), victim: O(1)
///
///     PolicyNode (40 bytes)
///     +-----------------------------------+----------------+---------+------------+-----+
///     | links: {prev, next} | {key, index}| lastReference  | size    | references | pad |
///     |   16 (one union: one policy kind) |   8            |   8     |   4        |  4  |
///     +-----------------------------------+----------------+---------+------------+-----+
///
/// Keys, after Squid 5.7's src/repl/heap/store_heap_replacement.cc:
///
///     heap GDSF  : L + references / size   (Greedy-Dual Size Frequency, cost 1 per object;
///                                           size = the bytes the index charges, 1 when 0)
///     heap LFUDA : L + references          (Least Frequently Used with Dynamic Aging)
///     heap LRU   : lastReference
///
/// L, the aging factor, starts at 0 and becomes the key of each evicted
/// object (evict(), not remove(): an object erased for another reason does
/// not age the cache). A new object enters with a key of about L, so an old
/// object whose key was earned long ago falls below newcomers and becomes
/// evictable once L has passed it. The smallest key is evicted first. Where
/// Squid subtracts a tie-breaker from the key (built from wall-clock seconds
/// of the last reference), the heap compares (key, lastReference) instead:
/// equal keys evict the least recently used first, exactly and without the
/// floating-point noise. lastReference is a per-policy clock that ticks on
/// each add() and touch(), so the order does not depend on the wall clock.
///
/// Ownership: the policy never owns a node; the owner (Store::Index) removes a
/// node before freeing it. A node is in at most one policy at a time.
///
/// Threading: no lock; the owner serialises calls (see Store::Index).

#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace Store {

/// What a replacement policy keeps in each cached object (intrusive).
struct PolicyNode {
    /// links of a node in the lru list
    struct ListLinks {
        PolicyNode* prev; ///< toward the most recently used end (null at the head)
        PolicyNode* next; ///< toward the victim end (null at the tail)
    };
    /// place of a node in a heap policy
    struct HeapSlot {
        double key;     ///< the key the node was last placed with
        uint32_t index; ///< its slot in the heap array
    };
    /// the links of the one policy kind the node is in (valid only while in it)
    union Links {
        ListLinks list; ///< for lru
        HeapSlot heap;  ///< for the heap policies
    };

    Links links{};              ///< owned by the policy the node is in
    uint64_t lastReference = 0; ///< the policy's clock at the last add() or touch()
    uint64_t size = 0;          ///< the object's bytes (GDSF divides by it); set by the owner
    uint32_t references = 0;    ///< times the object was used, its insertion counting as one; touch()
                                ///< adds one, and the owner may count uses while the node is in no policy
};

/// A replacement policy: the order in which cached objects are evicted.
class Policy {
public:
    virtual ~Policy() = default;

    /// the squid.conf words of this policy ("lru", "heap GDSF", ...)
    virtual std::string_view name() const = 0;

    /// node enters the policy as used now (its references and size as the
    /// owner set them); it must be in no policy
    virtual void add(PolicyNode& node) = 0;
    /// node was used again (a hit): one more reference, used now
    virtual void touch(PolicyNode& node) = 0;
    /// node leaves the policy without aging it (erased, replaced, abandoned)
    virtual void remove(PolicyNode& node) = 0;
    /// the node to evict next, or null when the policy is empty
    virtual PolicyNode* victim() const = 0;
    /// removes victim() as an eviction (which ages GDSF and LFUDA) and returns
    /// it, or null when the policy is empty
    virtual PolicyNode* evict() = 0;

    /// nodes in the policy
    virtual size_t count() const = 0;
    /// bytes the policy allocated besides the nodes (the heap array)
    virtual size_t memoryFootprint() const { return 0; }
    /// the aging factor L (0 for the policies that do not age)
    virtual double age() const { return 0; }

protected:
    /// the clock of lastReference: a new tick per add() and touch()
    uint64_t tick() { return ++clock_; }

private:
    uint64_t clock_ = 0; ///< ticks so far
};

/// The policy named by memory_replacement_policy's words: "lru", "heap GDSF",
/// "heap LFUDA", "heap LRU", and "heap" alone for GDSF as Squid 5.7 does;
/// words are separated by whitespace and matched exactly (case-sensitively,
/// as Squid). Null for anything else, for the configuration to report
/// (Squid 5.7 warns and falls back to heap LRU on an unknown heap key type).
std::unique_ptr<Policy> MakePolicy(std::string_view words);

} // namespace Store
