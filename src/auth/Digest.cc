/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "auth/Digest.h"
#include "base/Text.h"
#include "base/TextException.h"
#include "helper/Reply.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <cctype>
#include <strings.h>

namespace {

bool IsSpace(char c)
{
    return c == ' ' || c == '\t';
}

void SkipSpace(std::string_view& text)
{
    while (!text.empty() && IsSpace(text.front()))
        text.remove_prefix(1);
}

/// RFC 9110 section 5.6.2 tchar
bool IsTokenChar(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

/// A token at the front of `text`, taken off it (empty: none).
std::string TakeToken(std::string_view& text)
{
    size_t n = 0;
    while (n < text.size() && IsTokenChar(static_cast<unsigned char>(text[n])))
        ++n;
    std::string token(text.substr(0, n));
    text.remove_prefix(n);
    return token;
}

/// A quoted-string (RFC 9110 section 5.6.4) at the front of `text`,
/// unescaped and taken off it; nullopt when it is not one.
std::optional<std::string> TakeQuoted(std::string_view& text)
{
    if (text.empty() || text.front() != '"')
        return std::nullopt;
    std::string value;
    for (size_t i = 1; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"') {
            text.remove_prefix(i + 1);
            return value;
        }
        if (c == '\\') {
            if (++i == text.size())
                return std::nullopt;
            value += text[i];
        } else {
            value += c;
        }
    }
    return std::nullopt;
}

bool IsHex(std::string_view text)
{
    for (const char c : text)
        if (!std::isxdigit(static_cast<unsigned char>(c)))
            return false;
    return true;
}

std::string Hex(const unsigned char* bytes, size_t size)
{
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (size_t i = 0; i < size; ++i) {
        out += digits[bytes[i] >> 4];
        out += digits[bytes[i] & 0xf];
    }
    return out;
}

/// RFC 7616 section 3.4.6: whether digest-uri names the request-target; a
/// client of a proxy (curl) may send the origin-form of an absolute target
bool UriMatches(std::string_view uri, std::string_view target)
{
    if (uri == target)
        return true;
    const auto scheme = target.find("://");
    if (scheme == std::string_view::npos || target.substr(0, scheme).find('/') != std::string_view::npos)
        return false;
    const auto path = target.find('/', scheme + 3);
    return uri == (path == std::string_view::npos ? std::string_view("/") : target.substr(path));
}

} // namespace

std::optional<Auth::DigestCredentials> Auth::ParseDigest(std::string_view value)
{
    SkipSpace(value);
    constexpr std::string_view scheme = "Digest";
    if (value.size() <= scheme.size() || strncasecmp(value.data(), scheme.data(), scheme.size()) != 0 ||
        !IsSpace(value[scheme.size()]))
        return std::nullopt;
    value.remove_prefix(scheme.size());
    DigestCredentials c;
    std::unordered_map<std::string, std::string> params;
    for (size_t round = 0; round < 64; ++round) { // a real header has about ten
        SkipSpace(value);
        while (!value.empty() && value.front() == ',') { // empty list elements (RFC 9110 section 5.6.1)
            value.remove_prefix(1);
            SkipSpace(value);
        }
        if (value.empty())
            break;
        const auto name = AsciiLowercase(TakeToken(value));
        SkipSpace(value);
        if (name.empty() || value.empty() || value.front() != '=')
            return std::nullopt;
        value.remove_prefix(1);
        SkipSpace(value);
        std::optional<std::string> v = TakeQuoted(value);
        if (!v) {
            v = TakeToken(value);
            if (v->empty())
                return std::nullopt;
        }
        if (!params.emplace(name, *v).second)
            return std::nullopt; // a parameter twice: which one would the client mean?
        SkipSpace(value);
        if (!value.empty() && value.front() != ',')
            return std::nullopt;
    }
    if (!value.empty())
        return std::nullopt;
    const auto take = [&params](const char* name, std::string& to) {
        if (const auto it = params.find(name); it != params.end())
            to = it->second;
    };
    take("username", c.user);
    take("realm", c.realm);
    take("nonce", c.nonce);
    take("uri", c.uri);
    take("response", c.response);
    take("algorithm", c.algorithm);
    take("cnonce", c.cnonce);
    take("nc", c.nc);
    take("qop", c.qop);
    if (c.user.empty() || c.nonce.empty() || c.uri.empty() || !params.count("realm"))
        return std::nullopt;
    if (c.response.size() != 32 || !IsHex(c.response))
        return std::nullopt;
    if (c.algorithm.empty())
        c.algorithm = "MD5";
    if (c.algorithm != "MD5" && c.algorithm != "MD5-sess")
        return std::nullopt;
    if (!c.qop.empty() && c.qop != "auth")
        return std::nullopt; // Squid 5.7 offers auth only (not auth-int)
    if (c.qop.empty() != c.cnonce.empty() || c.qop.empty() != c.nc.empty())
        return std::nullopt;
    if (!c.nc.empty() && (c.nc.size() != 8 || !IsHex(c.nc)))
        return std::nullopt;
    // the helper's request is "user":"realm" on one line
    if (c.user.find_first_of(std::string_view("\"\0\r\n", 4)) != std::string::npos)
        return std::nullopt;
    return c;
}

std::string Auth::Md5Hex(std::string_view text)
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned size = 0;
    if (EVP_Digest(text.data(), text.size(), digest, &size, EVP_md5(), nullptr) != 1)
        throw TextException("OpenSSL cannot compute an MD5 digest", __FILE__, __LINE__);
    return Hex(digest, size);
}

std::string Auth::DigestResponse(const std::string& ha1, const DigestCredentials& c, std::string_view method)
{
    // RFC 2617 section 3.2.2.2: MD5-sess hashes the nonce and cnonce into A1
    const auto a1 = c.algorithm == "MD5-sess" ? Md5Hex(ha1 + ":" + c.nonce + ":" + c.cnonce) : ha1;
    const auto ha2 = Md5Hex(std::string(method) + ":" + c.uri);
    if (c.qop.empty()) // RFC 2069
        return Md5Hex(a1 + ":" + c.nonce + ":" + ha2);
    return Md5Hex(a1 + ":" + c.nonce + ":" + c.nc + ":" + c.cnonce + ":" + c.qop + ":" + ha2);
}

Auth::Digest::Digest(Comm::Loop& loop, const DigestOptions& options)
    : options_(options), pool_(loop, options.helper)
{}

void Auth::Digest::reconfigure(const DigestOptions& options)
{
    options_ = options;
    pool_.reconfigure(options.helper);
}

std::string Auth::Digest::Key(const DigestCredentials& credentials)
{
    return credentials.user + '\0' + credentials.realm;
}

bool Auth::Digest::takeNonceUse(Nonce& nonce, const DigestCredentials& c, Clock::time_point now) const
{
    if (nonce.created + options_.nonceMaxDuration <= now)
        return false;
    uint64_t count = c.nc.empty() ? 0 : std::stoull(c.nc, nullptr, 16); // 8 hex digits (ParseDigest)
    if (!options_.checkNonceCount)
        count = nonce.count + 1; // the client's count is ignored
    if (count < nonce.count + 1 || (options_.nonceStrictness && count != nonce.count + 1))
        return false; // a replay, or (strict) a skipped count
    if (count > options_.nonceMaxCount)
        return false;
    nonce.count = count;
    return true;
}

Auth::Verdict Auth::Digest::lookUp(const DigestCredentials& c, std::string_view method,
                                   std::string_view target, std::string& user, Clock::time_point now)
{
    collectGarbage(now);
    if (c.realm != options_.realm)
        return Verdict::Bad;
    // RFC 7616 section 3.4.6: the digest covers this request, not another
    if (!UriMatches(c.uri, target))
        return Verdict::Bad;
    const auto nonce = nonces_.find(c.nonce);
    if (nonce == nonces_.end())
        return Verdict::Stale; // Squid 5.7: an unknown nonce asks for a new handshake
    if (!nonce->second.user.empty() && nonce->second.user != c.user)
        return Verdict::Bad; // Squid: the nonce belongs to another user
    const auto known = users_.find(Key(c));
    if (known == users_.end())
        return Verdict::Unknown;
    if (known->second.ha1.empty()) {
        if (known->second.fetched + BadTtl > now)
            return Verdict::Bad;
        users_.erase(known);
        return Verdict::Unknown;
    }
    if (known->second.fetched + Ha1Ttl <= now) {
        users_.erase(known);
        return Verdict::Unknown;
    }
    const auto& ha1 = known->second.ha1;
    bool right = strcasecmp(DigestResponse(ha1, c, method).c_str(), c.response.c_str()) == 0;
    if (!right && options_.postWorkaround && method != "GET") // Squid's post_workaround
        right = strcasecmp(DigestResponse(ha1, c, "GET").c_str(), c.response.c_str()) == 0;
    if (!right) {
        // Squid asks the helper once more: the password may have changed
        if (known->second.fetched + BadTtl <= now) {
            users_.erase(known);
            return Verdict::Unknown;
        }
        return Verdict::Bad;
    }
    if (!takeNonceUse(nonce->second, c, now)) {
        nonces_.erase(nonce); // Squid purges it: the client gets a new one
        return Verdict::Stale;
    }
    nonce->second.user = c.user;
    user = c.user;
    return Verdict::Good;
}

Helper::Ticket Auth::Digest::check(const DigestCredentials& c, std::function<void()> done)
{
    // Squid 5.7's digest helper protocol: "user":"realm" (user in UTF-8 with utf8 on)
    const auto line = "\"" + (options_.utf8 ? Latin1ToUtf8(c.user) : c.user) + "\":\"" + c.realm + "\"";
    return pool_.submit(line, [this, key = Key(c), done = std::move(done)](const Helper::Reply& reply) {
        Ha1 answer{std::string(), Clock::now()};
        if (reply.isOkay()) {
            // a helper that answers OK without a well-formed ha1 (a basic
            // helper configured by mistake) vouches for nobody
            if (const auto* ha1 = reply.findNote("ha1"); ha1 && ha1->size() == 32 && IsHex(*ha1))
                answer.ha1 = AsciiLowercase(*ha1);
        }
        users_[key] = answer;
        done();
    });
}

void Auth::Digest::collectGarbage(Clock::time_point now)
{
    if (now >= nextCollection_) {
        nextCollection_ = now + options_.nonceGarbageInterval;
        std::erase_if(nonces_,
                      [&](const auto& n) { return n.second.created + options_.nonceMaxDuration <= now; });
        std::erase_if(users_, [&](const auto& u) {
            return u.second.fetched + (u.second.ha1.empty() ? BadTtl : Ha1Ttl) <= now;
        });
    }
    if (nonces_.size() >= MaxNonces) // a flood of 407s: an old client retries with stale=true
        nonces_.erase(nonces_.begin());
}

std::string Auth::Digest::challenge(bool stale, Clock::time_point now)
{
    collectGarbage(now);
    unsigned char bytes[16];
    if (RAND_bytes(bytes, sizeof(bytes)) != 1)
        throw TextException("OpenSSL's random generator failed: no digest nonce can be made", __FILE__,
                            __LINE__);
    const auto text = Hex(bytes, sizeof(bytes));
    nonces_[text] = Nonce{now, 0, std::string()};
    // Squid 5.7's order and spelling (Auth::Digest::Config::fixHeader)
    return "Digest realm=\"" + options_.realm + "\", nonce=\"" + text +
           "\", qop=\"auth\", stale=" + (stale ? "true" : "false");
}
