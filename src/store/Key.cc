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

/// How a field's list is normalised by knowledge of its semantics (RFC 9111
/// section 4.1): see the file comment in Key.h.
enum class WeightedList {
    None,      ///< not a weighted list cuttle knows: the generic normalisation
    Languages, ///< Accept-Language: members of equal weight keep their order
    Codings    ///< Accept-Encoding: members of equal weight are sorted too
};

WeightedList WeightedListOf(std::string_view lowercaseName)
{
    if (lowercaseName == "accept-language")
        return WeightedList::Languages;
    if (lowercaseName == "accept-encoding")
        return WeightedList::Codings;
    return WeightedList::None;
}

/// A qvalue (RFC 9110 section 12.4.2) in thousandths, or nullopt.
std::optional<unsigned> ParseQvalue(std::string_view text)
{
    if (text.empty() || (text[0] != '0' && text[0] != '1'))
        return std::nullopt;
    unsigned q = unsigned(text[0] - '0') * 1000;
    if (text.size() == 1)
        return q;
    if (text[1] != '.' || text.size() > 5)
        return std::nullopt;
    unsigned scale = 100;
    for (const char c : text.substr(2)) {
        if (c < '0' || c > '9' || (q == 1000 && c != '0'))
            return std::nullopt;
        q += unsigned(c - '0') * scale;
        scale /= 10;
    }
    return q;
}

/// The normalised form of an Accept-Language or Accept-Encoding value, or
/// nullopt when a member is not `token [ OWS ";" OWS "q=" qvalue ]`.
std::optional<std::string> NormaliseWeightedList(std::string_view combined, WeightedList kind)
{
    struct Member {
        std::string value;
        unsigned q;
    };
    std::vector<Member> members;
    bool valid = true;
    ForEachListElement(combined, [&](std::string_view element) {
        if (element.empty() || !valid)
            return;
        const auto semicolon = element.find(';');
        const auto value = TrimOws(element.substr(0, semicolon));
        unsigned q = 1000;
        if (semicolon != std::string_view::npos) {
            const auto weight = TrimOws(element.substr(semicolon + 1));
            const auto parsed =
                weight.size() > 2 && (weight[0] == 'q' || weight[0] == 'Q') && weight[1] == '='
                    ? ParseQvalue(weight.substr(2))
                    : std::nullopt;
            if (!parsed) {
                valid = false;
                return;
            }
            q = *parsed;
        }
        if (value.empty() || !std::all_of(value.begin(), value.end(), Http::IsTokenChar)) {
            valid = false;
            return;
        }
        std::string lowered(value);
        std::transform(lowered.begin(), lowered.end(), lowered.begin(), Lower);
        // RFC 9110 section 8.4.1: x-gzip and x-compress are gzip and compress
        if (kind == WeightedList::Codings && (lowered == "x-gzip" || lowered == "x-compress"))
            lowered.erase(0, 2);
        members.push_back({std::move(lowered), q});
    });
    if (!valid)
        return std::nullopt;
    std::stable_sort(members.begin(), members.end(), [kind](const Member& a, const Member& b) {
        if (a.q != b.q)
            return a.q > b.q;
        return kind == WeightedList::Codings && a.value < b.value;
    });
    std::string out;
    for (const auto& m : members) {
        if (!out.empty())
            out += ',';
        out += m.value;
        if (m.q == 0) {
            out += ";q=0";
        } else if (m.q != 1000) {
            // the shortest form: 0.5, 0.05, 0.125
            std::string digits{char('0' + m.q / 100), char('0' + m.q / 10 % 10), char('0' + m.q % 10)};
            digits.erase(digits.find_last_not_of('0') + 1);
            out += ";q=0.";
            out += digits;
        }
    }
    return out;
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
            const auto kind = WeightedListOf(name);
            const auto weighted =
                kind == WeightedList::None ? std::nullopt : NormaliseWeightedList(combined, kind);
            if (weighted)
                key += *weighted;
            else
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

Store::KeyHash Store::HashKey(std::string_view key)
{
    KeyHash hash{14695981039346656037ULL, 1099511628211ULL * 31};
    for (const unsigned char c : key) {
        hash.a = (hash.a ^ c) * 1099511628211ULL;
        hash.b = (hash.b ^ c) * 1099511628211ULL;
    }
    return hash;
}

std::string Store::VaryNamesOfVariantKey(std::string_view key)
{
    const auto lf = key.find('\n');
    if (lf == std::string_view::npos)
        return std::string();
    std::string names;
    // vary key = *( name [ ":" value ] LF )
    for (auto rest = key.substr(lf + 1); !rest.empty();) {
        const auto end = rest.find('\n');
        const auto line = rest.substr(0, end);
        if (!names.empty())
            names += ',';
        names += line.substr(0, line.find(':'));
        rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    }
    return names;
}

std::string Store::FullKeyOf(std::string_view key, std::string_view varyNames,
                             const std::vector<Http::HeaderField>& requestFields)
{
    Must(!IsVaryAny(varyNames));
    return varyNames.empty() ? std::string(key) : MakeVariantKey(key, *VaryKey(varyNames, requestFields));
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
