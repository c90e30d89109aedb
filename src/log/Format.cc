/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "log/Encoding.h"
#include "log/Format.h"

#include <cctype>
#include <charconv>
#include <cstring>
#include <ctime>
#include <strings.h>

enum class Log::Format::Code : uint8_t {
    Literal,
    Unavailable, // a code Squid knows whose value cuttle does not have: "-"
    Zero,        // %>qos, %>nfmark: cuttle never marks a connection
    SequenceNumber,
    ErrCode,
    ClientAddr,
    ClientPort,
    LocalAddr,
    LocalPort,
    ServerAddr,
    ServerName,
    ServerPort,
    ServerMark,
    Seconds,
    Subsecond,
    LocalTime,
    GmtTime,
    ResponseTime,
    StartTime,
    User,
    UserLogin,
    Method,
    Url,
    ClientUrl,
    Scheme,
    Domain,
    UrlPort,
    Path,
    Version,
    RequestHeader,
    ReplyHeader,
    ReceivedStatus,
    SentStatus,
    MimeType,
    TotalSize,
    RequestSize,
    ReplySize,
    RequestHeadSize,
    ReplyHeadSize,
    BodySize,
    Status,
    Hierarchy,
};

namespace {

using Code = Log::Format::Code;
using Encoding = Log::Format::Encoding;

/// One %-code of Squid 5.7's logformat documentation.
struct CodeName {
    std::string_view name;  ///< as written after the modifiers (an "http::" prefix is allowed)
    Code code;              ///< what cuttle prints for it
    bool urlEncoded;        ///< Squid's "pass-through URL encoding" by default
    const char* deprecated; ///< Squid's warning, or nullptr
};

// clang-format off
constexpr CodeName Codes[] = {
    {"sn", Code::SequenceNumber, false, nullptr},
    {"err_code", Code::ErrCode, false, nullptr},
    {"err_detail", Code::Unavailable, false, nullptr},
    {"note", Code::Unavailable, true, nullptr},
    {"master_xaction", Code::Unavailable, false, nullptr},
    {">a", Code::ClientAddr, false, nullptr},
    {">A", Code::ClientAddr, false, nullptr}, // Squid prints the address without log_fqdn
    {">p", Code::ClientPort, false, nullptr},
    {">eui", Code::Unavailable, false, nullptr},
    {">la", Code::LocalAddr, false, nullptr},
    {">lp", Code::LocalPort, false, nullptr},
    {">qos", Code::Zero, false, nullptr},
    {">nfmark", Code::Zero, false, nullptr},
    {"la", Code::LocalAddr, false, nullptr},
    {"lp", Code::LocalPort, false, nullptr},
    {"<a", Code::ServerAddr, false, nullptr},
    {"<A", Code::ServerName, false, nullptr},
    {"<p", Code::ServerPort, false, nullptr},
    {"<la", Code::Unavailable, false, nullptr},
    {"<lp", Code::Unavailable, false, nullptr},
    {"<qos", Code::ServerMark, false, nullptr},
    {"<nfmark", Code::ServerMark, false, nullptr},
    {">handshake", Code::Unavailable, true, nullptr},
    {"ts", Code::Seconds, false, nullptr},
    {"tu", Code::Subsecond, false, nullptr},
    {"tl", Code::LocalTime, false, nullptr},
    {"tg", Code::GmtTime, false, nullptr},
    {"tr", Code::ResponseTime, false, nullptr},
    {"dt", Code::Unavailable, false, nullptr},
    {"tS", Code::StartTime, false, nullptr},
    {"et", Code::Unavailable, true, nullptr},
    {"ea", Code::Unavailable, true, nullptr},
    {"un", Code::User, false, nullptr},
    {"ul", Code::UserLogin, false, nullptr},
    {"ue", Code::Unavailable, false, nullptr},
    {"ui", Code::Unavailable, false, nullptr},
    {"credentials", Code::Unavailable, false, nullptr},
    {"Ss", Code::Status, false, nullptr},
    {"Sh", Code::Hierarchy, false, nullptr},
    {"rm", Code::Method, false, nullptr},
    {">rm", Code::Method, false, nullptr},
    {"<rm", Code::Method, false, nullptr},
    {"ru", Code::Url, false, nullptr},
    {">ru", Code::ClientUrl, true, nullptr},
    {"<ru", Code::ClientUrl, true, nullptr},
    {">rs", Code::Scheme, false, nullptr},
    {"<rs", Code::Scheme, false, nullptr},
    {">rd", Code::Domain, false, nullptr},
    {"<rd", Code::Domain, false, nullptr},
    {">rP", Code::UrlPort, false, nullptr},
    {"<rP", Code::UrlPort, false, nullptr},
    {"rp", Code::Path, true, "The \"rp\" formatting code is deprecated. Use the \">rp\" instead."},
    {">rp", Code::Path, true, nullptr},
    {"<rp", Code::Path, true, nullptr},
    {"rv", Code::Version, false, nullptr},
    {">rv", Code::Version, false, nullptr},
    {"<rv", Code::Version, false, nullptr},
    {">h", Code::RequestHeader, true, nullptr},
    {">ha", Code::RequestHeader, true, nullptr},
    {"<h", Code::ReplyHeader, true, nullptr},
    {"<Hs", Code::ReceivedStatus, false, nullptr},
    {">Hs", Code::SentStatus, false, nullptr},
    {"Hs", Code::SentStatus, false, "The \"Hs\" formatting code is deprecated. Use the \">Hs\" instead."},
    {"mt", Code::MimeType, false, nullptr},
    {"st", Code::TotalSize, false, nullptr},
    {">st", Code::RequestSize, false, nullptr},
    {"<st", Code::ReplySize, false, nullptr},
    {">sh", Code::RequestHeadSize, false, nullptr},
    {"<sh", Code::ReplyHeadSize, false, nullptr},
    {"<sH", Code::BodySize, false, nullptr},
    {"<sS", Code::BodySize, false, nullptr},
    {"<bs", Code::Unavailable, false, nullptr},
    {"<pt", Code::Unavailable, false, nullptr},
    {"<tt", Code::Unavailable, false, nullptr},
    {"icap::tt", Code::Unavailable, false, nullptr},
    {"icap::<A", Code::Unavailable, false, nullptr},
    {"icap::<service_name", Code::Unavailable, false, nullptr},
    {"icap::ru", Code::Unavailable, false, nullptr},
    {"icap::rm", Code::Unavailable, false, nullptr},
    {"icap::>st", Code::Unavailable, false, nullptr},
    {"icap::<st", Code::Unavailable, false, nullptr},
    {"icap::<bs", Code::Unavailable, false, nullptr},
    {"icap::tr", Code::Unavailable, false, nullptr},
    {"icap::tio", Code::Unavailable, false, nullptr},
    {"icap::to", Code::Unavailable, false, nullptr},
    {"icap::Hs", Code::Unavailable, false, nullptr},
    {"icap::>h", Code::Unavailable, true, nullptr},
    {"icap::<h", Code::Unavailable, true, nullptr},
    {"adapt::<last_h", Code::Unavailable, true, nullptr},
    {"adapt::sum_trs", Code::Unavailable, false, nullptr},
    {"adapt::all_trs", Code::Unavailable, false, nullptr},
    {"proxy_protocol::>h", Code::Unavailable, true, nullptr},
};
// clang-format on

/// the longest code name at the start of `rest` (after an optional "http::", as Squid 5.7 reads them)
const CodeName* findCode(std::string_view rest, size_t& length)
{
    const CodeName* best = nullptr;
    length = 0;
    for (const auto& c : Codes) {
        size_t skip = 0;
        if (rest.substr(0, 6) == "http::" && c.name.find("::") == std::string_view::npos)
            skip = 6;
        if (rest.substr(skip, c.name.size()) == c.name && skip + c.name.size() > length) {
            best = &c;
            length = skip + c.name.size();
        }
    }
    return best;
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

int readNumber(std::string_view& rest)
{
    int n = 0;
    while (!rest.empty() && isDigit(rest.front())) {
        n = n * 10 + (rest.front() - '0');
        if (n > 100000)
            n = 100000;
        rest.remove_prefix(1);
    }
    return n;
}

/// microseconds per fraction unit for a time printed with `precision` digits (Squid's divisor)
int64_t divisorFor(int precision)
{
    if (precision <= 0)
        return 1000;
    int64_t d = 1000000;
    for (int i = precision; i > 0 && d > 0; --i)
        d /= 10;
    return d > 0 ? d : 1;
}

void appendNumber(std::string& out, int64_t n, int zeroWidth)
{
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof(digits), n < 0 ? -n : n).ptr;
    const int size = static_cast<int>(end - digits) + (n < 0);
    if (n < 0)
        out += '-';
    if (zeroWidth > size)
        out.append(static_cast<size_t>(zeroWidth - size), '0');
    out.append(digits, end);
}

/// the parts of an absolute URL ("scheme://host:port/path"), or of a CONNECT's "host:port"
struct UrlParts {
    std::string_view scheme, host, port, path;
};

UrlParts splitUrl(std::string_view url)
{
    UrlParts p;
    std::string_view rest = url;
    if (const auto s = url.find("://"); s != std::string_view::npos) {
        p.scheme = url.substr(0, s);
        rest = url.substr(s + 3);
    }
    const size_t slash = p.scheme.empty() ? std::string_view::npos : rest.find('/');
    std::string_view authority = rest.substr(0, slash);
    if (slash != std::string_view::npos)
        p.path = rest.substr(slash);
    else if (!p.scheme.empty())
        p.path = "/";
    if (const auto at = authority.rfind('@'); at != std::string_view::npos)
        authority.remove_prefix(at + 1);
    const size_t close = authority.rfind(']');
    const size_t colon = authority.rfind(':');
    if (colon != std::string_view::npos && (close == std::string_view::npos || colon > close)) {
        p.host = authority.substr(0, colon);
        p.port = authority.substr(colon + 1);
    } else {
        p.host = authority;
    }
    if (p.host.size() >= 2 && p.host.front() == '[' && p.host.back() == ']')
        p.host = p.host.substr(1, p.host.size() - 2);
    return p;
}

int64_t defaultPort(std::string_view scheme)
{
    if (scheme == "https")
        return 443;
    if (scheme == "ftp")
        return 21;
    return 80;
}

} // namespace

void Log::RecordNeeds::add(const RecordNeeds& other)
{
    requestHead = requestHead || other.requestHead;
    replyHead = replyHead || other.replyHead;
    requestUrl = requestUrl || other.requestUrl;
}

bool Log::Format::parse(std::string_view text, std::string& why, std::vector<std::string>& warnings)
{
    tokens_.clear();
    needs_ = RecordNeeds();
    allHeaders_ = false;
    std::string_view rest = text;
    while (!rest.empty()) {
        if (rest.front() != '%' || rest.substr(0, 2) == "%%") {
            const bool percent = rest.front() == '%';
            const size_t end = percent ? 2 : std::min(rest.find('%'), rest.size());
            const std::string_view lit = percent ? std::string_view("%") : rest.substr(0, end);
            if (tokens_.empty() || tokens_.back().code != Code::Literal)
                tokens_.emplace_back();
            tokens_.back().text.append(lit);
            rest.remove_prefix(end);
            continue;
        }
        Token token;
        if (!parseCode(rest, token, why, warnings))
            return false;
        tokens_.push_back(std::move(token));
    }
    return true;
}

bool Log::Format::parseCode(std::string_view& rest, Token& t, std::string& why,
                            std::vector<std::string>& warnings)
{
    const std::string_view start = rest;
    rest.remove_prefix(1); // the %
    if (rest.empty()) {
        why = "a '%' ends the format (write %% for a '%')";
        return false;
    }
    if (!rest.empty()) {
        switch (rest.front()) {
        case '"':
            t.encoding = Encoding::Quoted;
            break;
        case '[':
            t.encoding = Encoding::MimeBlob;
            break;
        case '#':
            t.encoding = Encoding::Url;
            break;
        case '/':
            t.encoding = Encoding::Shell;
            break;
        case '\'':
            t.encoding = Encoding::Raw;
            break;
        default:
            break;
        }
        if (t.encoding != Encoding::Default)
            rest.remove_prefix(1);
    }
    if (!rest.empty() && rest.front() == '-') {
        t.left = true;
        rest.remove_prefix(1);
    }
    if (!rest.empty() && rest.front() == '0') {
        t.zero = true;
        rest.remove_prefix(1);
    }
    if (!rest.empty() && isDigit(rest.front()))
        t.widthMin = readNumber(rest);
    if (rest.size() > 1 && rest.front() == '.' && isDigit(rest[1])) {
        rest.remove_prefix(1);
        t.widthMax = readNumber(rest);
    }
    bool haveArg = false;
    const auto readArg = [&]() {
        const size_t close = rest.find('}');
        t.text =
            std::string(rest.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1));
        rest.remove_prefix(close == std::string_view::npos ? rest.size() : close + 1);
        haveArg = true;
    };
    if (!rest.empty() && rest.front() == '{')
        readArg();
    size_t length = 0;
    const CodeName* c = findCode(rest, length);
    if (!c) {
        const size_t end = std::min(start.find_first_of(" \t\"|[]"), start.size());
        why = "unsupported %-code '" + std::string(start.substr(0, std::max<size_t>(end, 2))) +
              "' (see logformat in doc/directives.md)";
        return false;
    }
    rest.remove_prefix(length);
    if (!haveArg && !rest.empty() && rest.front() == '{')
        readArg();
    t.code = c->code;
    if (c->urlEncoded && t.encoding == Encoding::Default)
        t.encoding = Encoding::PassThrough;
    if (c->deprecated)
        warnings.emplace_back(c->deprecated);
    switch (t.code) {
    case Code::Subsecond:
    case Code::StartTime:
    case Code::ResponseTime:
        t.divisor = divisorFor(t.widthMax);
        break;
    case Code::RequestHeader:
    case Code::ReplyHeader: {
        (t.code == Code::RequestHeader ? needs_.requestHead : needs_.replyHead) = true;
        if (t.text.empty()) {
            allHeaders_ = true;
            break;
        }
        if (const size_t colon = t.text.find(':'); colon != std::string::npos) {
            std::string_view element = std::string_view(t.text).substr(colon + 1);
            if (!element.empty() &&
                (element.front() == ',' || element.front() == ';' || element.front() == ':')) {
                t.separator = element.front();
                element.remove_prefix(1);
            }
            t.element = std::string(element);
            t.text.resize(colon);
        }
        break;
    }
    case Code::ClientUrl:
        needs_.requestUrl = true;
        break;
    default:
        break;
    }
    return true;
}

void Log::Format::append(std::string& out, const AccessRecord& r, uint64_t sequence) const
{
    for (const auto& t : tokens_)
        appendToken(out, t, r, sequence);
}

void Log::Format::appendToken(std::string& out, const Token& t, const AccessRecord& r,
                              uint64_t sequence) const
{
    if (t.code == Code::Literal) {
        out += t.text;
        return;
    }
    // the value: a text, a number or a time, as Squid's Format::assemble() computes them
    std::string scratch;
    std::string_view text;
    bool isNumber = false;
    bool present = true;
    int64_t number = 0;
    const int zeroWidth = t.zero && t.widthMin >= 0 ? t.widthMin : 0;
    const auto timeValue = [&](int64_t us, bool seconds) {
        // doMsec / doSec: whole milliseconds or seconds, then .precision digits
        const int precision = seconds ? (t.widthMax >= 0 ? t.widthMax : 3) : t.widthMax;
        const int64_t whole = seconds ? us / 1000000 : us / 1000;
        if (precision < 0) {
            appendNumber(scratch, whole, zeroWidth);
        } else {
            const int pad = t.zero && t.widthMin - precision - 1 >= 0 ? t.widthMin - precision - 1 : 0;
            appendNumber(scratch, whole, pad);
            scratch += '.';
            const int64_t fraction = seconds ? (us % 1000000) / t.divisor : (us % 1000) * (1000 / t.divisor);
            appendNumber(scratch, fraction, precision);
        }
        text = scratch;
        isNumber = true;
    };
    const timeval now = r.logTime();
    const std::string& fullUrl = r.requestUrl.empty() ? r.url : r.requestUrl;
    switch (t.code) {
    case Code::Literal:
    case Code::Unavailable:
        present = false;
        break;
    case Code::Zero:
        text = "0x0";
        break;
    case Code::SequenceNumber:
        number = static_cast<int64_t>(sequence);
        isNumber = true;
        break;
    case Code::ErrCode:
        text = r.errorCode;
        break;
    case Code::ClientAddr:
        text = r.clientAddress;
        break;
    case Code::ClientPort:
        number = r.clientPort;
        isNumber = true;
        break;
    case Code::LocalAddr:
        text = r.localAddress;
        break;
    case Code::LocalPort:
        number = r.localPort;
        isNumber = true;
        break;
    case Code::ServerAddr:
        text = r.peerAddress;
        break;
    case Code::ServerName:
        // forwarded: the origin is the URL's (cuttle has no cache_peer)
        if (!r.peerAddress.empty())
            text = splitUrl(fullUrl).host;
        break;
    case Code::ServerPort:
    case Code::UrlPort: {
        const auto parts = splitUrl(fullUrl);
        present = !parts.host.empty() && (t.code == Code::UrlPort || !r.peerAddress.empty());
        if (parts.port.empty())
            number = defaultPort(parts.scheme);
        else
            std::from_chars(parts.port.data(), parts.port.data() + parts.port.size(), number);
        isNumber = present;
        break;
    }
    case Code::ServerMark:
        present = !r.peerAddress.empty();
        text = "0x0";
        break;
    case Code::Seconds:
        number = now.tv_sec;
        isNumber = true;
        break;
    case Code::Subsecond:
        number = now.tv_usec / t.divisor;
        isNumber = true;
        break;
    case Code::LocalTime:
    case Code::GmtTime: {
        const bool local = t.code == Code::LocalTime;
        const std::string spec = !t.text.empty() ? t.text
                                 : local         ? "%d/%b/%Y:%H:%M:%S %z"
                                                 : "%d/%b/%Y:%H:%M:%S";
        const std::time_t secs = now.tv_sec;
        std::tm tm{};
        if (local)
            ::localtime_r(&secs, &tm);
        else
            ::gmtime_r(&secs, &tm);
        char when[256];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral" // %{FORMAT}tl: the admin's strftime format
        scratch.assign(when, std::strftime(when, sizeof(when), spec.c_str(), &tm));
#pragma GCC diagnostic pop
        text = scratch;
        break;
    }
    case Code::ResponseTime:
        timeValue(r.responseTimeUs >= 0 ? r.responseTimeUs : r.responseTimeMs * 1000, false);
        break;
    case Code::StartTime:
        // Squid keeps the start in milliseconds
        timeValue(static_cast<int64_t>(r.start.tv_sec) * 1000000 + r.start.tv_usec / 1000 * 1000, true);
        break;
    case Code::User:
        text = r.user;
        break;
    case Code::UserLogin:
        present = r.userFromAuth;
        text = r.user;
        break;
    case Code::Method:
        text = r.method;
        break;
    case Code::Url:
        text = r.url;
        break;
    case Code::ClientUrl:
        text = fullUrl;
        break;
    case Code::Scheme:
        text = splitUrl(fullUrl).scheme;
        break;
    case Code::Domain:
        text = splitUrl(fullUrl).host;
        break;
    case Code::Path:
        text = splitUrl(fullUrl).path;
        break;
    case Code::Version:
        text = r.httpVersion;
        break;
    case Code::RequestHeader:
    case Code::ReplyHeader: {
        const std::string& head = t.code == Code::RequestHeader ? r.requestHead : r.replyHead;
        if (t.text.empty()) {
            text = head;
        } else if (FindField(head, t.text, scratch)) {
            if (!t.element.empty())
                scratch = ListMember(scratch, t.element, t.separator);
            text = scratch;
        }
        break;
    }
    case Code::ReceivedStatus:
        present = r.peerStatus != 0;
        number = r.peerStatus;
        isNumber = present;
        break;
    case Code::SentStatus:
        number = r.httpStatus;
        isNumber = true;
        break;
    case Code::MimeType:
        text = std::string_view(r.mimeType).substr(0, r.mimeType.find_first_of("; \t"));
        break;
    case Code::TotalSize:
        number = static_cast<int64_t>(r.requestHeadSize + r.requestBodySize + r.bytesSent);
        isNumber = true;
        break;
    case Code::RequestSize:
        number = static_cast<int64_t>(r.requestHeadSize + r.requestBodySize);
        isNumber = true;
        break;
    case Code::ReplySize:
        number = static_cast<int64_t>(r.bytesSent);
        isNumber = true;
        break;
    case Code::RequestHeadSize:
        number = static_cast<int64_t>(r.requestHeadSize);
        isNumber = true;
        break;
    case Code::ReplyHeadSize:
        number = static_cast<int64_t>(r.replyHeadSize);
        isNumber = true;
        break;
    case Code::BodySize:
        number = static_cast<int64_t>(r.bytesSent > r.replyHeadSize ? r.bytesSent - r.replyHeadSize : 0);
        isNumber = true;
        break;
    case Code::Status:
        text = r.resultCode;
        break;
    case Code::Hierarchy:
        text = r.hierarchy;
        break;
    }
    if (isNumber && text.empty()) {
        appendNumber(scratch, number, zeroWidth);
        text = scratch;
    }
    if (!present || text.empty()) {
        out += '-';
        return;
    }
    std::string encoded;
    switch (t.encoding) {
    case Encoding::Default:
    case Encoding::Raw:
        break;
    case Encoding::Url:
        UrlEscape(encoded, text);
        text = encoded;
        break;
    case Encoding::PassThrough:
        UrlEscapeUnescaped(encoded, text);
        text = encoded;
        break;
    case Encoding::Quoted:
        QuoteString(encoded, text);
        text = encoded;
        break;
    case Encoding::MimeBlob:
        QuoteMimeBlob(encoded, text);
        text = encoded;
        break;
    case Encoding::Shell:
        QuoteShellWord(encoded, text);
        text = encoded;
        break;
    }
    if (t.widthMax >= 0 && !isNumber && text.size() > static_cast<size_t>(t.widthMax))
        text = text.substr(0, static_cast<size_t>(t.widthMax));
    const size_t pad = t.widthMin > 0 && text.size() < static_cast<size_t>(t.widthMin)
                           ? static_cast<size_t>(t.widthMin) - text.size()
                           : 0;
    if (!t.left)
        out.append(pad, ' ');
    out += text;
    if (t.left)
        out.append(pad, ' ');
}

bool Log::FindField(std::string_view head, std::string_view name, std::string& value)
{
    bool found = false;
    value.clear();
    size_t pos = 0;
    while (pos < head.size()) {
        size_t eol = head.find('\n', pos);
        if (eol == std::string_view::npos)
            eol = head.size();
        std::string_view line = head.substr(pos, eol - pos);
        pos = eol + 1;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        const size_t colon = line.find(':');
        if (colon != name.size() || ::strncasecmp(line.data(), name.data(), name.size()) != 0)
            continue;
        std::string_view v = line.substr(colon + 1);
        while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
            v.remove_prefix(1);
        while (!v.empty() && (v.back() == ' ' || v.back() == '\t'))
            v.remove_suffix(1);
        if (found)
            value += ", ";
        value.append(v);
        found = true;
    }
    return found;
}

std::string Log::ListMember(std::string_view value, std::string_view member, char separator)
{
    // Squid's strListGetItem(): ',' always separates, `separator` too; quotes hide both
    size_t pos = 0;
    while (pos < value.size()) {
        while (pos < value.size() && std::strchr(" \t\r\n", value[pos]) && value[pos] != '\0')
            ++pos;
        size_t end = pos;
        bool quoted = false;
        while (end < value.size()) {
            const char c = value[end];
            if (c == '"')
                quoted = !quoted;
            else if (c == '\\' && quoted && end + 1 < value.size())
                ++end;
            else if (!quoted && (c == ',' || c == separator))
                break;
            ++end;
        }
        std::string_view item = value.substr(pos, end - pos);
        while (!item.empty() && std::strchr(" \t\r\n", item.back()))
            item.remove_suffix(1);
        if (item.size() > member.size() && item.substr(0, member.size()) == member &&
            item[member.size()] == '=')
            return std::string(item.substr(member.size() + 1));
        pos = end + 1;
    }
    return std::string();
}
