/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "config/Parser.h"
#include "config/Directives.h"
#include "config/Loosening.h"
#include "config/Lexer.h"
#include "config/SquidDirectives.h"
#include "config/tests/ParseChecks.h"
#include "base/tests/TempDir.h"
#include "acl/Node.h"

#include <algorithm>
#include <set>

#include <cppunit/TestAssert.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace Config;

/// What Squid 5.7 makes of its own old words: aliases, obsolete directives,
/// the built-in manager acl, log forms, and one warning per acl type.
class TestSquidCompat : public CppUnit::TestFixture, public ParseChecks {
    CPPUNIT_TEST_SUITE(TestSquidCompat);
    CPPUNIT_TEST(aliasTableIsSquids);
    CPPUNIT_TEST(aliasIsParsedAsItsTarget);
    CPPUNIT_TEST(aliasAndTargetShareOneSetting);
    CPPUNIT_TEST(aliasOfARefusedDirectiveIsRefused);
    CPPUNIT_TEST(aliasOfAnIgnoredDirectiveWarnsAsItsTarget);
    CPPUNIT_TEST(typoOfAnAliasSuggestsIt);
    CPPUNIT_TEST(obsoleteTableIsSquids);
    CPPUNIT_TEST(obsoleteDirectivesWarnAsObsolete);
    CPPUNIT_TEST(fatalObsoleteDirectivesAreErrors);
    CPPUNIT_TEST(aclManagerProtoIsSkippedWithSquidsNote);
    CPPUNIT_TEST(unimplementedAclTypeWarnsOncePerTypeAndFile);
    CPPUNIT_TEST(unimplementedAclsAreStillRefusedWhereUsed);
    CPPUNIT_TEST(cacheLogNone);
    CPPUNIT_TEST(accessLogFormatOrAclAsSquidDecides);
    CPPUNIT_TEST(accessLogOptionsThenAcls);
    CPPUNIT_TEST(accessLogWritesEveryFormat);
    CPPUNIT_TEST(accessLogNoneEndsTheListAsInSquid);
    CPPUNIT_TEST(logformatValueIsTheRestOfTheLine);
    CPPUNIT_TEST(logformatLinesAsSquidTakesThem);
    CPPUNIT_TEST(otherRestOfLineValuesKeepTheirQuotes);
    CPPUNIT_TEST(trafficRestrictingDirectivesAreRefused);
    CPPUNIT_TEST(formsThatCannotLoosenAreAccepted);
    CPPUNIT_TEST(inertDirectivesSayWhy);
    CPPUNIT_TEST(everyRuleIsASquidDirective);
    CPPUNIT_TEST_SUITE_END();

    /// Every diagnostic of parsing `text`, which must parse (`wantOk`) or fail.
    std::vector<std::string> parse(const std::string& text, bool wantOk)
    {
        const auto s = parser.parseText(text, "t.conf");
        CPPUNIT_ASSERT_MESSAGE(said(), wantOk == bool(s));
        std::vector<std::string> out;
        for (const auto& d : parser.diagnostics())
            out.push_back(d.format());
        return out;
    }

public:
    void aliasTableIsSquids()
    {
        // the examples of Squid 5.7's cf.data.pre; `redirect_access` is not one
        CPPUNIT_ASSERT_EQUAL(std::string("access_log"), std::string(SquidAliasTarget("cache_access_log")));
        CPPUNIT_ASSERT_EQUAL(std::string("max_filedescriptors"),
                             std::string(SquidAliasTarget("max_filedesc")));
        CPPUNIT_ASSERT_EQUAL(std::string("url_rewrite_program"),
                             std::string(SquidAliasTarget("redirect_program")));
        CPPUNIT_ASSERT_EQUAL(std::string("url_rewrite_access"),
                             std::string(SquidAliasTarget("redirector_access")));
        CPPUNIT_ASSERT_EQUAL(std::string("adaptation_send_username"),
                             std::string(SquidAliasTarget("icap_send_client_username")));
        CPPUNIT_ASSERT(!SquidAliasTarget("redirect_access"));
        CPPUNIT_ASSERT(!SquidAliasTarget("access_log"));
        std::set<std::string> seen;
        for (const auto& a : SquidAliases()) {
            CPPUNIT_ASSERT_MESSAGE(a.alias, seen.insert(a.alias).second);
            // every target is a Squid directive; no alias is one itself, nor obsolete
            CPPUNIT_ASSERT_MESSAGE(a.target, IsSquidDirective(a.target));
            CPPUNIT_ASSERT_MESSAGE(a.alias, !IsSquidDirective(a.alias));
            CPPUNIT_ASSERT_MESSAGE(a.alias, !FindObsoleteDirective(a.alias));
            CPPUNIT_ASSERT_MESSAGE(a.alias, !FindDirective(a.alias));
        }
        CPPUNIT_ASSERT_EQUAL(size_t(30), SquidAliases().size());
        const auto logAliases = SquidAliasesOf("access_log");
        CPPUNIT_ASSERT_EQUAL(size_t(1), logAliases.size());
        CPPUNIT_ASSERT_EQUAL(std::string("cache_access_log"), logAliases[0]);
        CPPUNIT_ASSERT_EQUAL(size_t(2), SquidAliasesOf("tcp_outgoing_tos").size());
    }

    void aliasIsParsedAsItsTarget()
    {
        auto s = ok("max_filedesc 4096\ncache_access_log stdio:/tmp/a.log common\nascii_port 127.0.0.1:3128\n"
                    "pconn_timeout 2 minutes\npersistent_request_timeout 3 seconds\nno_cache deny all\n");
        CPPUNIT_ASSERT_EQUAL(uint64_t(4096), s->maxFiledescriptors);
        CPPUNIT_ASSERT_EQUAL(size_t(1), s->accessLogs.size());
        CPPUNIT_ASSERT_EQUAL(std::string("/tmp/a.log"), s->accessLogs[0].output.place);
        CPPUNIT_ASSERT_EQUAL(std::string("common"), s->accessLogs[0].format);
        CPPUNIT_ASSERT_EQUAL(size_t(1), s->httpPorts.size());
        CPPUNIT_ASSERT_EQUAL(int64_t(120000), s->serverIdlePconnTimeout.count());
        CPPUNIT_ASSERT_EQUAL(int64_t(3000), s->clientIdlePconnTimeout.count());
        CPPUNIT_ASSERT(parser.diagnostics().empty()); // silently, as in Squid
        // a bad value is the target's error, at the alias's line
        const auto e = parse("\nmax_filedesc lots\n", false);
        CPPUNIT_ASSERT_EQUAL(size_t(1), e.size());
        CPPUNIT_ASSERT_MESSAGE(e[0], e[0].rfind("t.conf:2: bad max_filedescriptors value 'lots'", 0) == 0);
    }

    void aliasAndTargetShareOneSetting()
    {
        // the last line wins across the two names, and the target's default is not applied over the alias
        CPPUNIT_ASSERT_EQUAL(uint64_t(100),
                             ok("max_filedescriptors 500\nmax_filedesc 100\n")->maxFiledescriptors);
        CPPUNIT_ASSERT_EQUAL(uint64_t(500),
                             ok("max_filedesc 100\nmax_filedescriptors 500\n")->maxFiledescriptors);
        CPPUNIT_ASSERT_EQUAL(int64_t(1000), ok("pconn_timeout 1 second\n")->serverIdlePconnTimeout.count());
        CPPUNIT_ASSERT_EQUAL(size_t(1), ok("acl a src all\nhttp_access2 deny a\n")->adaptedHttpAccess.size());
    }

    void aliasOfARefusedDirectiveIsRefused()
    {
        // and an alias of an implemented one is read as it (tcp_outgoing_ds is tcp_outgoing_tos)
        const auto e = parse("tcp_outgoing_ds 0x20 all\nclientside_mark 0x10\n", false);
        CPPUNIT_ASSERT_EQUAL(size_t(1), e.size());
        CPPUNIT_ASSERT_MESSAGE(e[0], e[0].rfind("t.conf:2: 'clientside_mark' (Squid's old name of "
                                                "'mark_client_packet')",
                                                0) == 0);
        CPPUNIT_ASSERT_MESSAGE(e[0], e[0].find("loosen access control") != std::string::npos);
        const auto s = ok("acl all2 src all\ntcp_outgoing_dscp 0x20 all2\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), s->tcpOutgoingTos.size());
        CPPUNIT_ASSERT_EQUAL(uint8_t(0x20), s->tcpOutgoingTos[0].tos);
    }

    void aliasOfAnIgnoredDirectiveWarnsAsItsTarget()
    {
        // one warning per directive, whatever name each line uses
        const auto w = parse("cache_swap_state /tmp/x\ncache_swap_log /tmp/y\n", true);
        CPPUNIT_ASSERT_EQUAL(size_t(1), w.size());
        CPPUNIT_ASSERT_MESSAGE(
            w[0], w[0].rfind("t.conf:1: WARNING: 'cache_swap_state' is a Squid directive", 0) == 0);
        CPPUNIT_ASSERT_MESSAGE(w[0], w[0].find("(and on 1 more line)") != std::string::npos);
    }

    void typoOfAnAliasSuggestsIt()
    {
        const auto e = errors("redirect_progam /bin/true\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), e.size());
        CPPUNIT_ASSERT_EQUAL(std::string("t.conf:1: unknown directive 'redirect_progam' (did you mean "
                                         "'redirect_program'?)"),
                             e[0]);
    }

    void obsoleteTableIsSquids()
    {
        CPPUNIT_ASSERT_EQUAL(size_t(55), ObsoleteDirectives().size());
        std::set<std::string> seen;
        for (const auto& o : ObsoleteDirectives()) {
            CPPUNIT_ASSERT_MESSAGE(o.name, seen.insert(o.name).second);
            CPPUNIT_ASSERT_MESSAGE(o.name, !FindDirective(o.name));
            CPPUNIT_ASSERT_MESSAGE(o.name, !LooseningDirectiveReason(o.name));
            CPPUNIT_ASSERT_EQUAL(o.fatal,
                                 std::string(o.name) == "log_access" || std::string(o.name) == "log_icap");
        }
        CPPUNIT_ASSERT(FindObsoleteDirective("dns_v4_first"));
        CPPUNIT_ASSERT(FindObsoleteDirective("referrer_log")); // an obsolete directive's alias
        CPPUNIT_ASSERT(FindObsoleteDirective("zph_mode"));
        CPPUNIT_ASSERT(!FindObsoleteDirective("cache_dir"));
    }

    void obsoleteDirectivesWarnAsObsolete()
    {
        const auto w = parse("dns_v4_first on\nzero_buffers off\ndns_v4_first off\n", true);
        CPPUNIT_ASSERT_EQUAL(size_t(3), w.size()); // one per line, as Squid does
        CPPUNIT_ASSERT_EQUAL(
            std::string("t.conf:1: WARNING: 'dns_v4_first' is obsolete in Squid 5.7 too: remove "
                        "it (Squid 5.7: Remove this line. Squid no longer supports "
                        "preferential treatment of DNS A records.)"),
            w[0]);
        CPPUNIT_ASSERT_EQUAL(
            std::string("t.conf:2: WARNING: 'zero_buffers' is obsolete in Squid 5.7 too: remove it"), w[1]);
        for (const auto& line : w)
            CPPUNIT_ASSERT_MESSAGE(line, line.find("not implement") == std::string::npos);
    }

    void fatalObsoleteDirectivesAreErrors()
    {
        const auto e = parse("log_access allow all\n", false);
        CPPUNIT_ASSERT_EQUAL(size_t(1), e.size());
        CPPUNIT_ASSERT_MESSAGE(e[0],
                               e[0].rfind("t.conf:1: 'log_access' is obsolete, and Squid 5.7 refuses it too: "
                                          "remove it (Squid 5.7: Remove this line. Use acls with access_log",
                                          0) == 0);
    }
    void aclManagerProtoIsSkippedWithSquidsNote()
    {
        // Squid 5.7's older configurations defined it; it is built in now
        const auto s = ok("http_port 3128\nacl manager proto cache_object\nhttp_access deny manager\n");
        const auto w = warnings();
        CPPUNIT_ASSERT_EQUAL(size_t(1), w.size());
        CPPUNIT_ASSERT_EQUAL(
            std::string("t.conf:2: WARNING: UPGRADE: ACL 'manager' is now a built-in ACL. Remove "
                        "it from your config file."),
            w[0]);
        CPPUNIT_ASSERT(s->acls.find("manager") && s->acls.find("manager")->isSupported());
        // only that form: another type for the name is still the registry's business
        parse("acl manager src 10.0.0.1\n", false);
    }

    void unimplementedAclTypeWarnsOncePerTypeAndFile()
    {
        TempDir dir;
        dir.write("inc.conf", "acl e ident .e\n");
        const std::string main =
            dir.write("squid.conf", "acl a ident .a\nacl b ident_regex b\nacl c ident .c\n"
                                    "include " +
                                        dir.path() + "/inc.conf\nacl d ident .d\n");
        CPPUNIT_ASSERT(parser.parseFile(main));
        const auto w = warnings();
        CPPUNIT_ASSERT_EQUAL(size_t(3), w.size());
        CPPUNIT_ASSERT_MESSAGE(w[0], w[0].rfind(main + ":1: WARNING: acl: acl a ", 0) == 0);
        CPPUNIT_ASSERT_MESSAGE(w[0], has(w[0], "(and on 2 more ident acl lines)"));
        CPPUNIT_ASSERT_MESSAGE(w[1], w[1].rfind(main + ":2: WARNING: acl: acl b ", 0) == 0);
        CPPUNIT_ASSERT_MESSAGE(w[1], !has(w[1], "more"));
        CPPUNIT_ASSERT_MESSAGE(w[2], w[2].rfind(dir.path() + "/inc.conf:1: WARNING: acl: acl e ", 0) == 0);
        CPPUNIT_ASSERT_MESSAGE(w[2], !has(w[2], "more"));
    }

    void unimplementedAclsAreStillRefusedWhereUsed()
    {
        const auto e = parse("acl a ident .a\nacl b ident .b\nhttp_access deny b\n", false);
        CPPUNIT_ASSERT_EQUAL(size_t(2), e.size());
        CPPUNIT_ASSERT_MESSAGE(e[1], e[1].rfind("t.conf:3: ", 0) == 0);
    }

    void cacheLogNone()
    {
        const auto s = ok("cache_log none\n");
        CPPUNIT_ASSERT_EQUAL(std::string("none"), s->cacheLog);
        const auto w = warnings();
        CPPUNIT_ASSERT_EQUAL(size_t(1), w.size());
        CPPUNIT_ASSERT_MESSAGE(w[0],
                               has(w[0], "t.conf:1: WARNING: cache_log none: cuttle keeps no cache.log"));
    }

    void accessLogFormatOrAclAsSquidDecides()
    {
        auto s = ok("acl lan src 10.0.0.0/8\naccess_log /p/a lan\naccess_log daemon:/p/b squid lan\n"
                    "access_log stdio:/p/c common !lan\naccess_log /p/d combined\n");
        CPPUNIT_ASSERT_EQUAL(size_t(4), s->accessLogs.size());
        CPPUNIT_ASSERT_EQUAL(std::string("squid"), s->accessLogs[0].format); // lan is an acl
        CPPUNIT_ASSERT_EQUAL(std::string("squid"), s->accessLogs[1].format);
        CPPUNIT_ASSERT_EQUAL(std::string("common"), s->accessLogs[2].format);
        CPPUNIT_ASSERT_EQUAL(std::string("combined"), s->accessLogs[3].format);
        // only the word right after the place can be the format: here squid is an (undefined) acl
        const auto e = parse("acl lan src 10.0.0.0/8\naccess_log /p/a lan squid\n", false);
        CPPUNIT_ASSERT_EQUAL(size_t(1), e.size());
        CPPUNIT_ASSERT_MESSAGE(e[0], has(e[0], "t.conf:2: bad access_log acls") && has(e[0], "squid"));
        // auto: Squid's old name of squid
        s = ok("access_log /p/a auto\n");
        CPPUNIT_ASSERT_EQUAL(std::string("squid"), s->accessLogs.at(0).format);
        CPPUNIT_ASSERT(has(warnings().at(0), "'auto' no longer exists"));
    }

    void accessLogOptionsThenAcls()
    {
        auto s = ok("acl lan src 10.0.0.0/8\naccess_log /p/a logformat=common lan\n"
                    "access_log /p/b buffer-size=8KB on-error=drop lan\n");
        CPPUNIT_ASSERT_EQUAL(std::string("common"), s->accessLogs.at(0).format);
        CPPUNIT_ASSERT_EQUAL(std::string("squid"), s->accessLogs.at(1).format);
        // after the options, a format name is an acl name
        CPPUNIT_ASSERT(has(errors("access_log /p/a rotate=2 common\n").at(0), "common"));
        CPPUNIT_ASSERT_EQUAL(2, s->accessLogs.at(1).acls.size() > 0 ? 2 : 0);
        CPPUNIT_ASSERT_EQUAL(size_t(8192), s->accessLogs.at(1).output.bufferSize);
        CPPUNIT_ASSERT(!s->accessLogs.at(1).output.dieOnError);
        CPPUNIT_ASSERT(!s->accessLogs.at(0).output.dieOnError);
        CPPUNIT_ASSERT(ok("access_log /p/a on-error=die\n")->accessLogs.at(0).output.dieOnError);
        s = ok("access_log /p/a rotate=3\n");
        CPPUNIT_ASSERT_EQUAL(3, s->accessLogs.at(0).output.rotate);
        CPPUNIT_ASSERT(has(errors("access_log /p/a rotate=-1\n").at(0), "bad access_log rotate"));
        CPPUNIT_ASSERT(has(errors("access_log /p/a on-error=ignore\n").at(0), "bad access_log on-error"));
        CPPUNIT_ASSERT(has(errors("access_log /p/a buffer-size=lots\n").at(0), "bad access_log buffer-size"));
        CPPUNIT_ASSERT(
            has(errors("access_log /p/a logformat=squid logformat=common\n").at(0), "second log format"));
        CPPUNIT_ASSERT(
            has(errors("access_log /p/a logformat=nosuch\n").at(0), "log format 'nosuch' is not defined"));
        CPPUNIT_ASSERT(has(errors("access_log /p/a color=blue\n").at(0), "unknown access_log option"));
    }

    void accessLogWritesEveryFormat()
    {
        auto s = ok("logformat mine %>a %ru\naccess_log /p/a mine\naccess_log /p/b referrer\n"
                    "access_log /p/c logformat=icap_squid\n");
        CPPUNIT_ASSERT(Log::AccessFormat::Custom == s->accessLogs.at(0).output.format);
        CPPUNIT_ASSERT(s->accessLogs.at(0).output.custom == s->logformats.at(0).format);
        CPPUNIT_ASSERT(Log::AccessFormat::Referrer == s->accessLogs.at(1).output.format);
        CPPUNIT_ASSERT(Log::AccessFormat::IcapSquid == s->accessLogs.at(2).output.format);
        CPPUNIT_ASSERT(!s->logformats.at(0).format->printsAllHeaders());
        // as in Squid 5.7, a whole-header code turns log_mime_hdrs on (when the logs open)
        s = ok("logformat heads %>h\n");
        CPPUNIT_ASSERT(s->logformats.at(0).format->printsAllHeaders());
        CPPUNIT_ASSERT(
            has(errors("logformat bad %>a %zz\n").at(0), "t.conf:1: logformat bad: unsupported %-code"));
    }

    void accessLogNoneEndsTheListAsInSquid()
    {
        // the log before `none` is still written; the one after never gets a line
        auto s = ok("access_log /p/a squid\naccess_log none\naccess_log /p/b common\n");
        CPPUNIT_ASSERT_EQUAL(size_t(2), s->accessLogs.size());
        CPPUNIT_ASSERT_EQUAL(std::string("/p/a"), s->accessLogs[0].output.place);
        CPPUNIT_ASSERT_EQUAL(std::string("none"), s->accessLogs[1].output.module);
        auto w = warnings();
        CPPUNIT_ASSERT_EQUAL(size_t(1), w.size());
        CPPUNIT_ASSERT_MESSAGE(w[0],
                               has(w[0], "t.conf:3: WARNING: access_log after 'access_log none' never gets"));
        // `none ACL`: the requests it matches get no line from the logs after it
        s = ok("acl lan src 10.0.0.0/8\naccess_log none lan\naccess_log /p/b\n");
        CPPUNIT_ASSERT_EQUAL(size_t(2), s->accessLogs.size());
        CPPUNIT_ASSERT_EQUAL(std::string("none"), s->accessLogs[0].output.module);
        CPPUNIT_ASSERT_EQUAL(size_t(1), s->accessLogs[0].acls.size());
        CPPUNIT_ASSERT_EQUAL(std::string("/p/b"), s->accessLogs[1].output.place);
        CPPUNIT_ASSERT(warnings().empty());
    }

    void logformatValueIsTheRestOfTheLine()
    {
        std::vector<Diagnostic> diagnostics;
        Lexer lexer(diagnostics, "/");
        std::vector<Line> lines;
        lexer.readText("logformat q  %>a \"%{User-Agent}>h\"x \"%rm   # kept  \t\n"
                       "acl x src 10.0.0.1 # a comment\nerr_html_text <a href=\"mailto:x\">x</a>\n",
                       "t.conf", lines);
        CPPUNIT_ASSERT(diagnostics.empty());
        CPPUNIT_ASSERT_EQUAL(size_t(3), lines.size());
        CPPUNIT_ASSERT_EQUAL(size_t(3), lines[0].words.size());
        CPPUNIT_ASSERT_EQUAL(std::string("q"), lines[0].words[1]);
        CPPUNIT_ASSERT_EQUAL(std::string("%>a \"%{User-Agent}>h\"x \"%rm   # kept"), lines[0].words[2]);
        CPPUNIT_ASSERT_EQUAL(size_t(4), lines[1].words.size()); // other lines as before
        CPPUNIT_ASSERT_EQUAL(size_t(2), lines[2].words.size());
        CPPUNIT_ASSERT_EQUAL(std::string("<a href=\"mailto:x\">x</a>"), lines[2].words[1]);
    }

    void logformatLinesAsSquidTakesThem()
    {
        auto s = ok("logformat combined2 %>a %[ui %[un [%tl] \"%rm %ru HTTP/%rv\" %>Hs %<st \"%{Referer}>h\" "
                    "\"%{User-Agent}>h\" %Ss:%Sh\nlogformat squid %ts\nlogformat combined2 %>a\n");
        CPPUNIT_ASSERT_EQUAL(size_t(1), s->logformats.size());
        CPPUNIT_ASSERT_EQUAL(std::string("combined2"), s->logformats[0].name);
        const auto w = warnings();
        CPPUNIT_ASSERT_EQUAL(size_t(2), w.size());
        CPPUNIT_ASSERT_MESSAGE(w[0], has(w[0], "t.conf:2: WARNING: logformat squid is already defined"));
        CPPUNIT_ASSERT_MESSAGE(w[1], has(w[1], "t.conf:3: WARNING: logformat combined2 is already defined"));
        CPPUNIT_ASSERT(has(parse("logformat lonely\n", false).at(0), "logformat lonely needs a FORMAT"));
    }

    void otherRestOfLineValuesKeepTheirQuotes()
    {
        // Squid-only directives whose values hold quotes: warned about, not refused
        ok("err_html_text <b>\"unbalanced\n"
           "request_header_replace User-Agent \"Mozilla\"/5.0\n");
    }
    void trafficRestrictingDirectivesAreRefused()
    {
        for (const char* line : {"mark_client_packet 0x10", "neighbor_type_domain p sibling .example",
                                 "delay_pools 2", "umask 027"}) {
            const auto e = errors(std::string(line) + "\n");
            CPPUNIT_ASSERT_EQUAL_MESSAGE(line, size_t(1), e.size());
        }
        const auto e = errors("mark_client_packet 0x10\n");
        CPPUNIT_ASSERT_MESSAGE(e[0],
                               has(e[0], "t.conf:1: 'mark_client_packet' is a Squid directive that cuttle "
                                         "does not implement, and ignoring it could loosen access control or "
                                         "change where traffic goes (shaping or firewall rules"));
    }

    void formsThatCannotLoosenAreAccepted()
    {
        ok("delay_pools 0\n"
           "chroot none\n");
        const auto w = warnings();
        CPPUNIT_ASSERT_EQUAL(size_t(2), w.size());
        for (const auto& line : w)
            CPPUNIT_ASSERT_MESSAGE(line, has(line, "; this line cannot loosen anything"));
    }

    void inertDirectivesSayWhy()
    {
        ok("delay_access 1 deny all\nurl_rewrite_host_header off\n");
        const auto w = warnings();
        CPPUNIT_ASSERT_EQUAL(size_t(2), w.size());
        CPPUNIT_ASSERT_MESSAGE(w[0], has(w[0], "ignoring it (it has no effect without delay_pools"));
        CPPUNIT_ASSERT_MESSAGE(w[1], has(w[1], "ignoring it (a rewritten request always carries"));
    }

    void everyRuleIsASquidDirective()
    {
        std::set<std::string> seen;
        for (const auto& r : SquidOnlyRules()) {
            CPPUNIT_ASSERT_MESSAGE(r.name, seen.insert(r.name).second);
            CPPUNIT_ASSERT_MESSAGE(r.name, IsSquidDirective(r.name));
            CPPUNIT_ASSERT_MESSAGE(r.name, !FindDirective(r.name)); // an implemented one leaves the audit
            CPPUNIT_ASSERT_MESSAGE(r.name, !r.harmless || r.refused);
            CPPUNIT_ASSERT_MESSAGE(r.name, *r.why);
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestSquidCompat);
