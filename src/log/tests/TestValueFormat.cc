/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "log/ValueFormat.h"

#include <cppunit/extensions/HelperMacros.h>

/// Tests of Log::ValueFormat (request_header_add's quoted values).
class TestValueFormat : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(TestValueFormat);
    CPPUNIT_TEST(textWithoutCodesIsLiteral);
    CPPUNIT_TEST(everyCodeIsFilledIn);
    CPPUNIT_TEST(emptyFactsPrintDashes);
    CPPUNIT_TEST(doublePercentIsOnePercent);
    CPPUNIT_TEST(unknownCodesAndModifiersAreRefused);
    CPPUNIT_TEST(parsingAgainForgetsThePreviousValue);
    CPPUNIT_TEST_SUITE_END();

    static Log::ValueFormat Parsed(const std::string& text)
    {
        Log::ValueFormat f;
        std::string why;
        CPPUNIT_ASSERT_MESSAGE(text + ": " + why, f.parse(text, why));
        return f;
    }

    static Log::FormatFacts Facts()
    {
        Log::FormatFacts facts;
        facts.clientAddress = "192.0.2.7";
        facts.method = "POST";
        facts.url = "http://example.com/a?b";
        facts.user = "alice";
        facts.start = timeval{1700000000, 5000}; // 5 ms
        facts.requestField = [](std::string_view name) -> std::optional<std::string> {
            if (name == "User-Agent")
                return std::string("UA/1");
            return std::nullopt;
        };
        return facts;
    }

public:
    void textWithoutCodesIsLiteral()
    {
        const auto f = Parsed("plain text, with blanks");
        CPPUNIT_ASSERT(f.isLiteral());
        CPPUNIT_ASSERT_EQUAL(std::string("plain text, with blanks"), f.expand(Log::FormatFacts{}));
        CPPUNIT_ASSERT(Parsed("").isLiteral());
    }

    void everyCodeIsFilledIn()
    {
        const auto f = Parsed("%>a|%rm|%ru|%un|%ts.%tu|%{User-Agent}>h|%{X-None}>h");
        CPPUNIT_ASSERT(!f.isLiteral());
        CPPUNIT_ASSERT_EQUAL(std::string("192.0.2.7|POST|http://example.com/a?b|alice|1700000000.5|UA/1|-"),
                             f.expand(Facts()));
    }

    void emptyFactsPrintDashes()
    {
        CPPUNIT_ASSERT_EQUAL(std::string("- - - - -"),
                             Parsed("%>a %rm %ru %un %{Referer}>h").expand(Log::FormatFacts{}));
    }

    void doublePercentIsOnePercent()
    {
        CPPUNIT_ASSERT_EQUAL(std::string("100% %>a"), Parsed("100%% %%>a").expand(Facts()));
    }

    void unknownCodesAndModifiersAreRefused()
    {
        for (const char* bad :
             {"%xyz", "a %", "%03tu", "%[un", "%<a", "%{Host}<h", "%{}>h", "%ssl::>cert_issuer"}) {
            Log::ValueFormat f;
            std::string why;
            CPPUNIT_ASSERT_MESSAGE(bad, !f.parse(bad, why));
            CPPUNIT_ASSERT_MESSAGE(bad, !why.empty());
        }
    }

    void parsingAgainForgetsThePreviousValue()
    {
        Log::ValueFormat f;
        std::string why;
        CPPUNIT_ASSERT(f.parse("%>a", why));
        CPPUNIT_ASSERT(f.parse("x", why));
        CPPUNIT_ASSERT_EQUAL(std::string("x"), f.expand(Facts()));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TestValueFormat);
