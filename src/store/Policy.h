/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Store::Policy: the replacement policies of memory_replacement_policy
/// and cache_replacement_policy (`lru`, `heap GDSF`, `heap LFUDA`, `heap
/// LRU`), which pick the cached object to evict next.
///
/// Layout: intrusive. Each cached object embeds the policy's fields, and a
/// policy links those objects; it allocates nothing per object, except the
/// heap policies' array of node pointers (8 bytes per object, up to 16 while
/// the vector's spare capacity lasts). A policy is a BasicPolicy<Node>,
/// generic over the object type it links: Node has `links`
/// (PolicyLinks<Node>), `lastReference` (uint64_t), `references` (uint32_t)
/// and `uint64_t policySize() const`, in whatever order its owner packs them.
/// The memory cache links PolicyNode (below, 40 bytes); the disk index links
/// its own records (Disk::Index, 72 bytes with the policy's 28).
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
///     PolicyNode (40 bytes; Store::Index's records)
///     +-----------------------------------+----------------+---------+------------+-----+
///     | links: {prev, next} | {key, index}| lastReference  | size    | references | pad |
///     |   16 (one union: one policy kind) |   8            |   8     |   4        |  4  |
///     +-----------------------------------+----------------+---------+------------+-----+
///
/// Keys, after Squid 5.7's src/repl/heap/store_heap_replacement.cc:
///
///     heap GDSF  : L + references / size   (Greedy-Dual Size Frequency, cost 1 per object;
///                                           size = policySize(), 1 when 0: the bytes the
///                                           memory index charges, the disk file's size)
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
/// Ownership: the policy never owns a node; the owner (Store::Index,
/// Disk::Index) removes a node before freeing it. A node is in at most one
/// policy at a time.
///
/// Threading: no lock; the owner serialises calls (see Store::Index).

#pragma once

#include "base/TextException.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace Store {

/// What a replacement policy links through each object of type Node (its
/// `links` member): the links of the one policy kind the node is in, valid
/// only while in it.
template <class Node>
union PolicyLinks {
    /// links of a node in the lru list
    struct ListLinks {
        Node* prev; ///< toward the most recently used end (null at the head)
        Node* next; ///< toward the victim end (null at the tail)
    };
    /// place of a node in a heap policy
    struct HeapSlot {
        double key;     ///< the key the node was last placed with
        uint32_t index; ///< its slot in the heap array
    };
    ListLinks list; ///< for lru
    HeapSlot heap;  ///< for the heap policies
};

/// What a replacement policy keeps in each object of the memory cache (intrusive).
struct PolicyNode {
    PolicyLinks<PolicyNode> links{}; ///< owned by the policy the node is in
    uint64_t lastReference = 0;      ///< the policy's clock at the last add() or touch()
    uint64_t size = 0;               ///< the object's bytes (GDSF divides by it); set by the owner
    uint32_t references = 0;         ///< times the object was used, its insertion counting as one; touch()
                             ///< adds one, and the owner may count uses while the node is in no policy

    /// the size GDSF divides by
    uint64_t policySize() const { return size; }
};

/// A replacement policy: the order in which objects of type Node are evicted.
template <class Node>
class BasicPolicy {
public:
    virtual ~BasicPolicy() = default;

    /// the squid.conf words of this policy ("lru", "heap GDSF", ...)
    virtual std::string_view name() const = 0;

    /// node enters the policy as used now (its references and size as the
    /// owner set them); it must be in no policy
    virtual void add(Node& node) = 0;
    /// node was used again (a hit): one more reference, used now
    virtual void touch(Node& node) = 0;
    /// node leaves the policy without aging it (erased, replaced, abandoned)
    virtual void remove(Node& node) = 0;
    /// the node to evict next, or null when the policy is empty
    virtual Node* victim() const = 0;
    /// removes victim() as an eviction (which ages GDSF and LFUDA) and returns
    /// it, or null when the policy is empty
    virtual Node* evict() = 0;

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

/// the memory cache's policy
using Policy = BasicPolicy<PolicyNode>;

/// the kinds of policy squid.conf names
enum class PolicyKind { Lru, HeapGdsf, HeapLfuda, HeapLru };

/// The policy kind named by a replacement policy's words: "lru", "heap GDSF",
/// "heap LFUDA", "heap LRU", and "heap" alone for GDSF as Squid 5.7 does;
/// words are separated by whitespace and matched exactly (case-sensitively,
/// as Squid). Nothing for anything else, for the configuration to report
/// (Squid 5.7 warns and falls back to heap LRU on an unknown heap key type).
std::optional<PolicyKind> ParsePolicy(std::string_view words);

/// lru: a doubly linked list, most recently used at the head.
template <class Node>
class LruPolicy final : public BasicPolicy<Node> {
public:
    std::string_view name() const override { return "lru"; }

    void add(Node& node) override
    {
        node.lastReference = this->tick();
        pushFront(node);
        ++count_;
    }

    void touch(Node& node) override
    {
        ++node.references;
        node.lastReference = this->tick();
        if (head_ == &node)
            return;
        unlink(node);
        pushFront(node);
    }

    void remove(Node& node) override
    {
        Must(count_ > 0);
        unlink(node);
        --count_;
    }

    Node* victim() const override { return tail_; }

    Node* evict() override
    {
        auto* node = tail_;
        if (node)
            remove(*node);
        return node;
    }

    size_t count() const override { return count_; }

private:
    void pushFront(Node& node)
    {
        node.links.list = {nullptr, head_};
        if (head_)
            head_->links.list.prev = &node;
        else
            tail_ = &node;
        head_ = &node;
    }

    void unlink(Node& node)
    {
        auto& links = node.links.list;
        (links.prev ? links.prev->links.list.next : head_) = links.next;
        (links.next ? links.next->links.list.prev : tail_) = links.prev;
        links = {nullptr, nullptr};
    }

    Node* head_ = nullptr; ///< the most recently used
    Node* tail_ = nullptr; ///< the least recently used: the victim
    size_t count_ = 0;
};

/// The three heap policies: a binary min-heap of node pointers on (key, lastReference).
template <class Node>
class HeapPolicy final : public BasicPolicy<Node> {
public:
    /// which key the heap orders by (HeapGdsf, HeapLfuda or HeapLru)
    explicit HeapPolicy(PolicyKind kind) : kind_(kind) { Must(kind != PolicyKind::Lru); }

    std::string_view name() const override
    {
        switch (kind_) {
        case PolicyKind::HeapGdsf:
            return "heap GDSF";
        case PolicyKind::HeapLfuda:
            return "heap LFUDA";
        case PolicyKind::Lru:
        case PolicyKind::HeapLru:
            break;
        }
        return "heap LRU";
    }

    void add(Node& node) override
    {
        Must(heap_.size() < std::numeric_limits<uint32_t>::max());
        node.lastReference = this->tick();
        node.links.heap = {keyOf(node), uint32_t(heap_.size())};
        heap_.push_back(&node);
        siftUp(node.links.heap.index);
    }

    void touch(Node& node) override
    {
        ++node.references;
        node.lastReference = this->tick();
        node.links.heap.key = keyOf(node);
        // a touch raises (key, lastReference) unless the owner shrank the size
        // meanwhile: sift both ways, which costs nothing when it does not move
        siftUp(node.links.heap.index);
        siftDown(node.links.heap.index);
    }

    void remove(Node& node) override
    {
        const uint32_t index = node.links.heap.index;
        Must(index < heap_.size() && heap_[index] == &node);
        auto* last = heap_.back();
        heap_.pop_back();
        if (last == &node)
            return;
        place(last, index);
        siftUp(index);
        siftDown(last->links.heap.index);
    }

    Node* victim() const override { return heap_.empty() ? nullptr : heap_.front(); }

    Node* evict() override
    {
        auto* node = victim();
        if (!node)
            return nullptr;
        if (kind_ != PolicyKind::HeapLru)
            age_ = node->links.heap.key; // Squid's heap_age: the key of the last object purged
        remove(*node);
        return node;
    }

    size_t count() const override { return heap_.size(); }
    size_t memoryFootprint() const override { return heap_.capacity() * sizeof(heap_[0]); }
    double age() const override { return age_; }

private:
    double keyOf(const Node& node) const
    {
        switch (kind_) {
        case PolicyKind::HeapGdsf: {
            // Squid divides by the object's size in bytes, 1 for an empty object
            const uint64_t size = node.policySize();
            return age_ + double(node.references) / double(size ? size : 1);
        }
        case PolicyKind::HeapLfuda:
            return age_ + double(node.references);
        case PolicyKind::Lru:
        case PolicyKind::HeapLru:
            break;
        }
        return double(node.lastReference);
    }

    static bool Less(const Node* a, const Node* b)
    {
        if (a->links.heap.key != b->links.heap.key)
            return a->links.heap.key < b->links.heap.key;
        return a->lastReference < b->lastReference;
    }

    void place(Node* node, uint32_t index)
    {
        heap_[index] = node;
        node->links.heap.index = index;
    }

    void siftUp(uint32_t index)
    {
        auto* node = heap_[index];
        while (index > 0) {
            const uint32_t parent = (index - 1) / 2;
            if (!Less(node, heap_[parent]))
                break;
            place(heap_[parent], index);
            index = parent;
        }
        place(node, index);
    }

    void siftDown(uint32_t index)
    {
        auto* node = heap_[index];
        const size_t n = heap_.size();
        for (;;) {
            size_t child = 2 * size_t(index) + 1;
            if (child >= n)
                break;
            if (child + 1 < n && Less(heap_[child + 1], heap_[child]))
                ++child;
            if (!Less(heap_[child], node))
                break;
            place(heap_[child], index);
            index = uint32_t(child);
        }
        place(node, index);
    }

    PolicyKind kind_;
    std::vector<Node*> heap_; ///< the binary heap; each node knows its slot
    double age_ = 0;          ///< L, the aging factor (GDSF, LFUDA)
};

/// a new policy of kind for objects of type Node
template <class Node>
std::unique_ptr<BasicPolicy<Node>> MakePolicy(PolicyKind kind)
{
    if (kind == PolicyKind::Lru)
        return std::make_unique<LruPolicy<Node>>();
    return std::make_unique<HeapPolicy<Node>>(kind);
}

/// The policy named by words (ParsePolicy()) for objects of type Node, or
/// null when they name none.
template <class Node = PolicyNode>
std::unique_ptr<BasicPolicy<Node>> MakePolicy(std::string_view words)
{
    const auto kind = ParsePolicy(words);
    return kind ? MakePolicy<Node>(*kind) : nullptr;
}

} // namespace Store
