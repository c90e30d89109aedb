/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Disk::Shelf: the state of a set of cache_dirs, which the
/// Disk::Caches of the workers naming the same cache_dir lines share
/// (doc/design.md "Workers", "One disk store"): each cache_dir's index,
/// next file number, bytes being written and flags, the variants stored
/// under each URL, the objects whose parts are held, and the figures. What
/// stays each worker's Cache: its I/O threads, the objects and parts it is
/// writing (their Writers and PartWriters read its entries), its block
/// pool and its store.log.
///
///     Shelf (one per set of cache_dir lines; the first Cache fills it and
///     rebuilds its indexes, the others join it)
///       dirs[i]: Dir {Layout, Index, nextFile, writingBytes, partBytes, full, scanning, rewriting}
///       variants: MakeKey() -> the Vary names and variant keys stored
///       parts: key -> PartObject (its file, spans, writers; Disk/PartWriter.h)
///       counters, nextDir (round-robin)
///
/// A store file never changes once committed but for its head slots (a
/// 304's RewriteHead(), one at a time per file: Dir::rewriting), so a
/// worker may open and send another worker's file; a file removed (evicted,
/// replaced, purged) is unlinked by the worker that removed it, and a
/// worker that has it open keeps reading it.
///
/// Threading: a shared shelf (made with shared = true, by Proxy::Board)
/// is read and changed only under its mutex (Shelf::Guard); an unshared
/// one (one worker, tests) takes no lock. Once the workers run, no file is
/// read or written under it but store.log's lines (a hit's file is read
/// outside it, and files are written and removed by the I/O threads); the
/// first Cache checks its directories under it at start.

#pragma once

#include "config/Settings.h"
#include "disk/Format.h"
#include "disk/Index.h"
#include "disk/Layout.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace Disk {

/// One cache_dir's figures, for the cache manager.
struct DirStats {
    std::string path;          ///< the directory
    std::string type;          ///< as squid.conf says
    uint64_t maxBytes = 0;     ///< MBYTES
    uint64_t usedBytes = 0;    ///< what its objects take (whole 4 KB blocks)
    size_t objects = 0;        ///< objects stored
    bool full = false;         ///< storing stopped: the disk is full
    bool rebuilding = false;   ///< its index is being rebuilt from its files
    std::string policy;        ///< its cache_replacement_policy ("lru", "heap GDSF", ...)
    size_t partialObjects = 0; ///< objects whose parts it holds (doc/caching.md "Partial objects")
};

/// Counters of a Cache (of its Shelf: every worker's that shares it).
struct CacheStats {
    std::vector<DirStats> dirs; ///< each cache_dir
    size_t writing = 0;         ///< objects being written
    uint64_t stored = 0;        ///< objects committed
    uint64_t abandoned = 0;     ///< objects given up
    uint64_t bytesWritten = 0;  ///< bytes the I/O threads wrote
    uint64_t evictions = 0;     ///< objects removed for room
    uint64_t hits = 0;          ///< objects opened for a hit
    uint64_t refused = 0;       ///< files refused by open() (torn, partial, mismatched)
    uint64_t freshened = 0;     ///< heads replaced after a 304 (freshen())
    uint64_t bodiesRead = 0;    ///< bodies read for memory (readBody())
    uint64_t warmed = 0;        ///< cold ranges of hits read ahead of sendfile() (warm())
    uint64_t busy = 0;          ///< objects not stored: the I/O threads were MaxBacklog jobs behind
};

/// The shared state of a set of cache_dirs; see the file comment. Its
/// fields are Disk::Cache's to read and change, under a Guard.
struct Shelf {
    /// One cache_dir.
    struct Dir {
        Config::CacheDir config;   ///< its squid.conf line
        Layout layout;             ///< its paths
        Index index;               ///< its objects
        uint32_t nextFile = 0;     ///< the next file number
        uint64_t writingBytes = 0; ///< expected bytes of its objects being written
        uint64_t partBytes = 0;    ///< lengths of the objects whose parts it holds (at most half its size)
        bool full = false;         ///< the disk said ENOSPC: no more storing
        unsigned scanning = 0;     ///< first-level directories still being scanned (no storing meanwhile)
        std::unordered_set<uint32_t> rewriting; ///< files whose head a job is replacing (freshen())

        explicit Dir(const Config::CacheDir& line);
    };

    /// One object whose parts are held in its store file-to-be
    /// (Disk/PartWriter.h); any worker sharing the shelf may write parts
    /// into it, serve them, commit or drop it
    struct PartObject {
        std::string key;                    ///< its key
        Dir* dir = nullptr;                 ///< the cache_dir holding it
        uint32_t fileNumber = 0;            ///< its file there
        std::string validator;              ///< Store::PartFacts::validator
        uint64_t length = 0;                ///< the complete object's length
        std::string head;                   ///< the whole reply head (the newest part's), as bytes
        int64_t requestTime = 0;            ///< that reply's request_time
        int64_t responseTime = 0;           ///< and response_time
        uint32_t headRoom = 0;              ///< each head slot's bytes, fixed by the first part's head
        std::map<uint64_t, uint64_t> spans; ///< bytes written: first -> end, disjoint, not touching
        unsigned writers = 0;               ///< PartWriters (of any worker) writing into it
        uint64_t lastUse = 0;               ///< Shelf::partClock when a part was added or served
        bool dropped = false;               ///< given up: the file goes once no writer is left
        bool committing = false;            ///< a PartCommitJob is out

        /// where the body starts in the file
        uint64_t bodyOffset() const { return HeaderSize + key.size() + 2 * uint64_t(headRoom); }
        /// adds [first, end) to spans, merged with the spans it overlaps or touches
        void addSpan(uint64_t first, uint64_t end);
        /// whether the spans cover the whole object
        bool isCovered() const
        {
            return spans.size() == 1 && spans.begin()->first == 0 && spans.begin()->second == length;
        }
    };

    /// the variants stored under one MakeKey(): their Vary names and keys
    struct Variants {
        std::string names;             ///< Store::VaryNames()
        std::vector<std::string> keys; ///< their variant keys
    };

    /// The lock of a call into a Cache: the shelf's mutex when it is
    /// shared, nothing otherwise.
    class Guard {
    public:
        explicit Guard(Shelf& shelf) : lock_(shelf.mutex_, std::defer_lock)
        {
            if (shelf.shared_)
                lock_.lock();
        }

    private:
        std::unique_lock<std::mutex> lock_;
    };

    /// an empty shelf; shared: Caches on several threads will use it
    explicit Shelf(bool shared = false) : shared_(shared) {}
    Shelf(const Shelf&) = delete;
    Shelf& operator=(const Shelf&) = delete;

    /// whether Caches on several threads may use it (it locks)
    bool isShared() const { return shared_; }

    /// the cache_dirs, once a Cache made them (checked, their scans started)
    std::vector<std::unique_ptr<Dir>> dirs;
    /// whether a Cache made dirs (the Caches after it join them)
    bool made = false;
    /// MakeKey() -> its variants on disk (Vary replies only), made again
    /// from the keys at each start
    std::unordered_map<std::string, Variants> variants;
    /// key -> the object whose parts are held (not made again at a start:
    /// a restart removes part files)
    std::unordered_map<std::string, std::unique_ptr<PartObject>> parts;
    /// the clock of PartObject::lastUse (counts uses)
    uint64_t partClock = 0;
    /// round-robin's next cache_dir (store_dir_select_algorithm)
    size_t nextDir = 0;
    /// the figures (CacheStats::dirs stays empty: Cache::stats() fills it)
    CacheStats counters;

    /// the same cache_dir lines, as Shelf keys them: their places in
    /// squid.conf and paths; two workers with the same key share a shelf
    static std::string KeyOf(const std::vector<Config::CacheDir>& lines);

private:
    std::mutex mutex_;
    const bool shared_;
};

} // namespace Disk
