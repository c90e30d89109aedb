/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "errors/Catalog.h"
#include "base/tests/TempDir.h"
#include "log/CacheLog.h"

#include <cppunit/extensions/HelperMacros.h>

#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

/// The tags of VALUE joined with '|', for messages cppunit can print.
std::string tags(std::string_view value)
{
    std::string out;
    for (const auto& tag : Errors::AcceptLanguageTags(value))
        out += (out.empty() ? "" : "|") + tag;
    return out;
}

/// A language tree as Debian's squid-langpack lays it out, and cuttle's own templates.
struct Tree {
    TempDir root;
    TempDir own;
    Tree()
    {
        root.write("de/ERR_ACCESS_DENIED", "de page");
        root.write("ja/ERR_ACCESS_DENIED", "ja page");
        root.write("ja/ERR_DNS_FAIL", "ja dns");
        root.write("pt-br/ERR_ACCESS_DENIED", "pt-br page");
        root.write("fr/README", "no pages");
        root.write("templates/ERR_ACCESS_DENIED", "squid english");
        root.write("templates/ERR_DNS_FAIL", "squid english dns");
        own.write("ERR_ACCESS_DENIED", "cuttle english");
        if (::symlink("de", (root.path() + "/de-ch").c_str()) != 0 ||
            ::symlink("de", (root.path() + "/German").c_str()) != 0)
            throw std::runtime_error("symlink failed");
    }
    Errors::CatalogSources sources() const
    {
        Errors::CatalogSources s;
        s.ownTemplates = own.path();
        s.languagesRoot = root.path();
        return s;
    }
};

} // namespace

/// Tests of Errors::AcceptLanguageTags() and Errors::Catalog.
class TestCatalog : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestCatalog);
    CPPUNIT_TEST(tagsAreReadAsSquidReadsThem);
    CPPUNIT_TEST(firstTagWithPagesWins);
    CPPUNIT_TEST(linkedRegionGetsItsLanguage);
    CPPUNIT_TEST(noBaseLanguageFallback);
    CPPUNIT_TEST(noMatchGivesTheDefaultLanguage);
    CPPUNIT_TEST(missingLanguagesAreLoggedUnlessOff);
    CPPUNIT_TEST(aLanguageWithoutThePageIsSkipped);
    CPPUNIT_TEST(errorDirectoryIsNotNegotiated);
    CPPUNIT_TEST(missingErrorDirectoryFallsBackAndIsLogged);
    CPPUNIT_TEST(denyInfoPagesAreNotNegotiated);
    CPPUNIT_TEST(stylesheetIsReadAtLoad);
    CPPUNIT_TEST(linksShareOneCopy);
    CPPUNIT_TEST_SUITE_END();

public:
    void setUp() override { Log::cacheLog().setStderrStream(&log_); }
    void tearDown() override { Log::cacheLog().setStderrStream(nullptr); }

    /// Squid 5.7 (strHdrAcptLangGetItem): order kept, q-values ignored,
    /// lowercased, '_' read as '-', tags with other characters skipped
    void tagsAreReadAsSquidReadsThem()
    {
        CPPUNIT_ASSERT_EQUAL(std::string("de-ch|de|en"), tags("de-CH, de;q=0.9, en;q=0.8"));
        CPPUNIT_ASSERT_EQUAL(std::string("ja|de"), tags("ja;q=0, de")); // q=0 too
        CPPUNIT_ASSERT_EQUAL(std::string("fr"), tags("es-419, fr"));    // a digit: skipped
        CPPUNIT_ASSERT_EQUAL(std::string("pt-br"), tags("pt_BR"));
        CPPUNIT_ASSERT_EQUAL(std::string("*|de"), tags("*, de"));
        CPPUNIT_ASSERT_EQUAL(std::string("de|fr"), tags("  de ch ,,fr"));
        CPPUNIT_ASSERT_EQUAL(std::string(), tags(""));
        CPPUNIT_ASSERT_EQUAL(std::string(), tags("../../etc, d/e"));
        CPPUNIT_ASSERT_EQUAL(size_t(255), Errors::AcceptLanguageTags(std::string(1000, 'a')).at(0).size());
    }

    void firstTagWithPagesWins()
    {
        const auto c = load(tree_.sources());
        const auto p = c.choose("ERR_ACCESS_DENIED", "xx, ja;q=0.1, de");
        CPPUNIT_ASSERT_EQUAL(std::string("ja page"), p.text);
        CPPUNIT_ASSERT_EQUAL(std::string("ja"), p.contentLanguage);
        CPPUNIT_ASSERT(p.vary);
        CPPUNIT_ASSERT_EQUAL(std::string("pt-br page"), c.choose("ERR_ACCESS_DENIED", "pt_BR").text);
    }

    /// de-CH has no pages of its own: the pack links de-ch to de, and the
    /// reply says the tag asked for, as Squid 5.7's does
    void linkedRegionGetsItsLanguage()
    {
        const auto c = load(tree_.sources());
        const auto p = c.choose("ERR_ACCESS_DENIED", "de-CH");
        CPPUNIT_ASSERT_EQUAL(std::string("de page"), p.text);
        CPPUNIT_ASSERT_EQUAL(std::string("de-ch"), p.contentLanguage);
    }

    void noBaseLanguageFallback()
    {
        const auto c = load(tree_.sources());
        const auto p = c.choose("ERR_ACCESS_DENIED", "de-xx");
        CPPUNIT_ASSERT_EQUAL(std::string("cuttle english"), p.text);
        CPPUNIT_ASSERT_EQUAL(std::string("en"), p.contentLanguage);
    }

    void noMatchGivesTheDefaultLanguage()
    {
        auto s = tree_.sources();
        const auto plain = load(s);
        CPPUNIT_ASSERT_EQUAL(std::string("cuttle english"), plain.choose("ERR_ACCESS_DENIED", "").text);
        CPPUNIT_ASSERT_EQUAL(std::string("cuttle english"), plain.choose("ERR_ACCESS_DENIED", "*, de").text);
        CPPUNIT_ASSERT_EQUAL(std::string("cuttle english"), plain.choose("ERR_ACCESS_DENIED", "German").text);
        // no cuttle page: the tree's templates, then the built-in page
        CPPUNIT_ASSERT_EQUAL(std::string("squid english dns"), plain.choose("ERR_DNS_FAIL", "xx").text);
        CPPUNIT_ASSERT_EQUAL(Errors::Templates::FallbackTemplate(),
                             plain.choose("ERR_CONNECT_FAIL", "xx").text);
        s.defaultLanguage = "ja";
        const auto ja = load(s);
        const auto p = ja.choose("ERR_ACCESS_DENIED", "xx");
        CPPUNIT_ASSERT_EQUAL(std::string("ja page"), p.text);
        CPPUNIT_ASSERT_EQUAL(std::string("ja"), p.contentLanguage);
        CPPUNIT_ASSERT(p.vary);
    }

    void missingLanguagesAreLoggedUnlessOff()
    {
        auto s = tree_.sources();
        load(s).choose("ERR_ACCESS_DENIED", "xx, de");
        CPPUNIT_ASSERT(log_.str().find("WARNING: Error Pages Missing Language: xx") != std::string::npos);
        CPPUNIT_ASSERT(log_.str().find("Missing Language: de") == std::string::npos);
        log_.str("");
        s.logMissingLanguages = false;
        load(s).choose("ERR_ACCESS_DENIED", "xx, de");
        CPPUNIT_ASSERT(log_.str().find("Missing Language") == std::string::npos);
    }

    void aLanguageWithoutThePageIsSkipped()
    {
        const auto c = load(tree_.sources());
        const auto p = c.choose("ERR_DNS_FAIL", "de, ja");
        CPPUNIT_ASSERT_EQUAL(std::string("ja dns"), p.text);
        CPPUNIT_ASSERT_EQUAL(std::string("ja"), p.contentLanguage);
    }

    void errorDirectoryIsNotNegotiated()
    {
        auto s = tree_.sources();
        s.errorDirectory = tree_.root.path() + "/ja";
        const auto c = load(s);
        const auto p = c.choose("ERR_ACCESS_DENIED", "de");
        CPPUNIT_ASSERT_EQUAL(std::string("ja page"), p.text);
        CPPUNIT_ASSERT(p.contentLanguage.empty());
        CPPUNIT_ASSERT(!p.vary);
        CPPUNIT_ASSERT_EQUAL(size_t(0), c.languageCount());
    }

    void missingErrorDirectoryFallsBackAndIsLogged()
    {
        auto s = tree_.sources();
        s.errorDirectory = "/nonexistent/cuttle/errors";
        const auto c = load(s);
        const auto p = c.choose("ERR_ACCESS_DENIED", "de");
        CPPUNIT_ASSERT_EQUAL(std::string("cuttle english"), p.text);
        CPPUNIT_ASSERT(log_.str().find("ERROR: cannot read error_directory /nonexistent/cuttle/errors") !=
                       std::string::npos);
    }

    void denyInfoPagesAreNotNegotiated()
    {
        tree_.own.write("MY_PAGE", "mine");
        tree_.root.write("de/MY_PAGE", "meins");
        auto s = tree_.sources();
        s.extraNames = {"MY_PAGE", "NO_SUCH_PAGE"};
        const auto c = load(s);
        const auto p = c.choose("MY_PAGE", "de");
        CPPUNIT_ASSERT_EQUAL(std::string("mine"), p.text);
        CPPUNIT_ASSERT_EQUAL(std::string("en"), p.contentLanguage);
        CPPUNIT_ASSERT(log_.str().find("WARNING: error page NO_SUCH_PAGE is in none of") !=
                       std::string::npos);
    }

    void stylesheetIsReadAtLoad()
    {
        auto s = tree_.sources();
        s.stylesheet = tree_.own.write("errorpage.css", "body { color: red }");
        CPPUNIT_ASSERT_EQUAL(std::string("body { color: red }"), load(s).stylesheet());
        s.stylesheet = "/nonexistent/errorpage.css";
        CPPUNIT_ASSERT_EQUAL(std::string(), load(s).stylesheet());
        CPPUNIT_ASSERT(log_.str().find("ERROR: cannot read err_page_stylesheet /nonexistent/errorpage.css") !=
                       std::string::npos);
        s.stylesheet = "none";
        CPPUNIT_ASSERT_EQUAL(std::string(), load(s).stylesheet());
    }

    /// de, de-ch (a link) are two tags; fr/ has no page and is no language
    void linksShareOneCopy()
    {
        const auto c = load(tree_.sources());
        // de, de-ch, ja, pt-br, templates
        CPPUNIT_ASSERT_EQUAL(size_t(5), c.languageCount());
    }

private:
    static Errors::Catalog load(const Errors::CatalogSources& sources)
    {
        Errors::Catalog c;
        c.load(sources);
        return c;
    }

    Tree tree_;              ///< a fresh tree per test
    std::ostringstream log_; ///< cache.log output during a test
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestCatalog);
