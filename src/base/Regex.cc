/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "base/Regex.h"

Regex::Regex(const std::string& pattern, bool caseInsensitive)
    : ignoresCase_(caseInsensitive), pattern_(pattern)
{
    const int flags = REG_EXTENDED | REG_NOSUB | (caseInsensitive ? REG_ICASE : 0);
    const int code = regcomp(&compiled_, pattern.c_str(), flags);
    if (code == 0) {
        valid_ = true;
        return;
    }
    char text[256];
    regerror(code, &compiled_, text, sizeof(text));
    error_ = text;
}

Regex::~Regex()
{
    if (valid_)
        regfree(&compiled_);
}

bool Regex::matches(const std::string& text) const
{
    return valid_ && regexec(&compiled_, text.c_str(), 0, nullptr, 0) == 0;
}

bool Regex::matches(std::string_view text) const
{
    if (!valid_)
        return false;
    // glibc's REG_STARTEND reads the bounds from pmatch[0] even with REG_NOSUB
    regmatch_t bounds{};
    bounds.rm_so = 0;
    bounds.rm_eo = static_cast<regoff_t>(text.size());
    return regexec(&compiled_, text.data(), 1, &bounds, REG_STARTEND) == 0;
}
