/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "auth/Basic.h"
#include "base/Text.h"
#include "helper/Reply.h"

#include <strings.h>

namespace {

/// The value of one base64 digit, or -1.
int Base64Digit(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

} // namespace

std::string Auth::Latin1ToUtf8(const std::string& text)
{
    std::string out;
    for (const unsigned char c : text) {
        if (c < 0x80) {
            out += static_cast<char>(c);
        } else {
            out += static_cast<char>(0xc0 | (c >> 6));
            out += static_cast<char>(0x80 | (c & 0x3f));
        }
    }
    return out;
}

std::optional<std::string> Auth::DecodeBase64(std::string_view text)
{
    while (!text.empty() && text.back() == '=')
        text.remove_suffix(1);
    std::string out;
    unsigned bits = 0;
    int count = 0;
    for (const unsigned char c : text) {
        const int digit = Base64Digit(c);
        if (digit < 0)
            return std::nullopt;
        bits = (bits << 6) | unsigned(digit);
        count += 6;
        if (count >= 8) {
            count -= 8;
            out += static_cast<char>((bits >> count) & 0xff);
        }
    }
    if (count >= 6) // one digit alone cannot end the text
        return std::nullopt;
    return out;
}

std::optional<Auth::Credentials> Auth::ParseBasic(std::string_view value)
{
    const auto isSpace = [](char c) { return c == ' ' || c == '\t'; };
    while (!value.empty() && isSpace(value.front()))
        value.remove_prefix(1);
    constexpr std::string_view scheme = "Basic";
    if (value.size() <= scheme.size() || strncasecmp(value.data(), scheme.data(), scheme.size()) != 0 ||
        !isSpace(value[scheme.size()]))
        return std::nullopt;
    value.remove_prefix(scheme.size());
    while (!value.empty() && isSpace(value.front()))
        value.remove_prefix(1);
    while (!value.empty() && isSpace(value.back()))
        value.remove_suffix(1);
    const auto decoded = DecodeBase64(value);
    if (!decoded)
        return std::nullopt;
    const auto colon = decoded->find(':');
    if (colon == std::string::npos || colon == 0)
        return std::nullopt;
    // a NUL, CR or LF would cut or split the helper's request line
    if (decoded->find_first_of(std::string_view("\0\r\n", 3)) != std::string::npos)
        return std::nullopt;
    return Credentials{decoded->substr(0, colon), decoded->substr(colon + 1)};
}

Auth::Basic::Basic(Comm::Loop& loop, const BasicOptions& options)
    : options_(options), pool_(loop, options.helper)
{}

void Auth::Basic::reconfigure(const BasicOptions& options)
{
    options_ = options;
    pool_.reconfigure(options.helper);
}

std::string Auth::Basic::userName(const std::string& sent) const
{
    return options_.caseSensitive ? sent : AsciiLowercase(sent);
}

std::string Auth::Basic::Key(const Credentials& credentials)
{
    return credentials.user + '\0' + credentials.password;
}

Auth::Verdict Auth::Basic::lookUp(const Credentials& credentials, std::string& user, Clock::time_point now)
{
    const auto it = cache_.find(Key(credentials));
    if (it == cache_.end())
        return Verdict::Unknown;
    if (it->second.expires <= now) {
        cache_.erase(it);
        return Verdict::Unknown;
    }
    if (!it->second.good)
        return Verdict::Bad;
    user = userName(credentials.user);
    return Verdict::Good;
}

Helper::Ticket Auth::Basic::check(const Credentials& credentials, std::function<void()> done)
{
    // Squid's basic helper protocol: "user password", each %-escaped
    auto user = userName(credentials.user);
    auto password = credentials.password;
    if (options_.utf8) {
        user = Latin1ToUtf8(user);
        password = Latin1ToUtf8(password);
    }
    const std::string line = Helper::Rfc1738Escape(user) + " " + Helper::Rfc1738Escape(password);
    return pool_.submit(line, [this, key = Key(credentials),
                               done = std::move(done)](const Helper::Reply& reply) {
        const bool good = reply.isOkay();
        cache_[key] = Cached{
            good, Clock::now() + (good ? std::chrono::duration_cast<Clock::duration>(options_.credentialsTtl)
                                       : std::chrono::duration_cast<Clock::duration>(BadTtl))};
        done();
    });
}

std::string Auth::Basic::challenge() const
{
    return "Basic realm=\"" + options_.realm + "\"";
}
