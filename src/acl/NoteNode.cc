/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/NoteNode.h"
#include "acl/AccessList.h"
#include "base/Text.h"

#include <algorithm>

namespace Acl {

NoteNode::NoteNode(std::string name, std::string typeName, Subject subject)
    : Node(std::move(name), std::move(typeName)), subject_(subject)
{}

bool NoteNode::acceptsOption(const std::string& option) const
{
    switch (subject_) {
    case Subject::Note:
        return option == "-m" || option.rfind("-m=", 0) == 0;
    case Subject::ExtUser:
        return option == "-i" || option == "+i";
    case Subject::Tag:
        break;
    }
    return false;
}

void NoteNode::beginLine(const std::vector<std::string>& options)
{
    ignoreCase_ = false;
    delimiters_.clear();
    for (const auto& o : options) {
        if (o == "-i")
            ignoreCase_ = true;
        else if (o == "-m")
            delimiters_ = ",";
        else if (o.rfind("-m=", 0) == 0)
            delimiters_ = o.size() > 3 ? o.substr(3) : ",";
    }
}

bool NoteNode::addValues(const std::vector<std::string>& values, std::string& why, std::vector<std::string>&)
{
    if (values.empty())
        return true;
    Wanted w;
    w.ignoreCase = ignoreCase_;
    w.delimiters = delimiters_;
    auto first = values.begin();
    if (subject_ == Subject::Note) {
        w.key = *first++;
        w.anyValue = first == values.end();
    } else {
        w.key = subject_ == Subject::ExtUser ? "user" : "tag";
    }
    for (; first != values.end(); ++first) {
        if (subject_ == Subject::ExtUser && *first == "REQUIRED")
            w.anyValue = true;
        else
            w.values.insert(w.ignoreCase ? AsciiLowercase(*first) : *first);
    }
    if (w.key.empty()) {
        why = "missing the note name";
        return false;
    }
    wanted_.push_back(std::move(w));
    return true;
}

bool NoteNode::ValueMatches(const Wanted& wanted, const std::string& value)
{
    if (wanted.anyValue)
        return true;
    const auto one = [&wanted](const std::string& v) {
        return wanted.values.count(wanted.ignoreCase ? AsciiLowercase(v) : v) != 0;
    };
    if (wanted.delimiters.empty())
        return one(value);
    size_t pos = 0;
    while (pos <= value.size()) {
        auto end = value.find_first_of(wanted.delimiters, pos);
        if (end == std::string::npos)
            end = value.size();
        if (one(value.substr(pos, end - pos)))
            return true;
        pos = end + 1;
    }
    return false;
}

bool NoteNode::match(const Checklist& facts) const
{
    return std::any_of(wanted_.begin(), wanted_.end(), [&facts](const Wanted& w) {
        return std::any_of(facts.notes.begin(), facts.notes.end(),
                           [&w](const Note& n) { return n.first == w.key && ValueMatches(w, n.second); });
    });
}

} // namespace Acl
