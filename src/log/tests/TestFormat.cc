/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

// The expected lines are Debian's squid 5.7's own access.log lines for the
// same request and format: squid ran with `logformat fNN FORMAT` and
// `access_log stdio:fNN.log fNN` (the formats below), proxying
//
//   curl -x SQUID -H 'User-Agent: Mo "zi" [x] %41 \b; a<b>{c}|^~`#?é'
//        -H 'Referer: http://r.example/a b' -H 'X-Multi: a=1, b=2'
//        -H 'X-Multi: c=3;d=4' -H 'Accept: */*' 'http://127.0.0.1:35183/p/a%20th?q=1&r=%22'
//
// to an origin answering 200 with `Content-Type: text/plain; charset=utf-8`
// and `X-Rep: one two`. The record below holds the same facts (times and
// ports as squid's line showed them). Where cuttle prints "-" for a value it
// does not have, the expectation says so next to Squid's value.

#include "cuttle.h"
#include "log/AccessLog.h"
#include "log/Encoding.h"
#include "log/Format.h"

#include <cppunit/extensions/HelperMacros.h>

#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

namespace {

const char* const UserAgent = "Mo \"zi\" [x] %41 \\b; a<b>{c}|^~`#?\xc3\xa9";

Log::AccessRecord squidRequest()
{
    Log::AccessRecord r;
    r.end = {1795746829, 999751};
    r.start = {1795746829, 998647};
    r.responseTimeUs = 1104;
    r.responseTimeMs = 1;
    r.clientAddress = "127.0.0.1";
    r.clientPort = 55926;
    r.localAddress = "127.0.0.1";
    r.localPort = 45903;
    r.resultCode = "TCP_MISS";
    r.httpStatus = 200;
    r.peerStatus = 200;
    r.bytesSent = 314;
    r.requestHeadSize = 241;
    r.replyHeadSize = 302;
    r.method = "GET";
    r.url = "http://127.0.0.1:35183/p/a%20th?";
    r.requestUrl = "http://127.0.0.1:35183/p/a%20th?q=1&r=%22";
    r.hierarchy = "HIER_DIRECT";
    r.peerAddress = "127.0.0.1";
    r.mimeType = "text/plain; charset=utf-8";
    r.referer = "http://r.example/a b";
    r.userAgent = UserAgent;
    r.requestHead = std::string("Proxy-Connection: Keep-Alive\r\nUser-Agent: ") + UserAgent +
                    "\r\nReferer: http://r.example/a b\r\nX-Multi: a=1, b=2\r\nX-Multi: c=3;d=4\r\nAccept: "
                    "*/*\r\nHost: 127.0.0.1:35183\r\n";
    r.replyHead = "HTTP/1.1 200 OK\r\nServer: BaseHTTP/0.6 Python/3.11.7\r\nDate: Fri, 27 Nov 2026 02:33:49 "
                  "GMT\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 12\r\nX-Rep: one "
                  "two\r\nCache-Control: no-store\r\nX-Cache: MISS from vm\r\nX-Cache-Lookup: MISS from "
                  "vm:45903\r\nVia: 1.1 vm (squid/5.7)\r\nConnection: keep-alive\r\n\r\n";
    return r;
}

/// the second request: a connect failure answered with squid's 503 page
Log::AccessRecord squidFailure()
{
    Log::AccessRecord r;
    r.end = {1795746830, 10968};
    r.start = {1795746830, 10661};
    r.responseTimeUs = 307;
    r.clientAddress = "127.0.0.1";
    r.resultCode = "TCP_MISS";
    r.httpStatus = 503;
    r.bytesSent = 3428;
    r.requestHeadSize = 161;
    r.replyHeadSize = 362;
    r.method = "GET";
    r.url = "http://127.0.0.1:1/x";
    r.hierarchy = "HIER_DIRECT";
    r.mimeType = "text/html;charset=utf-8";
    r.errorCode = "ERR_CONNECT_FAIL";
    r.replyHead = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/html;charset=utf-8\r\n\r\n";
    return r;
}

std::string expand(const std::string& format, const Log::AccessRecord& r, uint64_t sequence = 0)
{
    Log::Format f;
    std::string why;
    std::vector<std::string> warnings;
    if (!f.parse(format, why, warnings))
        return "parse error: " + why;
    std::string out;
    f.append(out, r, sequence);
    return out;
}

} // namespace

/// Tests of Log::Format (every code and modifier) and of the built-in formats, against Squid 5.7.
class TestFormat : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestFormat);
    CPPUNIT_TEST(squidFormatSpelledOut);
    CPPUNIT_TEST(connectionCodes);
    CPPUNIT_TEST(timeCodes);
    CPPUNIT_TEST(requestCodes);
    CPPUNIT_TEST(encodings);
    CPPUNIT_TEST(headerFieldsAndMembers);
    CPPUNIT_TEST(sizesAndStatus);
    CPPUNIT_TEST(sizesOfAnErrorPage);
    CPPUNIT_TEST(userAndMiscellaneous);
    CPPUNIT_TEST(widthsAndPrecision);
    CPPUNIT_TEST(wholeHeads);
    CPPUNIT_TEST(httpPrefixAndArgumentAfter);
    CPPUNIT_TEST(unknownCodesAreRefused);
    CPPUNIT_TEST(deprecatedCodesWarn);
    CPPUNIT_TEST(needsFollowTheCodes);
    CPPUNIT_TEST(builtInFormatsAsSquid);
    CPPUNIT_TEST(mimeHeadersAsSquid);
    CPPUNIT_TEST_SUITE_END();

public:
    void setUp() override
    {
        ::setenv("TZ", "UTC", 1);
        ::tzset();
    }

    void squidFormatSpelledOut()
    {
        CPPUNIT_ASSERT_EQUAL(
            std::string("1795746829.999      1 127.0.0.1 TCP_MISS/200 314 GET "
                        "http://127.0.0.1:35183/p/a%20th? - HIER_DIRECT/127.0.0.1 text/plain"),
            expand("%ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru %[un %Sh/%<a %mt", squidRequest()));
    }

    void connectionCodes()
    {
        // Squid: ...|127.0.0.1|59100 for %<la|%<lp, which cuttle does not keep
        CPPUNIT_ASSERT_EQUAL(
            std::string(
                "127.0.0.1|127.0.0.1|55926|127.0.0.1|45903|127.0.0.1|45903|127.0.0.1|127.0.0.1|35183|-|-"),
            expand("%>a|%>A|%>p|%>la|%>lp|%la|%lp|%<a|%<A|%<p|%<la|%<lp", squidRequest()));
    }

    void timeCodes()
    {
        // Squid: ...|1|0|0: cuttle has no %<pt and %<tt
        CPPUNIT_ASSERT_EQUAL(std::string("27/Nov/2026:02:33:49 +0000|27/Nov/2026:02:33:49|2026|02:33|"
                                         "1795746829.998|-|1|-|-"),
                             expand("%tl|%tg|%{%Y}tl|%{%H:%M}tg|%tS|%dt|%tr|%<pt|%<tt", squidRequest()));
    }

    void requestCodes()
    {
        // Squid prints a stale buffer ("02:33") for %<rv; cuttle the version it sends
        CPPUNIT_ASSERT_EQUAL(
            std::string(
                "GET|GET|GET|http://127.0.0.1:35183/p/a%20th?|http://127.0.0.1:35183/p/a%20th?q=1&r=%22|"
                "http://127.0.0.1:35183/p/a%20th?q=1&r=%22|http|http|127.0.0.1|127.0.0.1|35183|35183|"
                "/p/a%20th?q=1&r=%22|/p/a%20th?q=1&r=%22|/p/a%20th?q=1&r=%22|1.1|1.1|1.1"),
            expand("%rm|%>rm|%<rm|%ru|%>ru|%<ru|%>rs|%<rs|%>rd|%<rd|%>rP|%<rP|%rp|%>rp|%<rp|%rv|%>rv|%<rv",
                   squidRequest()));
    }

    void encodings()
    {
        CPPUNIT_ASSERT_EQUAL(
            std::string("Mo%20%22zi%22%20%5Bx%5D%20%41%20%5Cb;%20a%3Cb%3E%7Bc%7D%7C%5E%7E%60%23?%C3%A9|"
                        "Mo \\\"zi\\\" [x] %41 \\\\b; a<b>{c}|^~`#?\xc3\xa9|"
                        "Mo \"zi\" %5bx%5d %2541 \\\\b; a<b>{c}|^~`#?%c3%a9|"
                        "Mo%20%22zi%22%20%5Bx%5D%20%2541%20%5Cb;%20a%3Cb%3E%7Bc%7D%7C%5E%7E%60%23?%C3%A9|"
                        "Mo \"zi\" [x] %41 \\b; a<b>{c}|^~`#?\xc3\xa9|"
                        "\"Mo \\\"zi\\\" [x] %41 \\\\b; a<b>{c}|^~`#?\xc3\xa9\""),
            expand("%{User-Agent}>h|%\"{User-Agent}>h|%[{User-Agent}>h|%#{User-Agent}>h|%'{User-Agent}>h|"
                   "%/{User-Agent}>h",
                   squidRequest()));
        // CR, LF and TAB under %" and %[
        auto r = squidRequest();
        r.user = "a\tb\r\n";
        CPPUNIT_ASSERT_EQUAL(std::string("a\\tb\\r\\n|a%09b\\r\\n"), expand("%\"un|%[un", r));
    }

    void headerFieldsAndMembers()
    {
        CPPUNIT_ASSERT_EQUAL(
            std::string("a=1,%20b=2,%20c=3;d=4|2|2|1|-|one%20two|text/plain;%20charset=utf-8"),
            expand("%{X-Multi}>h|%{X-Multi:;b}>h|%{X-Multi:b}>h|%{X-Multi:,a}>h|%{X-None}>h|"
                   "%{X-Rep}<h|%{Content-Type}<h",
                   squidRequest()));
        CPPUNIT_ASSERT_EQUAL(std::string("-|-|-|-|-|-|text/html;charset=utf-8"),
                             expand("%{X-Multi}>h|%{X-Multi:;b}>h|%{X-Multi:b}>h|%{X-Multi:,a}>h|%{X-None}>h|"
                                    "%{X-Rep}<h|%{Content-Type}<h",
                                    squidFailure()));
        // ';' separates only when asked; ',' always does; quotes hide both
        CPPUNIT_ASSERT_EQUAL(std::string("4"), Log::ListMember("a=1, c=3;d=4", "d", ';'));
        CPPUNIT_ASSERT_EQUAL(std::string(), Log::ListMember("a=1, c=3;d=4", "d", ','));
        CPPUNIT_ASSERT_EQUAL(std::string("\"x,y\""), Log::ListMember("a=\"x,y\", b=2", "a", ','));
    }

    void sizesAndStatus()
    {
        // Squid: ...|12|text/plain...: %<bs, the body bytes from the next hop, cuttle does not count
        CPPUNIT_ASSERT_EQUAL(
            std::string("200|200|555|241|314|241|302|12|12|-|text/plain|TCP_MISS|HIER_DIRECT"),
            expand("%>Hs|%<Hs|%st|%>st|%<st|%>sh|%<sh|%<sH|%<sS|%<bs|%mt|%Ss|%Sh", squidRequest()));
    }

    void sizesOfAnErrorPage()
    {
        CPPUNIT_ASSERT_EQUAL(
            std::string("503|-|3589|161|3428|161|362|3066|3066|-|text/html|TCP_MISS|HIER_DIRECT"),
            expand("%>Hs|%<Hs|%st|%>st|%<st|%>sh|%<sh|%<sH|%<sS|%<bs|%mt|%Ss|%Sh", squidFailure()));
    }

    void userAndMiscellaneous()
    {
        // Squid: ...|0|53|- : cuttle has no master transaction id
        CPPUNIT_ASSERT_EQUAL(std::string("-|-|-|-|-|-|-|-|-|0|-|-"),
                             expand("%un|%ul|%ue|%ui|%et|%ea|%err_code|%err_detail|%note|%sn|%master_xaction|"
                                    "%credentials",
                                    squidRequest()));
        // Squid: ...|WITH_SERVER|-|1|55|- (err_detail and the id again)
        CPPUNIT_ASSERT_EQUAL(std::string("ERR_CONNECT_FAIL|-|1"),
                             expand("%err_code|%err_detail|%sn", squidFailure(), 1));
        auto r = squidRequest();
        r.user = "bob";
        CPPUNIT_ASSERT_EQUAL(std::string("bob|-"), expand("%un|%ul", r));
        r.userFromAuth = true;
        CPPUNIT_ASSERT_EQUAL(std::string("bob|bob"), expand("%un|%ul", r));
    }

    void widthsAndPrecision()
    {
        const std::string format =
            "[%10tr]|[%-10tr]|[%010tr]|[%.3tr]|[%10.2tr]|[%5rm]|[%-5rm]|[%.2rm]|[%8.3rm]|"
            "[%03>Hs]|[%.1tu]|[%06.6tu]";
        CPPUNIT_ASSERT_EQUAL(
            std::string("[         1]|[1         ]|[0000000001]|[1.104]|[      1.00]|[  GET]|"
                        "[GET  ]|[GE]|[     GET]|[200]|[9]|[999751]"),
            expand(format, squidRequest()));
        CPPUNIT_ASSERT_EQUAL(
            std::string("[         0]|[0         ]|[0000000000]|[0.307]|[      0.00]|[  GET]|"
                        "[GET  ]|[GE]|[     GET]|[503]|[0]|[010968]"),
            expand(format, squidFailure()));
        // an absent value is a bare "-", whatever the width
        CPPUNIT_ASSERT_EQUAL(std::string("[-]"), expand("[%10{X-None}>h]", squidRequest()));
    }

    void wholeHeads()
    {
        CPPUNIT_ASSERT_EQUAL(
            std::string(
                "Proxy-Connection:%20Keep-Alive%0D%0AUser-Agent:%20Mo%20%22zi%22%20%5Bx%5D%20%41%20%5Cb;%20a"
                "%3Cb%3E%7Bc%7D%7C%5E%7E%60%23?%C3%A9%0D%0AReferer:%20http://r.example/"
                "a%20b%0D%0AX-Multi:%20a="
                "1,%20b=2%0D%0AX-Multi:%20c=3;d=4%0D%0AAccept:%20*/*%0D%0AHost:%20127.0.0.1:35183%0D%0A"),
            expand("%>h", squidRequest()));
        CPPUNIT_ASSERT_EQUAL(
            std::string(
                "HTTP/1.1%20200%20OK%0D%0AServer:%20BaseHTTP/0.6%20Python/3.11.7%0D%0ADate:%20Fri,%2027%20"
                "Nov%202026%2002:33:49%20GMT%0D%0AContent-Type:%20text/plain;%20charset=utf-8%0D%0AContent-"
                "Length:%2012%0D%0AX-Rep:%20one%20two%0D%0ACache-Control:%20no-store%0D%0AX-Cache:%20MISS%20"
                "from%20vm%0D%0AX-Cache-Lookup:%20MISS%20from%20vm:45903%0D%0AVia:%201.1%20vm%20(squid/5.7)"
                "%0D%0AConnection:%20keep-alive%0D%0A%0D%0A"),
            expand("%<h", squidRequest()));
    }

    void httpPrefixAndArgumentAfter()
    {
        CPPUNIT_ASSERT_EQUAL(
            std::string("127.0.0.1|GET|200|http://r.example/a%20b|314"),
            expand("%http::>a|%http::rm|%http::>Hs|%{Referer}http::>h|%http::<st", squidRequest()));
        // Squid: ...|00:00:00:00:00:00|0x0|0x0 : cuttle has no EUI
        CPPUNIT_ASSERT_EQUAL(
            std::string("Mo%20%22zi%22%20%5Bx%5D%20%41%20%5Cb;%20a%3Cb%3E%7Bc%7D%7C%5E%7E%60%23?%C3%A9|*/*|"
                        "127.0.0.1:35183|%|-|0x0|0x0"),
            expand("%>h{User-Agent}|%{Accept}>ha|%{Host}>h|%%|%>eui|%>qos|%>nfmark", squidRequest()));
    }

    void unknownCodesAreRefused()
    {
        for (const char* bad : {"%zz", "a %", "%us", "%ssl::>sni", "%{X}"}) {
            Log::Format f;
            std::string why;
            std::vector<std::string> warnings;
            CPPUNIT_ASSERT_MESSAGE(bad, !f.parse(bad, why, warnings));
            CPPUNIT_ASSERT_MESSAGE(why, why.find("%-code") != std::string::npos ||
                                            why.find("ends") != std::string::npos);
        }
    }

    void deprecatedCodesWarn()
    {
        Log::Format f;
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(f.parse("%rp %Hs", why, warnings));
        CPPUNIT_ASSERT_EQUAL(size_t(2), warnings.size());
        CPPUNIT_ASSERT(warnings[0].find("\"rp\"") != std::string::npos);
    }

    void needsFollowTheCodes()
    {
        Log::Format f;
        std::string why;
        std::vector<std::string> warnings;
        CPPUNIT_ASSERT(f.parse("%ru %>a", why, warnings));
        CPPUNIT_ASSERT(!f.needs().requestHead && !f.needs().replyHead && !f.needs().requestUrl);
        CPPUNIT_ASSERT(!f.printsAllHeaders());
        CPPUNIT_ASSERT(f.parse("%{Host}>h %>ru", why, warnings));
        CPPUNIT_ASSERT(f.needs().requestHead && !f.needs().replyHead && f.needs().requestUrl);
        CPPUNIT_ASSERT(!f.printsAllHeaders());
        CPPUNIT_ASSERT(f.parse("%<h", why, warnings));
        CPPUNIT_ASSERT(f.needs().replyHead && f.printsAllHeaders());
    }

    void builtInFormatsAsSquid()
    {
        const auto r = squidRequest();
        CPPUNIT_ASSERT_EQUAL(
            std::string("1795746829.999      1 127.0.0.1 TCP_MISS/200 314 GET "
                        "http://127.0.0.1:35183/p/a%20th? - HIER_DIRECT/127.0.0.1 text/plain"),
            Log::format(Log::AccessFormat::Squid, r));
        CPPUNIT_ASSERT_EQUAL(
            std::string("127.0.0.1 - - [27/Nov/2026:02:33:49 +0000] \"GET "
                        "http://127.0.0.1:35183/p/a%20th? HTTP/1.1\" 200 314 TCP_MISS:HIER_DIRECT"),
            Log::format(Log::AccessFormat::Common, r));
        CPPUNIT_ASSERT_EQUAL(
            std::string("127.0.0.1 - - [27/Nov/2026:02:33:49 +0000] \"GET "
                        "http://127.0.0.1:35183/p/a%20th? HTTP/1.1\" 200 314 \"http://r.example/a "
                        "b\" \"Mo \"zi\" [x] %41 \\b; a<b>{c}|^~`#?\xc3\xa9\" TCP_MISS:HIER_DIRECT"),
            Log::format(Log::AccessFormat::Combined, r));
        CPPUNIT_ASSERT_EQUAL(
            std::string("1795746829.999 127.0.0.1 http://r.example/a b http://127.0.0.1:35183/p/a%20th?"),
            Log::format(Log::AccessFormat::Referrer, r));
        CPPUNIT_ASSERT_EQUAL(
            std::string(
                "127.0.0.1 [27/Nov/2026:02:33:49 +0000] \"Mo \"zi\" [x] %41 \\b; a<b>{c}|^~`#?\xc3\xa9\""),
            Log::format(Log::AccessFormat::UserAgent, r));
        CPPUNIT_ASSERT_EQUAL(
            std::string("1795746829.999      0 127.0.0.1 ICAP_ERR_UNKNOWN/000 0 NONE (null) - -/:: -"),
            Log::format(Log::AccessFormat::IcapSquid, r));
        const auto f = squidFailure();
        CPPUNIT_ASSERT_EQUAL(std::string("1795746830.010 127.0.0.1 - http://127.0.0.1:1/x"),
                             Log::format(Log::AccessFormat::Referrer, f));
        CPPUNIT_ASSERT_EQUAL(
            std::string("127.0.0.1 - - [27/Nov/2026:02:33:50 +0000] \"GET http://127.0.0.1:1/x "
                        "HTTP/1.1\" 503 3428 \"-\" \"-\" TCP_MISS:HIER_DIRECT"),
            Log::format(Log::AccessFormat::Combined, f));
    }

    void mimeHeadersAsSquid()
    {
        std::string line;
        Log::QuoteMimeBlob(line, squidRequest().requestHead);
        CPPUNIT_ASSERT_EQUAL(
            std::string("Proxy-Connection: Keep-Alive\\r\\nUser-Agent: Mo \"zi\" %5bx%5d %2541 "
                        "\\\\b; a<b>{c}|^~`#?%c3%a9\\r\\nReferer: http://r.example/a b\\r\\nX-Multi: "
                        "a=1, b=2\\r\\nX-Multi: c=3;d=4\\r\\nAccept: */*\\r\\nHost: "
                        "127.0.0.1:35183\\r\\n"),
            line);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestFormat);
