/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/RegexNode.h"
#include "acl/DomainNode.h"
#include "acl/AccessList.h"
#include "base/Regex.h"

#include <cctype>

#include <algorithm>
#include <strings.h>

namespace Acl {

RegexNode::RegexNode(std::string name, std::string typeName, Subject subject)
    : Node(std::move(name), std::move(typeName)), subject_(subject)
{}

RegexNode::~RegexNode() = default;

bool RegexNode::acceptsOption(const std::string& option) const
{
    // dstdom_regex also takes -n (no reverse lookup), which is what cuttle always does
    return option == "-i" || option == "+i" || (subject_ == Subject::DstDomain && option == "-n") ||
           (subject_ == Subject::ServerName && IsServerNameOption(option));
}

void RegexNode::beginLine(const std::vector<std::string>& options)
{
    lineIgnoresCase_ = false;
    for (const auto& o : options) {
        if (o == "-i")
            lineIgnoresCase_ = true;
        else if (o == "+i")
            lineIgnoresCase_ = false;
        else if (IsServerNameOption(o))
            source_ = ServerNameOption(o);
    }
}

bool RegexNode::addValues(const std::vector<std::string>& values, std::string& why, std::vector<std::string>&)
{
    size_t i = 0;
    if (subject_ == Subject::RequestHeader || subject_ == Subject::ReplyHeader) {
        if (values.empty()) {
            why = "missing header name";
            return false;
        }
        if (fieldName_.empty()) {
            fieldName_ = values[0];
        } else if (strcasecmp(fieldName_.c_str(), values[0].c_str()) != 0) {
            why = "one acl cannot match both the " + fieldName_ + " and the " + values[0] +
                  " header; use an any-of acl instead (as Squid says)";
            return false;
        }
        i = 1;
    }
    bool ignoreCase = lineIgnoresCase_;
    std::vector<std::unique_ptr<Regex>> added;
    for (; i < values.size(); ++i) {
        const auto& v = values[i];
        if (v == "-i" || v == "+i") {
            ignoreCase = v == "-i";
            continue;
        }
        auto regex = std::make_unique<Regex>(v, ignoreCase);
        if (!regex->isValid()) {
            why = "invalid regular expression '" + v + "': " + regex->error();
            return false;
        }
        added.push_back(std::move(regex));
    }
    Combine(added, patterns_);
    return true;
}

namespace {

/// Squid 5.7's bound on one combined expression (RegexData.cc: BUFSIZ).
constexpr size_t MaxCombinedLength = 8192 - 1;

/// Whether `pattern` refers back to a group (`\1`...): joined with others,
/// its numbers would name their groups.
bool HasBackReference(const std::string& pattern)
{
    for (size_t i = 0; i + 1 < pattern.size(); ++i) {
        if (pattern[i] == '\\') {
            if (std::isdigit(static_cast<unsigned char>(pattern[i + 1])))
                return true;
            ++i;
        }
    }
    return false;
}

} // namespace

void RegexNode::Combine(std::vector<std::unique_ptr<Regex>>& checked,
                        std::vector<std::unique_ptr<Regex>>& out)
{
    // Squid 5.7 (RegexData.cc compileOptimisedREs) joins the expressions of
    // one acl line with '|' into as few as it can, up to its bound, case
    // sensitivity alike: one regexec() per group instead of one per
    // expression. An expression that cannot be joined (a back reference), or
    // a group that would not compile, stays as it was checked.
    size_t start = 0;
    while (start < checked.size()) {
        size_t end = start;
        std::string joined;
        while (end < checked.size() && !HasBackReference(checked[end]->pattern()) &&
               checked[end]->ignoresCase() == checked[start]->ignoresCase() &&
               joined.size() + 1 + checked[end]->pattern().size() <= MaxCombinedLength) {
            joined += (end == start ? "" : "|") + checked[end]->pattern();
            ++end;
        }
        if (end - start >= 2) {
            auto group = std::make_unique<Regex>(joined, checked[start]->ignoresCase());
            if (group->isValid()) {
                out.push_back(std::move(group));
                start = end;
                continue;
            }
        }
        out.push_back(std::move(checked[start]));
        ++start;
    }
}

std::optional<std::string_view> RegexNode::subjectOf(const Checklist& facts,
                                                     std::optional<std::string>& field) const
{
    switch (subject_) {
    case Subject::Url:
        return std::string_view(facts.url);
    case Subject::UrlPath:
        return std::string_view(facts.urlPath);
    case Subject::DstDomain:
        return std::string_view(facts.dstHost);
    case Subject::ExtUser:
        field = facts.noteValue("user");
        if (field->empty())
            return std::nullopt; // no helper named one
        break;
    case Subject::SrcDomain: {
        auto name = facts.addressName(facts.srcAddr);
        if (!name)
            return std::nullopt; // looked up first: the check stops (Pending)
        field = std::move(*name);
        break;
    }
    case Subject::ServerName:
        return std::nullopt; // several names: match() asks each
    case Subject::PeerName:
        if (facts.peerName.empty())
            return std::nullopt;
        return std::string_view(facts.peerName);
    case Subject::Browser:
    case Subject::Referer:
    case Subject::RequestHeader:
    case Subject::RequestMimeType:
        if (facts.request)
            field =
                facts.request->get(subject_ == Subject::Browser           ? std::string_view("User-Agent")
                                   : subject_ == Subject::Referer         ? std::string_view("Referer")
                                   : subject_ == Subject::RequestMimeType ? std::string_view("Content-Type")
                                                                          : std::string_view(fieldName_));
        break;
    case Subject::ReplyHeader:
    case Subject::ReplyMimeType:
        if (!facts.reply)
            return std::nullopt;
        field = facts.reply->get(subject_ == Subject::ReplyHeader ? std::string_view(fieldName_)
                                                                  : std::string_view("Content-Type"));
        if (!field && subject_ == Subject::ReplyMimeType)
            field.emplace();
        break;
    }
    if (!field)
        return std::nullopt;
    return std::string_view(*field);
}

bool RegexNode::match(const Checklist& facts) const
{
    if (subject_ == Subject::ServerName) {
        const auto names = facts.tlsServerNames(source_);
        return std::any_of(names.begin(), names.end(), [this](const std::string& name) {
            return std::any_of(patterns_.begin(), patterns_.end(),
                               [&name](const std::unique_ptr<Regex>& r) { return r->matches(name); });
        });
    }
    std::optional<std::string> field;
    const auto text = subjectOf(facts, field);
    if (!text)
        return false;
    return std::any_of(patterns_.begin(), patterns_.end(),
                       [&text](const std::unique_ptr<Regex>& r) { return r->matches(*text); });
}

} // namespace Acl
