/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Entity-tags (RFC 9110 section 8.8.3) and the If-Match and
/// If-None-Match preconditions a cache evaluates against a stored reply
/// (RFC 9110 sections 13.1.1, 13.1.2 and 13.2.2, RFC 9111 section 4.3.2).
///
/// Layout and ownership: an EntityTag is two words, a view of the
/// opaque-tag (the bytes between the quotes) and a weakness flag. It points
/// into the text it was parsed from (a stored reply head or a request head)
/// and is valid while those bytes are; nothing here copies a tag.
///
///     W/"xyzzy"        weak, opaque "xyzzy"
///       |<--->|        opaque() view (quotes excluded)
///     "xyzzy"          strong, opaque "xyzzy"
///     ""               strong, empty opaque (etagc* allows it)
///
/// Grammar, strictly: `entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE` with
/// etagc = %x21 / %x23-7E / obs-text. "W/" is case-sensitive; a tag with
/// no quotes, a space or a DQUOTE inside, or anything after the closing
/// quote is rejected. A comma IS an etagc, so a list is split by walking
/// the tags, never by searching for commas.
///
/// Lists: `If-Match` and `If-None-Match` are `"*" / #entity-tag`, possibly
/// over several field lines. Optional whitespace around elements and empty
/// elements (`, ,`) are tolerated (RFC 9110 section 5.6.1); one malformed
/// element, `*` mixed with tags, or no element at all makes the whole field
/// invalid, and an invalid precondition is evaluated as if it were absent
/// (nullopt below), which is what a server that cannot parse it does in
/// practice and never turns a good request into a 412.
///
/// Comparison (RFC 9110 section 8.8.3.2): strong when both tags are strong
/// and their opaque-tags are identical octet by octet; weak when the
/// opaque-tags are identical, whatever the flags. If-Match uses the strong
/// function, If-None-Match the weak one.
///
/// Every function is pure and thread-safe.

#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Http {

/// One entity-tag; see the file comment.
class EntityTag {
public:
    /// an empty strong tag ("")
    EntityTag() = default;
    /// a tag with this opaque-tag (quotes excluded, not validated)
    EntityTag(std::string_view opaque, bool weak) : opaque_(opaque), weak_(weak) {}

    /// the bytes between the quotes
    std::string_view opaque() const { return opaque_; }
    /// whether the tag was sent with the W/ prefix
    bool isWeak() const { return weak_; }

    /// strong comparison: both strong and the same opaque-tag
    bool strongMatch(const EntityTag& other) const
    {
        return !weak_ && !other.weak_ && opaque_ == other.opaque_;
    }
    /// weak comparison: the same opaque-tag, weakness ignored
    bool weakMatch(const EntityTag& other) const { return opaque_ == other.opaque_; }

    /// the tag as a field value: `W/"opaque"` or `"opaque"`
    std::string toString() const;

private:
    std::string_view opaque_;
    bool weak_ = false;
};

/// The list of an If-Match or If-None-Match request: `*` or tags.
struct EntityTagList {
    bool isAny = false;          ///< the field was `*`
    std::vector<EntityTag> tags; ///< the tags in the order sent (empty when isAny)

    /// whether a tag of the list matches `current` by strong comparison
    bool hasStrongMatch(const EntityTag& current) const;
    /// whether a tag of the list matches `current` by weak comparison
    bool hasWeakMatch(const EntityTag& current) const;
};

/// Parses one entity-tag (surrounding whitespace tolerated), e.g. an ETag
/// field value; nullopt when it is not exactly one valid entity-tag.
std::optional<EntityTag> ParseEntityTag(std::string_view text);

/// Parses the values of every If-Match (or If-None-Match) field line of a
/// request, in order; nullopt when the field is malformed or lists nothing.
std::optional<EntityTagList> ParseEntityTagList(const std::vector<std::string_view>& fieldValues);

/// Evaluates If-Match against a stored reply whose ETag is `current`
/// (nullopt: the reply has none): true when the field is `*` or lists a
/// tag that strongly matches current, false otherwise (412), nullopt when
/// there is no field or it is malformed (evaluate as if absent).
std::optional<bool> EvaluateIfMatch(const std::vector<std::string_view>& fieldValues,
                                    const std::optional<EntityTag>& current);

/// Evaluates If-None-Match against a stored reply whose ETag is `current`
/// (nullopt: the reply has none): false when the field is `*` or lists a
/// tag that weakly matches current (304 for GET/HEAD, else 412), true
/// otherwise, nullopt when there is no field or it is malformed.
std::optional<bool> EvaluateIfNoneMatch(const std::vector<std::string_view>& fieldValues,
                                        const std::optional<EntityTag>& current);

} // namespace Http
