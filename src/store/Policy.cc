/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/Policy.h"
#include "base/TextException.h"

#include <limits>

namespace {

/// lru: a doubly linked list, most recently used at the head.
class LruPolicy final : public Store::Policy {
public:
    std::string_view name() const override { return "lru"; }

    void add(Store::PolicyNode& node) override
    {
        node.lastReference = tick();
        pushFront(node);
        ++count_;
    }

    void touch(Store::PolicyNode& node) override
    {
        ++node.references;
        node.lastReference = tick();
        if (head_ == &node)
            return;
        unlink(node);
        pushFront(node);
    }

    void remove(Store::PolicyNode& node) override
    {
        Must(count_ > 0);
        unlink(node);
        --count_;
    }

    Store::PolicyNode* victim() const override { return tail_; }

    Store::PolicyNode* evict() override
    {
        auto* node = tail_;
        if (node)
            remove(*node);
        return node;
    }

    size_t count() const override { return count_; }

private:
    void pushFront(Store::PolicyNode& node)
    {
        node.links.list = {nullptr, head_};
        if (head_)
            head_->links.list.prev = &node;
        else
            tail_ = &node;
        head_ = &node;
    }

    void unlink(Store::PolicyNode& node)
    {
        auto& links = node.links.list;
        (links.prev ? links.prev->links.list.next : head_) = links.next;
        (links.next ? links.next->links.list.prev : tail_) = links.prev;
        links = {nullptr, nullptr};
    }

    Store::PolicyNode* head_ = nullptr; ///< the most recently used
    Store::PolicyNode* tail_ = nullptr; ///< the least recently used: the victim
    size_t count_ = 0;
};

/// The three heap policies: a binary min-heap of node pointers on (key, lastReference).
class HeapPolicy final : public Store::Policy {
public:
    /// which key the heap orders by
    enum class Kind { Gdsf, Lfuda, Lru };

    explicit HeapPolicy(Kind kind) : kind_(kind) {}

    std::string_view name() const override
    {
        switch (kind_) {
        case Kind::Gdsf:
            return "heap GDSF";
        case Kind::Lfuda:
            return "heap LFUDA";
        case Kind::Lru:
            break;
        }
        return "heap LRU";
    }

    void add(Store::PolicyNode& node) override
    {
        Must(heap_.size() < std::numeric_limits<uint32_t>::max());
        node.lastReference = tick();
        node.links.heap = {keyOf(node), uint32_t(heap_.size())};
        heap_.push_back(&node);
        siftUp(node.links.heap.index);
    }

    void touch(Store::PolicyNode& node) override
    {
        ++node.references;
        node.lastReference = tick();
        node.links.heap.key = keyOf(node);
        // a touch raises (key, lastReference) unless the owner shrank the size
        // meanwhile: sift both ways, which costs nothing when it does not move
        siftUp(node.links.heap.index);
        siftDown(node.links.heap.index);
    }

    void remove(Store::PolicyNode& node) override
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

    Store::PolicyNode* victim() const override { return heap_.empty() ? nullptr : heap_.front(); }

    Store::PolicyNode* evict() override
    {
        auto* node = victim();
        if (!node)
            return nullptr;
        if (kind_ != Kind::Lru)
            age_ = node->links.heap.key; // Squid's heap_age: the key of the last object purged
        remove(*node);
        return node;
    }

    size_t count() const override { return heap_.size(); }
    size_t memoryFootprint() const override { return heap_.capacity() * sizeof(heap_[0]); }
    double age() const override { return age_; }

private:
    double keyOf(const Store::PolicyNode& node) const
    {
        switch (kind_) {
        case Kind::Gdsf:
            // Squid divides by the object's size in bytes, 1 for an empty object
            return age_ + double(node.references) / double(node.size ? node.size : 1);
        case Kind::Lfuda:
            return age_ + double(node.references);
        case Kind::Lru:
            break;
        }
        return double(node.lastReference);
    }

    static bool Less(const Store::PolicyNode* a, const Store::PolicyNode* b)
    {
        if (a->links.heap.key != b->links.heap.key)
            return a->links.heap.key < b->links.heap.key;
        return a->lastReference < b->lastReference;
    }

    void place(Store::PolicyNode* node, uint32_t index)
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

    Kind kind_;
    std::vector<Store::PolicyNode*> heap_; ///< the binary heap; each node knows its slot
    double age_ = 0;                       ///< L, the aging factor (GDSF, LFUDA)
};

/// the next whitespace-separated word of text, removed from it
std::string_view NextWord(std::string_view& text)
{
    const auto isSpace = [](char c) { return c == ' ' || c == '\t'; };
    size_t start = 0;
    while (start < text.size() && isSpace(text[start]))
        ++start;
    size_t end = start;
    while (end < text.size() && !isSpace(text[end]))
        ++end;
    const auto word = text.substr(start, end - start);
    text.remove_prefix(end);
    return word;
}

} // namespace

std::unique_ptr<Store::Policy> Store::MakePolicy(std::string_view words)
{
    const auto type = NextWord(words);
    const auto keyType = NextWord(words);
    if (!NextWord(words).empty())
        return nullptr;
    if (type == "lru")
        return keyType.empty() ? std::make_unique<LruPolicy>() : nullptr;
    if (type != "heap")
        return nullptr;
    if (keyType.empty() || keyType == "GDSF") // Squid: "heap" alone is GDSF
        return std::make_unique<HeapPolicy>(HeapPolicy::Kind::Gdsf);
    if (keyType == "LFUDA")
        return std::make_unique<HeapPolicy>(HeapPolicy::Kind::Lfuda);
    if (keyType == "LRU")
        return std::make_unique<HeapPolicy>(HeapPolicy::Kind::Lru);
    return nullptr;
}
