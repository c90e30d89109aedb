/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Http::HeaderField, Http::FieldIndex and Http::FieldsView: a
/// message's header fields as views into its head.
///
/// A parser gives a std::vector<HeaderField> (two string_views a field, 32
/// bytes). A stored reply keeps a FieldIndex instead: for each field, the
/// offsets and lengths of its name and value in the head's bytes, in one
/// array (8 bytes a field for a head under 64 KB, reply_header_max_size's
/// default; 16 bytes for a larger one), so a cached object's headers cost
/// their serialized bytes plus this index (doc/design.md
/// "Budgets"), and moving the head to another block (compaction) leaves the
/// index as it is.
///
///     head:  "HTTP/1.1 200 OK\r\nDate: Mon, ...\r\nContent-Length: 1024\r\n\r\n"
///                               ^17   ^23                ^...
///     index: [{name 17,4  value 23,29}, {name ...}, ...]   (offsets from the head's first byte)
///
/// FieldsView is what code that reads fields takes: a view of either kind,
/// iterated as HeaderField values, so one function serves a request's parsed
/// fields and a stored reply's index alike.

#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace Http {

/// ASCII case-insensitive equality (field names, connection tokens); inline:
/// every head built compares each of its field names a dozen times
inline bool EqualsIgnoreCase(std::string_view a, std::string_view b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i) {
        char x = a[i], y = b[i];
        if (x == y)
            continue;
        if (x >= 'A' && x <= 'Z')
            x = char(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z')
            y = char(y - 'A' + 'a');
        if (x != y)
            return false;
    }
    return true;
}

/// One header field line, both parts pointing into the parsed buffer.
struct HeaderField {
    std::string_view name;  ///< as sent (compare case-insensitively)
    std::string_view value; ///< without leading and trailing whitespace
};

/// One field of a FieldIndex: where its name and value are in the head
/// (Offset is uint16_t for a head under 64 KB, uint32_t for a larger one).
template <class Offset>
struct PackedField {
    Offset nameOffset = 0;  ///< from the head's first byte
    Offset nameLength = 0;  ///< bytes
    Offset valueOffset = 0; ///< from the head's first byte
    Offset valueLength = 0; ///< bytes
};
using NarrowField = PackedField<uint16_t>; ///< a field of a head under 64 KB
using WideField = PackedField<uint32_t>;   ///< a field of a larger head

/// A read-only view of header fields, iterated as HeaderField values: either
/// HeaderField objects (a parser's) or a FieldIndex over a head.
class FieldsView {
public:
    /// iterates the fields in their order, each as a HeaderField value
    class Iterator {
    public:
        using iterator_category = std::forward_iterator_tag; ///< one pass forward (or more)
        using value_type = HeaderField;                      ///< made on the fly
        using difference_type = std::ptrdiff_t;              ///< distance between fields
        using pointer = void;                                ///< no stored object to point at
        using reference = HeaderField;                       ///< a value, not a reference

        Iterator() = default;
        /// the field at position i of view
        Iterator(const FieldsView* view, size_t i) : view_(view), i_(i) {}
        /// the field here
        HeaderField operator*() const { return (*view_)[i_]; }
        /// the next field
        Iterator& operator++()
        {
            ++i_;
            return *this;
        }
        /// the next field (postfix)
        Iterator operator++(int)
        {
            auto old = *this;
            ++i_;
            return old;
        }
        /// whether both name the same position
        bool operator==(const Iterator& other) const { return i_ == other.i_; }

    private:
        const FieldsView* view_ = nullptr;
        size_t i_ = 0;
    };

    /// no fields
    FieldsView() = default;
    /// a parser's fields (the vector must outlive the view)
    FieldsView(const std::vector<HeaderField>& fields) : plain_(fields.data()), count_(fields.size()) {}
    /// packed fields whose offsets count from head (both must outlive the
    /// view); packed points to NarrowField or, when wide, WideField objects
    FieldsView(const char* head, const void* packed, bool wide, size_t count)
        : packed_(packed), head_(head), count_(count), wide_(wide)
    {}

    /// how many fields
    size_t size() const { return count_; }
    /// whether there are none
    bool empty() const { return count_ == 0; }
    /// field i (i < size())
    HeaderField operator[](size_t i) const
    {
        if (plain_)
            return plain_[i];
        if (wide_)
            return Unpack(static_cast<const WideField*>(packed_)[i]);
        return Unpack(static_cast<const NarrowField*>(packed_)[i]);
    }
    /// the first field
    Iterator begin() const { return Iterator(this, 0); }
    /// past the last field
    Iterator end() const { return Iterator(this, count_); }

    /// the value of the first field with this name (case-insensitive), if any
    std::optional<std::string_view> find(std::string_view name) const;

private:
    /// the field p describes
    template <class Offset>
    HeaderField Unpack(const PackedField<Offset>& p) const
    {
        return {std::string_view(head_ + p.nameOffset, p.nameLength),
                std::string_view(head_ + p.valueOffset, p.valueLength)};
    }

    const HeaderField* plain_ = nullptr; ///< a parser's fields, or null
    const void* packed_ = nullptr;       ///< NarrowField or WideField objects, or null
    const char* head_ = nullptr;         ///< what packed offsets count from
    size_t count_ = 0;                   ///< fields in the view
    bool wide_ = false;                  ///< packed_ holds WideField objects
};

/// The compact index of a head's fields; see the file comment. It owns its
/// array, or, after moveTo(), uses storage that its owner keeps alive (the
/// trailer of a compacted object's block).
class FieldIndex {
public:
    /// no fields
    FieldIndex() = default;
    /// indexes fields, which must each lie within head (throws otherwise)
    FieldIndex(std::string_view head, const std::vector<HeaderField>& fields);
    /// a deep copy into an array of its own (the same offsets, so it fits a copy of the same head)
    FieldIndex(const FieldIndex& other);
    /// a deep copy into an array of its own
    FieldIndex& operator=(const FieldIndex& other);
    /// takes other's array (owned or not); other becomes empty
    FieldIndex(FieldIndex&& other) noexcept;
    /// takes other's array (owned or not); other becomes empty
    FieldIndex& operator=(FieldIndex&& other) noexcept;
    /// frees the array when owned
    ~FieldIndex();

    /// Copies the array to storage (memoryBytes() bytes, aligned for
    /// uint32_t) and uses it from now on, freeing its own: storage must
    /// outlive this index and every copy made by moving it.
    void moveTo(std::byte* storage);
    /// whether the index owns its array (false after moveTo())
    bool ownsArray() const { return owned_; }

    /// how many fields
    size_t size() const { return count_; }
    /// the fields of head, which must be the head indexed (or a copy of it)
    FieldsView view(const char* head) const { return FieldsView(head, items_, wide_, count_); }
    /// bytes allocated for the index
    size_t memoryBytes() const { return count_ * (wide_ ? sizeof(WideField) : sizeof(NarrowField)); }

private:
    /// frees the array when owned and forgets it
    void reset() noexcept;

    std::byte* items_ = nullptr; ///< count_ NarrowField or WideField objects
    uint32_t count_ = 0;         ///< fields indexed
    bool wide_ = false;          ///< the head is 64 KB or more: WideField objects
    bool owned_ = false;         ///< items_ came from new[] here (see moveTo())
};

} // namespace Http
