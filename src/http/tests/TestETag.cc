/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"

#include "http/ETag.h"

#include <cppunit/extensions/HelperMacros.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

/// Http::EntityTag, its lists and the If-Match / If-None-Match preconditions.
class TestETag : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestETag);
    CPPUNIT_TEST(parsesStrongAndWeakTags);
    CPPUNIT_TEST(tagPointsIntoTheText);
    CPPUNIT_TEST(rejectsMalformedTags);
    CPPUNIT_TEST(comparisonFollowsTheRfcTable);
    CPPUNIT_TEST(toStringThenParseGivesTheTagBack);
    CPPUNIT_TEST(listsOfTheRfcExamplesParse);
    CPPUNIT_TEST(listsTolerateWhitespaceEmptyElementsAndSeveralLines);
    CPPUNIT_TEST(commaInsideATagDoesNotSplitIt);
    CPPUNIT_TEST(malformedListsAreInvalid);
    CPPUNIT_TEST(ifMatchUsesStrongComparison);
    CPPUNIT_TEST(ifNoneMatchUsesWeakComparison);
    CPPUNIT_TEST(starMatchesAnyStoredReply);
    CPPUNIT_TEST(absentOrInvalidFieldIsIgnored);
    CPPUNIT_TEST(garbageNeverThrows);
    CPPUNIT_TEST_SUITE_END();

public:
    void parsesStrongAndWeakTags();
    void tagPointsIntoTheText();
    void rejectsMalformedTags();
    void comparisonFollowsTheRfcTable();
    void toStringThenParseGivesTheTagBack();
    void listsOfTheRfcExamplesParse();
    void listsTolerateWhitespaceEmptyElementsAndSeveralLines();
    void commaInsideATagDoesNotSplitIt();
    void malformedListsAreInvalid();
    void ifMatchUsesStrongComparison();
    void ifNoneMatchUsesWeakComparison();
    void starMatchesAnyStoredReply();
    void absentOrInvalidFieldIsIgnored();
    void garbageNeverThrows();
};
CPPUNIT_TEST_SUITE_REGISTRATION(TestETag);

namespace {

using Values = std::vector<std::string_view>;

Http::EntityTag Tag(std::string_view text)
{
    const auto t = Http::ParseEntityTag(text);
    CPPUNIT_ASSERT_MESSAGE(std::string(text), t);
    return *t;
}

} // namespace

void TestETag::parsesStrongAndWeakTags()
{
    auto t = Tag("\"xyzzy\"");
    CPPUNIT_ASSERT_EQUAL(std::string("xyzzy"), std::string(t.opaque()));
    CPPUNIT_ASSERT(!t.isWeak());
    t = Tag("W/\"xyzzy\"");
    CPPUNIT_ASSERT_EQUAL(std::string("xyzzy"), std::string(t.opaque()));
    CPPUNIT_ASSERT(t.isWeak());
    t = Tag("\"\""); // etagc* allows an empty opaque-tag
    CPPUNIT_ASSERT(t.opaque().empty());
    t = Tag(" \t\"a!#~\x80\xff\" "); // obs-text and surrounding whitespace
    CPPUNIT_ASSERT_EQUAL(std::string("a!#~\x80\xff"), std::string(t.opaque()));
    t = Tag("\"W/\""); // a strong tag whose opaque-tag happens to be W/
    CPPUNIT_ASSERT(!t.isWeak());
    CPPUNIT_ASSERT_EQUAL(std::string("W/"), std::string(t.opaque()));
}

void TestETag::tagPointsIntoTheText()
{
    const std::string text = "W/\"abc\"";
    const auto t = Tag(text);
    CPPUNIT_ASSERT(t.opaque().data() == text.data() + 3); // no copy
}

void TestETag::rejectsMalformedTags()
{
    const char* const bad[] = {
        "",          "   ",          "xyzzy",      "\"xyzzy",   "xyzzy\"",   "w/\"xyzzy\"",    "W/xyzzy",
        "W/",        "W/ \"xyzzy\"", "W\"xyzzy\"", "\"a b\"",   "\"a\"b\"",  "\"a\" junk",     "\"a\",\"b\"",
        "*",         "'xyzzy'",      "\"a\tb\"",   "\"a\x7f\"", "\"a\x01\"", "W/\"a\"W/\"b\"", "\"a\"\"b\"",
        "W/W/\"a\"", "\"",           "W//\"a\"",
    };
    for (const char* text : bad)
        CPPUNIT_ASSERT_MESSAGE(text, !Http::ParseEntityTag(text));
    CPPUNIT_ASSERT(!Http::ParseEntityTag(std::string_view("\"a\0\"", 4)));
}

void TestETag::comparisonFollowsTheRfcTable()
{
    // RFC 9110 section 8.8.3.2, the example table
    struct Row {
        const char* a;
        const char* b;
        bool strong;
        bool weak;
    } rows[] = {
        {"W/\"1\"", "W/\"1\"", false, true},
        {"W/\"1\"", "W/\"2\"", false, false},
        {"W/\"1\"", "\"1\"", false, true},
        {"\"1\"", "\"1\"", true, true},
    };
    for (const auto& r : rows) {
        const auto a = Tag(r.a), b = Tag(r.b);
        CPPUNIT_ASSERT_EQUAL(r.strong, a.strongMatch(b));
        CPPUNIT_ASSERT_EQUAL(r.strong, b.strongMatch(a)); // symmetric
        CPPUNIT_ASSERT_EQUAL(r.weak, a.weakMatch(b));
        CPPUNIT_ASSERT_EQUAL(r.weak, b.weakMatch(a));
    }
    // octet by octet: no case folding
    CPPUNIT_ASSERT(!Tag("\"abc\"").weakMatch(Tag("\"ABC\"")));
}

void TestETag::toStringThenParseGivesTheTagBack()
{
    std::mt19937 rng(1);
    for (int i = 0; i < 5000; ++i) {
        std::string opaque(rng() % 12, 'x');
        for (auto& c : opaque) {
            // any etagc: 0x21, 0x23..0x7e, 0x80..0xff
            do
                c = static_cast<char>(0x21 + rng() % (0x100 - 0x21));
            while (c == '"' || c == '\x7f');
        }
        const Http::EntityTag tag(opaque, rng() % 2);
        const auto text = tag.toString();
        const auto back = Http::ParseEntityTag(text);
        CPPUNIT_ASSERT(back);
        CPPUNIT_ASSERT_EQUAL(opaque, std::string(back->opaque()));
        CPPUNIT_ASSERT_EQUAL(tag.isWeak(), back->isWeak());
        CPPUNIT_ASSERT(back->weakMatch(tag));
        CPPUNIT_ASSERT_EQUAL(!tag.isWeak(), back->strongMatch(tag));
    }
}

void TestETag::listsOfTheRfcExamplesParse()
{
    // RFC 9110 sections 13.1.1 and 13.1.2
    auto l = Http::ParseEntityTagList({"\"xyzzy\""});
    CPPUNIT_ASSERT(l && !l->isAny && l->tags.size() == 1);
    l = Http::ParseEntityTagList({"\"xyzzy\", \"r2d2xxxx\", \"c3piozzzz\""});
    CPPUNIT_ASSERT(l && l->tags.size() == 3);
    CPPUNIT_ASSERT_EQUAL(std::string("c3piozzzz"), std::string(l->tags[2].opaque()));
    l = Http::ParseEntityTagList({"W/\"xyzzy\""});
    CPPUNIT_ASSERT(l && l->tags.size() == 1 && l->tags[0].isWeak());
    l = Http::ParseEntityTagList({"W/\"xyzzy\", W/\"r2d2xxxx\", W/\"c3piozzzz\""});
    CPPUNIT_ASSERT(l && l->tags.size() == 3 && l->tags[1].isWeak());
    l = Http::ParseEntityTagList({"*"});
    CPPUNIT_ASSERT(l && l->isAny && l->tags.empty());
}

void TestETag::listsTolerateWhitespaceEmptyElementsAndSeveralLines()
{
    const auto l = Http::ParseEntityTagList({" , \"a\" ,,\t W/\"b\",", "", "\"c\""});
    CPPUNIT_ASSERT(l);
    CPPUNIT_ASSERT_EQUAL(size_t(3), l->tags.size());
    CPPUNIT_ASSERT_EQUAL(std::string("a"), std::string(l->tags[0].opaque()));
    CPPUNIT_ASSERT(l->tags[1].isWeak());
    CPPUNIT_ASSERT_EQUAL(std::string("c"), std::string(l->tags[2].opaque()));
    CPPUNIT_ASSERT(Http::ParseEntityTagList({" * "})->isAny);
    CPPUNIT_ASSERT(Http::ParseEntityTagList({"\"a\",\"b\""})->tags.size() == 2); // no space needed
}

void TestETag::commaInsideATagDoesNotSplitIt()
{
    const auto l = Http::ParseEntityTagList({"\"a,b\", W/\",\""});
    CPPUNIT_ASSERT(l);
    CPPUNIT_ASSERT_EQUAL(size_t(2), l->tags.size());
    CPPUNIT_ASSERT_EQUAL(std::string("a,b"), std::string(l->tags[0].opaque()));
    CPPUNIT_ASSERT_EQUAL(std::string(","), std::string(l->tags[1].opaque()));
}

void TestETag::malformedListsAreInvalid()
{
    const std::vector<Values> bad = {
        {},          {""},          {" , ,"},        {"*, \"a\""}, {"\"a\", *"},   {"*", "\"a\""},
        {"*", "*"},  {"**"},        {"\"a\" \"b\""}, {"\"a\", b"}, {"\"a\", \"b"}, {"\"a\"", "junk"},
        {"w/\"a\""}, {"\"a\";q=1"},
    };
    for (const auto& values : bad)
        CPPUNIT_ASSERT(!Http::ParseEntityTagList(values));
}

void TestETag::ifMatchUsesStrongComparison()
{
    const auto strong = Tag("\"xyzzy\"");
    const auto weak = Tag("W/\"xyzzy\"");
    CPPUNIT_ASSERT(Http::EvaluateIfMatch({"\"xyzzy\""}, strong) == true);
    CPPUNIT_ASSERT(Http::EvaluateIfMatch({"\"r2d2xxxx\", \"xyzzy\""}, strong) == true);
    CPPUNIT_ASSERT(Http::EvaluateIfMatch({"\"r2d2xxxx\"", "\"xyzzy\""}, strong) == true);
    CPPUNIT_ASSERT(Http::EvaluateIfMatch({"W/\"xyzzy\""}, strong) == false);
    CPPUNIT_ASSERT(Http::EvaluateIfMatch({"\"xyzzy\""}, weak) == false);
    CPPUNIT_ASSERT(Http::EvaluateIfMatch({"\"other\""}, strong) == false);
    CPPUNIT_ASSERT(Http::EvaluateIfMatch({"\"xyzzy\""}, std::nullopt) == false); // stored reply has no ETag
}

void TestETag::ifNoneMatchUsesWeakComparison()
{
    const auto strong = Tag("\"xyzzy\"");
    const auto weak = Tag("W/\"xyzzy\"");
    CPPUNIT_ASSERT(Http::EvaluateIfNoneMatch({"\"xyzzy\""}, strong) == false);
    CPPUNIT_ASSERT(Http::EvaluateIfNoneMatch({"W/\"xyzzy\""}, strong) == false);
    CPPUNIT_ASSERT(Http::EvaluateIfNoneMatch({"\"xyzzy\""}, weak) == false);
    CPPUNIT_ASSERT(Http::EvaluateIfNoneMatch({"W/\"r2d2xxxx\", W/\"xyzzy\""}, weak) == false);
    CPPUNIT_ASSERT(Http::EvaluateIfNoneMatch({"\"r2d2xxxx\", \"c3piozzzz\""}, strong) == true);
    CPPUNIT_ASSERT(Http::EvaluateIfNoneMatch({"\"XYZZY\""}, strong) == true);
    CPPUNIT_ASSERT(Http::EvaluateIfNoneMatch({"\"xyzzy\""}, std::nullopt) == true);
}

void TestETag::starMatchesAnyStoredReply()
{
    CPPUNIT_ASSERT(Http::EvaluateIfMatch({"*"}, Tag("W/\"a\"")) == true);
    CPPUNIT_ASSERT(Http::EvaluateIfMatch({"*"}, std::nullopt) == true);
    CPPUNIT_ASSERT(Http::EvaluateIfNoneMatch({"*"}, Tag("\"a\"")) == false);
    CPPUNIT_ASSERT(Http::EvaluateIfNoneMatch({"*"}, std::nullopt) == false);
}

void TestETag::absentOrInvalidFieldIsIgnored()
{
    const auto tag = Tag("\"a\"");
    CPPUNIT_ASSERT(!Http::EvaluateIfMatch({}, tag));
    CPPUNIT_ASSERT(!Http::EvaluateIfNoneMatch({}, tag));
    CPPUNIT_ASSERT(!Http::EvaluateIfMatch({"a"}, tag));
    CPPUNIT_ASSERT(!Http::EvaluateIfNoneMatch({"\"a\" junk"}, tag));
    CPPUNIT_ASSERT(!Http::EvaluateIfNoneMatch({"*, \"a\""}, tag));
}

void TestETag::garbageNeverThrows()
{
    std::mt19937 rng(2);
    const std::string alphabet = "W/\"*, \tab\x80\x7f;=";
    const auto tag = Tag("\"a\"");
    for (int i = 0; i < 50000; ++i) {
        std::string text(rng() % 24, ' ');
        for (auto& c : text)
            c = rng() % 4 ? alphabet[rng() % alphabet.size()] : static_cast<char>(rng());
        const auto t = Http::ParseEntityTag(text);
        if (t) {                                // what parses prints back to the text without its whitespace
            const auto printed = t->toString(); // the parsed tag points into it
            const auto again = Http::ParseEntityTag(printed);
            CPPUNIT_ASSERT(again && again->opaque() == t->opaque() && again->isWeak() == t->isWeak());
        }
        const auto l = Http::ParseEntityTagList({text});
        if (l)
            CPPUNIT_ASSERT(l->isAny != !l->tags.empty());
        const auto im = Http::EvaluateIfMatch({text}, tag);
        const auto inm = Http::EvaluateIfNoneMatch({text}, tag);
        CPPUNIT_ASSERT_EQUAL(im.has_value(), l.has_value());
        CPPUNIT_ASSERT_EQUAL(inm.has_value(), l.has_value());
    }
}
