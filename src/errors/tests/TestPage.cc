/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "errors/Page.h"
#include "errors/Catalog.h"
#include "log/CacheLog.h"

#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <map>
#include <sstream>
#include <string>

namespace {

/// A context where every field has a distinct value.
Errors::PageContext fullContext()
{
    Errors::PageContext c;
    c.errorName = "ERR_CONNECT_FAIL";
    c.url = "http://user:secret@origin.example:8080/path?q=1";
    c.method = "GET";
    c.protocol = "http";
    c.clientAddress = "192.0.2.7";
    c.serverHost = "origin.example";
    c.serverPort = 8080;
    c.serverAddress = "198.51.100.9";
    c.visibleHostname = "proxy.example";
    c.localAddress = "127.0.0.1";
    c.localPort = 3128;
    c.xerrno = ECONNREFUSED;
    c.dnsError = "NXDOMAIN";
    c.request = "GET /path HTTP/1.1\nHost: origin.example";
    c.user = "alice";
    c.authMessage = "bad password";
    c.externalAclMessage = "not today";
    c.errorDetail = "certificate expired";
    c.errorDetailName = "X509_V_ERR_CERT_HAS_EXPIRED";
    c.message = "preformatted";
    c.ftpRequest = "RETR x";
    c.ftpReply = "550 no";
    c.ftpServerMessage = "welcome";
    c.stylesheet = "body{color:red}";
    c.htmlText = "<a href=\"/help\">help</a>";
    c.timestamp = 1700000000;
    c.requestStart = 1699999990;
    c.adminEmail = "admin@example.net";
    c.emailErrorData = true;
    c.software = "cuttle/9.9";
    return c;
}

/// The pages of cuttle's own templates as an error_directory (no negotiation).
Errors::Catalog shippedPages()
{
    Errors::CatalogSources sources;
    sources.errorDirectory = CUTTLE_TEST_TEMPLATE_DIR;
    Errors::Catalog catalog;
    catalog.load(sources);
    return catalog;
}

std::string renderCode(const std::string& code, const Errors::PageContext& c)
{
    return Errors::render(code, c);
}

/// The header block of a reply (before the blank line).
std::string headersOf(const std::string& reply)
{
    return reply.substr(0, reply.find("\r\n\r\n") + 2);
}

std::string bodyOf(const std::string& reply)
{
    return reply.substr(reply.find("\r\n\r\n") + 4);
}

} // namespace

/// Tests of Errors::render() and Errors::buildReply().
class TestPage : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestPage);
    CPPUNIT_TEST(everyCodeHasItsValue);
    CPPUNIT_TEST(denyInfoUrlCodesAreEscaped);
    CPPUNIT_TEST(emptyContextGivesSquidPlaceholders);
    CPPUNIT_TEST(percentPercentIsPercent);
    CPPUNIT_TEST(unknownCodesAreKept);
    CPPUNIT_TEST(trailingPercentIsKept);
    CPPUNIT_TEST(hostileUrlIsEscaped);
    CPPUNIT_TEST(adminHtmlIsNotEscaped);
    CPPUNIT_TEST(ftpUrlGets2f);
    CPPUNIT_TEST(mailtoDetailsAreUrlEncoded);
    CPPUNIT_TEST(signatureIsExpanded);
    CPPUNIT_TEST(requestIsShownAsSquidDoes);
    CPPUNIT_TEST(squidLogformatCodesAreExpanded);
    CPPUNIT_TEST(unsetDirectivesGiveSquidsValues);
    CPPUNIT_TEST(errorDirectoryRepliesHaveNoLanguage);
    CPPUNIT_TEST(replyHasSquidHeaders);
    CPPUNIT_TEST(contentLengthMatchesBody);
    CPPUNIT_TEST(connectionCloseOnlyWhenAsked);
    CPPUNIT_TEST(headOnlyAndExtraFields);
    CPPUNIT_TEST_SUITE_END();

public:
    void setUp() override
    {
        ::setenv("TZ", "UTC", 1);
        ::tzset();
        Log::cacheLog().setStderrStream(&log_); // fallback-page warnings
    }

    void tearDown() override { Log::cacheLog().setStderrStream(nullptr); }

    void everyCodeHasItsValue()
    {
        const auto c = fullContext();
        const std::map<std::string, std::string> expected = {
            {"%a", "alice"},
            {"%A", "127.0.0.1"},
            {"%b", "3128"},
            {"%B", ""}, // ftp:// URLs only
            {"%c", "ERR_CONNECT_FAIL"},
            {"%D", "certificate expired"},
            {"%e", "111"},
            {"%E", "(111) Connection refused"},
            {"%f", "RETR x"},
            {"%F", "550 no"},
            {"%g", "welcome"},
            {"%h", "proxy.example"},
            {"%H", "origin.example"},
            {"%i", "192.0.2.7"},
            {"%I", "198.51.100.9"},
            {"%l", "body{color:red}"},
            {"%L", "<a href=\"/help\">help</a>"},
            {"%m", "bad password"},
            {"%M", "GET"},
            {"%o", "not today"},
            {"%O", "not today"},
            {"%p", "8080"},
            {"%P", "http"},
            {"%R", "GET /path HTTP/1.1\r\nHost: origin.example\r\n\r\n"},
            {"%s", "cuttle/9.9"},
            {"%t", "14/Nov/2023:22:13:20 +0000"},
            {"%T", "Tue, 14 Nov 2023 22:13:20 GMT"},
            {"%u", "http://user:secret@origin.example:8080/path?q=1"},
            {"%U", "http://origin.example:8080/path?q=1"},
            {"%w", "admin@example.net"},
            {"%x", "X509_V_ERR_CERT_HAS_EXPIRED"},
            {"%z", "NXDOMAIN"},
            {"%Z", "preformatted"},
        };
        for (const auto& [code, value] : expected)
            CPPUNIT_ASSERT_EQUAL_MESSAGE(code, value, renderCode(code, c));
        CPPUNIT_ASSERT(
            renderCode("%W", c).rfind("?subject=CacheErrorInfo%20-%20ERR_CONNECT_FAIL&amp;body=", 0) == 0);
        CPPUNIT_ASSERT(renderCode("%S", c).find("Generated Tue, 14 Nov 2023 22:13:20 GMT by proxy.example "
                                                "(cuttle/9.9)") != std::string::npos);
    }

    /// a deny_info URL: each value rfc1738-escaped (as Squid 5.7 wrote them
    /// in test-suite/access/deny-info.sh), %R as it is, unknown codes kept
    void denyInfoUrlCodesAreEscaped()
    {
        auto c = fullContext();
        c.xerrno = 0;
        c.errorDetailName.clear();
        c.url = "http://user:secret@origin.example:8080/path?q=a%20b";
        const auto x = [&c](const std::string& p) { return Errors::ExpandDenyInfoUrl(p, c); };
        CPPUNIT_ASSERT_EQUAL(
            std::string("http://x/?u=http%3A%2F%2Fuser%3Asecret%40origin.example%3A8080%2Fpath%3Fq%3Da%"
                        "2520b"),
            x("http://x/?u=%u"));
        CPPUNIT_ASSERT_EQUAL(std::string("/path?q=a%20b"), x("%R"));
        CPPUNIT_ASSERT_EQUAL(std::string("http%3A%2F%2Forigin.example%3A8080%2Fpath%3Fq%3Da%2520b"), x("%U"));
        c.stripQueryTerms = true;
        CPPUNIT_ASSERT_EQUAL(std::string("http%3A%2F%2Forigin.example%3A8080%2Fpath%3F"), x("%U"));
        CPPUNIT_ASSERT_EQUAL(std::string("origin.example 192.0.2.7 GET 8080 http alice admin%40example.net "
                                         "proxy.example 127.0.0.1 0 %5BNo%20Error%5D  100%25"),
                             x("%H %i %M %p %P %a %w %h %A %e %E %x 100%%"));
        c.user.clear();
        CPPUNIT_ASSERT_EQUAL(std::string("-"), x("%a"));
        CPPUNIT_ASSERT_EQUAL(std::string("Tue,%2014%20Nov%202023%2022%3A13%3A20%20GMT"), x("%T"));
        CPPUNIT_ASSERT_EQUAL(std::string("%o%B%"), x("%o%B%"));
    }

    void emptyContextGivesSquidPlaceholders()
    {
        Errors::PageContext c;
        c.timestamp = 1700000000;
        CPPUNIT_ASSERT_EQUAL(std::string("-"), renderCode("%a", c));
        CPPUNIT_ASSERT_EQUAL(std::string("[No Error]"), renderCode("%E", c));
        CPPUNIT_ASSERT_EQUAL(std::string("0"), renderCode("%e", c));
        CPPUNIT_ASSERT_EQUAL(std::string("[no URL]"), renderCode("%U", c));
        CPPUNIT_ASSERT_EQUAL(std::string("[unknown host]"), renderCode("%H", c));
        CPPUNIT_ASSERT_EQUAL(std::string("[unknown port]"), renderCode("%p", c));
        CPPUNIT_ASSERT_EQUAL(std::string("[unknown method]"), renderCode("%M", c));
        CPPUNIT_ASSERT_EQUAL(std::string("webmaster"), renderCode("%w", c));
        CPPUNIT_ASSERT_EQUAL(Errors::SoftwareName(), renderCode("%s", c));
        CPPUNIT_ASSERT_EQUAL(std::string(PACKAGE_NAME "/" PACKAGE_VERSION), Errors::SoftwareName());
        CPPUNIT_ASSERT(!renderCode("%h", c).empty()); // falls back to the machine's name
    }

    void percentPercentIsPercent()
    {
        CPPUNIT_ASSERT_EQUAL(std::string("100% sure %c"), renderCode("100%% sure %%c", fullContext()));
    }

    void unknownCodesAreKept()
    {
        // %d is not Squid 5.7's either
        CPPUNIT_ASSERT_EQUAL(std::string("%q %1 %{x} %d"), renderCode("%q %1 %{x} %d", fullContext()));
    }

    void trailingPercentIsKept()
    {
        CPPUNIT_ASSERT_EQUAL(std::string("50%"), renderCode("50%", fullContext()));
    }

    void hostileUrlIsEscaped()
    {
        auto c = fullContext();
        c.url = "http://evil.example/<script>alert('x')</script>?a=\"1\"&b=2";
        c.method = "<img>";
        c.serverHost = "<b>h</b>";
        c.request = "GET /<script> HTTP/1.1";
        const std::string page = Errors::render("<a href=\"%U\">%u</a> %M %H <pre>%R</pre>", c);
        CPPUNIT_ASSERT(page.find("<script>") == std::string::npos);
        CPPUNIT_ASSERT(page.find("<img>") == std::string::npos);
        CPPUNIT_ASSERT(page.find("<b>") == std::string::npos);
        CPPUNIT_ASSERT(page.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;?a=&quot;1&quot;&amp;b=2") !=
                       std::string::npos);
        // the quoted attribute cannot be closed by the URL
        CPPUNIT_ASSERT_EQUAL(size_t(2), static_cast<size_t>(std::count(page.begin(), page.end(), '"')));
    }

    void adminHtmlIsNotEscaped()
    {
        const auto c = fullContext();
        CPPUNIT_ASSERT_EQUAL(std::string("<a href=\"/help\">help</a>"), renderCode("%L", c));
    }

    void ftpUrlGets2f()
    {
        auto c = fullContext();
        c.url = "ftp://u:p@ftp.example/pub/file";
        CPPUNIT_ASSERT_EQUAL(std::string("ftp://ftp.example/%2fpub/file"), renderCode("%B", c));
        CPPUNIT_ASSERT_EQUAL(std::string("ftp://ftp.example/pub/file"), renderCode("%U", c));
    }

    void mailtoDetailsAreUrlEncoded()
    {
        auto c = fullContext();
        const std::string w = renderCode("%W", c);
        CPPUNIT_ASSERT(w.find(' ') == std::string::npos);
        CPPUNIT_ASSERT(w.find('<') == std::string::npos);
        CPPUNIT_ASSERT(w.find("ClientIP%3A%20192.0.2.7") != std::string::npos);
        CPPUNIT_ASSERT(w.find("Err%3A%20(111)%20Connection%20refused") != std::string::npos);
        c.emailErrorData = false;
        CPPUNIT_ASSERT_EQUAL(std::string(), renderCode("%W", c));
    }

    void signatureIsExpanded()
    {
        const std::string sig = renderCode("%S", fullContext());
        CPPUNIT_ASSERT(sig.find('%') == std::string::npos);
        CPPUNIT_ASSERT(sig.find("<div id=\"footer\">") != std::string::npos);
    }

    /// %R and the request in %W: origin-form, credentials hidden, Host last, CRLFs (Squid 5.7's output)
    void requestIsShownAsSquidDoes()
    {
        auto c = fullContext();
        c.request = "GET http://h.example/p?q=1 HTTP/1.1\r\nHost: h.example\r\nAuthorization: Basic dTpw\r\n"
                    "proxy-authorization: Basic eDp5\r\n\r\n";
        CPPUNIT_ASSERT_EQUAL(
            std::string("GET /p?q=1 HTTP/1.1\r\nAuthorization: ** NOT DISPLAYED **\r\n"
                        "proxy-authorization: ** NOT DISPLAYED **\r\nHost: h.example\r\n\r\n"),
            renderCode("%R", c));
        const auto w = renderCode("%W", c);
        CPPUNIT_ASSERT(w.find("dTpw") == std::string::npos);
        CPPUNIT_ASSERT(w.find("eDp5") == std::string::npos);
        CPPUNIT_ASSERT(
            w.find("GET%20%2Fp%3Fq%3D1%20HTTP%2F1.1%0AAuthorization%3A%20**%20NOT%20DISPLAYED%20**%0D%0A") !=
            std::string::npos);
        c.request = "CONNECT h.example:443 HTTP/1.1\r\nHost: h.example:443\r\n\r\n";
        CPPUNIT_ASSERT_EQUAL(std::string("CONNECT  HTTP/1.1\r\nHost: h.example:443\r\n\r\n"),
                             renderCode("%R", c));
        c.request.clear();
        CPPUNIT_ASSERT_EQUAL(std::string("[no request]"), renderCode("%R", c));
    }

    void squidLogformatCodesAreExpanded()
    {
        const auto c = fullContext();
        CPPUNIT_ASSERT_EQUAL(std::string("192.0.2.7 GET alice 1699999990"),
                             renderCode("@Squid{%>a} @Squid{%rm} @Squid{%un} @Squid{%ts}", c));
        CPPUNIT_ASSERT_EQUAL(std::string("origin.example|-"),
                             renderCode("@Squid{%{Host}>h}|@Squid{%{X-None}>h}", c));
        // a code cuttle does not know, or no closing brace: as written
        CPPUNIT_ASSERT_EQUAL(std::string("@Squid{%bogus} @Squid{%rm"),
                             renderCode("@Squid{%bogus} @Squid{%rm", c));
        auto hostile = c;
        hostile.url = "http://x/<b>";
        CPPUNIT_ASSERT_EQUAL(std::string("http://x/&lt;b&gt;"), renderCode("@Squid{%ru}", hostile));
    }

    /// what Squid 5.7 printed for a request with no err_html_text, no FTP, no
    /// external acl message, and strip_query_terms on
    void unsetDirectivesGiveSquidsValues()
    {
        auto c = fullContext();
        c.htmlText.clear();
        c.ftpServerMessage.clear();
        c.externalAclMessage.clear();
        c.stripQueryTerms = true;
        CPPUNIT_ASSERT_EQUAL(std::string("[not available]||"), renderCode("%L|%g|%o", c));
        CPPUNIT_ASSERT_EQUAL(std::string("http://origin.example:8080/path?"), renderCode("%U", c));
        c.emailErrorData = false;
        CPPUNIT_ASSERT_EQUAL(std::string("admin@example.net"), renderCode("%w%W", c));
    }

    void errorDirectoryRepliesHaveNoLanguage()
    {
        const auto reply = Errors::buildReply(403, "ERR_ACCESS_DENIED", fullContext(), shippedPages());
        CPPUNIT_ASSERT(headersOf(reply).find("Vary:") == std::string::npos);
        CPPUNIT_ASSERT(headersOf(reply).find("Content-Language:") == std::string::npos);
        CPPUNIT_ASSERT(bodyOf(reply).find("body{color:red}") != std::string::npos); // the context's CSS
    }

    void replyHasSquidHeaders()
    {
        Errors::Catalog none;
        auto c = fullContext();
        c.xerrno = 0;
        c.errorName.clear();
        const std::string reply = Errors::buildReply(403, "ERR_ACCESS_DENIED", c, none);
        const std::string expected = "HTTP/1.1 403 Forbidden\r\n"
                                     "Server: cuttle/9.9\r\n"
                                     "Mime-Version: 1.0\r\n"
                                     "Date: Tue, 14 Nov 2023 22:13:20 GMT\r\n"
                                     "Content-Type: text/html;charset=utf-8\r\n"
                                     "Content-Length: " +
                                     std::to_string(bodyOf(reply).size()) +
                                     "\r\n"
                                     "X-Squid-Error: ERR_ACCESS_DENIED 0\r\n"
                                     "Vary: Accept-Language\r\n"
                                     "Content-Language: en\r\n";
        CPPUNIT_ASSERT_EQUAL(expected, headersOf(reply));
        CPPUNIT_ASSERT(bodyOf(reply).find("ERR_ACCESS_DENIED") != std::string::npos);

        const std::string refused = Errors::buildReply(503, "ERR_CONNECT_FAIL", fullContext(), none);
        CPPUNIT_ASSERT(refused.find("\r\nX-Squid-Error: ERR_CONNECT_FAIL 111\r\n") != std::string::npos);
    }

    void contentLengthMatchesBody()
    {
        const auto pages = shippedPages();
        for (const auto& name : Errors::Templates::KnownNames()) {
            const std::string reply = Errors::buildReply(502, name, fullContext(), pages);
            const auto pos = reply.find("Content-Length: ");
            CPPUNIT_ASSERT(pos != std::string::npos);
            const auto length = std::strtoul(reply.c_str() + pos + 16, nullptr, 10);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(name, bodyOf(reply).size(), static_cast<size_t>(length));
            CPPUNIT_ASSERT_MESSAGE(name, bodyOf(reply).find("%c") == std::string::npos);
        }
    }

    void connectionCloseOnlyWhenAsked()
    {
        Errors::Catalog none;
        const auto c = fullContext();
        CPPUNIT_ASSERT(Errors::buildReply(400, "ERR_INVALID_REQ", c, none).find("Connection:") ==
                       std::string::npos);
        Errors::ReplyOptions options;
        options.close = true;
        const std::string closing = Errors::buildReply(400, "ERR_INVALID_REQ", c, none, options);
        CPPUNIT_ASSERT(headersOf(closing).find("\r\nConnection: close\r\n") != std::string::npos);
    }

    /// a reply to HEAD has the head only, with the page's length; extra
    /// fields follow Squid's own, in order
    void headOnlyAndExtraFields()
    {
        Errors::Catalog none;
        const auto c = fullContext();
        const std::string whole = Errors::buildReply(502, "ERR_READ_ERROR", c, none);
        Errors::ReplyOptions options;
        options.headOnly = true;
        options.extraFields = {{"X-Cache", "MISS from proxy"}, {"Connection", "keep-alive"}};
        const std::string head = Errors::buildReply(502, "ERR_READ_ERROR", c, none, options);
        CPPUNIT_ASSERT(head.size() > 4 && head.compare(head.size() - 4, 4, "\r\n\r\n") == 0);
        CPPUNIT_ASSERT_EQUAL(head.size(), head.find("\r\n\r\n") + 4); // nothing after the head
        const auto lengthAt = head.find("\r\nContent-Length: ");
        CPPUNIT_ASSERT(lengthAt != std::string::npos);
        const auto bodySize = whole.size() - (whole.find("\r\n\r\n") + 4);
        CPPUNIT_ASSERT_EQUAL(std::to_string(bodySize),
                             head.substr(lengthAt + 18, head.find("\r\n", lengthAt + 2) - lengthAt - 18));
        CPPUNIT_ASSERT(
            head.find(
                "\r\nContent-Language: en\r\nX-Cache: MISS from proxy\r\nConnection: keep-alive\r\n\r\n") !=
            std::string::npos);
    }

private:
    std::ostringstream log_; ///< cache.log output during a test
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestPage);
