/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/Fields.h"
#include "base/TextException.h"

#include <cstring>
#include <new>

std::optional<std::string_view> Http::FieldsView::find(std::string_view name) const
{
    for (const auto f : *this) {
        if (EqualsIgnoreCase(f.name, name))
            return f.value;
    }
    return std::nullopt;
}

namespace {

/// fills count fields of type Field at items from fields, offsets counting from head
template <class Field>
void Pack(std::byte* items, std::string_view head, const std::vector<Http::HeaderField>& fields)
{
    const auto offsetOf = [&](std::string_view part) {
        Must2(part.data() >= head.data() && part.data() + part.size() <= head.data() + head.size(),
              "a header field outside the head it indexes");
        return part.data() - head.data();
    };
    using Offset = decltype(Field::nameOffset);
    auto* out = reinterpret_cast<Field*>(items);
    for (const auto& f : fields) {
        // every offset and length fits: they all lie within head
        new (out++) Field{static_cast<Offset>(offsetOf(f.name)), static_cast<Offset>(f.name.size()),
                          static_cast<Offset>(offsetOf(f.value)), static_cast<Offset>(f.value.size())};
    }
}

} // namespace

Http::FieldIndex::FieldIndex(std::string_view head, const std::vector<HeaderField>& fields)
    : count_(static_cast<uint32_t>(fields.size())), wide_(head.size() > UINT16_MAX)
{
    Must(head.size() <= UINT32_MAX && fields.size() <= UINT32_MAX);
    if (fields.empty())
        return;
    auto items = std::make_unique<std::byte[]>(memoryBytes()); // freed if Pack() throws
    if (wide_)
        Pack<WideField>(items.get(), head, fields);
    else
        Pack<NarrowField>(items.get(), head, fields);
    items_ = items.release();
    owned_ = true;
}

Http::FieldIndex::FieldIndex(const FieldIndex& other) : count_(other.count_), wide_(other.wide_)
{
    if (!count_)
        return;
    items_ = new std::byte[memoryBytes()];
    owned_ = true;
    std::memcpy(items_, other.items_, memoryBytes());
}

Http::FieldIndex& Http::FieldIndex::operator=(const FieldIndex& other)
{
    if (this != &other)
        *this = FieldIndex(other);
    return *this;
}

Http::FieldIndex::FieldIndex(FieldIndex&& other) noexcept
    : items_(other.items_), count_(other.count_), wide_(other.wide_), owned_(other.owned_)
{
    other.items_ = nullptr;
    other.count_ = 0;
    other.owned_ = false;
}

Http::FieldIndex& Http::FieldIndex::operator=(FieldIndex&& other) noexcept
{
    if (this != &other) {
        reset();
        items_ = other.items_;
        count_ = other.count_;
        wide_ = other.wide_;
        owned_ = other.owned_;
        other.items_ = nullptr;
        other.count_ = 0;
        other.owned_ = false;
    }
    return *this;
}

Http::FieldIndex::~FieldIndex()
{
    reset();
}

void Http::FieldIndex::reset() noexcept
{
    if (owned_)
        delete[] items_;
    items_ = nullptr;
    owned_ = false;
}

void Http::FieldIndex::moveTo(std::byte* storage)
{
    Must(storage && reinterpret_cast<uintptr_t>(storage) % alignof(uint32_t) == 0);
    if (count_)
        std::memcpy(storage, items_, memoryBytes());
    const uint32_t count = count_;
    reset();
    items_ = storage;
    count_ = count;
}
