/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/RegexNode.h"
#include "acl/AccessList.h"
#include "base/Regex.h"

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
    return option == "-i" || option == "+i" || (subject_ == Subject::DstDomain && option == "-n");
}

void RegexNode::beginLine(const std::vector<std::string>& options)
{
    lineIgnoresCase_ = false;
    for (const auto& o : options) {
        if (o == "-i")
            lineIgnoresCase_ = true;
        else if (o == "+i")
            lineIgnoresCase_ = false;
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
    std::move(added.begin(), added.end(), std::back_inserter(patterns_));
    return true;
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
    std::optional<std::string> field;
    const auto text = subjectOf(facts, field);
    if (!text)
        return false;
    return std::any_of(patterns_.begin(), patterns_.end(),
                       [&text](const std::unique_ptr<Regex>& r) { return r->matches(*text); });
}

} // namespace Acl
