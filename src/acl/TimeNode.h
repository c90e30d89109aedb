/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Acl::TimeNode: the `time` acl type.

#pragma once

#include "acl/Node.h"

#include <ctime>

namespace Acl {

/// `acl NAME time [DAYS] [h1:m1-h2:m2]...`: the local time is on one of the
/// days and inside the time range, both ends included, as Squid 5.7 reads it.
/// DAYS are letters: S M T W H F A (Sunday to Saturday) and D (Monday to
/// Friday); no letters means every day. Each time range takes the days
/// written before it on the line; days with no range after them cover the
/// whole day. `24:00` may end a range. A bad day letter or range, or a
/// reversed range, is an error (Squid logs the first and stops at the others).
class TimeNode : public Node {
public:
    /// An empty `time` acl.
    explicit TimeNode(std::string name);

    bool addValues(const std::vector<std::string>& values, std::string& why,
                   std::vector<std::string>& warnings) override;
    bool isEmpty() const override { return spans_.empty(); }
    bool match(const Checklist& facts) const override;

    /// Whether the local time `when` is inside one of the spans.
    bool matchesTime(time_t when) const;

private:
    struct Span {
        unsigned weekdays = 0; ///< bit n: tm_wday n (0 is Sunday)
        int start = 0;         ///< minutes after midnight
        int stop = 24 * 60;    ///< minutes after midnight, included
    };
    std::vector<Span> spans_;
};

} // namespace Acl
