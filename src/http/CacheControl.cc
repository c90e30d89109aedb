/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/CacheControl.h"
#include "http/FieldSyntax.h"

#include <algorithm>

using Http::IsOws;

namespace {

/// one element of a `#( token [ "=" ( token / quoted-string ) ] )` list
struct Element {
    std::string_view name;  ///< empty when the element does not start with a token
    bool hasValue = false;  ///< "=" followed by something
    bool quoted = false;    ///< the value was a quoted-string
    std::string_view value; ///< the token, or the quoted-string's content (escapes kept)
    bool malformed = false; ///< not the grammar; the walker skipped to the next element
};

/// Walks the elements of one field value, honouring quoted-strings, so a
/// comma inside `"..."` never splits an element.
class ListWalker {
public:
    explicit ListWalker(std::string_view s) : s_(s) {}

    /// the next non-empty element; false at the end of the value
    bool next(Element& e)
    {
        while (pos_ < s_.size() && (IsOws(s_[pos_]) || s_[pos_] == ','))
            ++pos_;
        if (pos_ >= s_.size())
            return false;
        e = Element();

        const size_t nameStart = pos_;
        while (pos_ < s_.size() && Http::IsTokenChar(s_[pos_]))
            ++pos_;
        e.name = s_.substr(nameStart, pos_ - nameStart);
        if (e.name.empty())
            return skipMalformed(e);

        skipOws();
        if (atElementEnd())
            return true;
        if (s_[pos_] != '=')
            return skipMalformed(e);
        ++pos_;
        skipOws(); // BWS around "=", tolerated as most recipients do
        e.hasValue = true;
        if (pos_ < s_.size() && s_[pos_] == '"') {
            const size_t start = pos_ + 1;
            if (!skipQuoted()) {
                e.malformed = true; // unterminated: the rest of the line is lost
                return true;
            }
            e.quoted = true;
            e.value = s_.substr(start, pos_ - 1 - start);
        } else {
            const size_t start = pos_;
            while (pos_ < s_.size() && Http::IsTokenChar(s_[pos_]))
                ++pos_;
            e.value = s_.substr(start, pos_ - start);
            if (e.value.empty())
                return skipMalformed(e);
        }
        skipOws();
        if (!atElementEnd())
            return skipMalformed(e);
        return true;
    }

private:
    void skipOws()
    {
        while (pos_ < s_.size() && IsOws(s_[pos_]))
            ++pos_;
    }

    bool atElementEnd() const { return pos_ >= s_.size() || s_[pos_] == ','; }

    /// at a DQUOTE: moves past the closing one; false (at the end) when there is none
    bool skipQuoted()
    {
        ++pos_;
        while (pos_ < s_.size()) {
            const char c = s_[pos_];
            if (c == '\\') {
                pos_ += 2; // quoted-pair
                continue;
            }
            ++pos_;
            if (c == '"')
                return true;
        }
        pos_ = s_.size();
        return false;
    }

    /// marks e malformed and moves to the next top-level comma
    bool skipMalformed(Element& e)
    {
        e.malformed = true;
        while (pos_ < s_.size() && s_[pos_] != ',') {
            if (s_[pos_] == '"')
                skipQuoted();
            else
                ++pos_;
        }
        return true;
    }

    std::string_view s_;
    size_t pos_ = 0;
};

/// the value with quoted-pairs resolved; storage holds it when a copy was needed
std::string_view ValueText(const Element& e, std::string& storage)
{
    if (!e.quoted || e.value.find('\\') == std::string_view::npos)
        return e.value;
    storage.clear();
    for (size_t i = 0; i < e.value.size(); ++i) {
        if (e.value[i] == '\\' && i + 1 < e.value.size())
            ++i;
        storage += e.value[i];
    }
    return storage;
}

/// appends the lowercased field names of a no-cache or private argument;
/// false (nothing appended) when an element is not a token or there is none
bool AppendFieldNames(std::string_view text, std::vector<std::string>& out)
{
    std::vector<std::string> names;
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t end = text.find(',', pos);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view item = text.substr(pos, end - pos);
        while (!item.empty() && IsOws(item.front()))
            item.remove_prefix(1);
        while (!item.empty() && IsOws(item.back()))
            item.remove_suffix(1);
        if (!item.empty()) {
            std::string name;
            for (const char c : item) {
                if (!Http::IsTokenChar(c))
                    return false;
                name += (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
            }
            names.push_back(std::move(name));
        }
        pos = end + 1;
    }
    if (names.empty())
        return false;
    for (auto& n : names) {
        if (std::find(out.begin(), out.end(), n) == out.end())
            out.push_back(std::move(n));
    }
    return true;
}

/// the directives with one value, for "the first occurrence wins"
enum Seen : unsigned {
    SeenMaxAge = 1u << 0,
    SeenSMaxAge = 1u << 1,
    SeenMaxStale = 1u << 2,
    SeenMinFresh = 1u << 3,
    SeenStaleWhileRevalidate = 1u << 4,
    SeenStaleIfError = 1u << 5,
};

/// whether this is the first occurrence of a single-valued directive (and remembers it)
bool First(unsigned& seen, Seen which)
{
    if (seen & which)
        return false;
    seen |= which;
    return true;
}

/// a delta-seconds argument of a well-formed element, or nullopt
std::optional<uint64_t> DeltaOf(const Element& e)
{
    if (e.malformed || !e.hasValue)
        return std::nullopt;
    std::string storage;
    return Http::ParseDeltaSeconds(ValueText(e, storage));
}

/// max-age and s-maxage: a bad value is remembered as invalid (stale)
void SetAge(const Element& e, std::optional<uint64_t>& age, bool& invalid)
{
    age = DeltaOf(e);
    invalid = !age;
}

/// no-cache and private: unqualified unless a well-formed list of names follows
void SetQualified(const Element& e, bool& unqualified, std::vector<std::string>& fields)
{
    if (e.malformed || !e.hasValue) {
        unqualified = true;
        return;
    }
    std::string storage;
    if (!AppendFieldNames(ValueText(e, storage), fields))
        unqualified = true; // most restrictive reading of a list we cannot use
}

/// a directive that relaxes something counts only when well-formed and without argument
bool IsPlainFlag(const Element& e)
{
    return !e.malformed && !e.hasValue;
}

using Http::EqualsIgnoreCase;

void Apply(Http::CacheControl& cc, const Element& e, unsigned& seen)
{
    const auto n = e.name;
    if (EqualsIgnoreCase(n, "max-age")) {
        if (First(seen, SeenMaxAge))
            SetAge(e, cc.maxAge, cc.maxAgeInvalid);
    } else if (EqualsIgnoreCase(n, "s-maxage")) {
        if (First(seen, SeenSMaxAge))
            SetAge(e, cc.sMaxAge, cc.sMaxAgeInvalid);
    } else if (EqualsIgnoreCase(n, "no-store")) {
        cc.noStore = true;
    } else if (EqualsIgnoreCase(n, "no-cache")) {
        SetQualified(e, cc.noCache, cc.noCacheFields);
    } else if (EqualsIgnoreCase(n, "private")) {
        SetQualified(e, cc.isPrivate, cc.privateFields);
    } else if (EqualsIgnoreCase(n, "no-transform")) {
        cc.noTransform = true;
    } else if (EqualsIgnoreCase(n, "must-revalidate")) {
        cc.mustRevalidate = true;
    } else if (EqualsIgnoreCase(n, "proxy-revalidate")) {
        cc.proxyRevalidate = true;
    } else if (EqualsIgnoreCase(n, "public")) {
        cc.isPublic = cc.isPublic || IsPlainFlag(e);
    } else if (EqualsIgnoreCase(n, "must-understand")) {
        cc.mustUnderstand = cc.mustUnderstand || IsPlainFlag(e);
    } else if (EqualsIgnoreCase(n, "immutable")) {
        cc.immutable = cc.immutable || IsPlainFlag(e);
    } else if (EqualsIgnoreCase(n, "only-if-cached")) {
        cc.onlyIfCached = cc.onlyIfCached || IsPlainFlag(e);
    } else if (EqualsIgnoreCase(n, "max-stale")) {
        if (First(seen, SeenMaxStale)) {
            if (IsPlainFlag(e))
                cc.maxStaleAny = true;
            else
                cc.maxStale = DeltaOf(e);
        }
    } else if (EqualsIgnoreCase(n, "min-fresh")) {
        if (First(seen, SeenMinFresh))
            cc.minFresh = DeltaOf(e);
    } else if (EqualsIgnoreCase(n, "stale-while-revalidate")) {
        if (First(seen, SeenStaleWhileRevalidate))
            cc.staleWhileRevalidate = DeltaOf(e);
    } else if (EqualsIgnoreCase(n, "stale-if-error")) {
        if (First(seen, SeenStaleIfError))
            cc.staleIfError = DeltaOf(e);
    } else if (!e.malformed) {
        cc.hasUnknown = true;
    }
}

} // namespace

bool Http::CacheControl::hasKnown() const
{
    return maxAge || maxAgeInvalid || noStore || noCache || !noCacheFields.empty() || noTransform ||
           sMaxAge || sMaxAgeInvalid || isPrivate || !privateFields.empty() || isPublic || mustRevalidate ||
           proxyRevalidate || mustUnderstand || immutable || staleWhileRevalidate || staleIfError ||
           maxStale || maxStaleAny || minFresh || onlyIfCached;
}

Http::CacheControl Http::ParseCacheControl(const std::vector<std::string_view>& fieldValues)
{
    CacheControl cc;
    unsigned seen = 0;
    for (const auto value : fieldValues) {
        ListWalker walker(value);
        Element e;
        while (walker.next(e)) {
            if (!e.name.empty())
                Apply(cc, e, seen);
        }
    }
    return cc;
}

bool Http::PragmaHasNoCache(const std::vector<std::string_view>& fieldValues)
{
    for (const auto value : fieldValues) {
        ListWalker walker(value);
        Element e;
        while (walker.next(e)) {
            if (EqualsIgnoreCase(e.name, "no-cache"))
                return true;
        }
    }
    return false;
}

std::vector<std::string_view> Http::FieldValues(FieldsView fields, std::string_view name)
{
    std::vector<std::string_view> values;
    for (const auto& f : fields) {
        if (EqualsIgnoreCase(f.name, name))
            values.push_back(f.value);
    }
    return values;
}

std::optional<uint64_t> Http::ParseDeltaSeconds(std::string_view text)
{
    if (text.empty())
        return std::nullopt;
    uint64_t v = 0;
    for (const char c : text) {
        if (c < '0' || c > '9')
            return std::nullopt;
        // RFC 9111 1.2.2: a value greater than the greatest integer we can
        // represent is sent on as 2^31; stop growing there, so no overflow
        if (v < MaxDeltaSeconds)
            v = v * 10 + uint64_t(c - '0');
    }
    return std::min(v, MaxDeltaSeconds);
}
