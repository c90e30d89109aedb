/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file libFuzzer harness of the entity-tag functions (http/ETag.h). The
/// input is one ETag value and, cut at each LF, the lines of an
/// If-Match / If-None-Match field. Properties checked, for any bytes:
/// - a tag that parses points into the input, holds no DQUOTE, space or
///   control byte, and its toString() parses back to the same tag;
/// - a strong match implies a weak match; a tag matches itself weakly, and
///   strongly exactly when it is strong;
/// - a list that parses is `*` alone or one or more tags, each of which
///   round-trips; EvaluateIfMatch and EvaluateIfNoneMatch agree with
///   hasStrongMatch and hasWeakMatch, and are nullopt exactly when the list
///   does not parse.

#include "cuttle.h"

#include "fuzz/Check.h"
#include "http/ETag.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

void CheckTag(const Http::EntityTag& tag)
{
    for (const char c : tag.opaque()) {
        const auto u = static_cast<unsigned char>(c);
        FUZZ_CHECK(c != '"' && u > 0x20 && u != 0x7f);
    }
    const auto text = tag.toString();
    FUZZ_CHECK(text.size() == tag.opaque().size() + 2 + (tag.isWeak() ? 2 : 0));
    const auto back = Http::ParseEntityTag(text);
    FUZZ_CHECK(back.has_value());
    FUZZ_CHECK(back->opaque() == tag.opaque() && back->isWeak() == tag.isWeak());
    FUZZ_CHECK(tag.weakMatch(tag));
    FUZZ_CHECK(tag.strongMatch(tag) == !tag.isWeak());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const auto text = Fuzz::AsText(data, size);

    const auto tag = Http::ParseEntityTag(text);
    if (tag) {
        FUZZ_CHECK(Fuzz::IsWithin(tag->opaque(), text.data(), text.size()));
        CheckTag(*tag);
    }

    const auto lines = Fuzz::SplitLines(text);
    const auto list = Http::ParseEntityTagList(lines);
    // the stored reply's tag: the first tag of the list, or a fixed one
    const Http::EntityTag stored("x", false);
    std::optional<Http::EntityTag> current = stored;
    if (list && !list->tags.empty())
        current = list->tags.front();
    const auto ifMatch = Http::EvaluateIfMatch(lines, current);
    const auto ifNoneMatch = Http::EvaluateIfNoneMatch(lines, current);
    FUZZ_CHECK(ifMatch.has_value() == list.has_value());
    FUZZ_CHECK(ifNoneMatch.has_value() == list.has_value());
    if (!list)
        return 0;
    FUZZ_CHECK(list->isAny != !list->tags.empty());
    for (const auto& t : list->tags) {
        FUZZ_CHECK(Fuzz::IsWithin(t.opaque(), text.data(), text.size()));
        CheckTag(t);
        if (t.strongMatch(*current))
            FUZZ_CHECK(t.weakMatch(*current));
    }
    FUZZ_CHECK(*ifMatch == (list->isAny || list->hasStrongMatch(*current)));
    FUZZ_CHECK(*ifNoneMatch == !(list->isAny || list->hasWeakMatch(*current)));
    if (!list->isAny)
        FUZZ_CHECK(list->hasWeakMatch(*current)); // current is the list's first tag
    return 0;
}
