/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Test helper: a Store::DiskTier that keeps its objects in a map,
/// for the decisions that ask the disk store (Admit(), LookUp()).

#pragma once

#include "store/DiskTier.h"
#include "store/Entry.h"
#include "store/Key.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace TestStore {

/// A disk store in memory: store() keeps the entry, find() gives it back
/// with a file of none (-1).
class FakeDisk : public Store::DiskTier {
public:
    std::optional<Store::DiskObject> find(const std::string& key, bool) override
    {
        const auto it = objects.find(key);
        if (it == objects.end())
            return std::nullopt;
        ++finds;
        return Store::DiskObject{it->second, MakeRef<Store::StoredFile>(-1, 0, 0)};
    }
    std::optional<std::string> varyNames(const std::string& key) const override
    {
        const auto it = objects.lower_bound(key + '\n');
        if (it == objects.end() || Store::BaseKey(it->first) != key || it->first == key)
            return std::nullopt;
        return Store::VaryNamesOfVariantKey(it->first);
    }
    bool admits(std::optional<uint64_t> size) const override { return !size || *size <= maxSize; }
    bool store(const std::string& key, const Store::EntryRef& entry, std::optional<uint64_t> size) override
    {
        if (!admits(size))
            return false;
        objects[key] = entry;
        return true;
    }
    bool erase(const std::string& key) override { return objects.erase(key) != 0; }
    void readBody(const Store::StoredFileRef&, std::function<void(std::vector<Sbuf::Slice>&&)> done) override
    {
        reads.push_back(std::move(done));
    }
    void freshen(const std::string& key, const Store::Reply& reply) override
    {
        freshened.emplace_back(key, std::string(reply.head));
    }
    void warm(const Store::StoredFileRef&, uint64_t, uint64_t, std::function<void()> done) override
    {
        done();
    }
    // parts are tested with the real disk store (src/disk/tests)
    bool storePart(const std::string&, const Store::EntryRef&, const Store::PartFacts&,
                   std::unique_ptr<Store::Reply>) override
    {
        return false;
    }
    std::unique_ptr<Store::Reply> partHead(const std::string&) override { return nullptr; }
    std::optional<Store::DiskPart> findPart(const std::string&, uint64_t, uint64_t) override
    {
        return std::nullopt;
    }

    std::map<std::string, Store::EntryRef> objects;                     ///< what was stored, by key
    uint64_t maxSize = 4 << 20;                                         ///< maximum_object_size
    unsigned finds = 0;                                                 ///< find() calls that found an object
    std::vector<std::pair<std::string, std::string>> freshened;         ///< freshen() calls: key, head
    std::vector<std::function<void(std::vector<Sbuf::Slice>&&)>> reads; ///< readBody() calls not yet done
};

} // namespace TestStore
