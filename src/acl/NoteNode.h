/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::NoteNode: the `note`, `ext_user` and `tag` acl types.

#pragma once

#include "acl/Node.h"

#include <set>

namespace Acl {

/// Acls on the notes helpers returned (Checklist::notes), as Squid 5.7:
/// - `acl NAME note [-m[=DELIMITERS]] NOTE [VALUE...]`: the note NOTE is
///   there (with one of the values, if any); with -m a note's value is a
///   list (split at DELIMITERS, default ",") and any member may match.
///   More lines add more NOTE/VALUE pairs (OR).
/// - `acl NAME ext_user [-i] USER...|REQUIRED`: the user= of an external acl.
/// - `acl NAME tag TAG...`: the tag= of an external acl.
class NoteNode : public Node {
public:
    /// which notes the acl reads
    enum class Subject { Note, ExtUser, Tag };

    /// An empty acl of type `typeName` reading `subject`.
    NoteNode(std::string name, std::string typeName, Subject subject);

    bool acceptsOption(const std::string& option) const override;
    void beginLine(const std::vector<std::string>& options) override;
    bool takesWholeFileLines() const override { return subject_ != Subject::Note; }
    bool addValues(const std::vector<std::string>& values, std::string& why,
                   std::vector<std::string>& warnings) override;
    bool isEmpty() const override { return wanted_.empty(); }
    bool match(const Checklist& facts) const override;

private:
    /// one NOTE [VALUE...] line (ext_user and tag: the fixed note)
    struct Wanted {
        std::string key;              ///< the note's name
        std::set<std::string> values; ///< empty: any value
        bool anyValue = false;        ///< ext_user REQUIRED, or a note line without values
        bool ignoreCase = false;      ///< -i
        std::string delimiters;       ///< -m: split values at these; empty: whole values
    };

    /// whether one note value matches a wanted line
    static bool ValueMatches(const Wanted& wanted, const std::string& value);

    Subject subject_;
    bool ignoreCase_ = false; ///< the current line's -i
    std::string delimiters_;  ///< the current line's -m
    std::vector<Wanted> wanted_;
};

} // namespace Acl
