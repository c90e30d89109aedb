/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "errors/Page.h"
#include "errors/Catalog.h"
#include "http/Date.h"
#include "http/Head.h"
#include "log/ValueFormat.h"

#include <climits>
#include <cstring>
#include <ctime>
#include <optional>
#include <string_view>
#include <unistd.h>

namespace {

/// Squid's built-in ERR_SQUID_SIGNATURE, in cuttle's words.
const char Signature[] = "\n<hr>\n<div id=\"footer\">\n<p>Generated %T by %h (%s)</p>\n</div>\n";

const char HexDigits[] = "0123456789ABCDEF";

std::string renderImpl(const std::string& text, const Errors::PageContext& c, bool allowSignature);

/// HTML-escapes the five characters that matter in text and quoted attributes.
void appendHtml(std::string& out, std::string_view s)
{
    for (const char c : s) {
        switch (c) {
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '&':
            out += "&amp;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default:
            out += c;
        }
    }
}

/// Squid's rfc1738_escape_part(): everything but unreserved URL characters becomes %XX.
std::string escapePart(std::string_view s)
{
    static const std::string_view keep = "-_.!*(),$+"; // what rfc1738 leaves alone besides alnum
    std::string out;
    for (const unsigned char c : s) {
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            keep.find(static_cast<char>(c)) != std::string_view::npos) {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += HexDigits[c >> 4];
            out += HexDigits[c & 0xF];
        }
    }
    return out;
}

std::string localClf(std::time_t t)
{
    std::tm tm{};
    ::localtime_r(&t, &tm);
    char buf[64];
    const size_t n = std::strftime(buf, sizeof(buf), "%d/%b/%Y:%H:%M:%S %z", &tm);
    return std::string(buf, n);
}

std::time_t whenOf(const Errors::PageContext& c)
{
    return c.timestamp ? c.timestamp : std::time(nullptr);
}

std::string hostName(const Errors::PageContext& c)
{
    if (!c.visibleHostname.empty())
        return c.visibleHostname;
    char buf[HOST_NAME_MAX + 1] = {};
    if (::gethostname(buf, sizeof(buf) - 1) == 0 && buf[0])
        return buf;
    return "localhost";
}

/// The URL without "user:password@" in its authority.
std::string withoutPassword(const std::string& url)
{
    const auto scheme = url.find("://");
    if (scheme == std::string::npos)
        return url;
    const auto authorityStart = scheme + 3;
    const auto authorityEnd = url.find_first_of("/?#", authorityStart);
    const auto at = url.rfind('@', authorityEnd == std::string::npos ? url.size() - 1 : authorityEnd - 1);
    if (at == std::string::npos || at < authorityStart)
        return url;
    return url.substr(0, authorityStart) + url.substr(at + 1);
}

/// Squid's Ftp::UrlWith2f(): an ftp:// URL whose path must start at the root gets "%2f".
std::string withFtp2f(const std::string& url)
{
    std::string u = withoutPassword(url);
    if (u.rfind("ftp://", 0) != 0)
        return {}; // Squid 5.7 shows nothing for other schemes
    const auto slash = u.find('/', 6);
    if (slash == std::string::npos)
        return u + "/%2f";
    if (u.compare(slash + 1, 3, "%2f") == 0 || u.compare(slash + 1, 3, "%2F") == 0)
        return u;
    return u.substr(0, slash + 1) + "%2f" + u.substr(slash + 1);
}

/// Squid's canonicalCleanUrl(): no password, and no query with strip_query_terms.
std::string cleanUrl(const Errors::PageContext& c)
{
    std::string url = withoutPassword(c.url);
    if (const auto q = url.find('?'); c.stripQueryTerms && q != std::string::npos)
        url.resize(q + 1);
    return url;
}

std::string errnoText(int xerrno)
{
    return "(" + std::to_string(xerrno) + ") " + std::strerror(xerrno);
}

/// Whether the field LINE ("Name: value") is named NAME (in any case).
bool isFieldNamed(std::string_view line, std::string_view name)
{
    if (line.size() <= name.size() || line[name.size()] != ':')
        return false;
    for (size_t i = 0; i < name.size(); ++i)
        if ((line[i] | 0x20) != (name[i] | 0x20))
            return false;
    return true;
}

/// Calls FN with each field line of the request head HEAD (after its
/// request line, without the line end), up to the blank line.
template <typename Fn>
void forEachField(std::string_view head, Fn fn)
{
    auto eol = head.find('\n');
    while (eol != std::string_view::npos) {
        head.remove_prefix(eol + 1);
        eol = head.find('\n');
        auto field = head.substr(0, eol);
        if (!field.empty() && field.back() == '\r')
            field.remove_suffix(1);
        if (field.empty())
            return;
        fn(field);
    }
}

/// The request as Squid 5.7 shows it (%R, %W): "METHOD PATH HTTP/x.y",
/// LINE_END, then each field with CRLF (credentials hidden, Host last) and a CRLF.
std::string requestDump(const Errors::PageContext& c, const char* lineEnd)
{
    std::string_view head = c.request;
    const auto eol = head.find('\n');
    std::string_view line = head.substr(0, eol);
    if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
    std::string out;
    // the target in origin-form, as Squid's request->url.path()
    const auto sp1 = line.find(' ');
    const auto sp2 = line.rfind(' ');
    if (sp1 != std::string_view::npos && sp2 > sp1) {
        auto target = line.substr(sp1 + 1, sp2 - sp1 - 1);
        if (line.substr(0, sp1) == "CONNECT")
            target = {}; // authority-form has no path: Squid 5.7 shows "CONNECT  HTTP/1.1"
        else if (const auto scheme = target.find("://"); scheme != std::string_view::npos) {
            const auto slash = target.find('/', scheme + 3);
            target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
        }
        out.append(line.substr(0, sp1)).append(" ").append(target).append(line.substr(sp2));
    } else {
        out.append(line);
    }
    out += lineEnd;
    std::string host; // Squid 5.7 shows Host last (it sets it again from the URL)
    forEachField(head, [&](std::string_view field) {
        if (isFieldNamed(field, "Host"))
            host.append(field).append("\r\n");
        else if (isFieldNamed(field, "Authorization") || isFieldNamed(field, "Proxy-Authorization"))
            out.append(field.substr(0, field.find(':'))).append(": ** NOT DISPLAYED **\r\n");
        else
            out.append(field).append("\r\n");
    });
    out += host;
    out += "\r\n";
    return out;
}

/// Squid's ErrorState::Dump(): the mailto subject and body for %W.
std::string mailtoDetails(const Errors::PageContext& c)
{
    if (!c.emailErrorData || c.adminEmail.empty())
        return {};
    std::string body = "CacheHost: " + hostName(c) + "\r\n";
    body += "ErrPage: " + c.errorName + "\r\n";
    body += c.xerrno ? "Err: " + errnoText(c.xerrno) + "\r\n" : std::string("Err: [none]\r\n");
    if (!c.dnsError.empty())
        body += "DNS ErrMsg: " + c.dnsError + "\r\n";
    body += "TimeStamp: " + Http::FormatHttpDate(whenOf(c)) + "\r\n\r\n";
    body += "ClientIP: " + (c.clientAddress.empty() ? std::string("[unknown]") : c.clientAddress) + "\r\n";
    if (!c.serverAddress.empty())
        body += "ServerIP: " + c.serverAddress + "\r\n";
    body += "\r\nHTTP Request:\r\n";
    if (!c.request.empty())
        body += requestDump(c, "\n");
    body += "\r\n";
    std::string out = "?subject=" + escapePart("CacheErrorInfo - " + c.errorName);
    out += "&amp;body=" + escapePart(body);
    return out;
}

/// Squid 5.7's `@Squid{%CODE}`: the logformat code CODE (those
/// Log::ValueFormat knows) at TEXT[AT], appended to OUT. Returns the length
/// consumed (a code cuttle does not know is copied as written), or 0 when
/// TEXT[AT] starts no `@Squid{...}`.
size_t appendLogformatCode(std::string& out, std::string_view text, size_t at, const Errors::PageContext& c)
{
    static constexpr std::string_view Open = "@Squid{";
    if (text.compare(at, Open.size(), Open) != 0)
        return 0;
    // the brace that closes the code, past those of %{NAME}>h
    size_t close = at + Open.size();
    for (int depth = 0; close < text.size() && (text[close] != '}' || depth > 0); ++close)
        depth += text[close] == '{' ? 1 : text[close] == '}' ? -1 : 0;
    if (close >= text.size())
        return 0;
    Log::ValueFormat format;
    std::string why;
    if (!format.parse(text.substr(at + Open.size(), close - at - Open.size()), why)) {
        out.append(text.substr(at, close + 1 - at)); // as written, its %s not page codes
        return close + 1 - at;
    }
    Log::FormatFacts facts;
    facts.clientAddress = c.clientAddress;
    facts.method = c.method;
    const auto url = cleanUrl(c); // %ru as access.log shows it
    facts.url = url;
    facts.user = c.user;
    facts.start.tv_sec = c.requestStart;
    facts.requestField = [&c](std::string_view name) -> std::optional<std::string> {
        std::optional<std::string> value; // every NAME field's value, joined by ", "
        forEachField(c.request, [&](std::string_view field) {
            if (!isFieldNamed(field, name))
                return;
            auto v = field.substr(name.size() + 1);
            while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
                v.remove_prefix(1);
            value = value ? *value + ", " + std::string(v) : std::string(v);
        });
        return value;
    };
    appendHtml(out, format.expand(facts));
    return close + 1 - at;
}

/// The value of %CODE, HTML-escaped where needed, appended to OUT.
/// Returns false for a code Squid does not define (copied as-is by the caller).
bool appendCode(std::string& out, char code, const Errors::PageContext& c, bool allowSignature)
{
    const auto text = [&out](std::string_view v) { appendHtml(out, v); };
    const auto textOr = [&out](const std::string& v, const char* placeholder) {
        appendHtml(out, v.empty() ? std::string_view(placeholder) : std::string_view(v));
    };
    switch (code) {
    case 'a':
        textOr(c.user, "-");
        return true;
    case 'A':
        textOr(c.localAddress, "[unknown]");
        return true;
    case 'b':
        text(c.localPort ? std::to_string(c.localPort) : std::string("[unknown]"));
        return true;
    case 'B':
        text(c.url.empty() ? std::string("[no URL]") : withFtp2f(c.url)); // "" for other schemes
        return true;
    case 'c':
        textOr(c.errorName, "[unknown]");
        return true;
    case 'D':
        textOr(c.errorDetail, "[No Error Detail]");
        return true;
    case 'e':
        text(std::to_string(c.xerrno));
        return true;
    case 'E':
        text(c.xerrno ? errnoText(c.xerrno) : std::string("[No Error]"));
        return true;
    case 'f':
        textOr(c.ftpRequest, "nothing");
        return true;
    case 'F':
        textOr(c.ftpReply, "nothing");
        return true;
    case 'g':
        text(c.ftpServerMessage);
        return true;
    case 'h':
        text(hostName(c));
        return true;
    case 'H':
        textOr(c.serverHost, "[unknown host]");
        return true;
    case 'i':
        textOr(c.clientAddress, "[unknown]");
        return true;
    case 'I':
        textOr(c.serverAddress, "[unknown]");
        return true;
    case 'l':
        out += c.stylesheet; // admin-provided CSS
        return true;
    case 'L':
        if (c.htmlText.empty())
            text("[not available]");
        else
            out += c.htmlText; // admin-provided HTML (err_html_text)
        return true;
    case 'm':
        textOr(c.authMessage, "[not available]");
        return true;
    case 'M':
        textOr(c.method, "[unknown method]");
        return true;
    case 'o':
        text(c.externalAclMessage);
        return true;
    case 'O':
        out += c.externalAclMessage; // unescaped, as Squid's %O
        return true;
    case 'p':
        text(c.serverPort ? std::to_string(c.serverPort) : std::string("[unknown port]"));
        return true;
    case 'P':
        textOr(c.protocol, "[unknown protocol]");
        return true;
    case 'R':
        text(c.request.empty() ? std::string("[no request]") : requestDump(c, "\r\n"));
        return true;
    case 's':
        text(c.software.empty() ? Errors::SoftwareName() : c.software);
        return true;
    case 'S':
        if (allowSignature)
            out += renderImpl(Signature, c, false); // the signature's own codes, not a second %S
        return true;
    case 't':
        text(localClf(whenOf(c)));
        return true;
    case 'T':
        text(Http::FormatHttpDate(whenOf(c)));
        return true;
    case 'u':
        textOr(c.url, "[no URL]");
        return true;
    case 'U':
        text(c.url.empty() ? std::string("[no URL]") : cleanUrl(c));
        return true;
    case 'w':
        textOr(c.adminEmail, "[unknown]");
        return true;
    case 'W':
        out += mailtoDetails(c); // already URL-escaped; '&' written as &amp;
        return true;
    case 'x':
        textOr(c.errorDetailName, "[Unknown Error Code]");
        return true;
    case 'z':
        textOr(c.dnsError, "[unknown]");
        return true;
    case 'Z':
        textOr(c.message, "[unknown]");
        return true;
    default:
        return false;
    }
}

std::string renderImpl(const std::string& text, const Errors::PageContext& c, bool allowSignature)
{
    std::string out;
    out.reserve(text.size() + 512);
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '@') {
            if (const auto used = appendLogformatCode(out, text, i, c)) {
                i += used - 1;
                continue;
            }
        }
        if (text[i] != '%' || i + 1 == text.size()) {
            out += text[i];
            continue;
        }
        const char code = text[i + 1];
        if (code == '%') {
            out += '%';
            ++i;
            continue;
        }
        if (appendCode(out, code, c, allowSignature)) {
            ++i;
            continue;
        }
        out += '%'; // unknown code: copied as-is (the next character follows normally)
    }
    return out;
}

} // namespace

std::string Errors::ExpandDenyInfoUrl(const std::string& pattern, const PageContext& c)
{
    // Squid 5.7's ErrorState::Convert() with building_deny_info_url: each
    // value rfc1738-escaped, %R as it is
    std::string out;
    for (size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] != '%' || i + 1 == pattern.size()) {
            out += pattern[i];
            continue;
        }
        const char code = pattern[++i];
        std::string value;
        switch (code) {
        case 'a':
            value = c.user.empty() ? std::string("-") : c.user;
            break;
        case 'A':
            value = c.localAddress;
            break;
        case 'e':
            value = std::to_string(c.xerrno);
            break;
        case 'E':
            value = c.xerrno ? errnoText(c.xerrno) : std::string("[No Error]");
            break;
        case 'h':
            value = hostName(c);
            break;
        case 'H':
            value = c.serverHost;
            break;
        case 'i':
            value = c.clientAddress;
            break;
        case 'M':
            value = c.method;
            break;
        case 'p':
            value = std::to_string(c.serverPort);
            break;
        case 'P':
            value = c.protocol;
            break;
        case 'R': {
            // the path and query, not escaped (Squid's request->url.path())
            const auto scheme = c.url.find("://");
            const auto slash = c.url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
            out += slash == std::string::npos ? std::string("/") : c.url.substr(slash);
            continue;
        }
        case 'T':
            value = Http::FormatHttpDate(whenOf(c));
            break;
        case 'u':
            value = c.url;
            break;
        case 'U':
            value = cleanUrl(c);
            break;
        case 'w':
            value = c.adminEmail;
            break;
        case 'x':
            value = c.errorDetailName;
            break;
        case '%':
            out += "%25"; // escaped too, as Squid does
            continue;
        default: // refused by the configuration (Config::DenyInfoUrlCodes): kept as it is
            out += '%';
            out += code;
            continue;
        }
        out += escapePart(value);
    }
    return out;
}

std::string Errors::render(const std::string& templateText, const PageContext& context)
{
    return renderImpl(templateText, context, true);
}

std::string Errors::buildReply(int statusCode, const std::string& templateName, const PageContext& context,
                               const Catalog& catalog, const ReplyOptions& options)
{
    PageContext c = context;
    if (c.errorName.empty())
        c.errorName = templateName;
    if (!c.timestamp)
        c.timestamp = std::time(nullptr);
    if (c.stylesheet.empty())
        c.stylesheet = catalog.stylesheet();
    const auto page = catalog.choose(templateName, c.acceptLanguage);
    const std::string body = render(page.text, c);

    std::string reply;
    Http::AppendStatusLine(reply, statusCode);
    Http::AppendField(reply, "Server", c.software.empty() ? SoftwareName() : c.software);
    Http::AppendField(reply, "Mime-Version", "1.0");
    Http::AppendField(reply, "Date", Http::FormatHttpDate(c.timestamp));
    Http::AppendField(reply, "Content-Type", "text/html;charset=utf-8");
    Http::AppendField(reply, "Content-Length", std::to_string(body.size()));
    Http::AppendField(reply, "X-Squid-Error", c.errorName + " " + std::to_string(c.xerrno));
    if (page.vary)
        Http::AppendField(reply, "Vary", "Accept-Language");
    if (!page.contentLanguage.empty())
        Http::AppendField(reply, "Content-Language", page.contentLanguage);
    if (options.close)
        Http::AppendField(reply, "Connection", "close");
    for (const auto& [name, value] : options.extraFields)
        Http::AppendField(reply, name, value);
    Http::EndHead(reply);
    if (!options.headOnly)
        reply += body;
    return reply;
}
