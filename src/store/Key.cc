/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "store/Key.h"
#include "http/FieldSyntax.h"
#include "base/TextException.h"
#include "http/Url.h"

#include <algorithm>

using Http::TrimOws;

namespace {

char Lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
}

/// Calls visit(element) for each element of a comma-separated list, trimmed of
/// OWS; commas inside a quoted-string (RFC 9110 section 5.6.4) do not split.
template <class Visit>
void ForEachListElement(std::string_view list, Visit visit)
{
    size_t start = 0;
    bool quoted = false;
    for (size_t i = 0; i < list.size(); ++i) {
        const char c = list[i];
        if (quoted) {
            if (c == '\\')
                ++i; // quoted-pair: the next byte is literal
            else if (c == '"')
                quoted = false;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            visit(TrimOws(list.substr(start, i - start)));
            start = i + 1;
        }
    }
    visit(TrimOws(list.substr(std::min(start, list.size()))));
}

/// A field value as a list: elements trimmed, empty ones dropped, joined with ",".
void AppendNormalisedValue(std::string& out, std::string_view combined)
{
    bool first = true;
    ForEachListElement(combined, [&](std::string_view element) {
        if (element.empty())
            return; // RFC 9110 section 5.6.1: empty elements do not count
        if (!first)
            out += ',';
        out.append(element);
        first = false;
    });
}

/// The vary key for normalised names (not "*").
std::string KeyOfNames(std::string_view names, const std::vector<Http::HeaderField>& fields)
{
    std::string key;
    if (names.empty())
        return key;
    std::string combined;
    size_t start = 0;
    while (start <= names.size()) {
        const auto comma = std::min(names.find(',', start), names.size());
        const auto name = names.substr(start, comma - start);
        start = comma + 1;
        combined.clear();
        bool present = false;
        for (const auto& field : fields) {
            if (!Http::EqualsIgnoreCase(field.name, name))
                continue;
            if (present)
                combined += ','; // RFC 9110 section 5.3: field lines combine in order
            combined.append(field.value);
            present = true;
        }
        key.append(name);
        if (present) {
            key += ':';
            AppendNormalisedValue(key, combined);
        }
        key += '\n';
    }
    return key;
}

} // namespace

std::string Store::MakeKey(std::string_view method, std::string_view canonicalUrl)
{
    // the key's separators must not occur in the URL (canonical() guarantees it)
    Must(std::none_of(canonicalUrl.begin(), canonicalUrl.end(),
                      [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f; }));
    if (method == "HEAD")
        method = "GET"; // Squid 5.7: a HEAD is answered from the stored GET
    std::string key;
    key.reserve(method.size() + 1 + canonicalUrl.size());
    key.append(method).append(1, ' ').append(canonicalUrl);
    return key;
}

std::optional<std::string> Store::MakeKeyFromUrl(std::string_view method, std::string_view absoluteUrl)
{
    Http::Url url;
    if (!url.parse(absoluteUrl))
        return std::nullopt;
    return MakeKey(method, url.canonical());
}

std::string Store::MakeVariantKey(std::string_view key, std::string_view varyKey)
{
    std::string out;
    out.reserve(key.size() + 1 + varyKey.size());
    out.append(key).append(1, '\n').append(varyKey);
    return out;
}

std::string_view Store::BaseKey(std::string_view key)
{
    return key.substr(0, key.find('\n'));
}

std::string Store::VaryNames(std::span<const std::string_view> varyValues)
{
    std::vector<std::string> names;
    bool any = false;
    for (const auto value : varyValues) {
        ForEachListElement(value, [&](std::string_view element) {
            if (element.empty())
                return;
            if (element == "*" || !std::all_of(element.begin(), element.end(), Http::IsTokenChar)) {
                any = true; // RFC 9111 section 4.1: "*" never matches; a non-name cannot either
                return;
            }
            std::string name(element);
            std::transform(name.begin(), name.end(), name.begin(), Lower);
            names.push_back(std::move(name));
        });
    }
    if (any)
        return "*";
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::string out;
    for (const auto& name : names) {
        if (!out.empty())
            out += ',';
        out += name;
    }
    return out;
}

std::string Store::VaryNamesOf(Http::FieldsView responseFields)
{
    std::vector<std::string_view> values;
    for (const auto& field : responseFields) {
        if (Http::EqualsIgnoreCase(field.name, "Vary"))
            values.push_back(field.value);
    }
    return VaryNames(values);
}

std::optional<std::string> Store::VaryKey(std::span<const std::string_view> varyValues,
                                          const std::vector<Http::HeaderField>& requestFields)
{
    const auto names = VaryNames(varyValues);
    if (IsVaryAny(names))
        return std::nullopt;
    return KeyOfNames(names, requestFields);
}

std::optional<std::string> Store::VaryKey(std::string_view varyNames,
                                          const std::vector<Http::HeaderField>& requestFields)
{
    return VaryKey(std::span<const std::string_view>(&varyNames, 1), requestFields);
}

bool Store::VaryMatches(std::span<const std::string_view> varyValues, std::string_view storedVaryKey,
                        const std::vector<Http::HeaderField>& requestFields)
{
    const auto key = VaryKey(varyValues, requestFields);
    return key && *key == storedVaryKey;
}
