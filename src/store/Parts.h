/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Store::Parts: the parts of objects that Range requests fetched,
/// combined (RFC 9111 section 3.4) until they cover the whole object, which
/// then goes to the cache as if fetched whole (doc/caching.md "Partial
/// objects").
///
///     a 206 to a GET, one range, a complete length, a strong validator
///       Parts::FactsOf() --> collect(): a Collector follows the reply entry
///                            (a follower: it takes the slices as they come,
///                            no byte copied, and never holds the fetch back)
///       the reply ends (or fails: the bytes that came) --> add()
///         another validator than the parts held --> those parts are dropped
///         merged with the held parts that it overlaps or touches
///         [0, complete length) covered --> the whole object, handed to the
///                                         collector's WholeHandler (stored by
///                                         the usual admission), parts dropped
///     a later Range miss --> head() (its freshness decides), then cover():
///       one held interval holds every byte asked for --> a complete entry of
///       those bytes, served as a hit by offset
///
/// Held per object: its head as a 200 of the complete length (the newest
/// part's fields, RFC 9111 3.4's update), its validator, and its intervals,
/// each a SliceSequence whose absolute offsets are the object's. Memory is
/// charged by the blocks the slices hold; past the budget, whole objects go,
/// least recently used first.
///
/// Threading: one event loop (each worker has its own).
#pragma once

#include "http/Range.h"
#include "sbuf/SliceSequence.h"
#include "store/Entry.h"

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

namespace Store {

/// What a 206 says about the object it is a part of.
struct PartFacts {
    Http::ByteRange range; ///< the bytes it holds
    uint64_t length = 0;   ///< the complete object's length
    std::string validator; ///< its strong validator ("E" and the ETag, or "L" and Last-Modified)
};

/// The parts of objects held; see the file comment.
class Parts {
public:
    /// told the complete object when the parts of one cover it
    using WholeHandler = std::function<void(const EntryRef& whole)>;

    /// keeps parts in at most budget bytes of blocks (0: none)
    explicit Parts(uint64_t budget = 0);
    ~Parts();
    Parts(const Parts&) = delete;
    Parts& operator=(const Parts&) = delete;

    /// What reply says, when it is a part that may be combined: a 206 with
    /// one Content-Range of a known complete length (and a Content-Length,
    /// if any, of that range), a strong validator (RFC 9111 3.4: a strong
    /// ETag, or a Last-Modified at least 60 s before Date, RFC 9110
    /// 8.8.2.2), and no Vary; nothing otherwise.
    static std::optional<PartFacts> FactsOf(const Reply& reply);
    /// reply's strong validator, as PartFacts::validator says it; nothing
    /// without one
    static std::optional<std::string> ValidatorOf(const Reply& reply);
    /// the head of the object part is a part of: a 200 of length bytes with
    /// part's fields but Content-Range, Content-Length and Transfer-Encoding
    static std::unique_ptr<Reply> WholeReplyOf(const Reply& part, uint64_t length);

    /// Follows entry (a 206 whose head arrived and whose body is held from
    /// its first byte, facts its FactsOf()) and adds its bytes under key
    /// when it ends (what came, when it fails); whole gets the complete
    /// object when they complete it.
    void collect(const std::string& key, const EntryRef& entry, const PartFacts& facts, WholeHandler whole);

    /// Adds body, the bytes of facts.range (or a prefix of them) whose reply
    /// is part, under key (see the file comment). Returns the complete
    /// object, no longer held here, when the parts now cover it; else null.
    EntryRef add(const std::string& key, const Reply& part, const PartFacts& facts,
                 const Sbuf::SliceSequence& body);

    /// the head (a 200 of the complete length) of the object whose parts are held under key, or null
    const Reply* head(const std::string& key) const;
    /// A held interval, as an entry to serve by offset.
    struct Cover {
        EntryRef entry;      ///< complete, unkept: head() and the interval's bytes
        uint64_t offset = 0; ///< the object offset of the entry's first body byte
    };
    /// the held interval under key that holds every byte of [first, end), or an empty Cover
    Cover cover(const std::string& key, uint64_t first, uint64_t end);
    /// drops what is held under key, and stops collecting parts for it;
    /// whether anything was held
    bool erase(const std::string& key);

    /// changes the budget (dropping objects to fit)
    void setBudget(uint64_t budget);
    /// the budget
    uint64_t budget() const { return budget_; }
    /// bytes of blocks held
    uint64_t bytes() const { return bytes_; }
    /// objects with parts held
    size_t objectCount() const { return objects_.size(); }
    /// parts being collected
    size_t collecting() const { return collectors_.size(); }

private:
    class Collector;
    /// one object's parts
    struct Object {
        std::unique_ptr<Reply> head;                   ///< see head()
        std::string validator;                         ///< PartFacts::validator
        uint64_t length = 0;                           ///< the complete length
        std::map<uint64_t, Sbuf::SliceSequence> spans; ///< disjoint, not touching, by first offset
        uint64_t bytes = 0;                            ///< blocks held by spans
        std::list<std::string>::iterator recency;      ///< its place in lru_
    };

    /// a collector's entry ended: adds what it took, forgets it (it is destroyed)
    void finish(Collector& collector);
    /// drops objects, least recently used first, until bytes_ <= budget_ (keeping keep if it fits)
    void shrink(const Object* keep = nullptr);
    /// drops one object
    void drop(std::unordered_map<std::string, Object>::iterator it);

    uint64_t budget_;                                  ///< see budget()
    uint64_t bytes_ = 0;                               ///< see bytes()
    std::unordered_map<std::string, Object> objects_;  ///< by key
    std::list<std::string> lru_;                       ///< keys, least recently used first
    std::list<std::unique_ptr<Collector>> collectors_; ///< the parts arriving
};

} // namespace Store
