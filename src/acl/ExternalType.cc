/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/ExternalType.h"
#include "acl/AccessList.h"
#include "acl/ProxyAuthNode.h"
#include "base/Text.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

namespace Acl {

namespace {

/// Parses a whole unsigned decimal number (no sign, no suffix).
bool ParseNumber(const std::string& text, unsigned long& value)
{
    if (text.empty() || text.size() > 9 || !std::all_of(text.begin(), text.end(), ::isdigit))
        return false;
    value = std::strtoul(text.c_str(), nullptr, 10);
    return true;
}

/// The member called `member` of a list value ("a=1, b=2"), as Squid's
/// HttpHeader::getByNameListMember(): the text after "member=", or nullopt.
std::optional<std::string> ListMember(const std::string& value, const std::string& member, char delimiter)
{
    size_t pos = 0;
    while (pos <= value.size()) {
        auto end = value.find(delimiter, pos);
        if (end == std::string::npos)
            end = value.size();
        auto item = value.substr(pos, end - pos);
        const auto first = item.find_first_not_of(" \t");
        item = first == std::string::npos ? std::string() : item.substr(first);
        if (item.size() > member.size() && item.compare(0, member.size(), member) == 0 &&
            item[member.size()] == '=') {
            auto found = item.substr(member.size() + 1);
            found.erase(found.find_last_not_of(" \t") + 1);
            return found;
        }
        pos = end + 1;
    }
    return std::nullopt;
}

} // namespace

bool ExternalType::ParseToken(const std::string& word, Token& token, std::string& why)
{
    using Kind = Token::Kind;
    static const std::map<std::string, Kind, std::less<>> simple = {
        {"%LOGIN", Kind::Login},      {"%ul", Kind::Login},    {"%un", Kind::UserName},
        {"%EXT_USER", Kind::ExtUser}, {"%ue", Kind::ExtUser},  {"%EXT_TAG", Kind::ExtTag},
        {"%et", Kind::ExtTag},        {"%SRC", Kind::Src},     {"%>a", Kind::Src},
        {"%DST", Kind::Dst},          {"%>rd", Kind::Dst},     {"%PROTO", Kind::Proto},
        {"%>rs", Kind::Proto},        {"%PORT", Kind::Port},   {"%>rP", Kind::Port},
        {"%PATH", Kind::Path},        {"%>rp", Kind::Path},    {"%METHOD", Kind::Method},
        {"%>rm", Kind::Method},       {"%URI", Kind::Uri},     {"%>ru", Kind::Uri},
        {"%MYADDR", Kind::MyAddr},    {"%la", Kind::MyAddr},   {"%MYPORT", Kind::MyPort},
        {"%lp", Kind::MyPort},        {"%ACL", Kind::AclName}, {"%DATA", Kind::Data},
        {"%SRCPORT", Kind::SrcPort},  {"%>p", Kind::SrcPort}};
    if (const auto s = simple.find(word); s != simple.end()) {
        token.kind = s->second;
        return true;
    }
    // %>{Name}, %>{Name:member}, %>{Name:Dmember}, and the same after %>ha
    std::string rest;
    if (word.rfind("%>{", 0) == 0)
        rest = word.substr(3);
    else if (word.rfind("%>ha{", 0) == 0)
        rest = word.substr(5);
    if (!rest.empty() && rest.back() == '}' && rest.size() > 1) {
        rest.pop_back();
        token.kind = Kind::RequestHeader;
        const auto colon = rest.find(':');
        token.header = rest.substr(0, colon);
        if (colon != std::string::npos) {
            token.member = rest.substr(colon + 1);
            if (!token.member.empty() && std::ispunct(static_cast<unsigned char>(token.member[0]))) {
                token.delimiter = token.member[0];
                token.member.erase(0, 1);
            }
            if (token.member.empty()) {
                why = "format token '" + word + "' names no list member after ':'";
                return false;
            }
        }
        if (!token.header.empty())
            return true;
    }
    why = "format token '" + word +
          "' is not implemented by cuttle (supported: %LOGIN %ul %un %EXT_USER %ue %EXT_TAG %et %SRC %>a "
          "%SRCPORT %>p %DST "
          "%>rd %PROTO %>rs %PORT %>rP %PATH %>rp %METHOD %>rm %URI %>ru %MYADDR %la %MYPORT %lp %ACL %DATA "
          "%>{Header} %>{Header:member} %>{Header:;member})";
    return false;
}

std::unique_ptr<ExternalType> ExternalType::Parse(const std::vector<std::string>& words, std::string& why)
{
    why.clear();
    if (words.empty()) {
        why = "external_acl_type needs a name";
        return nullptr;
    }
    auto type = std::make_unique<ExternalType>();
    type->name_ = words[0];
    std::optional<std::chrono::seconds> negative;
    size_t i = 1;
    for (; i < words.size(); ++i) {
        const auto& w = words[i];
        if (w == "ipv4" || w == "ipv6")
            continue; // how Squid talks to the helper; cuttle uses a socket pair either way
        const auto eq = w.find('=');
        if (eq == std::string::npos)
            break;
        const auto key = w.substr(0, eq);
        const auto value = w.substr(eq + 1);
        if (key == "protocol" || key == "quote") {
            if (value == (key == "protocol" ? "3.0" : "url"))
                continue;
            why = "external_acl_type " + key + "=" + value +
                  " is not implemented by cuttle (only the default, " + (key == "protocol" ? "3.0" : "url") +
                  ", which URL-escapes each word)";
            return nullptr;
        }
        static const char* const numeric[] = {
            "ttl",      "negative_ttl",     "grace",         "cache",       "children-max",
            "children", "children-startup", "children-idle", "concurrency", "queue-size"};
        if (std::find(std::begin(numeric), std::end(numeric), key) == std::end(numeric)) {
            why = "unknown external_acl_type option '" + w + "'";
            return nullptr;
        }
        unsigned long n = 0;
        if (!ParseNumber(value, n)) {
            why = "bad external_acl_type option '" + w + "': expecting " + key + "=NUMBER";
            return nullptr;
        }
        if (key == "ttl") {
            type->ttl_ = std::chrono::seconds(n);
        } else if (key == "negative_ttl") {
            negative = std::chrono::seconds(n);
        } else if (key == "grace") {
            if (n != 0) {
                why = "external_acl_type grace=" + value +
                      " is not implemented by cuttle (a cached answer is refreshed only once it expires)";
                return nullptr;
            }
        } else if (key == "cache") {
            type->cacheSize_ = n;
        } else if (key == "children-max" || key == "children") {
            if (n == 0) {
                why = "bad external_acl_type option '" + w + "': expecting a number of helpers above 0";
                return nullptr;
            }
            type->childrenMax_ = static_cast<unsigned>(n);
        } else if (key == "children-startup") {
            type->childrenStartup_ = static_cast<unsigned>(n);
        } else if (key == "children-idle") {
            type->childrenIdle_ = static_cast<unsigned>(n);
        } else if (key == "concurrency") {
            type->concurrency_ = static_cast<unsigned>(n);
        } else {
            type->queueSize_ = static_cast<unsigned>(n); // queue-size
        }
    }
    type->negativeTtl_ = negative.value_or(type->ttl_);
    for (; i < words.size() && !words[i].empty() && words[i][0] == '%'; ++i) {
        Token token;
        if (!ParseToken(words[i], token, why)) {
            why = "external_acl_type " + type->name_ + ": " + why;
            return nullptr;
        }
        type->format_.push_back(token);
        type->formatWords_.push_back(words[i]);
    }
    if (type->format_.empty()) {
        why = "external_acl_type " + type->name_ + " has no format: expecting %TOKEN words before the helper";
        return nullptr;
    }
    if (i == words.size()) {
        why = "external_acl_type " + type->name_ + " names no helper program";
        return nullptr;
    }
    type->program_.assign(words.begin() + i, words.end());
    return type;
}

bool ExternalType::needsLogin() const
{
    return std::any_of(format_.begin(), format_.end(),
                       [](const Token& t) { return t.kind == Token::Kind::Login; });
}

bool ExternalType::operator==(const ExternalType& other) const
{
    return name_ == other.name_ && formatWords_ == other.formatWords_ && program_ == other.program_ &&
           ttl_ == other.ttl_ && negativeTtl_ == other.negativeTtl_ && cacheSize_ == other.cacheSize_ &&
           childrenMax_ == other.childrenMax_ && childrenStartup_ == other.childrenStartup_ &&
           childrenIdle_ == other.childrenIdle_ && concurrency_ == other.concurrency_ &&
           queueSize_ == other.queueSize_;
}

std::string ExternalType::expand(const Token& token, const Checklist& facts, const std::string& aclName) const
{
    using Kind = Token::Kind;
    switch (token.kind) {
    case Kind::Login:
        return facts.user;
    case Kind::UserName:
        return facts.auth == AuthState::Valid ? facts.user : facts.noteValue("user");
    case Kind::ExtUser:
        return facts.noteValue("user");
    case Kind::ExtTag:
        return facts.noteValue("tag");
    case Kind::Src:
        return facts.srcAddr.isSet() ? facts.srcAddr.toString() : std::string();
    case Kind::SrcPort:
        return facts.srcPort ? std::to_string(facts.srcPort) : std::string();
    case Kind::Dst:
        return facts.dstHost;
    case Kind::Proto:
        return AsciiUppercase(facts.urlScheme);
    case Kind::Port:
        return std::to_string(facts.dstPort);
    case Kind::Path:
        return facts.urlPath;
    case Kind::Method:
        return facts.method;
    case Kind::Uri:
        return facts.url;
    case Kind::MyAddr:
        return facts.localAddr.isSet() ? facts.localAddr.toString() : std::string();
    case Kind::MyPort:
        return std::to_string(facts.localPort);
    case Kind::RequestHeader: {
        const auto value = facts.request ? facts.request->get(token.header) : std::nullopt;
        if (!value)
            return std::string();
        if (token.member.empty())
            return *value;
        return ListMember(*value, token.member, token.delimiter).value_or(std::string());
    }
    case Kind::AclName:
        return aclName;
    case Kind::Data:
        break; // requestWords() puts the arguments there, one word each
    }
    return std::string();
}

std::optional<std::vector<std::string>>
ExternalType::requestWords(const Checklist& facts, const std::string& aclName,
                           const std::vector<std::string>& arguments) const
{
    if (needsLogin() && !HasValidUser(facts))
        return std::nullopt;
    std::vector<std::string> words;
    bool dataUsed = false;
    for (const auto& token : format_) {
        if (token.kind == Token::Kind::Data) {
            dataUsed = true;
            words.insert(words.end(), arguments.begin(), arguments.end());
            if (arguments.empty())
                words.emplace_back();
        } else {
            words.push_back(expand(token, facts, aclName));
        }
    }
    // Squid 5.7 appends the arguments when the format has no %DATA, and "-"
    // when there are none (seen in test-suite/access/external-acl.sh)
    if (!dataUsed && arguments.empty())
        words.emplace_back();
    else if (!dataUsed)
        words.insert(words.end(), arguments.begin(), arguments.end());
    return words;
}

} // namespace Acl
