/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/Policy.h"

namespace {

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

std::optional<Store::PolicyKind> Store::ParsePolicy(std::string_view words)
{
    const auto type = NextWord(words);
    const auto keyType = NextWord(words);
    if (!NextWord(words).empty())
        return std::nullopt;
    if (type == "lru")
        return keyType.empty() ? std::optional(PolicyKind::Lru) : std::nullopt;
    if (type != "heap")
        return std::nullopt;
    if (keyType.empty() || keyType == "GDSF") // Squid: "heap" alone is GDSF
        return PolicyKind::HeapGdsf;
    if (keyType == "LFUDA")
        return PolicyKind::HeapLfuda;
    if (keyType == "LRU")
        return PolicyKind::HeapLru;
    return std::nullopt;
}
