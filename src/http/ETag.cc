/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/ETag.h"
#include "http/FieldSyntax.h"

using Http::IsOws;

namespace {

/// etagc = %x21 / %x23-7E / obs-text
bool IsEtagChar(char c)
{
    const auto u = static_cast<unsigned char>(c);
    return u == 0x21 || (u >= 0x23 && u != 0x7f);
}

void SkipOws(std::string_view s, size_t& pos)
{
    while (pos < s.size() && IsOws(s[pos]))
        ++pos;
}

/// parses an entity-tag starting at pos; on success pos is past its closing quote
std::optional<Http::EntityTag> TagAt(std::string_view s, size_t& pos)
{
    size_t p = pos;
    bool weak = false;
    if (s.substr(p, 2) == "W/") {
        weak = true;
        p += 2;
    }
    if (p >= s.size() || s[p] != '"')
        return std::nullopt;
    const size_t start = ++p;
    while (p < s.size() && IsEtagChar(s[p]))
        ++p;
    if (p >= s.size() || s[p] != '"')
        return std::nullopt;
    pos = p + 1;
    return Http::EntityTag(s.substr(start, p - start), weak);
}

} // namespace

std::string Http::EntityTag::toString() const
{
    std::string s;
    s.reserve(opaque_.size() + 4);
    if (weak_)
        s += "W/";
    s += '"';
    s += opaque_;
    s += '"';
    return s;
}

bool Http::EntityTagList::hasStrongMatch(const EntityTag& current) const
{
    for (const auto& t : tags) {
        if (t.strongMatch(current))
            return true;
    }
    return false;
}

bool Http::EntityTagList::hasWeakMatch(const EntityTag& current) const
{
    for (const auto& t : tags) {
        if (t.weakMatch(current))
            return true;
    }
    return false;
}

std::optional<Http::EntityTag> Http::ParseEntityTag(std::string_view text)
{
    size_t pos = 0;
    SkipOws(text, pos);
    auto tag = TagAt(text, pos);
    SkipOws(text, pos);
    if (!tag || pos != text.size())
        return std::nullopt;
    return tag;
}

std::optional<Http::EntityTagList> Http::ParseEntityTagList(const std::vector<std::string_view>& fieldValues)
{
    EntityTagList list;
    size_t stars = 0;
    for (const auto value : fieldValues) {
        size_t pos = 0;
        for (;;) {
            // RFC 9110 5.6.1: OWS around elements, empty elements ignored
            while (pos < value.size() && (IsOws(value[pos]) || value[pos] == ','))
                ++pos;
            if (pos >= value.size())
                break;
            if (value[pos] == '*') {
                ++stars;
                ++pos;
            } else {
                auto tag = TagAt(value, pos);
                if (!tag)
                    return std::nullopt;
                list.tags.push_back(*tag);
            }
            SkipOws(value, pos);
            if (pos < value.size() && value[pos] != ',')
                return std::nullopt; // junk after an element
        }
    }
    // "*" is the whole field value or nothing: `*, "a"` and `*, *` are not the grammar
    if (stars > 1 || (stars == 1 && !list.tags.empty()))
        return std::nullopt;
    if (stars == 0 && list.tags.empty())
        return std::nullopt;
    list.isAny = stars == 1;
    return list;
}

std::optional<bool> Http::EvaluateIfMatch(const std::vector<std::string_view>& fieldValues,
                                          const std::optional<EntityTag>& current)
{
    const auto list = ParseEntityTagList(fieldValues);
    if (!list)
        return std::nullopt;
    // RFC 9110 13.1.1: "*" is true when a current representation exists,
    // and it does: we evaluate against a stored reply
    if (list->isAny)
        return true;
    return current && list->hasStrongMatch(*current);
}

std::optional<bool> Http::EvaluateIfNoneMatch(const std::vector<std::string_view>& fieldValues,
                                              const std::optional<EntityTag>& current)
{
    const auto list = ParseEntityTagList(fieldValues);
    if (!list)
        return std::nullopt;
    // RFC 9110 13.1.2: "*" is false when a current representation exists
    if (list->isAny)
        return false;
    return !(current && list->hasWeakMatch(*current));
}
